//! Where an NCCL call meets the rest of Cuprum's stream ordering.
//!
//! A kernel launch hands each slice argument to cudarc's `LaunchArgs`, which (through
//! `DevicePtr::device_ptr` / `DevicePtrMut::device_ptr_mut`) makes the launch stream wait for
//! the buffer's last write (and, for a write, its reads), and records the buffer's read or
//! write event on the stream once the launch is queued. A collective reads and writes its
//! buffers on the communicator's stream the same way, so it goes through the same cudarc
//! machinery, here and only here: [`order_access`] is the one function that says "this NCCL
//! call reads (or writes) this buffer on this stream".

use cudarc::driver::{CudaStream, SyncOnDrop};

use crate::buffer::{RawView, RawViewMut, Repr, ReprMut};

/// How a collective uses one of its buffers.
pub(crate) enum Access<'a, T> {
    /// The call reads the memory.
    Read(RawView<'a, T>),
    /// The call writes (and may read) the memory.
    Write(RawViewMut<'a, T>),
}

/// Orders one buffer of an NCCL call on `stream` as a kernel launch orders its slice
/// arguments: `stream` first waits for the earlier work on the buffer that the access must
/// follow; the returned guard, dropped once the NCCL call (or the group holding it) is
/// enqueued, records that the buffer is in use by the work queued so far on `stream`, so
/// that later readers, writers and the buffer's free wait for the collective. Returns the
/// device address of the buffer's first element.
///
/// Only GPU memory comes here (the simulator runs collectives when they are called).
pub(crate) fn order_access<'a, T>(
    stream: &'a CudaStream,
    access: Access<'a, T>,
) -> (u64, SyncOnDrop<'a>) {
    match access {
        Access::Read(RawView {
            repr: Repr::Gpu(view),
            ..
        }) => view.view_ptr(stream),
        Access::Write(RawViewMut {
            repr: ReprMut::Gpu(view),
            ..
        }) => view.view_ptr_mut(stream),
        _ => unreachable!("a GPU communicator's buffers are GPU memory"),
    }
}
