//! Copies between host and device memory: into new buffers (`to_device`, `to_host`; and
//! `alloc_zeros`), and into existing memory (host to device, device to host, device to
//! device).

use std::sync::Arc;

use cuprum_std::sim::{SimBuffer, SimSlice};

use crate::buffer::{DeviceBuffer, DeviceSlice, DeviceSliceMut, Repr, ReprMut};
use crate::element::Element;
use crate::error::{out_of_memory, DriverContext, Error, Result};
use crate::host_memory::{HostMemory, HostMut, HostRef};
use crate::stream::{Stream, StreamKind};

/// `Err` unless a copy's two sides have the same length.
fn same_len(dst: usize, src: usize) -> Result<()> {
    if dst == src {
        Ok(())
    } else {
        Err(Error::LengthMismatch {
            expected: dst,
            found: src,
        })
    }
}

impl Stream {
    /// Copies `data` into a new device buffer.
    ///
    /// # Errors
    /// Driver errors (out of memory); [`Error::Capture`] on a capture handle.
    pub fn to_device<T: Element>(&self, data: &[T]) -> Result<DeviceBuffer<T>> {
        self.check_not_capturing("to_device")?;
        match &self.core.kind {
            StreamKind::Gpu { cuda, .. } if data.is_empty() => {
                // SAFETY: the element backing an empty buffer is never read (its views are
                // empty, and the cudarc slice is not handed out: `DeviceBuffer::cuda_slice`).
                let slice = unsafe { cuda.alloc::<T>(1) }.during("allocating device memory")?;
                Ok(DeviceBuffer::gpu(
                    slice,
                    true,
                    self.core.device.clone(),
                    cuda,
                ))
            }
            StreamKind::Gpu { cuda, .. } => {
                let slice = cuda.clone_htod(data).during("copying to the device")?;
                Ok(DeviceBuffer::gpu(
                    slice,
                    false,
                    self.core.device.clone(),
                    cuda,
                ))
            }
            StreamKind::Sim { .. } => Ok(DeviceBuffer::sim(
                SimBuffer::from_slice(data).map_err(|_| out_of_memory())?,
                self.core.device.clone(),
            )),
        }
    }

    /// A new device buffer of `len` zeros (`len` may be 0), for element types of which zero
    /// bits are a value (`ValidAsZeroBits`: every scalar, and a `DeviceCopy` enum only when
    /// a variant's discriminant is 0).
    ///
    /// # Errors
    /// Driver errors: out of memory, also when `len` elements' byte size overflows (the
    /// simulator reports the same when the host cannot hold them); [`Error::Capture`] on a
    /// capture handle.
    pub fn alloc_zeros<T: Element + cudarc::driver::ValidAsZeroBits>(
        &self,
        len: usize,
    ) -> Result<DeviceBuffer<T>> {
        self.check_not_capturing("alloc_zeros")?;
        // cudarc multiplies without checking; a wrapped size would be a smaller allocation.
        if len
            .checked_mul(std::mem::size_of::<T>())
            .is_none_or(|bytes| bytes > isize::MAX as usize)
        {
            return Err(out_of_memory());
        }
        match &self.core.kind {
            StreamKind::Gpu { cuda, .. } => {
                let slice = cuda
                    .alloc_zeros::<T>(len.max(1))
                    .during("allocating device memory")?;
                Ok(DeviceBuffer::gpu(
                    slice,
                    len == 0,
                    self.core.device.clone(),
                    cuda,
                ))
            }
            StreamKind::Sim { .. } => Ok(DeviceBuffer::sim(
                SimBuffer::zeroed(len).map_err(|_| out_of_memory())?,
                self.core.device.clone(),
            )),
        }
    }

    /// Copies a buffer (or view) into a new `Vec` once the stream's work has finished. For an
    /// element type holding an enum, every element's bits are checked first.
    ///
    /// On a GPU the copy is queued behind the stream's work at once and the stream is then
    /// synchronized, which reports a failed check of a kernel before it (the copied values are
    /// then dropped): one wait for the GPU, with no idle gap while the host wakes up to queue
    /// the copy (bench/NOTES.md, branch `cvtsum`). Element types holding an enum wait first
    /// and copy after, since their bits are checked on arrival.
    ///
    /// # Errors
    /// [`Error::KernelPanic`] when a kernel on this stream failed a check; a buffer of another
    /// device; driver errors; [`Error::NotAVariant`] when an element holds bits that are no
    /// variant of an enum it holds (written through
    /// [`as_repr_mut`](crate::DeviceBuffer::as_repr_mut), say).
    pub fn to_host<T: Element>(&self, src: &(impl DeviceSlice<T> + ?Sized)) -> Result<Vec<T>> {
        self.check_not_capturing("to_host")?;
        let view = src.__view();
        self.check_device("to_host", view.device())?;
        match (&self.core.kind, &view.repr) {
            (StreamKind::Gpu { cuda, .. }, Repr::Gpu(v)) if !T::CHECKED && !v.is_empty() => {
                view.before_use(cuda)?;
                // The copy waits for the stream's work and for writes on other streams
                // (`before_use`); the synchronization after it reports failed checks.
                let out = cuda.clone_dtoh(v).during("copying to the host")?;
                self.synchronize()?;
                Ok(out)
            }
            (StreamKind::Gpu { .. }, Repr::Gpu(v)) if v.is_empty() => {
                self.synchronize()?;
                Ok(Vec::new())
            }
            (StreamKind::Gpu { cuda, .. }, Repr::Gpu(v)) => {
                self.synchronize()?;
                view.before_use(cuda)?;
                checked_dtoh(cuda, v)
            }
            (StreamKind::Sim { .. }, Repr::Sim(v, _)) => {
                self.synchronize()?;
                sim_to_vec(v)
            }
            _ => unreachable!("a device's buffers have its kind"),
        }
    }

    /// Copies host memory into an existing device buffer or view, in stream order. From
    /// ordinary memory (`&[T]`, `&Vec<T>`) the source has been read when the call returns;
    /// from a [`PinnedBuffer`](crate::PinnedBuffer) the copy is queued and the call returns
    /// at once (writing the pinned buffer waits for it).
    ///
    /// # Errors
    /// [`Error::LengthMismatch`] unless both have the same length; [`Error::WrongDevice`] for
    /// memory of another device; driver errors; [`Error::Capture`] on a capture handle.
    pub fn copy_from_host<T: Element>(
        &self,
        dst: &mut (impl DeviceSliceMut<T> + ?Sized),
        src: &(impl HostMemory<T> + ?Sized),
    ) -> Result<()> {
        self.check_not_capturing("copy_from_host")?;
        let src = src.__host();
        let mut dst = dst.__view_mut();
        self.check_device("copy_from_host", dst.device())?;
        if let HostRef::Pinned(p) = &src {
            self.check_device("copy_from_host", p.device())?;
        }
        same_len(dst.repr.len(), src.len())?;
        if src.len() == 0 {
            return Ok(());
        }
        if let StreamKind::Gpu { cuda, .. } = &self.core.kind {
            dst.before_use(cuda)?;
        }
        match (&self.core.kind, &mut dst.repr, src) {
            (StreamKind::Gpu { cuda, .. }, ReprMut::Gpu(d), HostRef::Pageable(s)) => {
                cuda.memcpy_htod(s, d).during("copying to the device")
            }
            (StreamKind::Gpu { cuda, .. }, ReprMut::Gpu(d), HostRef::Pinned(p)) => {
                let (s, done) = p.cuda().expect("a GPU's pinned buffer is pinned memory");
                cuda.wait(done).during("copying to the device")?;
                cuda.memcpy_htod(s, d).during("copying to the device")?;
                done.record(cuda).during("copying to the device")
            }
            (StreamKind::Sim { .. }, ReprMut::Sim(d, _), HostRef::Pageable(s)) => {
                d.as_slice().copy_from(s);
                Ok(())
            }
            (StreamKind::Sim { .. }, ReprMut::Sim(d, _), HostRef::Pinned(p)) => {
                d.as_slice()
                    .copy_from(p.sim().expect("the simulator's pinned buffer is a Vec"));
                Ok(())
            }
            _ => unreachable!("a device's memory has its kind"),
        }
    }

    /// Copies a device buffer or view into existing host memory. Into ordinary memory
    /// (`&mut [T]`, `&mut Vec<T>`) it first waits for the stream's work, like
    /// [`Stream::to_host`], and the data is there when the call returns; into a
    /// [`PinnedBuffer`](crate::PinnedBuffer) the copy is queued and the call returns at once
    /// (reading the pinned buffer waits for it; a failed check of an earlier kernel is then
    /// reported by the next [`Stream::synchronize`]).
    ///
    /// As [`Stream::to_host`], an element type holding an enum is checked element by element;
    /// it is copied only into ordinary memory (a pinned buffer would hold the bits unchecked).
    ///
    /// # Errors
    /// [`Error::KernelPanic`] (ordinary memory) when a kernel on this stream failed a check;
    /// [`Error::LengthMismatch`] unless both have the same length; [`Error::WrongDevice`] for
    /// memory of another device; driver errors; [`Error::Capture`] on a capture handle;
    /// [`Error::NotAVariant`] as for [`Stream::to_host`] (`dst` is then unchanged);
    /// [`Error::Unsupported`] for a pinned destination of a type holding an enum.
    pub fn copy_to_host<T: Element>(
        &self,
        src: &(impl DeviceSlice<T> + ?Sized),
        dst: &mut (impl HostMemory<T> + ?Sized),
    ) -> Result<()> {
        self.check_not_capturing("copy_to_host")?;
        let mut dst = dst.__host_mut();
        let src = src.__view();
        self.check_device("copy_to_host", src.device())?;
        if let HostMut::Pinned(p) = &dst {
            self.check_device("copy_to_host", p.device())?;
        }
        same_len(dst.len(), src.repr.len())?;
        match dst {
            HostMut::Pageable(_) => self.synchronize()?,
            HostMut::Pinned(_) if T::CHECKED => {
                return Err(Error::Unsupported(format!(
                    "copy_to_host: `{}` holds an enum, whose bits are checked when they reach host values, which an asynchronous copy into pinned memory cannot do; copy into a `Vec` or slice (or use `to_host`)",
                    T::NAME
                )))
            }
            HostMut::Pinned(_) => {}
        }
        if dst.len() == 0 {
            return Ok(());
        }
        if let StreamKind::Gpu { cuda, .. } = &self.core.kind {
            src.before_use(cuda)?;
        }
        match (&self.core.kind, &src.repr, &mut dst) {
            (StreamKind::Gpu { cuda, .. }, Repr::Gpu(s), HostMut::Pageable(d)) if T::CHECKED => {
                d.copy_from_slice(&checked_dtoh(cuda, s)?);
                Ok(())
            }
            (StreamKind::Gpu { cuda, .. }, Repr::Gpu(s), HostMut::Pageable(d)) => {
                cuda.memcpy_dtoh(s, &mut **d)
                    .during("copying to the host")?;
                // Pageable copies have finished on return; make sure of it.
                cuda.synchronize().during("copying to the host")
            }
            (StreamKind::Gpu { cuda, .. }, Repr::Gpu(s), HostMut::Pinned(p)) => {
                let (d, done) = p
                    .cuda_mut()
                    .expect("a GPU's pinned buffer is pinned memory");
                cuda.wait(done).during("copying to the host")?;
                cuda.memcpy_dtoh(s, d).during("copying to the host")?;
                done.record(cuda).during("copying to the host")
            }
            (StreamKind::Sim { .. }, Repr::Sim(s, _), HostMut::Pageable(d)) => {
                d.copy_from_slice(&sim_to_vec(s)?);
                Ok(())
            }
            (StreamKind::Sim { .. }, Repr::Sim(s, _), HostMut::Pinned(p)) => {
                p.sim_mut()
                    .expect("the simulator's pinned buffer is a Vec")
                    .copy_from_slice(&sim_to_vec(s)?);
                Ok(())
            }
            _ => unreachable!("a device's memory has its kind"),
        }
    }

    /// Copies one device buffer or view into another of the same device, in stream order.
    ///
    /// # Errors
    /// [`Error::LengthMismatch`] unless both have the same length; [`Error::WrongDevice`] for
    /// memory of another device; driver errors; [`Error::Capture`] on a capture handle.
    pub fn copy<T: Element>(
        &self,
        src: &(impl DeviceSlice<T> + ?Sized),
        dst: &mut (impl DeviceSliceMut<T> + ?Sized),
    ) -> Result<()> {
        self.check_not_capturing("copy")?;
        let src = src.__view();
        let mut dst = dst.__view_mut();
        self.check_device("copy", src.device())?;
        self.check_device("copy", dst.device())?;
        let n = src.repr.len();
        same_len(dst.repr.len(), n)?;
        if n == 0 {
            return Ok(());
        }
        if let StreamKind::Gpu { cuda, .. } = &self.core.kind {
            src.before_use(cuda)?;
            dst.before_use(cuda)?;
        }
        match (&self.core.kind, &src.repr, &mut dst.repr) {
            (StreamKind::Gpu { cuda, .. }, Repr::Gpu(s), ReprMut::Gpu(d)) => cuda
                .memcpy_dtod(s, d)
                .during("copying between device buffers"),
            (StreamKind::Sim { .. }, Repr::Sim(s, _), ReprMut::Sim(d, _)) => {
                d.as_slice().copy_bits_from(s);
                Ok(())
            }
            _ => unreachable!("a device's memory has its kind"),
        }
    }
}

/// A simulator view's elements, or [`Error::NotAVariant`] for the first whose bits are no
/// value (an enum's).
fn sim_to_vec<T: Element>(v: &SimSlice<T>) -> Result<Vec<T>> {
    v.to_vec().map_err(|(i, e)| Error::not_a_variant(i, e))
}

/// Copies a GPU view of a type holding an enum to the host as bytes, checks every element,
/// and only then makes values of them: device memory may hold bits that are no variant
/// (written through an integer view), which must never become a host enum.
fn checked_dtoh<T: Element>(
    cuda: &Arc<cudarc::driver::CudaStream>,
    v: &cudarc::driver::CudaView<'_, T>,
) -> Result<Vec<T>> {
    let n = v.len();
    let size = std::mem::size_of::<T>();
    // Zeroed, so the bytes are initialised (a `DeviceCopy` type has no padding) and may be
    // written as `u8`s; aligned for `T`, so that each element can be read in place.
    let mut staged = vec![std::mem::MaybeUninit::<T>::zeroed(); n];
    // SAFETY: the `n * size` bytes of `staged` are initialised (above) and exclusively ours.
    let bytes =
        unsafe { std::slice::from_raw_parts_mut(staged.as_mut_ptr().cast::<u8>(), n * size) };
    // SAFETY: any bytes are valid `u8`s; the view covers `n * size` bytes.
    let raw = unsafe { v.transmute::<u8>(n * size) }.expect("a view's bytes cover its elements");
    cuda.memcpy_dtoh(&raw, bytes)
        .during("copying to the host")?;
    cuda.synchronize().during("copying to the host")?;
    // The staged bytes are read as the simulator reads its memory, through `SimValue`, which
    // checks each enum's discriminant.
    // SAFETY: `staged` holds `n` elements' bytes, aligned for `T`, used only through the view.
    let check = unsafe { SimSlice::<T>::from_host(staged.as_mut_ptr().cast::<u8>(), n) };
    check.to_vec().map_err(|(i, e)| Error::not_a_variant(i, e))
}
