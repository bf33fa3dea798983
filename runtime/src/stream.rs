//! `Stream`: an ordered queue of copies and launches on one device, and `Event`s for timing
//! and ordering.

use std::sync::{Arc, Mutex, OnceLock};
use std::time::Instant;

use cudarc::driver::sys::CUevent_flags;
use cudarc::driver::{CudaEvent, CudaStream};
use cuprum_std::sim::SimBuffer;

use crate::buffer::{DeviceBuffer, DeviceSlice, Repr};
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
    pub kind: StreamKind,
}

pub(crate) enum StreamKind {
    Gpu {
        cuda: Arc<CudaStream>,
        /// Where this stream's checked kernels record a failed check; made on first use.
        panic: OnceLock<PanicRecord>,
    },
    Sim {
        /// The first failure of a launch since the last synchronisation.
        pending: Mutex<Option<Error>>,
    },
}

impl Stream {
    pub(crate) fn gpu(device: Device, cuda: Arc<CudaStream>) -> Stream {
        Stream {
            core: Arc::new(StreamCore {
                device,
                kind: StreamKind::Gpu {
                    cuda,
                    panic: OnceLock::new(),
                },
            }),
        }
    }

    pub(crate) fn sim(device: Device) -> Stream {
        Stream {
            core: Arc::new(StreamCore {
                device,
                kind: StreamKind::Sim {
                    pending: Mutex::new(None),
                },
            }),
        }
    }

    /// The device this stream belongs to.
    pub fn device(&self) -> &Device {
        &self.core.device
    }

    /// Copies `data` into a new device buffer.
    pub fn to_device<T: Element>(&self, data: &[T]) -> Result<DeviceBuffer<T>> {
        match &self.core.kind {
            StreamKind::Gpu { cuda, .. } => {
                let slice = cuda.clone_htod(data).during("copying to the device")?;
                Ok(DeviceBuffer::gpu(slice, self.core.device.clone()))
            }
            StreamKind::Sim { .. } => Ok(DeviceBuffer::sim(
                SimBuffer::from_slice(data),
                self.core.device.clone(),
            )),
        }
    }

    /// A new device buffer of `len` zeros.
    pub fn alloc_zeros<T: Element>(&self, len: usize) -> Result<DeviceBuffer<T>> {
        match &self.core.kind {
            StreamKind::Gpu { cuda, .. } => {
                let slice = cuda
                    .alloc_zeros::<T>(len)
                    .during("allocating device memory")?;
                Ok(DeviceBuffer::gpu(slice, self.core.device.clone()))
            }
            StreamKind::Sim { .. } => Ok(DeviceBuffer::sim(
                SimBuffer::zeroed(len),
                self.core.device.clone(),
            )),
        }
    }

    /// Waits for the stream's work, then copies a buffer (or view) into a new `Vec`.
    ///
    /// # Errors
    /// [`Error::KernelPanic`] when a kernel on this stream failed a check; a buffer of another
    /// device; driver errors.
    pub fn to_host<T: Element>(&self, src: &(impl DeviceSlice<T> + ?Sized)) -> Result<Vec<T>> {
        self.synchronize()?;
        let view = src.__view();
        if !view.device().same(&self.core.device) {
            return Err(Error::WrongDevice(
                "to_host: the buffer lives on another device than this stream".into(),
            ));
        }
        match (&self.core.kind, &view.repr) {
            (StreamKind::Gpu { cuda, .. }, Repr::Gpu(v)) => {
                cuda.clone_dtoh(v).during("copying to the host")
            }
            (StreamKind::Sim { .. }, Repr::Sim(v, _)) => Ok(v.to_vec()),
            _ => unreachable!("a device's buffers have its kind"),
        }
    }

    /// Waits until all work queued on this stream has finished.
    ///
    /// # Errors
    /// [`Error::KernelPanic`] when a kernel on this stream failed a check since the last
    /// synchronisation; driver errors.
    pub fn synchronize(&self) -> Result<()> {
        match &self.core.kind {
            StreamKind::Gpu { cuda, panic } => {
                cuda.synchronize().during("synchronizing a stream")?;
                match panic.get() {
                    Some(record) => record.take(cuda),
                    None => Ok(()),
                }
            }
            StreamKind::Sim { pending } => {
                match pending.lock().unwrap_or_else(|e| e.into_inner()).take() {
                    Some(e) => Err(e),
                    None => Ok(()),
                }
            }
        }
    }

    /// Records an event at the current end of the stream (timing enabled).
    pub fn record_event(&self) -> Result<Event> {
        match &self.core.kind {
            StreamKind::Gpu { cuda, .. } => {
                let e = cuda
                    .record_event(Some(CUevent_flags::CU_EVENT_DEFAULT))
                    .during("recording an event")?;
                Ok(Event {
                    kind: EventKind::Gpu(e),
                })
            }
            StreamKind::Sim { .. } => Ok(Event {
                kind: EventKind::Sim(Instant::now()),
            }),
        }
    }

    /// Makes later work on this stream wait for `event` (which may be on another stream of
    /// the same device).
    pub fn wait_event(&self, event: &Event) -> Result<()> {
        match (&self.core.kind, &event.kind) {
            (StreamKind::Gpu { cuda, .. }, EventKind::Gpu(e)) => {
                cuda.wait(e).during("waiting on an event")
            }
            (StreamKind::Sim { .. }, EventKind::Sim(_)) => Ok(()),
            _ => Err(Error::WrongDevice(
                "wait_event: the event belongs to another kind of device".into(),
            )),
        }
    }

    /// The cudarc stream, for interop (`None` on the simulator).
    pub fn cuda_stream(&self) -> Option<&Arc<CudaStream>> {
        match &self.core.kind {
            StreamKind::Gpu { cuda, .. } => Some(cuda),
            StreamKind::Sim { .. } => None,
        }
    }

    /// Records the first failure of a simulated launch, reported at the next synchronisation.
    pub(crate) fn defer_error(&self, e: Error) {
        if let StreamKind::Sim { pending } = &self.core.kind {
            let mut p = pending.lock().unwrap_or_else(|e| e.into_inner());
            if p.is_none() {
                *p = Some(e);
            }
        }
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
    kind: EventKind,
}

enum EventKind {
    Gpu(CudaEvent),
    /// On the simulator work runs when launched: an event is the time it was recorded.
    Sim(Instant),
}

impl Event {
    /// Milliseconds between `self` and a later event `end` (waits for both).
    pub fn elapsed_ms(&self, end: &Event) -> Result<f32> {
        match (&self.kind, &end.kind) {
            (EventKind::Gpu(a), EventKind::Gpu(b)) => a.elapsed_ms(b).during("timing events"),
            (EventKind::Sim(a), EventKind::Sim(b)) => {
                Ok(b.saturating_duration_since(*a).as_secs_f32() * 1e3)
            }
            _ => Err(Error::WrongDevice(
                "elapsed_ms: the events belong to different kinds of device".into(),
            )),
        }
    }

    /// Waits until the work before the event is done.
    pub fn synchronize(&self) -> Result<()> {
        match &self.kind {
            EventKind::Gpu(e) => e.synchronize().during("waiting for an event"),
            EventKind::Sim(_) => Ok(()),
        }
    }
}
