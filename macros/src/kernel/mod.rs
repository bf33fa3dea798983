//! `#[kernel]`: compile the function with `cuprum-codegen` and emit the kernel's type, its
//! PTX and its typed `launch` (one `impl` per instance of a generic kernel).
//!
//! - `expand`: the driver (device-function collection, attribute policy, the instance loop,
//!   one report per error), which calls codegen's one entry point, `cuprum_codegen::build`;
//! - `emit`: prints a compiled instance's `Artifact` as items;
//! - `fallback`: the items of an instance that did not compile, which keep code that uses the
//!   kernel from reporting anything more.

mod emit;
mod expand;
mod fallback;

pub use expand::{expand, finish};
