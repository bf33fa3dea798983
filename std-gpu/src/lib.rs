//! `cuprum::gpu`: the device-side API of Cuprum kernels.
//!
//! Inside a `#[kernel]` these names are compiled to GPU instructions by Cuprum's compiler; the
//! Rust definitions here are what the CPU simulator runs. Calling them outside a running
//! kernel panics with a message saying so: they have no meaning on the host.

#![deny(missing_docs)]

mod dim3;
mod index;
#[doc(hidden)]
pub mod sim;
mod sync;

pub use dim3::Dim3;
pub use index::*;
pub use sync::*;

/// Threads per warp on every NVIDIA GPU.
pub const WARP_SIZE: u32 = 32;

/// A warp mask naming all 32 lanes, for `*_sync` warp operations.
pub const FULL_MASK: u32 = 0xffff_ffff;
