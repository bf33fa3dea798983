//! # Cuprum
//!
//! GPU kernels written as ordinary Rust functions, compiled to PTX at `cargo build` through
//! LLVM's NVPTX backend, launched with type-checked calls.
//!
//! ```no_run
//! use cuprum::prelude::*;
//!
//! #[kernel]
//! pub fn saxpy(y: &mut [f32], x: &[f32], a: f32) {
//!     let i = gpu::global_id_x();
//!     if i < y.len() {
//!         y[i] = a * x[i] + y[i];
//!     }
//! }
//!
//! fn main() -> cuprum::Result<()> {
//!     let dev = Device::default()?;
//!     let stream = dev.default_stream();
//!     let x = stream.to_device(&[1.0f32; 1000])?;
//!     let mut y = stream.to_device(&[2.0f32; 1000])?;
//!     launch!(saxpy<<<4, 256, stream>>>(&mut y, &x, 3.0))?;
//!     assert!(stream.to_host(&y)?.iter().all(|&v| v == 5.0));
//!     Ok(())
//! }
//! ```
//!
//! Beyond one launch: [`Device::new_stream`] and [`Event`]s, copies into existing memory
//! ([`Stream::copy_from_host`], [`Stream::copy_to_host`], [`Stream::copy`]) and
//! [`PinnedBuffer`]s for asynchronous ones, buffer views ([`DeviceBuffer::slice`]), CUDA
//! graphs ([`Stream::capture`]), [`occupancy`] and [`inspect`]. Cuprum runs on cudarc 0.19:
//! with `cudarc` among your own dependencies, [`Device::cuda_context`], [`Stream::cuda_stream`],
//! [`Stream::from_cuda_stream`], [`DeviceBuffer::from_cuda_slice`],
//! [`DeviceBuffer::into_cuda_slice`] and [`DeviceBuffer::device_ptr`] connect the two.

#![deny(missing_docs)]

// The cooperative primitives (`gpu::warp`, `gpu::block`) and the algorithms' kernels are
// written with Cuprum's own macros, whose expansions name `::cuprum`.
extern crate self as cuprum;

pub mod algorithms;
mod buffer;
mod capture;
mod config;
mod copy;
mod device;
mod device_copy;
mod element;
mod error;
pub mod gpu;
mod graph;
mod host_memory;
pub mod inspect;
mod launch;
mod lineinfo;
mod module;
#[cfg(feature = "nccl")]
pub mod nccl;
pub mod occupancy;
mod order;
mod panic_record;
mod registry;
mod stream;
mod validate;
mod vectors;

pub use buffer::{DeviceBuffer, DeviceSlice, DeviceSliceMut, DeviceView, DeviceViewMut};
pub use config::{IntoDim3, LaunchConfig};
pub use cuprum_macros::DeviceCopy;
pub use cuprum_macros::{device, kernel, launch};
pub use cuprum_std::Dim3;
pub use device::Device;
pub use device_copy::{AnyBitPattern, DeviceCopy, DeviceEnum};
pub use element::Element;
pub use error::{Error, KernelPanic, Result};
pub use graph::Graph;
pub use host_memory::{HostMemory, PinnedBuffer};
pub use registry::KernelInfo;
pub use stream::{Event, Stream};
pub use vectors::VectorLanes;

/// The names most programs need: `use cuprum::prelude::*;`.
pub mod prelude {
    pub use crate::{
        device, gpu, kernel, launch, Device, DeviceBuffer, DeviceCopy, Dim3, Error, LaunchConfig,
        Result, Stream,
    };
}

/// What macro expansions name: the one door of generated code into the runtime (the macros
/// build every path from `::cuprum::__private`, and so does the simulator code that
/// `cuprum-codegen` emits). Not part of the public API: no stability promise.
#[doc(hidden)]
pub mod __private {
    pub use crate::device_copy::{Holds, ZeroIsAVariant};
    pub use crate::launch::{
        backend, host_test, launch_stream, Backend, GpuArg, GpuLaunch, GpuSlice, GpuStream,
        KernelArg, LaunchStream, LaunchValue, SimStream, Slice, SliceMut, Value,
    };
    pub use crate::module::FunctionCache;
    pub use crate::registry::{KernelInfo, Site};
    pub use crate::{
        AnyBitPattern, DeviceCopy, DeviceSlice, DeviceSliceMut, Dim3, Element, LaunchConfig,
        Result, Stream,
    };
    pub use cudarc::driver::{DeviceRepr, ValidAsZeroBits};
    pub use cuprum_abi::{versioning, CheckKind};
    pub use cuprum_macros::__collect as collect;
    /// The simulator's runtime, which the emitted simulator bodies call.
    pub use cuprum_std::sim;
}
