//! `DeviceBuffer<T>` and its views, and the traits a launch takes them by.
//!
//! A GPU buffer's cudarc allocation sits behind an `Arc` so that a [`Graph`](crate::Graph)
//! can keep the memory of its recorded launches alive (a graph replays device addresses, and
//! Rust's borrows alone cannot stop a capture from using a buffer that dies first). Only the
//! buffer itself ever reaches the allocation through that `Arc`; graphs just hold it.

use std::any::Any;
use std::cell::UnsafeCell;
use std::marker::PhantomData;
use std::ops::RangeBounds;
use std::sync::Arc;

use cudarc::driver::{CudaSlice, CudaView, CudaViewMut, DevicePtr, DevicePtrMut, DeviceSlice as _};
use cuprum_std::sim::{SimBuffer, SimSlice, SimSliceMut};

use crate::device::{Device, DeviceKind};
use crate::element::Element;
use crate::error::{Error, Result};

/// An array of `T` in device memory, owned. Freed when dropped (asynchronously, after the
/// work already queued on it).
///
/// Made by a stream ([`Stream::to_device`](crate::Stream::to_device),
/// [`Stream::alloc_zeros`](crate::Stream::alloc_zeros)) or from cudarc
/// ([`DeviceBuffer::from_cuda_slice`]). A launch takes `&mut buf` for a `&mut [T]` parameter
/// and `&buf` for a `&[T]` one; [`slice`](DeviceBuffer::slice) and
/// [`slice_mut`](DeviceBuffer::slice_mut) give views of a range that launch the same way.
/// Buffers may be empty, and are `Send` and `Sync`: several host threads may launch kernels
/// that read one buffer.
///
/// ```
/// use cuprum::prelude::*;
///
/// #[kernel]
/// pub fn add_one(y: &mut [i32]) {
///     let i = gpu::global_id_x();
///     if i < y.len() {
///         y[i] += 1;
///     }
/// }
///
/// # fn main() -> cuprum::Result<()> {
/// let stream = Device::simulator().default_stream();
/// let mut buf = stream.to_device(&[10, 20, 30, 40])?;
/// // Only the middle two elements: the view launches like a buffer of length 2.
/// add_one::launch(&stream, LaunchConfig::for_elements(2, 32), &mut buf.slice_mut(1..3))?;
/// assert_eq!(stream.to_host(&buf)?, vec![10, 21, 31, 40]);
/// assert_eq!((buf.len(), buf.slice(..1).len()), (4, 1));
/// # Ok(()) }
/// ```
pub struct DeviceBuffer<T: Element> {
    storage: Storage<T>,
    device: Device,
}

enum Storage<T: Element> {
    /// The first `len` elements of `memory`. An empty buffer is backed by a one-element
    /// allocation: CUDA does not promise to allocate zero bytes.
    Gpu {
        memory: Arc<GpuMemory<T>>,
        len: usize,
    },
    Sim(SimBuffer<T>),
}

/// A cudarc allocation, shared by its [`DeviceBuffer`] (the only one that reaches it) and the
/// graphs that keep it alive.
pub(crate) struct GpuMemory<T>(UnsafeCell<CudaSlice<T>>);

// SAFETY: the cell is only dereferenced by the owning `DeviceBuffer`, shared through `&self`
// and exclusively through `&mut self`; other holders (graphs) never dereference it. The
// slice itself is `Send + Sync`.
unsafe impl<T> Send for GpuMemory<T> {}
// SAFETY: as above.
unsafe impl<T> Sync for GpuMemory<T> {}

impl<T> GpuMemory<T> {
    /// The allocation.
    ///
    /// # Safety
    /// Only the owning buffer calls this, through a shared borrow of itself.
    unsafe fn get(&self) -> &CudaSlice<T> {
        // SAFETY: the caller's shared borrow of the owning buffer excludes `get_mut`.
        unsafe { &*self.0.get() }
    }

    /// The allocation, exclusively.
    ///
    /// # Safety
    /// Only the owning buffer calls this, through an exclusive borrow of itself.
    #[allow(clippy::mut_from_ref)]
    unsafe fn get_mut(&self) -> &mut CudaSlice<T> {
        // SAFETY: the caller's exclusive borrow of the owning buffer excludes other access.
        unsafe { &mut *self.0.get() }
    }
}

/// What a graph holds to keep the memory of its launches alive.
pub(crate) type KeepAlive = Arc<dyn Any + Send + Sync>;

/// A read-only view of part of a [`DeviceBuffer`]; launches take it wherever they take a
/// `&DeviceBuffer`.
pub struct DeviceView<'a, T: Element> {
    repr: Repr<'a, T>,
    device: &'a Device,
    memory: Option<&'a Arc<GpuMemory<T>>>,
}

/// A writable view of part of a [`DeviceBuffer`]; launches take it wherever they take a
/// `&mut DeviceBuffer`.
pub struct DeviceViewMut<'a, T: Element> {
    repr: ReprMut<'a, T>,
    device: &'a Device,
    memory: Option<&'a Arc<GpuMemory<T>>>,
}

/// Read-only device memory as a launch or copy sees it.
#[doc(hidden)]
pub enum Repr<'a, T> {
    Gpu(CudaView<'a, T>),
    Sim(SimSlice<T>, PhantomData<&'a T>),
}

/// Writable device memory as a launch or copy sees it.
#[doc(hidden)]
pub enum ReprMut<'a, T> {
    Gpu(CudaViewMut<'a, T>),
    Sim(SimSliceMut<T>, PhantomData<&'a mut T>),
}

impl<T: Element> Repr<'_, T> {
    /// Number of elements.
    pub(crate) fn len(&self) -> usize {
        match self {
            Repr::Gpu(v) => v.len(),
            Repr::Sim(v, _) => v.len(),
        }
    }
}

impl<T: Element> ReprMut<'_, T> {
    /// Number of elements.
    pub(crate) fn len(&self) -> usize {
        match self {
            ReprMut::Gpu(v) => v.len(),
            ReprMut::Sim(v, _) => v.len(),
        }
    }
}

/// A read-only view with its device.
#[doc(hidden)]
pub struct RawView<'a, T> {
    pub repr: Repr<'a, T>,
    device: &'a Device,
    memory: Option<&'a Arc<GpuMemory<T>>>,
}

impl<T: Element> RawView<'_, T> {
    /// The device the memory is on.
    pub fn device(&self) -> &Device {
        self.device
    }

    /// What keeps the allocation alive (GPU memory only).
    pub(crate) fn keep_alive(&self) -> Option<KeepAlive> {
        self.memory.map(|m| m.clone() as KeepAlive)
    }
}

/// A writable view with its device.
#[doc(hidden)]
pub struct RawViewMut<'a, T> {
    pub repr: ReprMut<'a, T>,
    device: &'a Device,
    memory: Option<&'a Arc<GpuMemory<T>>>,
}

impl<T: Element> RawViewMut<'_, T> {
    /// The device the memory is on.
    pub fn device(&self) -> &Device {
        self.device
    }

    /// What keeps the allocation alive (GPU memory only).
    pub(crate) fn keep_alive(&self) -> Option<KeepAlive> {
        self.memory.map(|m| m.clone() as KeepAlive)
    }
}

/// Device memory a kernel can read: `&DeviceBuffer<T>`, `&DeviceView<T>` or
/// `&DeviceViewMut<T>` for a `&[T]` kernel parameter.
#[diagnostic::on_unimplemented(
    message = "a `&[{T}]` kernel parameter takes a `&DeviceBuffer<{T}>` or a view of one, not `{Self}`",
    label = "expected device memory of `{T}`"
)]
pub trait DeviceSlice<T: Element> {
    /// Number of elements.
    fn len(&self) -> usize;
    /// True when there are no elements.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }
    #[doc(hidden)]
    fn __view(&self) -> RawView<'_, T>;
}

/// Device memory a kernel can write: `&mut DeviceBuffer<T>` or `&mut DeviceViewMut<T>` for a
/// `&mut [T]` kernel parameter.
#[diagnostic::on_unimplemented(
    message = "a `&mut [{T}]` kernel parameter takes a `&mut DeviceBuffer<{T}>` or a mutable view of one, not `{Self}`",
    label = "expected writable device memory of `{T}`"
)]
pub trait DeviceSliceMut<T: Element>: DeviceSlice<T> {
    #[doc(hidden)]
    fn __view_mut(&mut self) -> RawViewMut<'_, T>;
}

impl<T: Element> DeviceBuffer<T> {
    /// A buffer of the first `len` elements of `slice` (`len < slice.len()` only for the
    /// one-element backing of an empty buffer).
    pub(crate) fn gpu(slice: CudaSlice<T>, len: usize, device: Device) -> Self {
        debug_assert!(len <= slice.len());
        DeviceBuffer {
            storage: Storage::Gpu {
                memory: Arc::new(GpuMemory(UnsafeCell::new(slice))),
                len,
            },
            device,
        }
    }

    pub(crate) fn sim(buf: SimBuffer<T>, device: Device) -> Self {
        DeviceBuffer {
            storage: Storage::Sim(buf),
            device,
        }
    }

    /// The allocation and the buffer's length (GPU memory only).
    fn cuda(&self) -> Option<(&CudaSlice<T>, usize)> {
        match &self.storage {
            // SAFETY: this buffer owns the memory and `&self` is shared.
            Storage::Gpu { memory, len } => Some((unsafe { memory.get() }, *len)),
            Storage::Sim(_) => None,
        }
    }

    /// The allocation, exclusively, and the buffer's length (GPU memory only).
    fn cuda_mut(&mut self) -> Option<(&mut CudaSlice<T>, usize)> {
        match &mut self.storage {
            // SAFETY: this buffer owns the memory and `&mut self` is exclusive.
            Storage::Gpu { memory, len } => Some((unsafe { memory.get_mut() }, *len)),
            Storage::Sim(_) => None,
        }
    }

    /// Number of elements.
    pub fn len(&self) -> usize {
        match &self.storage {
            Storage::Gpu { len, .. } => *len,
            Storage::Sim(s) => s.len(),
        }
    }

    /// True when the buffer holds no elements.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The device the buffer lives on.
    pub fn device(&self) -> &Device {
        &self.device
    }

    /// A read-only view of `range`.
    ///
    /// # Panics
    /// When `range` is out of bounds, like slicing a `Vec`.
    pub fn slice(&self, range: impl RangeBounds<usize>) -> DeviceView<'_, T> {
        let (a, b) = bounds(&range, self.len());
        let (repr, memory) = match &self.storage {
            // SAFETY: this buffer owns the memory and `&self` is shared.
            Storage::Gpu { memory, .. } => {
                (Repr::Gpu(unsafe { memory.get() }.slice(a..b)), Some(memory))
            }
            Storage::Sim(s) => (Repr::Sim(s.view(a, b - a), PhantomData), None),
        };
        DeviceView {
            repr,
            device: &self.device,
            memory,
        }
    }

    /// A writable view of `range`.
    ///
    /// # Panics
    /// When `range` is out of bounds, like slicing a `Vec`.
    pub fn slice_mut(&mut self, range: impl RangeBounds<usize>) -> DeviceViewMut<'_, T> {
        let (a, b) = bounds(&range, self.len());
        let (repr, memory) = match &mut self.storage {
            Storage::Gpu { memory, .. } => {
                // SAFETY: this buffer owns the memory and `&mut self` is exclusive.
                let s = unsafe { memory.get_mut() };
                (ReprMut::Gpu(s.slice_mut(a..b)), Some(&*memory))
            }
            Storage::Sim(s) => (ReprMut::Sim(s.view_mut(a, b - a), PhantomData), None),
        };
        DeviceViewMut {
            repr,
            device: &self.device,
            memory,
        }
    }

    /// The cudarc slice, for interop: `None` on the simulator, and for an empty buffer that
    /// Cuprum allocated (CUDA cannot allocate zero bytes, so it is backed by one element).
    pub fn cuda_slice(&self) -> Option<&CudaSlice<T>> {
        self.cuda()
            .filter(|(s, len)| s.len() == *len)
            .map(|(s, _)| s)
    }

    /// The cudarc slice, writable, for interop (`None` as for
    /// [`cuda_slice`](DeviceBuffer::cuda_slice)).
    pub fn cuda_slice_mut(&mut self) -> Option<&mut CudaSlice<T>> {
        self.cuda_mut()
            .filter(|(s, len)| s.len() == *len)
            .map(|(s, _)| s)
    }

    /// Adopts a cudarc slice as a buffer of `device`, for interop with code that allocates
    /// through cudarc. The slice keeps its own stream (it is freed there) and cudarc's
    /// cross-stream tracking.
    ///
    /// # Errors
    /// [`Error::WrongDevice`] when the slice belongs to another context than `device`'s (or
    /// `device` is the simulator).
    pub fn from_cuda_slice(slice: CudaSlice<T>, device: &Device) -> Result<DeviceBuffer<T>> {
        match &device.core.kind {
            DeviceKind::Gpu { ctx, .. } if slice.context().cu_ctx() == ctx.cu_ctx() => {
                let len = slice.len();
                Ok(DeviceBuffer::gpu(slice, len, device.clone()))
            }
            _ => Err(Error::WrongDevice(format!(
                "from_cuda_slice: the slice lives on GPU {}, not on {} (device {})",
                slice.ordinal(),
                device.name(),
                device.ordinal()
            ))),
        }
    }

    /// The buffer as a cudarc slice, for interop (the inverse of
    /// [`from_cuda_slice`](DeviceBuffer::from_cuda_slice)). An empty buffer becomes cudarc's
    /// zero-length slice.
    ///
    /// # Errors
    /// [`Error::Unsupported`] on the simulator; [`Error::Capture`] when a [`Graph`](crate::Graph)
    /// still uses the memory; a driver error when an empty slice cannot be made.
    pub fn into_cuda_slice(self) -> Result<CudaSlice<T>> {
        let (memory, len) = match self.storage {
            Storage::Gpu { memory, len } => (memory, len),
            Storage::Sim(_) => {
                return Err(Error::Unsupported(
                    "into_cuda_slice: a simulator buffer is host memory, not a CUDA allocation"
                        .into(),
                ))
            }
        };
        let slice = Arc::try_unwrap(memory)
            .map_err(|_| {
                Error::Capture(
                    "into_cuda_slice: a graph still uses this buffer; drop the graph first".into(),
                )
            })?
            .0
            .into_inner();
        if slice.len() == len {
            return Ok(slice);
        }
        let empty = slice.stream().null::<T>().map_err(|source| Error::Driver {
            op: "making an empty cudarc slice",
            source,
        });
        drop(slice);
        empty
    }

    /// The device address of the first element, for libraries that take raw pointers (a
    /// kernel launched through cudarc's raw API, cuBLAS, NCCL).
    ///
    /// # Safety
    /// Cuprum does not see what is done through the address. The caller must: use it only
    /// while the buffer is alive (it is freed when dropped, asynchronously on the stream it
    /// was made on); order its work after Cuprum's work on the buffer (e.g.
    /// [`Stream::synchronize`](crate::Stream::synchronize) first, or work on the same
    /// stream); finish its work before Cuprum uses or frees the buffer again (e.g. synchronise
    /// the stream it used); write through it only while it holds the buffer exclusively; stay
    /// within [`len`](DeviceBuffer::len) elements.
    ///
    /// # Errors
    /// [`Error::Unsupported`] on the simulator.
    pub unsafe fn device_ptr(&self) -> Result<u64> {
        raw_device_ptr(&self.__view().repr)
    }

    /// The device address of the first element, for writing through it: as
    /// [`device_ptr`](DeviceBuffer::device_ptr), borrowing the buffer exclusively.
    ///
    /// # Safety
    /// As [`device_ptr`](DeviceBuffer::device_ptr).
    ///
    /// # Errors
    /// [`Error::Unsupported`] on the simulator.
    pub unsafe fn device_ptr_mut(&mut self) -> Result<u64> {
        raw_device_ptr_mut(&mut self.__view_mut().repr)
    }
}

/// The device address of `repr`'s first element, for writing.
fn raw_device_ptr_mut<T: Element>(repr: &mut ReprMut<'_, T>) -> Result<u64> {
    match repr {
        ReprMut::Gpu(v) => {
            let own = v.stream().clone();
            let (ptr, _record) = v.device_ptr_mut(&own);
            Ok(ptr)
        }
        ReprMut::Sim(..) => Err(Error::Unsupported(
            "device_ptr_mut: the simulator has no device addresses".into(),
        )),
    }
}

/// The device address of `repr`'s first element.
fn raw_device_ptr<T: Element>(repr: &Repr<'_, T>) -> Result<u64> {
    match repr {
        Repr::Gpu(v) => {
            // cudarc hands out the address with an ordering guard for a stream; on the
            // view's own stream that only orders it after the memory's last write.
            let (ptr, _record) = v.device_ptr(v.stream());
            Ok(ptr)
        }
        Repr::Sim(..) => Err(Error::Unsupported(
            "device_ptr: the simulator has no device addresses".into(),
        )),
    }
}

impl<'a, T: Element> DeviceView<'a, T> {
    /// Number of elements.
    pub fn len(&self) -> usize {
        DeviceSlice::len(self)
    }

    /// True when the view has no elements.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The device the memory is on.
    pub fn device(&self) -> &'a Device {
        self.device
    }

    /// The device address of the view's first element.
    ///
    /// # Safety
    /// As [`DeviceBuffer::device_ptr`], for the view's elements.
    ///
    /// # Errors
    /// [`Error::Unsupported`] on the simulator.
    pub unsafe fn device_ptr(&self) -> Result<u64> {
        raw_device_ptr(&self.repr)
    }
}

impl<'a, T: Element> DeviceViewMut<'a, T> {
    /// Number of elements.
    pub fn len(&self) -> usize {
        DeviceSlice::len(self)
    }

    /// True when the view has no elements.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The device the memory is on.
    pub fn device(&self) -> &'a Device {
        self.device
    }

    /// The device address of the view's first element.
    ///
    /// # Safety
    /// As [`DeviceBuffer::device_ptr`], for the view's elements.
    ///
    /// # Errors
    /// [`Error::Unsupported`] on the simulator.
    pub unsafe fn device_ptr(&self) -> Result<u64> {
        raw_device_ptr(&self.__view().repr)
    }

    /// The device address of the view's first element, for writing through it.
    ///
    /// # Safety
    /// As [`DeviceBuffer::device_ptr`], for the view's elements.
    ///
    /// # Errors
    /// [`Error::Unsupported`] on the simulator.
    pub unsafe fn device_ptr_mut(&mut self) -> Result<u64> {
        raw_device_ptr_mut(&mut self.repr)
    }
}

fn bounds(range: &impl RangeBounds<usize>, len: usize) -> (usize, usize) {
    use std::ops::Bound;
    let a = match range.start_bound() {
        Bound::Included(&a) => a,
        Bound::Excluded(&a) => a.checked_add(1).expect("range start overflows"),
        Bound::Unbounded => 0,
    };
    let b = match range.end_bound() {
        Bound::Included(&b) => b.checked_add(1).expect("range end overflows"),
        Bound::Excluded(&b) => b,
        Bound::Unbounded => len,
    };
    assert!(a <= b, "device buffer range starts at {a} but ends at {b}");
    assert!(
        b <= len,
        "device buffer range end {b} is out of range for a buffer of length {len}"
    );
    (a, b)
}

impl<T: Element> std::fmt::Debug for DeviceBuffer<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "DeviceBuffer<{}>[{}] on {:?}",
            T::NAME,
            self.len(),
            self.device
        )
    }
}

impl<T: Element> std::fmt::Debug for DeviceView<'_, T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "DeviceView<{}>[{}]", T::NAME, self.len())
    }
}

impl<T: Element> std::fmt::Debug for DeviceViewMut<'_, T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "DeviceViewMut<{}>[{}]", T::NAME, self.len())
    }
}

impl<T: Element> DeviceSlice<T> for DeviceBuffer<T> {
    fn len(&self) -> usize {
        DeviceBuffer::len(self)
    }
    fn __view(&self) -> RawView<'_, T> {
        let (repr, memory) = match &self.storage {
            Storage::Gpu { memory, len } => {
                // SAFETY: this buffer owns the memory and `&self` is shared.
                (
                    Repr::Gpu(unsafe { memory.get() }.slice(..*len)),
                    Some(memory),
                )
            }
            Storage::Sim(s) => (Repr::Sim(s.view(0, s.len()), PhantomData), None),
        };
        RawView {
            repr,
            device: &self.device,
            memory,
        }
    }
}

impl<T: Element> DeviceSliceMut<T> for DeviceBuffer<T> {
    fn __view_mut(&mut self) -> RawViewMut<'_, T> {
        let view = self.slice_mut(..);
        RawViewMut {
            repr: view.repr,
            device: view.device,
            memory: view.memory,
        }
    }
}

impl<T: Element> DeviceSlice<T> for DeviceView<'_, T> {
    fn len(&self) -> usize {
        self.repr.len()
    }
    fn __view(&self) -> RawView<'_, T> {
        let repr = match &self.repr {
            Repr::Gpu(v) => Repr::Gpu(v.slice(..)),
            Repr::Sim(v, _) => Repr::Sim(*v, PhantomData),
        };
        RawView {
            repr,
            device: self.device,
            memory: self.memory,
        }
    }
}

impl<T: Element> DeviceSlice<T> for DeviceViewMut<'_, T> {
    fn len(&self) -> usize {
        self.repr.len()
    }
    fn __view(&self) -> RawView<'_, T> {
        let repr = match &self.repr {
            ReprMut::Gpu(v) => Repr::Gpu(v.as_view()),
            ReprMut::Sim(v, _) => Repr::Sim(v.as_slice(), PhantomData),
        };
        RawView {
            repr,
            device: self.device,
            memory: self.memory,
        }
    }
}

impl<T: Element> DeviceSliceMut<T> for DeviceViewMut<'_, T> {
    fn __view_mut(&mut self) -> RawViewMut<'_, T> {
        let repr = match &mut self.repr {
            ReprMut::Gpu(v) => ReprMut::Gpu(v.slice_mut(..)),
            ReprMut::Sim(v, _) => ReprMut::Sim(*v, PhantomData),
        };
        RawViewMut {
            repr,
            device: self.device,
            memory: self.memory,
        }
    }
}

impl<'a, T: Element> DeviceView<'a, T> {
    /// The view as launches and copies see it, for as long as the memory stays borrowed
    /// (what a `cuprum::nccl::Group` keeps until it ends).
    #[cfg_attr(not(feature = "nccl"), allow(dead_code))]
    pub(crate) fn into_raw(self) -> RawView<'a, T> {
        RawView {
            repr: self.repr,
            device: self.device,
            memory: self.memory,
        }
    }
}

impl<'a, T: Element> DeviceViewMut<'a, T> {
    /// The view as launches and copies see it, for as long as the memory stays borrowed.
    #[cfg_attr(not(feature = "nccl"), allow(dead_code))]
    pub(crate) fn into_raw(self) -> RawViewMut<'a, T> {
        RawViewMut {
            repr: self.repr,
            device: self.device,
            memory: self.memory,
        }
    }
}
