//! `cuprum::gpu`: the device-side API of Cuprum kernels.
//!
//! Inside a `#[kernel]` (or `#[device]` function called from one) these names are compiled to
//! GPU instructions by Cuprum's compiler, and the CPU simulator runs its own emitted code for
//! them. The Rust definitions here let `#[device]` functions compile as ordinary host Rust:
//! atomics are plain read-modify-writes there, and what only makes sense inside a kernel
//! (indices, barriers, shared memory, warp operations) panics with a message saying so.

#![deny(missing_docs)]

mod atomic;
mod dim3;
mod index;
mod math;
mod print;
mod shared;
#[doc(hidden)]
pub mod sim;
mod sync;
mod warp;

pub use atomic::*;
pub use dim3::Dim3;
pub use index::*;
pub use math::{clock, clock64, fast, rsqrt, Float, Int, Num};
pub use shared::*;
pub use sync::*;
pub use warp::*;

/// Threads per warp on every NVIDIA GPU.
pub const WARP_SIZE: u32 = 32;

/// A warp mask naming all 32 lanes, for `*_sync` warp operations.
pub const FULL_MASK: u32 = 0xffff_ffff;
