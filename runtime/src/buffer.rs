//! `DeviceBuffer<T>` and its views, and the traits a launch takes them by.
//!
//! A GPU buffer's cudarc allocation sits behind an `Arc` so that a [`Graph`](crate::Graph)
//! can keep the memory of its recorded launches alive (a graph replays device addresses, and
//! Rust's borrows alone cannot stop a capture from using a buffer that dies first). The
//! allocation carries its [`Uses`], the streams that may still be using it (see `order.rs`).

use std::cell::UnsafeCell;
use std::marker::PhantomData;
use std::ops::RangeBounds;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use cudarc::driver::{CudaSlice, CudaView, CudaViewMut, DevicePtr, DevicePtrMut};
use cuprum_std::sim::{SimBuffer, SimSlice, SimSliceMut};

use crate::device::{Device, DeviceKind};
use crate::device_copy::DeviceEnum;
use crate::element::Element;
use crate::error::{DriverContext, Error, Result};
use crate::order::Uses;
use crate::vectors::VectorLanes;

/// An array of `T` in device memory, owned. Freed when dropped (asynchronously, after the
/// work already queued on it on any stream, or by a graph).
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
    /// All of `memory`, or nothing when `empty`: an empty buffer is backed by a one-element
    /// allocation (CUDA does not promise to allocate zero bytes). The length is always the
    /// allocation's, so a slice swapped in through
    /// [`cuda_slice_mut`](DeviceBuffer::cuda_slice_mut) just changes it.
    Gpu {
        memory: Arc<GpuMemory<T>>,
        empty: bool,
    },
    Sim(SimBuffer<T>),
}

/// A cudarc allocation, shared by its [`DeviceBuffer`] and the graphs that keep it alive, with
/// the streams that may still be using it.
pub(crate) struct GpuMemory<T> {
    slice: UnsafeCell<CudaSlice<T>>,
    uses: Uses,
    /// The allocation's device address, or 0 until known (again after
    /// [`cuda_slice_mut`](DeviceBuffer::cuda_slice_mut), which may swap the allocation).
    /// Launches pass it without cudarc's event bookkeeping.
    base: AtomicU64,
}

// SAFETY: the cell is dereferenced exclusively only by the owning `DeviceBuffer` through
// `&mut self`. Graphs dereference it shared (to reach cudarc's events) only while they borrow
// the buffer, so never while the owner holds it exclusively. The slice itself is
// `Send + Sync`.
unsafe impl<T> Send for GpuMemory<T> {}
// SAFETY: as above.
unsafe impl<T> Sync for GpuMemory<T> {}

impl<T> Drop for GpuMemory<T> {
    fn drop(&mut self) {
        // cudarc frees the memory on the slice's own stream: order that after every use on
        // other streams. An error here has nowhere to go; the context is then broken anyway.
        let stream = self.slice.get_mut().stream().clone();
        let _ = self.uses.settle_on(&stream);
    }
}

/// Allocations a [`Graph`](crate::Graph) keeps alive and orders its replays against.
pub(crate) trait Tracked: Send + Sync {
    /// The streams using the allocation.
    fn uses(&self) -> &Uses;
    /// Makes `s` wait on cudarc's own events of the allocation (memory handed to cudarc).
    fn cudarc_wait(&self, s: &Arc<cudarc::driver::CudaStream>, write: bool);
}

impl<T> Tracked for GpuMemory<T> {
    fn uses(&self) -> &Uses {
        &self.uses
    }
    fn cudarc_wait(&self, s: &Arc<cudarc::driver::CudaStream>, write: bool) {
        if write {
            // SAFETY: called by a graph that borrows the buffer exclusively (see the `Send`
            // impl).
            let _ = unsafe { self.get_mut() }.device_ptr_mut(s);
        } else {
            // SAFETY: called by a graph that borrows the buffer.
            let _ = unsafe { self.get() }.device_ptr(s);
        }
    }
}

/// What a graph holds: an allocation and whether its launches write it.
pub(crate) type KeepAlive = (Arc<dyn Tracked>, bool);

/// What a view needs of its allocation, whatever its element type (a view of an enum buffer
/// as integers shares the enum buffer's allocation).
pub(crate) trait Held: Send + Sync {
    /// The streams using the allocation.
    fn uses(&self) -> &Uses;
    /// The allocation's device address (see [`GpuMemory::base`]).
    fn base(&self) -> u64;
    /// A handle that keeps the allocation alive, for a graph.
    fn keep(&self) -> Arc<dyn Tracked>;
}

impl<T: 'static> Held for Arc<GpuMemory<T>> {
    fn uses(&self) -> &Uses {
        &self.uses
    }
    fn base(&self) -> u64 {
        GpuMemory::base(self)
    }
    fn keep(&self) -> Arc<dyn Tracked> {
        self.clone()
    }
}

impl<T> GpuMemory<T> {
    fn new(slice: CudaSlice<T>, uses: Uses) -> Self {
        let memory = GpuMemory {
            slice: UnsafeCell::new(slice),
            uses,
            base: AtomicU64::new(0),
        };
        // Now, not at the first launch, which may be inside a graph capture.
        // SAFETY: nothing else refers to the new allocation.
        unsafe { memory.refresh_base() };
        memory
    }

    /// The device address of the allocation's first element, as last refreshed.
    fn base(&self) -> u64 {
        self.base.load(Ordering::Relaxed)
    }

    /// Reads the allocation's address again if it may have changed.
    ///
    /// # Safety
    /// As [`get`](Self::get): no exclusive reference to the slice is alive (the owning buffer
    /// calls this before it makes a view).
    unsafe fn refresh_base(&self) {
        if self.base.load(Ordering::Relaxed) != 0 {
            return;
        }
        // SAFETY: no exclusive reference to the slice is alive (the caller's contract).
        let slice = unsafe { self.get() };
        // cudarc hands the address out with its own event bookkeeping: once per allocation.
        let (ptr, _record) = slice.device_ptr(slice.stream());
        self.base.store(ptr, Ordering::Relaxed);
    }

    /// The allocation.
    ///
    /// # Safety
    /// The caller holds the owning buffer shared: the buffer itself through `&self`, or a
    /// graph whose launches borrow it.
    unsafe fn get(&self) -> &CudaSlice<T> {
        // SAFETY: the caller's shared hold of the owning buffer excludes `get_mut`.
        unsafe { &*self.slice.get() }
    }

    /// The allocation, exclusively.
    ///
    /// # Safety
    /// The caller holds the owning buffer exclusively (through `&mut self`, or a graph whose
    /// launches borrow it mutably), and no reference from [`get`](Self::get) is alive.
    #[allow(clippy::mut_from_ref)]
    unsafe fn get_mut(&self) -> &mut CudaSlice<T> {
        // SAFETY: the caller's exclusive hold of the owning buffer excludes other access.
        unsafe { &mut *self.slice.get() }
    }
}

/// A read-only view of part of a [`DeviceBuffer`]; launches take it wherever they take a
/// `&DeviceBuffer`.
pub struct DeviceView<'a, T: Element> {
    repr: Repr<'a, T>,
    device: &'a Device,
    memory: Option<&'a dyn Held>,
    /// The first element's index in the allocation.
    offset: usize,
}

/// A writable view of part of a [`DeviceBuffer`]; launches take it wherever they take a
/// `&mut DeviceBuffer`.
pub struct DeviceViewMut<'a, T: Element> {
    repr: ReprMut<'a, T>,
    device: &'a Device,
    memory: Option<&'a dyn Held>,
    /// The first element's index in the allocation.
    offset: usize,
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

/// A read-only view with its device. Its parts are the runtime's own: the simulator's views
/// carry no lifetime, so handing them to safe code would let it keep one past its buffer.
#[doc(hidden)]
pub struct RawView<'a, T> {
    pub(crate) repr: Repr<'a, T>,
    device: &'a Device,
    memory: Option<&'a dyn Held>,
    offset: usize,
}

impl<'a, T: Element> RawView<'a, T> {
    /// A view of simulator memory that no buffer owns (tests of the launch's checks).
    #[cfg(test)]
    pub(crate) fn sim_for_tests(view: SimSlice<T>, device: &'a Device) -> RawView<'a, T> {
        RawView {
            repr: Repr::Sim(view, PhantomData),
            device,
            memory: None,
            offset: 0,
        }
    }

    /// The device the memory is on.
    pub fn device(&self) -> &Device {
        self.device
    }

    /// What keeps the allocation alive (GPU memory only), for a graph that reads it.
    pub(crate) fn keep_alive(&self) -> Option<KeepAlive> {
        self.memory.map(|m| (m.keep(), false))
    }

    /// Before a read is queued on `s`: orders it after other streams' writes (see
    /// `order.rs`). Nothing on the simulator.
    pub(crate) fn before_use(&self, s: &Arc<cudarc::driver::CudaStream>) -> Result<()> {
        match (self.memory, &self.repr) {
            (Some(m), Repr::Gpu(v)) => m
                .uses()
                .before(s, false, || {
                    let _ = v.device_ptr(s);
                    Ok(())
                })
                .during("ordering a use of device memory"),
            _ => Ok(()),
        }
    }

    /// The device address of the view's first element (GPU memory only).
    pub(crate) fn kernel_ptr(&self) -> u64 {
        self.memory.map_or(0, |m| {
            m.base() + (self.offset * std::mem::size_of::<T>()) as u64
        })
    }
}

/// A writable view with its device (see [`RawView`]).
#[doc(hidden)]
pub struct RawViewMut<'a, T> {
    pub(crate) repr: ReprMut<'a, T>,
    device: &'a Device,
    memory: Option<&'a dyn Held>,
    offset: usize,
}

impl<T: Element> RawViewMut<'_, T> {
    /// The device the memory is on.
    pub fn device(&self) -> &Device {
        self.device
    }

    /// What keeps the allocation alive (GPU memory only), for a graph that writes it.
    pub(crate) fn keep_alive(&self) -> Option<KeepAlive> {
        self.memory.map(|m| (m.keep(), true))
    }

    /// Before a write is queued on `s`: orders it after other streams' reads and writes (see
    /// `order.rs`). Nothing on the simulator.
    pub(crate) fn before_use(&mut self, s: &Arc<cudarc::driver::CudaStream>) -> Result<()> {
        match (self.memory, &mut self.repr) {
            (Some(m), ReprMut::Gpu(v)) => m
                .uses()
                .before(s, true, || {
                    let _ = v.device_ptr_mut(s);
                    Ok(())
                })
                .during("ordering a use of device memory"),
            _ => Ok(()),
        }
    }

    /// The device address of the view's first element (GPU memory only).
    pub(crate) fn kernel_ptr(&self) -> u64 {
        self.memory.map_or(0, |m| {
            m.base() + (self.offset * std::mem::size_of::<T>()) as u64
        })
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
    /// A buffer of `slice`, which `stream` has just written (allocated, zeroed or filled);
    /// `empty` for the one-element backing of an empty buffer.
    pub(crate) fn gpu(
        slice: CudaSlice<T>,
        empty: bool,
        device: Device,
        stream: &Arc<cudarc::driver::CudaStream>,
    ) -> Self {
        let uses = Uses::default();
        // Cannot fail: nothing else has used the memory, so there is nothing to wait for.
        let _ = uses.before(stream, true, || Ok(()));
        DeviceBuffer {
            storage: Storage::Gpu {
                memory: Arc::new(GpuMemory::new(slice, uses)),
                empty,
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
    fn cuda(&self) -> Option<(&GpuMemory<T>, &CudaSlice<T>, usize)> {
        match &self.storage {
            Storage::Gpu { memory, empty } => {
                // SAFETY: this buffer owns the memory and `&self` is shared.
                let slice = unsafe { memory.get() };
                Some((memory, slice, if *empty { 0 } else { slice.len() }))
            }
            Storage::Sim(_) => None,
        }
    }

    /// Number of elements.
    pub fn len(&self) -> usize {
        match &self.storage {
            Storage::Gpu { .. } => self.cuda().map_or(0, |(_, _, len)| len),
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
    /// When `range` is out of bounds, like slicing a `Vec`; [`try_slice`](Self::try_slice)
    /// returns `None` instead.
    pub fn slice(&self, range: impl RangeBounds<usize>) -> DeviceView<'_, T> {
        let (a, b) = bounds(&range, self.len());
        self.view(a, b)
    }

    /// A read-only view of `range`, or `None` when it is out of bounds.
    pub fn try_slice(&self, range: impl RangeBounds<usize>) -> Option<DeviceView<'_, T>> {
        let (a, b) = try_bounds(&range, self.len())?;
        Some(self.view(a, b))
    }

    /// A writable view of `range`.
    ///
    /// # Panics
    /// When `range` is out of bounds, like slicing a `Vec`;
    /// [`try_slice_mut`](Self::try_slice_mut) returns `None` instead.
    pub fn slice_mut(&mut self, range: impl RangeBounds<usize>) -> DeviceViewMut<'_, T> {
        let (a, b) = bounds(&range, self.len());
        self.view_mut(a, b)
    }

    /// A writable view of `range`, or `None` when it is out of bounds.
    pub fn try_slice_mut(
        &mut self,
        range: impl RangeBounds<usize>,
    ) -> Option<DeviceViewMut<'_, T>> {
        let (a, b) = try_bounds(&range, self.len())?;
        Some(self.view_mut(a, b))
    }

    /// The view of `a..b`, in bounds.
    fn view(&self, a: usize, b: usize) -> DeviceView<'_, T> {
        let (repr, memory) = match &self.storage {
            // SAFETY: this buffer owns the memory, `&self` is shared, and only shared views
            // of it can be alive.
            Storage::Gpu { memory, .. } => unsafe {
                memory.refresh_base();
                (
                    Repr::Gpu(memory.get().slice(a..b)),
                    Some(memory as &dyn Held),
                )
            },
            // SAFETY: the view borrows the buffer for `'_`.
            Storage::Sim(s) => (Repr::Sim(unsafe { s.view(a, b - a) }, PhantomData), None),
        };
        DeviceView {
            repr,
            device: &self.device,
            memory,
            offset: a,
        }
    }

    /// The writable view of `a..b`, in bounds.
    fn view_mut(&mut self, a: usize, b: usize) -> DeviceViewMut<'_, T> {
        let (repr, memory) = match &mut self.storage {
            Storage::Gpu { memory, .. } => {
                // SAFETY: this buffer owns the memory and `&mut self` is exclusive: no view is
                // alive.
                let s = unsafe {
                    memory.refresh_base();
                    memory.get_mut()
                };
                (ReprMut::Gpu(s.slice_mut(a..b)), Some(memory as &dyn Held))
            }
            // SAFETY: the view borrows the buffer exclusively for `'_`.
            Storage::Sim(s) => (
                ReprMut::Sim(unsafe { s.view_mut(a, b - a) }, PhantomData),
                None,
            ),
        };
        DeviceViewMut {
            repr,
            device: &self.device,
            memory,
            offset: a,
        }
    }

    /// The cudarc slice, for interop: `None` on the simulator, for an empty buffer that
    /// Cuprum allocated (CUDA cannot allocate zero bytes, so it is backed by one element), and
    /// when waiting for Cuprum's work fails. When a Cuprum write of the buffer may still be
    /// running, waits on the host for it (once), so that cudarc code may read the slice on
    /// any stream; Cuprum's next uses of the buffer wait on cudarc's events of it.
    ///
    /// `None` also for an element type holding an enum: its memory may hold bits that are
    /// no variant (see [`DeviceEnum`](crate::DeviceEnum)), which cudarc's copies would make
    /// into host values unchecked; [`as_repr`](DeviceBuffer::as_repr) views the integers
    /// (whose [`device_ptr`](DeviceView::device_ptr) other libraries may take).
    pub fn cuda_slice(&self) -> Option<&CudaSlice<T>> {
        if T::CHECKED {
            return None;
        }
        let (memory, slice, len) = self.cuda()?;
        if slice.len() != len || memory.uses.settle_writes_host().is_err() {
            return None;
        }
        memory.uses.mark_foreign();
        Some(slice)
    }

    /// The cudarc slice, writable, for interop (`None` as for
    /// [`cuda_slice`](DeviceBuffer::cuda_slice)). Cuprum's queued work on the buffer is
    /// ordered before cudarc's work on it (the slice's own stream waits for it and cudarc's
    /// events are recorded there; nothing waits on the host), and Cuprum's next uses wait on
    /// cudarc's events. A slice assigned through it becomes the buffer's memory (and its
    /// length the buffer's).
    pub fn cuda_slice_mut(&mut self) -> Option<&mut CudaSlice<T>> {
        let Storage::Gpu { memory, empty } = &mut self.storage else {
            return None;
        };
        if *empty || T::CHECKED {
            return None;
        }
        // SAFETY: this buffer owns the memory and `&mut self` is exclusive.
        let slice = unsafe { memory.get_mut() };
        hand_to_cudarc(&memory.uses, slice).ok()?;
        memory.base.store(0, Ordering::Relaxed);
        Some(slice)
    }

    /// Adopts a cudarc slice as a buffer of `device`, for interop with code that allocates
    /// through cudarc. The slice keeps its own stream (it is freed there); Cuprum's first
    /// uses wait on cudarc's events of the slice.
    ///
    /// # Errors
    /// [`Error::WrongDevice`] when the slice belongs to another context than `device`'s (or
    /// `device` is the simulator).
    pub fn from_cuda_slice(slice: CudaSlice<T>, device: &Device) -> Result<DeviceBuffer<T>> {
        match &device.core.kind {
            DeviceKind::Gpu { ctx, .. } if slice.context().cu_ctx() == ctx.cu_ctx() => {
                Ok(DeviceBuffer {
                    storage: Storage::Gpu {
                        memory: Arc::new(GpuMemory::new(slice, Uses::foreign())),
                        empty: false,
                    },
                    device: device.clone(),
                })
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
    /// [`from_cuda_slice`](DeviceBuffer::from_cuda_slice)), ordered after Cuprum's queued
    /// work on it as for [`cuda_slice_mut`](DeviceBuffer::cuda_slice_mut). An empty buffer
    /// becomes cudarc's zero-length slice.
    ///
    /// # Errors
    /// [`Error::Unsupported`] on the simulator, and for an element type holding an enum (as
    /// [`cuda_slice`](DeviceBuffer::cuda_slice) is `None` for it); [`Error::Capture`] when a
    /// [`Graph`](crate::Graph) still uses the memory; driver errors from ordering, or when an
    /// empty slice cannot be made.
    pub fn into_cuda_slice(self) -> Result<CudaSlice<T>> {
        if T::CHECKED {
            return Err(Error::Unsupported(format!(
                "into_cuda_slice: `{}` holds an enum, and cudarc would read its memory without checking the discriminants",
                T::NAME
            )));
        }
        let (memory, empty) = match self.storage {
            Storage::Gpu { memory, empty } => (memory, empty),
            Storage::Sim(_) => {
                return Err(Error::Unsupported(
                    "into_cuda_slice: a simulator buffer is host memory, not a CUDA allocation"
                        .into(),
                ))
            }
        };
        let memory = Arc::try_unwrap(memory).map_err(|_| {
            Error::Capture(
                "into_cuda_slice: a graph still uses this buffer; drop the graph first".into(),
            )
        })?;
        // SAFETY: `memory` is the only handle of the allocation.
        hand_to_cudarc(&memory.uses, unsafe { memory.get_mut() })
            .during("ordering the buffer's work")?;
        let memory = std::mem::ManuallyDrop::new(memory);
        // SAFETY: `memory` is never used or dropped again; its `Uses` hold nothing that needs
        // dropping beyond stream handles, which are released here.
        let (slice, uses) =
            unsafe { (std::ptr::read(&memory.slice), std::ptr::read(&memory.uses)) };
        drop(uses);
        let slice = slice.into_inner();
        if !empty {
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
    /// kernel launched through cudarc's raw API, cuBLAS, NCCL). Waits on the host for
    /// Cuprum's queued work on the buffer first.
    ///
    /// # Safety
    /// Cuprum does not see what is done through the address. The caller must: use it only
    /// while the buffer is alive (it is freed when dropped); finish its work before Cuprum
    /// uses or frees the buffer again (e.g. synchronise the stream it used); write through it
    /// only while it holds the buffer exclusively; stay within [`len`](DeviceBuffer::len)
    /// elements.
    ///
    /// # Errors
    /// [`Error::Unsupported`] on the simulator; driver errors from waiting.
    pub unsafe fn device_ptr(&self) -> Result<u64> {
        raw_device_ptr(&self.__view())
    }

    /// The device address of the first element, for writing through it: as
    /// [`device_ptr`](DeviceBuffer::device_ptr), borrowing the buffer exclusively.
    ///
    /// # Safety
    /// As [`device_ptr`](DeviceBuffer::device_ptr).
    ///
    /// # Errors
    /// [`Error::Unsupported`] on the simulator; driver errors from waiting.
    pub unsafe fn device_ptr_mut(&mut self) -> Result<u64> {
        raw_device_ptr(&DeviceSlice::__view(self))
    }
}

impl<E: DeviceEnum> DeviceBuffer<E> {
    /// The buffer's memory as the enum's `repr` integers (`u8` for `#[repr(u8)]`), read-only:
    /// the discriminants, for a kernel's `&[u8]` parameter, a copy to the host as integers, or
    /// a raw pointer for another library.
    pub fn as_repr(&self) -> DeviceView<'_, E::Repr> {
        let len = self.len();
        let (repr, memory) = match &self.storage {
            // SAFETY: this buffer owns the memory and `&self` is shared; `E::Repr` has `E`'s
            // size, and every bit pattern is one of its values.
            Storage::Gpu { memory, .. } => unsafe {
                memory.refresh_base();
                let v = memory.get().transmute::<E::Repr>(len);
                (
                    Repr::Gpu(v.expect("the `repr` has the enum's size")),
                    Some(memory as &dyn Held),
                )
            },
            // SAFETY: the view borrows the buffer for `'_`; as above.
            Storage::Sim(s) => (
                Repr::Sim(unsafe { s.view(0, len).reinterpret(0, len) }, PhantomData),
                None,
            ),
        };
        DeviceView {
            repr,
            device: &self.device,
            memory,
            offset: 0,
        }
    }

    /// The buffer's memory as the enum's `repr` integers, writable: a kernel's `&mut [u8]`
    /// parameter (for a `#[repr(u8)]` enum) or a copy may write any integer there, a
    /// discriminant or not. Reading the buffer as `E` afterwards checks every element: the
    /// host's copies return [`Error::NotAVariant`] for an integer that is no variant (and a
    /// kernel on the simulator stops with that report; on a GPU a kernel reads the integer
    /// as it is, and a `match` on it takes its last arm).
    pub fn as_repr_mut(&mut self) -> DeviceViewMut<'_, E::Repr> {
        let len = self.len();
        let (repr, memory) = match &mut self.storage {
            Storage::Gpu { memory, .. } => {
                // SAFETY: this buffer owns the memory and `&mut self` is exclusive: no view is
                // alive; `E::Repr` has `E`'s size, and reads of `E` check what is written.
                let v = unsafe {
                    memory.refresh_base();
                    memory.get_mut().transmute_mut::<E::Repr>(len)
                };
                (
                    ReprMut::Gpu(v.expect("the `repr` has the enum's size")),
                    Some(memory as &dyn Held),
                )
            }
            // SAFETY: the view borrows the buffer exclusively for `'_`; as above.
            Storage::Sim(s) => (
                ReprMut::Sim(
                    unsafe { s.view_mut(0, len).reinterpret(0, len) },
                    PhantomData,
                ),
                None,
            ),
        };
        DeviceViewMut {
            repr,
            device: &self.device,
            memory,
            offset: 0,
        }
    }
}

/// Orders Cuprum's uses of `slice` before whatever cudarc code does with it next: the slice's
/// stream waits for them, then cudarc's events of the slice are recorded there (they only
/// exist, and are only waited on, while cudarc tracks several streams; with one, cudarc's
/// work is on the default stream, which the slice's stream then is).
fn hand_to_cudarc<T>(
    uses: &Uses,
    slice: &mut CudaSlice<T>,
) -> std::result::Result<(), cudarc::driver::DriverError> {
    let own = slice.stream().clone();
    uses.settle_on(&own)?;
    drop(slice.device_ptr_mut(&own));
    uses.mark_foreign();
    Ok(())
}

/// The device address of `view`'s first element, once Cuprum's queued work on it is done.
fn raw_device_ptr<T: Element>(view: &RawView<'_, T>) -> Result<u64> {
    match view.memory {
        Some(m) => {
            m.uses()
                .settle_host()
                .during("waiting for the buffer's work")?;
            Ok(view.kernel_ptr())
        }
        None => Err(Error::Unsupported(
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
        raw_device_ptr(&self.__view())
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
        raw_device_ptr(&self.__view())
    }

    /// The device address of the view's first element, for writing through it.
    ///
    /// # Safety
    /// As [`DeviceBuffer::device_ptr`], for the view's elements.
    ///
    /// # Errors
    /// [`Error::Unsupported`] on the simulator.
    pub unsafe fn device_ptr_mut(&mut self) -> Result<u64> {
        raw_device_ptr(&self.__view())
    }
}

/// `range` as `(start, end)` within `len`, or `None` when it is out of bounds (or its ends
/// overflow).
fn try_bounds(range: &impl RangeBounds<usize>, len: usize) -> Option<(usize, usize)> {
    use std::ops::Bound;
    let a = match range.start_bound() {
        Bound::Included(&a) => a,
        Bound::Excluded(&a) => a.checked_add(1)?,
        Bound::Unbounded => 0,
    };
    let b = match range.end_bound() {
        Bound::Included(&b) => b.checked_add(1)?,
        Bound::Excluded(&b) => b,
        Bound::Unbounded => len,
    };
    (a <= b && b <= len).then_some((a, b))
}

/// As [`try_bounds`], panicking with slicing's message.
fn bounds(range: &impl RangeBounds<usize>, len: usize) -> (usize, usize) {
    try_bounds(range, len).unwrap_or_else(|| {
        panic!(
            "device buffer range {:?}..{:?} is out of range for a buffer of length {len}",
            range.start_bound(),
            range.end_bound()
        )
    })
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
        let view = self.view(0, self.len());
        RawView {
            repr: view.repr,
            device: view.device,
            memory: view.memory,
            offset: 0,
        }
    }
}

impl<T: Element> DeviceSliceMut<T> for DeviceBuffer<T> {
    fn __view_mut(&mut self) -> RawViewMut<'_, T> {
        let len = self.len();
        let view = self.view_mut(0, len);
        RawViewMut {
            repr: view.repr,
            device: view.device,
            memory: view.memory,
            offset: 0,
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
            offset: self.offset,
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
            offset: self.offset,
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
            offset: self.offset,
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
            offset: self.offset,
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
            offset: self.offset,
        }
    }
}

/// Where [`DeviceBuffer::as_vectors`] splits GPU memory: `(head, vectors)` for `len`
/// elements from index `offset` of an allocation at address `base`. The vectors start at the
/// first element whose index is a multiple of `N`, which lies at a 16-byte boundary because
/// the base does (`N` elements fill 16 bytes); a base that does not (foreign memory) gives no
/// vectors.
fn gpu_split<const N: usize>(base: u64, offset: usize, len: usize) -> (usize, usize) {
    if !base.is_multiple_of(16) {
        return (len, 0);
    }
    let head = ((N - offset % N) % N).min(len);
    (head, (len - head) / N)
}

/// The middle part's place in GPU memory: its first vector's index in the allocation, and the
/// allocation. A part with vectors starts where [`gpu_split`] put it (`offset + head`, a
/// multiple of `N`). An empty one is never read, but its address must still have the
/// alignment kernels assume for 16-byte elements: the last 16-byte boundary at or before the
/// view's end (`offset + head` rounded down), or, in memory whose base is at no boundary, no
/// address (0, as a view of no allocation has).
fn gpu_middle<const N: usize>(
    memory: Option<&dyn Held>,
    offset: usize,
    head: usize,
    vectors: usize,
) -> (Option<&dyn Held>, usize) {
    let first = offset + head;
    match memory {
        Some(m) if vectors > 0 => {
            assert!(first.is_multiple_of(N), "a vector part starts at a vector");
            (Some(m), first / N)
        }
        Some(m) if m.base().is_multiple_of(16) => (Some(m), first / N),
        _ => (None, 0),
    }
}

/// Where [`DeviceBuffer::as_vectors`] splits simulator memory: `(head, vectors)` for `len`
/// elements from address `addr` (the real address: a view may start anywhere).
fn sim_split<T, const N: usize>(addr: usize, len: usize) -> (usize, usize) {
    crate::vectors::split(addr as u64, len, std::mem::size_of::<T>(), N)
}

/// `N` elements of `T` fill exactly one 16-byte vector: checked when `as_vectors` is
/// instantiated (`VectorLanes` promises it; this proves it for each instance).
const fn vector_of<T, const N: usize>() -> usize {
    assert!(std::mem::size_of::<[T; N]>() == 16 && std::mem::align_of::<[T; N]>() <= 16);
    16
}

/// The three parts of `raw` that [`DeviceBuffer::as_vectors`] returns.
pub(crate) fn vector_parts<'a, T: VectorLanes<N>, const N: usize>(
    raw: RawView<'a, T>,
) -> (DeviceView<'a, T>, DeviceView<'a, [T; N]>, DeviceView<'a, T>) {
    let bytes = const { vector_of::<T, N>() };
    let size = std::mem::size_of::<T>();
    let len = raw.repr.len();
    let (head, vectors, first, middle, last, middle_at) = match raw.repr {
        Repr::Gpu(v) => {
            let base = raw.memory.map_or(0, |m| m.base());
            let (head, vectors) = gpu_split::<N>(base, raw.offset, len);
            let tail = head + vectors * N;
            let body = v.slice(head..tail);
            // SAFETY: `body` is `vectors * N` elements, the same bytes as `vectors` arrays
            // (`vector_of`); every bit pattern of `[T; N]` is a value (`VectorLanes` is for
            // such scalars only).
            let middle = unsafe { body.transmute::<[T; N]>(vectors) }.expect("N elements each");
            let at = gpu_middle::<N>(raw.memory, raw.offset, head, vectors);
            let parts = (v.slice(..head), middle, v.slice(tail..));
            (
                head,
                vectors,
                Repr::Gpu(parts.0),
                Repr::Gpu(parts.1),
                Repr::Gpu(parts.2),
                at,
            )
        }
        Repr::Sim(v, _) => {
            let (head, vectors) = sim_split::<T, N>(v.addr(), len);
            let tail = head + vectors * N;
            // SAFETY: each part lies within the view's memory, and holds values of its type
            // (as above); an empty middle part is at no memory.
            let parts = unsafe {
                let middle = if vectors > 0 {
                    v.reinterpret::<[T; N]>(head * size, vectors)
                } else {
                    SimSlice::dangling()
                };
                (
                    v.reinterpret::<T>(0, head),
                    middle,
                    v.reinterpret::<T>(tail * size, len - tail),
                )
            };
            assert!(
                parts.1.addr().is_multiple_of(bytes),
                "vectors at a 16-byte boundary"
            );
            let parts = (
                Repr::Sim(parts.0, PhantomData),
                Repr::Sim(parts.1, PhantomData),
                Repr::Sim(parts.2, PhantomData),
            );
            (head, vectors, parts.0, parts.1, parts.2, (None, 0))
        }
    };
    let tail = head + vectors * N;
    let middle = DeviceView {
        repr: middle,
        device: raw.device,
        memory: middle_at.0,
        offset: middle_at.1,
    };
    debug_assert!(middle.memory.is_none() || middle.__view().kernel_ptr().is_multiple_of(16));
    (
        DeviceView {
            repr: first,
            device: raw.device,
            memory: raw.memory,
            offset: raw.offset,
        },
        middle,
        DeviceView {
            repr: last,
            device: raw.device,
            memory: raw.memory,
            offset: raw.offset + tail,
        },
    )
}

/// The three parts of `raw` that [`DeviceBuffer::as_vectors_mut`] returns (see
/// [`vector_parts`]), each writable: they are disjoint.
pub(crate) fn vector_parts_mut<'a, T: VectorLanes<N>, const N: usize>(
    raw: RawViewMut<'a, T>,
) -> (
    DeviceViewMut<'a, T>,
    DeviceViewMut<'a, [T; N]>,
    DeviceViewMut<'a, T>,
) {
    let bytes = const { vector_of::<T, N>() };
    let size = std::mem::size_of::<T>();
    let len = raw.repr.len();
    let (head, vectors, first, middle, last, middle_at) = match raw.repr {
        ReprMut::Gpu(mut v) => {
            let base = raw.memory.map_or(0, |m| m.base());
            let (head, vectors) = gpu_split::<N>(base, raw.offset, len);
            let (first, rest) = v.split_at_mut(head);
            // SAFETY: cudarc ties a split's parts to the borrow of the view split, a local
            // here; they are disjoint parts of memory that `v` borrows exclusively for `'a`,
            // and hold references (the allocation's stream and events) that live for `'a`.
            let mut rest: CudaViewMut<'a, T> = unsafe { detach(rest) };
            let (mut body, last) = rest.split_at_mut(vectors * N);
            // SAFETY: as above; `body` is `vectors * N` elements, the same bytes as `vectors`
            // arrays (`vector_of`), every bit pattern of `[T; N]` is a value and of `T` too
            // (what the middle part's writes leave is read back as `T`).
            let middle = unsafe { body.transmute_mut::<[T; N]>(vectors) }.expect("N elements each");
            // SAFETY: as above.
            let parts = unsafe { (detach(first), detach(middle), detach(last)) };
            let at = gpu_middle::<N>(raw.memory, raw.offset, head, vectors);
            (
                head,
                vectors,
                ReprMut::Gpu(parts.0),
                ReprMut::Gpu(parts.1),
                ReprMut::Gpu(parts.2),
                at,
            )
        }
        ReprMut::Sim(v, _) => {
            let (head, vectors) = sim_split::<T, N>(v.as_slice().addr(), len);
            let tail = head + vectors * N;
            // SAFETY: each part lies within the view's memory, the parts are disjoint, and
            // every bit pattern written through one is a value of `T` (as above); an empty
            // middle part is at no memory.
            let parts = unsafe {
                let middle = if vectors > 0 {
                    v.reinterpret::<[T; N]>(head * size, vectors)
                } else {
                    SimSliceMut::dangling()
                };
                (
                    v.reinterpret::<T>(0, head),
                    middle,
                    v.reinterpret::<T>(tail * size, len - tail),
                )
            };
            assert!(
                parts.1.as_slice().addr().is_multiple_of(bytes),
                "vectors at a 16-byte boundary"
            );
            (
                head,
                vectors,
                ReprMut::Sim(parts.0, PhantomData),
                ReprMut::Sim(parts.1, PhantomData),
                ReprMut::Sim(parts.2, PhantomData),
                (None, 0),
            )
        }
    };
    let tail = head + vectors * N;
    (
        DeviceViewMut {
            repr: first,
            device: raw.device,
            memory: raw.memory,
            offset: raw.offset,
        },
        DeviceViewMut {
            repr: middle,
            device: raw.device,
            memory: middle_at.0,
            offset: middle_at.1,
        },
        DeviceViewMut {
            repr: last,
            device: raw.device,
            memory: raw.memory,
            offset: raw.offset + tail,
        },
    )
}

/// A cudarc view with the lifetime `'a` of the memory it is part of.
///
/// # Safety
/// The view is part of memory borrowed (exclusively, for a mutable view) for `'a`, and no
/// other live view overlaps it.
unsafe fn detach<'a, U>(v: CudaViewMut<'_, U>) -> CudaViewMut<'a, U> {
    let v = std::mem::ManuallyDrop::new(v);
    // SAFETY: the types differ in their lifetime only (the same layout), `v` is not used
    // again, and the caller promises that the memory stays borrowed for `'a`.
    unsafe { std::ptr::read((&*v as *const CudaViewMut<'_, U>).cast::<CudaViewMut<'a, U>>()) }
}

macro_rules! as_vectors {
    ($($ty:ident),*) => {$(
        impl<T: Element> $ty<'_, T> {
            /// The elements as 16-byte vectors where they can be: `(head, vectors, tail)`,
            /// where `head` holds the elements before the first 16-byte boundary (at most
            /// `N - 1`, none for a view starting at a multiple of `N`), `vectors` the next
            /// elements in groups of `N` (a view of `[T; N]`, which a kernel's `&[[T; N]]`
            /// parameter takes and reads in 128-bit accesses), and `tail` the rest (at most
            /// `N - 1`). Any length and start works, 0 included; a view too short to reach a
            /// boundary has no vectors. See [`DeviceBuffer::as_vectors`].
            pub fn as_vectors<const N: usize>(
                &self,
            ) -> (DeviceView<'_, T>, DeviceView<'_, [T; N]>, DeviceView<'_, T>)
            where
                T: VectorLanes<N>,
            {
                vector_parts(self.__view())
            }
        }
    )*};
}
as_vectors!(DeviceView, DeviceViewMut);

impl<T: Element> DeviceViewMut<'_, T> {
    /// [`as_vectors`](Self::as_vectors), writable: three disjoint writable views, the middle
    /// one of `[T; N]` for a kernel's `&mut [[T; N]]` parameter (written in 128-bit stores).
    /// See [`DeviceBuffer::as_vectors_mut`].
    pub fn as_vectors_mut<const N: usize>(
        &mut self,
    ) -> (
        DeviceViewMut<'_, T>,
        DeviceViewMut<'_, [T; N]>,
        DeviceViewMut<'_, T>,
    )
    where
        T: VectorLanes<N>,
    {
        vector_parts_mut(self.__view_mut())
    }
}

impl<T: Element> DeviceBuffer<T> {
    /// The elements as 16-byte vectors where they can be: `(head, vectors, tail)`, as
    /// `slice::as_simd` splits a slice. `vectors` is a view of `[T; N]` (`N` lanes of 16
    /// bytes: 4 for `i32`, `u32` and `f32`, 2 for the 8-byte scalars) starting at the first
    /// 16-byte boundary, which a kernel's `&[[T; N]]` parameter takes and reads in 128-bit
    /// accesses (`ld.global.nc.v4.u32`); `head` holds the elements before that boundary and
    /// `tail` those after the last whole vector, each fewer than `N`. Every element is in
    /// exactly one part, in order. A buffer starts at a boundary (its head is empty), and so
    /// does a view whose start is a multiple of `N`. Any length and start works, 0
    /// included: memory too short to reach a boundary (or foreign memory not at one) has no
    /// vectors, and an empty `vectors` still has an address that launches accept.
    ///
    /// ```
    /// use cuprum::prelude::*;
    ///
    /// /// The sum of each vector's lanes, one vector per thread.
    /// #[kernel]
    /// pub fn lane_sums(out: &mut [u32], v: &[[u32; 4]]) {
    ///     let i = gpu::global_id_x();
    ///     if i < v.len() {
    ///         let x = v[i];
    ///         out[i] = x[0] + x[1] + x[2] + x[3];
    ///     }
    /// }
    ///
    /// # fn main() -> cuprum::Result<()> {
    /// let stream = Device::simulator().default_stream();
    /// let x = stream.to_device(&(0..11).collect::<Vec<u32>>())?;
    /// let (head, vectors, tail) = x.as_vectors::<4>();
    /// assert_eq!((head.len(), vectors.len(), tail.len()), (0, 2, 3));
    /// let view = x.slice(1..);
    /// let (head, vectors, tail) = view.as_vectors::<4>();
    /// assert_eq!((head.len(), vectors.len(), tail.len()), (3, 1, 3));
    /// assert_eq!(stream.to_host(&vectors)?, [[4, 5, 6, 7]]);
    /// let mut sums = stream.alloc_zeros::<u32>(1)?;
    /// launch!(lane_sums<<<1, 32, stream>>>(&mut sums, &vectors))?;
    /// assert_eq!(stream.to_host(&sums)?, [22]);
    /// # Ok(()) }
    /// ```
    pub fn as_vectors<const N: usize>(
        &self,
    ) -> (DeviceView<'_, T>, DeviceView<'_, [T; N]>, DeviceView<'_, T>)
    where
        T: VectorLanes<N>,
    {
        vector_parts(self.__view())
    }

    /// [`as_vectors`](Self::as_vectors), writable: `(head, vectors, tail)` as three
    /// disjoint writable views, `vectors` of `[T; N]` for a kernel's `&mut [[T; N]]`
    /// parameter, which writes it in 128-bit stores (`st.global.v4.u32`). Every bit pattern
    /// of `[T; N]` is one of `N` values of `T`, so whatever a kernel writes there reads back
    /// as elements of the buffer.
    ///
    /// ```
    /// use cuprum::prelude::*;
    ///
    /// /// Doubles every lane, one vector per thread.
    /// #[kernel]
    /// pub fn double(v: &mut [[f32; 4]]) {
    ///     let i = gpu::global_id_x();
    ///     if i < v.len() {
    ///         let x = v[i];
    ///         v[i] = [2.0 * x[0], 2.0 * x[1], 2.0 * x[2], 2.0 * x[3]];
    ///     }
    /// }
    ///
    /// # fn main() -> cuprum::Result<()> {
    /// let stream = Device::simulator().default_stream();
    /// let mut x = stream.to_device(&[1.0f32; 10])?;
    /// let mut view = x.slice_mut(1..);
    /// let (head, mut vectors, tail) = view.as_vectors_mut::<4>();
    /// assert_eq!((head.len(), vectors.len(), tail.len()), (3, 1, 2));
    /// launch!(double<<<1, 32, stream>>>(&mut vectors))?;
    /// assert_eq!(stream.to_host(&x)?, [1.0, 1.0, 1.0, 1.0, 2.0, 2.0, 2.0, 2.0, 1.0, 1.0]);
    /// # Ok(()) }
    /// ```
    pub fn as_vectors_mut<const N: usize>(
        &mut self,
    ) -> (
        DeviceViewMut<'_, T>,
        DeviceViewMut<'_, [T; N]>,
        DeviceViewMut<'_, T>,
    )
    where
        T: VectorLanes<N>,
    {
        vector_parts_mut(self.__view_mut())
    }
}
