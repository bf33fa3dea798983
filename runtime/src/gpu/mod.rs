//! `cuprum::gpu`: the device-side API of kernels (`cuprum-std`, re-exported whole) and the
//! cooperative primitives written in Cuprum itself on top of it: [`warp`] (the 32 lanes of a
//! warp) and [`block`] (every thread of a block). Kernels call them by path,
//! `gpu::block::sum(v)`; they are `#[device]` functions, inlined where they are called.

pub use cuprum_std::*;

pub mod block;
pub mod warp;
