//! The compiler's tests, as unit tests so that they reach its private modules (one test binary,
//! not one per file: each links LLVM). `tests/libdevice_missing.rs` stays an integration test:
//! it needs a process of its own.

mod check;
mod common;
mod compare32;
mod consts;
mod counted;
mod deterministic;
mod fuzz;
mod host;
mod ir;
mod latch;
mod lower;
mod math;
mod narrow;
mod param_space;
mod report;
mod sass;
mod structs;
mod unroll;
