//! `Stream`: an ordered queue of copies and launches on one device, and `Event`s for timing
//! and ordering.

use std::sync::{Arc, OnceLock};

use cudarc::driver::sys::CUevent_flags;
use cudarc::driver::{CudaEvent, CudaStream};

use crate::buffer::{DeviceBuffer, DeviceSlice};
use crate::device::Device;
use crate::element::Element;
use crate::error::{DriverContext, Error, Result};
use crate::panic_record::PanicRecord;

/// An in-order queue of work on a device. Launches and copies on one stream run in order;
/// different streams may overlap.
///
/// Cheap to clone (clones are the same stream). Failed runtime checks of kernels launched on
/// a stream are reported by its next synchronising call ([`Stream::synchronize`],
/// [`Stream::to_host`]) as [`Error::KernelPanic`].
#[derive(Clone)]
pub struct Stream {
    pub(crate) core: Arc<StreamCore>,
}

pub(crate) struct StreamCore {
    pub device: Device,
    pub cuda: Arc<CudaStream>,
    /// Where this stream's checked kernels record a failed check; made on first use.
    pub panic: OnceLock<PanicRecord>,
}

impl Stream {
    pub(crate) fn new(device: Device, cuda: Arc<CudaStream>) -> Stream {
        Stream {
            core: Arc::new(StreamCore {
                device,
                cuda,
                panic: OnceLock::new(),
            }),
        }
    }

    /// The device this stream belongs to.
    pub fn device(&self) -> &Device {
        &self.core.device
    }

    /// Copies `data` into a new device buffer.
    pub fn to_device<T: Element>(&self, data: &[T]) -> Result<DeviceBuffer<T>> {
        let slice = self
            .core
            .cuda
            .clone_htod(data)
            .during("copying to the device")?;
        Ok(DeviceBuffer::from_parts(slice, self.core.device.clone()))
    }

    /// A new device buffer of `len` zeros.
    pub fn alloc_zeros<T: Element>(&self, len: usize) -> Result<DeviceBuffer<T>> {
        let slice = self
            .core
            .cuda
            .alloc_zeros::<T>(len)
            .during("allocating device memory")?;
        Ok(DeviceBuffer::from_parts(slice, self.core.device.clone()))
    }

    /// Waits for the stream's work, then copies a buffer (or view) into a new `Vec`.
    ///
    /// # Errors
    /// [`Error::KernelPanic`] when a kernel on this stream failed a check; driver errors.
    pub fn to_host<T: Element>(&self, src: &(impl DeviceSlice<T> + ?Sized)) -> Result<Vec<T>> {
        self.synchronize()?;
        let view = src.__view();
        if !Arc::ptr_eq(&view.device().core, &self.core.device.core) {
            return Err(Error::WrongDevice(
                "to_host: the buffer lives on another device than this stream".into(),
            ));
        }
        self.core
            .cuda
            .clone_dtoh(&view.cuda)
            .during("copying to the host")
    }

    /// Waits until all work queued on this stream has finished.
    ///
    /// # Errors
    /// [`Error::KernelPanic`] when a kernel on this stream failed a check since the last
    /// synchronisation; driver errors.
    pub fn synchronize(&self) -> Result<()> {
        self.core
            .cuda
            .synchronize()
            .during("synchronizing a stream")?;
        match self.core.panic.get() {
            Some(record) => record.take(self),
            None => Ok(()),
        }
    }

    /// Records an event at the current end of the stream (timing enabled).
    pub fn record_event(&self) -> Result<Event> {
        let e = self
            .core
            .cuda
            .record_event(Some(CUevent_flags::CU_EVENT_DEFAULT))
            .during("recording an event")?;
        Ok(Event { cuda: e })
    }

    /// Makes later work on this stream wait for `event` (which may be on another stream).
    pub fn wait_event(&self, event: &Event) -> Result<()> {
        self.core
            .cuda
            .wait(&event.cuda)
            .during("waiting on an event")
    }

    /// The cudarc stream, for interop.
    pub fn cuda_stream(&self) -> &Arc<CudaStream> {
        &self.core.cuda
    }
}

impl std::fmt::Debug for Stream {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Stream")
            .field("device", &self.core.device)
            .finish()
    }
}

/// A point in a stream's work, for timing and cross-stream ordering.
pub struct Event {
    cuda: CudaEvent,
}

impl Event {
    /// Milliseconds between `self` and a later event `end` (waits for both).
    pub fn elapsed_ms(&self, end: &Event) -> Result<f32> {
        self.cuda.elapsed_ms(&end.cuda).during("timing events")
    }

    /// Waits until the work before the event is done.
    pub fn synchronize(&self) -> Result<()> {
        self.cuda.synchronize().during("waiting for an event")
    }
}
