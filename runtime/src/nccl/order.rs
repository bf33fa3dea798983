//! Where an NCCL call meets the rest of Cuprum's stream ordering.
//!
//! A collective reads and writes its buffers on the communicator's stream the way a kernel
//! launch does, so it goes through the same per-allocation ordering (`order.rs`): before the
//! call is queued, the stream waits for the earlier uses on other streams that the access
//! must follow, and is listed as a user of the memory, so that later readers, writers, host
//! reads and the free wait for the collective. [`order_access`] is the one function that says
//! "this NCCL call reads (or writes) this buffer on this stream".

use std::sync::Arc;

use cudarc::driver::CudaStream;

use crate::buffer::{RawView, RawViewMut};
use crate::element::Element;
use crate::error::Result;

/// How a collective uses one of its buffers.
pub(crate) enum Access<'a, T> {
    /// The call reads the memory.
    Read(RawView<'a, T>),
    /// The call writes (and may read) the memory.
    Write(RawViewMut<'a, T>),
}

/// Orders one buffer of an NCCL call on `stream` as a kernel launch orders its slice
/// arguments (see the module doc) and returns the device address of its first element. The
/// view's borrow must outlast the queued call (a group keeps it until it ends).
///
/// Only GPU memory comes here (the simulator runs collectives when they are called).
pub(crate) fn order_access<T: Element>(
    stream: &Arc<CudaStream>,
    access: Access<'_, T>,
) -> Result<u64> {
    match access {
        Access::Read(v) => {
            v.before_use(stream)?;
            Ok(v.kernel_ptr())
        }
        Access::Write(mut v) => {
            v.before_use(stream)?;
            Ok(v.kernel_ptr())
        }
    }
}
