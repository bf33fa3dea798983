//! Host memory that copies read and write: ordinary (pageable) slices, and `PinnedBuffer`s,
//! page-locked memory the GPU copies to and from while the host goes on.

use cudarc::driver::{sys, CudaEvent, PinnedHostSlice};

use crate::device::{Device, DeviceKind};
use crate::element::Element;
use crate::error::{out_of_memory, DriverContext, Result};

/// Page-locked ("pinned") host memory of one device: copies between it and device memory are
/// truly asynchronous ([`Stream::copy_from_host`](crate::Stream::copy_from_host) and
/// [`Stream::copy_to_host`](crate::Stream::copy_to_host) return once the copy is queued), and
/// faster than from ordinary memory. Reading or writing the contents waits for the copies
/// queued on it, so they are never seen half done.
///
/// On the simulator a pinned buffer is ordinary host memory, and copies are done when their
/// call returns.
///
/// ```
/// use cuprum::prelude::*;
/// use cuprum::PinnedBuffer;
///
/// # fn main() -> cuprum::Result<()> {
/// let dev = Device::simulator();
/// let stream = dev.default_stream();
/// let mut host: PinnedBuffer<u32> = dev.alloc_pinned(4)?;
/// host.as_mut_slice()?.copy_from_slice(&[1, 2, 3, 4]);
/// let mut buf = stream.alloc_zeros::<u32>(4)?;
/// stream.copy_from_host(&mut buf, &host)?; // queued; `host` is not changed meanwhile
/// let mut back: PinnedBuffer<u32> = dev.alloc_pinned(4)?;
/// stream.copy_to_host(&buf, &mut back)?; // queued too
/// assert_eq!(back.as_slice()?, &[1, 2, 3, 4]); // waits for the copy
/// # Ok(()) }
/// ```
pub struct PinnedBuffer<T: Element> {
    storage: Pinned<T>,
    len: usize,
    device: Device,
}

enum Pinned<T> {
    Gpu {
        /// At least one element: CUDA does not promise to allocate zero bytes.
        host: PinnedHostSlice<T>,
        /// Recorded after every copy to or from `host`. (cudarc's own event of the slice is
        /// only recorded while its context tracks several streams.)
        done: CudaEvent,
    },
    Sim(Vec<T>),
}

impl Device {
    /// `len` zeros in page-locked host memory of this device, for asynchronous copies.
    ///
    /// # Errors
    /// Driver errors: out of page-locked memory, also when the byte size overflows (on the
    /// simulator, when the host cannot hold `len` elements).
    pub fn alloc_pinned<T: Element + cudarc::driver::ValidAsZeroBits>(
        &self,
        len: usize,
    ) -> Result<PinnedBuffer<T>> {
        let storage = match &self.core.kind {
            DeviceKind::Gpu { ctx, .. } => {
                let n = len.max(1);
                if n.checked_mul(std::mem::size_of::<T>())
                    .is_none_or(|bytes| bytes >= isize::MAX as usize)
                {
                    return Err(out_of_memory());
                }
                // SAFETY: the memory is zeroed below before anything reads it (`T` is valid
                // as zero bits).
                let mut host = unsafe { ctx.alloc_pinned_with_flags::<T>(n, 0) }
                    .during("allocating pinned host memory")?;
                let ptr = host.as_mut_ptr().during("allocating pinned host memory")?;
                // SAFETY: `ptr` points to `n` elements of fresh, unshared memory.
                unsafe { std::ptr::write_bytes(ptr, 0, n) };
                let done = ctx
                    .new_event(Some(sys::CUevent_flags::CU_EVENT_DISABLE_TIMING))
                    .during("allocating pinned host memory")?;
                Pinned::Gpu { host, done }
            }
            DeviceKind::Sim => {
                // Fallible, as page-locking is on a GPU: a size the host cannot hold is `Err`.
                let mut v = Vec::new();
                v.try_reserve_exact(len).map_err(|_| out_of_memory())?;
                // SAFETY: zero bits are a value of `T` (`ValidAsZeroBits`).
                v.resize(len, unsafe { std::mem::zeroed::<T>() });
                Pinned::Sim(v)
            }
        };
        Ok(PinnedBuffer {
            storage,
            len,
            device: self.clone(),
        })
    }
}

impl<T: Element> PinnedBuffer<T> {
    /// Number of elements.
    pub fn len(&self) -> usize {
        self.len
    }

    /// True when the buffer holds no elements.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The device whose streams copy to and from this memory.
    pub fn device(&self) -> &Device {
        &self.device
    }
}

impl<T: Element + cudarc::driver::ValidAsZeroBits> PinnedBuffer<T> {
    /// The contents, after the copies queued on the buffer have finished.
    ///
    /// # Errors
    /// Driver errors (from waiting).
    pub fn as_slice(&self) -> Result<&[T]> {
        match &self.storage {
            Pinned::Gpu { host, done } => {
                done.synchronize()
                    .during("waiting for a copy into pinned memory")?;
                Ok(&host
                    .as_slice()
                    .during("waiting for a copy into pinned memory")?[..self.len])
            }
            Pinned::Sim(v) => Ok(v),
        }
    }

    /// The contents, writable, after the copies queued on the buffer have finished.
    ///
    /// # Errors
    /// Driver errors (from waiting).
    pub fn as_mut_slice(&mut self) -> Result<&mut [T]> {
        match &mut self.storage {
            Pinned::Gpu { host, done } => {
                done.synchronize()
                    .during("waiting for a copy from pinned memory")?;
                Ok(&mut host
                    .as_mut_slice()
                    .during("waiting for a copy from pinned memory")?[..self.len])
            }
            Pinned::Sim(v) => Ok(v),
        }
    }
}

impl<T: Element> Drop for PinnedBuffer<T> {
    fn drop(&mut self) {
        if let Pinned::Gpu { done, .. } = &self.storage {
            // The memory must outlive the copies queued on it. An error here has nowhere to
            // go; cudarc then frees the memory.
            let _ = done.synchronize();
        }
    }
}

impl<T: Element> std::fmt::Debug for PinnedBuffer<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "PinnedBuffer<{}>[{}] of {:?}",
            T::NAME,
            self.len,
            self.device
        )
    }
}

mod sealed {
    pub trait Sealed {}
}

/// Host memory a copy reads or writes: `[T]`, `Vec<T>` and `[T; N]` (ordinary memory: the copy
/// has finished when the call returns) or a [`PinnedBuffer<T>`] (page-locked: the copy is
/// queued and the call returns at once). Sealed.
pub trait HostMemory<T: Element>: sealed::Sealed {
    #[doc(hidden)]
    fn __host(&self) -> HostRef<'_, T>;
    #[doc(hidden)]
    fn __host_mut(&mut self) -> HostMut<'_, T>;
}

/// Host memory as a copy reads it.
#[doc(hidden)]
pub enum HostRef<'a, T: Element> {
    Pageable(&'a [T]),
    Pinned(&'a PinnedBuffer<T>),
}

/// Host memory as a copy writes it.
#[doc(hidden)]
pub enum HostMut<'a, T: Element> {
    Pageable(&'a mut [T]),
    Pinned(&'a mut PinnedBuffer<T>),
}

impl<T: Element> HostRef<'_, T> {
    pub(crate) fn len(&self) -> usize {
        match self {
            HostRef::Pageable(s) => s.len(),
            HostRef::Pinned(p) => p.len,
        }
    }
}

impl<T: Element> HostMut<'_, T> {
    pub(crate) fn len(&self) -> usize {
        match self {
            HostMut::Pageable(s) => s.len(),
            HostMut::Pinned(p) => p.len,
        }
    }
}

impl<T: Element> PinnedBuffer<T> {
    /// The cudarc memory and the event to record after a copy (GPU only).
    pub(crate) fn cuda(&self) -> Option<(&PinnedHostSlice<T>, &CudaEvent)> {
        match &self.storage {
            Pinned::Gpu { host, done } => Some((host, done)),
            Pinned::Sim(_) => None,
        }
    }

    /// The cudarc memory, writable, and the event to record after a copy (GPU only).
    pub(crate) fn cuda_mut(&mut self) -> Option<(&mut PinnedHostSlice<T>, &CudaEvent)> {
        match &mut self.storage {
            Pinned::Gpu { host, done } => Some((host, &*done)),
            Pinned::Sim(_) => None,
        }
    }

    /// The simulator's memory (`None` on a GPU).
    pub(crate) fn sim(&self) -> Option<&[T]> {
        match &self.storage {
            Pinned::Sim(v) => Some(v),
            Pinned::Gpu { .. } => None,
        }
    }

    /// The simulator's memory, writable (`None` on a GPU).
    pub(crate) fn sim_mut(&mut self) -> Option<&mut [T]> {
        match &mut self.storage {
            Pinned::Sim(v) => Some(v),
            Pinned::Gpu { .. } => None,
        }
    }
}

impl<T> sealed::Sealed for [T] {}
impl<T> sealed::Sealed for Vec<T> {}
impl<T, const N: usize> sealed::Sealed for [T; N] {}
impl<T: Element> sealed::Sealed for PinnedBuffer<T> {}

impl<T: Element> HostMemory<T> for [T] {
    fn __host(&self) -> HostRef<'_, T> {
        HostRef::Pageable(self)
    }
    fn __host_mut(&mut self) -> HostMut<'_, T> {
        HostMut::Pageable(self)
    }
}

impl<T: Element> HostMemory<T> for Vec<T> {
    fn __host(&self) -> HostRef<'_, T> {
        HostRef::Pageable(self)
    }
    fn __host_mut(&mut self) -> HostMut<'_, T> {
        HostMut::Pageable(self)
    }
}

impl<T: Element, const N: usize> HostMemory<T> for [T; N] {
    fn __host(&self) -> HostRef<'_, T> {
        HostRef::Pageable(self)
    }
    fn __host_mut(&mut self) -> HostMut<'_, T> {
        HostMut::Pageable(self)
    }
}

impl<T: Element> HostMemory<T> for PinnedBuffer<T> {
    fn __host(&self) -> HostRef<'_, T> {
        HostRef::Pinned(self)
    }
    fn __host_mut(&mut self) -> HostMut<'_, T> {
        HostMut::Pinned(self)
    }
}
