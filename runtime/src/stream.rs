//! `Stream`: an ordered queue of copies and launches on one device, and `Event`s for timing
//! and ordering.

use std::any::Any;
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Instant;

use cudarc::driver::sys::CUevent_flags;
use cudarc::driver::{CudaEvent, CudaStream};

use crate::capture::{Capture, LaunchGate};
use crate::device::{Device, DeviceKind};
use crate::error::{DriverContext, Error, Result};
use crate::panic_record::PanicRecord;

/// An in-order queue of work on a device. Launches and copies on one stream run in order;
/// different streams may overlap, except where they share memory: a launch, copy or graph
/// replay that writes a buffer waits for earlier uses of it on other streams, and one that
/// reads it waits for the last write, whether or not those streams still exist. Events
/// ([`Stream::record_event`], [`Stream::wait_event`]) order anything else.
///
/// Cheap to clone (clones are the same stream); `Send` and `Sync`, so threads may share one
/// or each make their own with [`Device::new_stream`]. Failed runtime checks of kernels
/// launched on a stream are reported by its next synchronising call
/// ([`Stream::synchronize`], [`Stream::to_host`], [`Stream::copy_to_host`]) as
/// [`Error::KernelPanic`].
///
/// On the simulator every launch and copy has finished when its call returns; streams only
/// keep the order and the error reporting of the GPU.
///
/// ```
/// use cuprum::prelude::*;
///
/// #[kernel]
/// pub fn scale(y: &mut [f32], a: f32) {
///     let i = gpu::global_id_x();
///     if i < y.len() {
///         y[i] *= a;
///     }
/// }
///
/// # fn main() -> cuprum::Result<()> {
/// let dev = Device::simulator();
/// let (s1, s2) = (dev.new_stream()?, dev.new_stream()?);
/// let mut y = s1.to_device(&[1.0f32, 2.0, 3.0])?;
/// let start = s1.record_event()?;
/// launch!(scale<<<1, 32, s1>>>(&mut y, 2.0))?;
/// let done = s1.record_event()?;
/// s2.wait_event(&done)?; // work on s2 now runs after the launch on s1
/// launch!(scale<<<1, 32, s2>>>(&mut y, 10.0))?;
/// let mut out = [0.0f32; 3];
/// s2.copy_to_host(&y, &mut out)?;
/// assert_eq!(out, [20.0, 40.0, 60.0]);
/// assert!(start.elapsed_ms(&done)? >= 0.0);
/// # Ok(()) }
/// ```
#[derive(Clone)]
pub struct Stream {
    pub(crate) core: Arc<StreamCore>,
}

pub(crate) struct StreamCore {
    pub device: Device,
    pub kind: StreamKind,
    /// Set on the handle a [`Stream::capture`] closure gets: launches on it are recorded.
    pub capture: Option<Capture>,
}

pub(crate) enum StreamKind {
    Gpu {
        cuda: Arc<CudaStream>,
        /// Where this stream's checked kernels record a failed check; made on first use.
        /// Shared with the capture handles of graphs that replay on this stream.
        panic: Arc<OnceLock<PanicRecord>>,
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
                    panic: Arc::new(OnceLock::new()),
                },
                capture: None,
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
                capture: None,
            }),
        }
    }

    /// Wraps a cudarc stream of `device`'s context, for interop: Cuprum launches and copies
    /// can then be queued on a stream that other cudarc code also uses.
    ///
    /// # Errors
    /// [`Error::WrongDevice`] when the stream belongs to another context (or `device` is the
    /// simulator).
    pub fn from_cuda_stream(device: &Device, cuda: Arc<CudaStream>) -> Result<Stream> {
        match &device.core.kind {
            DeviceKind::Gpu { ctx, .. } if cuda.context().cu_ctx() == ctx.cu_ctx() => {
                Ok(Stream::gpu(device.clone(), cuda))
            }
            _ => Err(Error::WrongDevice(format!(
                "from_cuda_stream: the stream belongs to GPU {}, not to {} (device {})",
                cuda.context().ordinal(),
                device.name(),
                device.ordinal()
            ))),
        }
    }

    /// The device this stream belongs to.
    pub fn device(&self) -> &Device {
        &self.core.device
    }

    /// `Err` when this is the handle of a graph capture (see [`Stream::capture`]), on which
    /// only launches are allowed.
    pub(crate) fn check_not_capturing(&self, op: &str) -> Result<()> {
        match &self.core.capture {
            None => Ok(()),
            Some(_) => Err(Error::Capture(format!(
                "{op} on the stream handle of a graph capture: only kernel launches can be captured"
            ))),
        }
    }

    /// What a launch on this stream does (see [`LaunchGate`]); `Err` on the handle of a
    /// finished capture.
    pub(crate) fn launch_gate(&self) -> Result<LaunchGate> {
        match &self.core.capture {
            None => Ok(LaunchGate::Run),
            Some(c) => c.gate(),
        }
    }

    /// Waits until all work queued on this stream has finished.
    ///
    /// # Errors
    /// [`Error::KernelPanic`] when a kernel on this stream failed a check since the last
    /// synchronisation; driver errors.
    pub fn synchronize(&self) -> Result<()> {
        self.check_not_capturing("synchronize")?;
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

    /// Waits until all work queued on this stream has finished, or until `timeout` has
    /// passed: `Ok(true)` when the work finished (then as [`synchronize`](Self::synchronize),
    /// reporting failed checks), `Ok(false)` when it is still running.
    ///
    /// This is the way out of a kernel that never ends (an infinite loop, a spin-wait on a
    /// flag nobody sets): the host thread gets control back and can report it, save what it
    /// has, and exit the process. It cannot stop the kernel: CUDA has no way to cancel a
    /// running kernel, so the GPU stays busy, and every later call that waits for that work
    /// also waits for it: a [`synchronize`](Self::synchronize), a host read of memory it may
    /// write, and dropping the stream's last handle once it has launched a checked kernel
    /// (the kernels' failure record is freed only after them); freeing a buffer it uses is
    /// queued behind it. Only ending the process frees the GPU (the driver then tears the
    /// context down), so a program that times out should report and exit, keeping (or
    /// leaking, with `std::mem::forget`) the stream. Other streams' work that does not
    /// depend on the kernel goes on meanwhile where the GPU has room for it.
    ///
    /// On the simulator every launch has finished when its call returns (a kernel that never
    /// ends never returns from its launch), so this is [`synchronize`](Self::synchronize) and
    /// returns `Ok(true)`.
    ///
    /// # Errors
    /// As [`synchronize`](Self::synchronize).
    pub fn synchronize_timeout(&self, timeout: std::time::Duration) -> Result<bool> {
        self.check_not_capturing("synchronize_timeout")?;
        if let StreamKind::Gpu { cuda, .. } = &self.core.kind {
            let deadline = Instant::now() + timeout;
            let mut pause = std::time::Duration::from_micros(10);
            loop {
                cuda.context()
                    .bind_to_thread()
                    .during("synchronizing a stream")?;
                // SAFETY: a query of a live stream of this context.
                match unsafe { cudarc::driver::sys::cuStreamQuery(cuda.cu_stream()) } {
                    cudarc::driver::sys::CUresult::CUDA_SUCCESS => break,
                    cudarc::driver::sys::CUresult::CUDA_ERROR_NOT_READY => {}
                    e => {
                        return Err(Error::Driver {
                            op: "synchronizing a stream",
                            source: cudarc::driver::DriverError(e),
                        })
                    }
                }
                let now = Instant::now();
                if now >= deadline {
                    return Ok(false);
                }
                std::thread::sleep(pause.min(deadline - now));
                pause = (pause * 2).min(std::time::Duration::from_millis(1));
            }
        }
        self.synchronize().map(|()| true)
    }

    /// Records an event at the current end of the stream (timing enabled). On the simulator,
    /// where work has finished when its call returns, the event is the host time of the call.
    ///
    /// # Errors
    /// Driver errors; [`Error::Capture`] on a capture handle.
    pub fn record_event(&self) -> Result<Event> {
        self.check_not_capturing("record_event")?;
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
    /// the same device). Nothing to wait for on the simulator.
    ///
    /// # Errors
    /// [`Error::WrongDevice`] for an event of the other kind of device; driver errors;
    /// [`Error::Capture`] on a capture handle.
    pub fn wait_event(&self, event: &Event) -> Result<()> {
        self.check_not_capturing("wait_event")?;
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

    /// `Err` unless memory of `device` can be used on this stream.
    pub(crate) fn check_device(&self, op: &str, device: &Device) -> Result<()> {
        if device.same(&self.core.device) {
            Ok(())
        } else {
            Err(Error::WrongDevice(format!(
                "{op}: the memory lives on {} (device {}), not on this stream's {} (device {})",
                device.name(),
                device.ordinal(),
                self.core.device.name(),
                self.core.device.ordinal()
            )))
        }
    }

    /// Makes this stream's panic record now, so that no launch has to (a capture cannot
    /// allocate it).
    pub(crate) fn ensure_panic_record(&self) -> Result<()> {
        if let StreamKind::Gpu { cuda, panic } = &self.core.kind {
            if panic.get().is_none() {
                let record = PanicRecord::new(cuda)?;
                let _ = panic.set(record);
            }
        }
        Ok(())
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

impl Device {
    /// The device's default stream (the same one while any handle to it is alive).
    pub fn default_stream(&self) -> Stream {
        let mut slot = self
            .core
            .default_stream
            .lock()
            .unwrap_or_else(|e| e.into_inner());
        if let Some(core) = slot.upgrade().and_then(|c| c.downcast::<StreamCore>().ok()) {
            return Stream { core };
        }
        let stream = match &self.core.kind {
            DeviceKind::Gpu { ctx, .. } => Stream::gpu(self.clone(), ctx.default_stream()),
            DeviceKind::Sim => Stream::sim(self.clone()),
        };
        let core: Arc<dyn Any + Send + Sync> = stream.core.clone();
        *slot = Arc::downgrade(&core);
        stream
    }

    /// A new stream: work on different streams may run concurrently (on the simulator,
    /// launches run when they are made).
    ///
    /// # Errors
    /// Driver errors.
    pub fn new_stream(&self) -> Result<Stream> {
        match &self.core.kind {
            DeviceKind::Gpu { ctx, .. } => Ok(Stream::gpu(
                self.clone(),
                ctx.new_stream().during("creating a stream")?,
            )),
            DeviceKind::Sim => Ok(Stream::sim(self.clone())),
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

/// A point in a stream's work, for timing ([`Event::elapsed_ms`]) and cross-stream ordering
/// ([`Stream::wait_event`]). On the simulator an event is the host time at which it was
/// recorded: launches run when they are made, so the time between two events is the host
/// time of the work between them.
pub struct Event {
    kind: EventKind,
}

enum EventKind {
    Gpu(CudaEvent),
    /// On the simulator work runs when launched: an event is the time it was recorded.
    Sim(Instant),
}

impl std::fmt::Debug for Event {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.kind {
            EventKind::Gpu(_) => f.write_str("Event(GPU)"),
            EventKind::Sim(t) => write!(f, "Event(simulator, {t:?})"),
        }
    }
}

impl Event {
    /// Milliseconds between `self` and a later event `end` (waits for both).
    ///
    /// # Errors
    /// [`Error::WrongDevice`] for events of different kinds of device; driver errors (events
    /// of different GPUs).
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
    ///
    /// # Errors
    /// Driver errors.
    pub fn synchronize(&self) -> Result<()> {
        match &self.kind {
            EventKind::Gpu(e) => e.synchronize().during("waiting for an event"),
            EventKind::Sim(_) => Ok(()),
        }
    }
}
