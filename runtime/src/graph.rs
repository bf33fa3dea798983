//! `Graph`: a sequence of launches captured once and replayed with one call (CUDA graphs).
//!
//! On a GPU, [`Stream::capture`] hands the closure a stream handle whose launches CUDA stream
//! capture records. The capture runs on a private stream (a device's default stream cannot be
//! captured) made from a second cudarc context object with cudarc's event tracking off:
//! tracking would make the capture wait on events recorded outside it, which CUDA rejects.
//! The capture only collects the allocations the launches use and whether they write them;
//! each replay then orders itself like a launch (`order.rs`): the replay stream waits for
//! other streams' conflicting uses of each allocation, and is listed as its user, so later
//! work, frees and host reads wait for the replay, even when the graph is forgotten. The
//! graph keeps the allocations alive (so a buffer dropped inside the closure, or a forgotten
//! graph, cannot free memory a replay uses); dropping a graph that was launched also waits
//! for its replays.
//!
//! On a GPU the closure runs twice: a first pass checks the launches and loads their modules
//! without launching, so that the captured pass makes no driver calls but launches. On the
//! simulator the capture runs the closure once with launches checked but not run, and each
//! replay runs the closure again on the graph's stream.

use std::panic::{catch_unwind, resume_unwind, AssertUnwindSafe};
use std::sync::{Arc, Mutex};

use cudarc::driver::sys::{CUgraphInstantiate_flags, CUstreamCaptureMode};
use cudarc::driver::{result, CudaGraph};

use crate::buffer::KeepAlive;
use crate::capture::Capture;
use crate::error::{DriverContext, Result};
use crate::stream::{Stream, StreamCore, StreamKind};

/// A recorded sequence of kernel launches that [`Graph::launch`] replays on the stream it was
/// captured from, with one driver call (a CUDA graph; Numba and PyTorch call this "CUDA graph
/// capture"). Replaying saves most of the host cost of each launch.
///
/// A graph borrows what its launches use for as long as it lives (`'a`), so the buffers can
/// be neither freed nor touched elsewhere meanwhile; drop the graph to read its results with
/// other calls. Each replay is ordered like a launch: after earlier work on its buffers on
/// other streams, and before later work, host reads and frees of them, even when the graph
/// is forgotten with `std::mem::forget` (its memory then stays allocated). Failed checks inside replayed kernels are reported by the stream's next
/// synchronisation, as for ordinary launches.
///
/// ```
/// use cuprum::prelude::*;
///
/// #[kernel]
/// pub fn axpy(y: &mut [f32], x: &[f32], a: f32) {
///     let i = gpu::global_id_x();
///     if i < y.len() {
///         y[i] += a * x[i];
///     }
/// }
///
/// # fn main() -> cuprum::Result<()> {
/// let stream = Device::simulator().new_stream()?;
/// let x = stream.to_device(&[1.0f32; 100])?;
/// let mut y = stream.alloc_zeros::<f32>(100)?;
/// let cfg = LaunchConfig::for_elements(100, 64);
/// {
///     // Two launches recorded (not run), then the pair replayed three times.
///     let mut graph = stream.capture(|s| {
///         axpy::launch(s, cfg, &mut y, &x, 1.0)?;
///         axpy::launch(s, cfg, &mut y, &x, 2.0)
///     })?;
///     for _ in 0..3 {
///         graph.launch()?;
///     }
/// } // the graph ends its borrow of `y` here
/// assert!(stream.to_host(&y)?.iter().all(|&v| v == 9.0));
/// # Ok(()) }
/// ```
#[must_use = "a graph does nothing until launched"]
pub struct Graph<'a> {
    stream: Stream,
    /// The instantiated graph (GPU only; `None` when nothing was captured).
    exec: Option<CudaGraph>,
    /// The closure: it holds the borrows; the simulator runs it at each replay.
    body: Body<'a>,
    /// The GPU memory the recorded launches use, each allocation once, with whether they
    /// write it.
    keep: Vec<KeepAlive>,
    /// Whether a replay was queued (and must be waited for before the borrows end).
    launched: bool,
}

/// What a capture closure is, boxed.
type Body<'a> = Box<dyn FnMut(&Stream) -> Result<()> + Send + 'a>;

// SAFETY: the CUDA graph objects are only used through `&mut self` and in `Drop`, never
// concurrently (CUDA allows any thread to use them, serialised); every other field is `Send`.
unsafe impl Send for Graph<'_> {}
// SAFETY: `&Graph` reaches nothing but the stream, which is `Sync`.
unsafe impl Sync for Graph<'_> {}

impl Stream {
    /// Captures the launches `body` makes on the stream handle it is given into a [`Graph`]
    /// that replays them on this stream. Nothing runs during the capture: launches are
    /// checked (configuration, devices) and recorded.
    ///
    /// `body` should do nothing but launch on the handle it gets. Only kernel launches can be
    /// captured: copies, allocations, events and synchronisation on the handle are
    /// [`Error::Capture`](crate::Error::Capture). Anything else it does happens when it
    /// runs, and it runs a different number of times on each kind of device: twice during a
    /// GPU capture (a first pass checks the launches and loads their kernels, so that nothing
    /// but launches reaches the captured stream), and on the simulator once during the
    /// capture and again at each replay. Launches on other streams are not captured.
    ///
    /// # Errors
    /// `body`'s error (a launch's configuration error among them);
    /// [`Error::Capture`](crate::Error::Capture) on a capture handle; driver errors from the
    /// capture.
    pub fn capture<'a>(
        &self,
        body: impl FnMut(&Stream) -> Result<()> + Send + 'a,
    ) -> Result<Graph<'a>> {
        self.check_not_capturing("capture")?;
        let mut body: Body<'a> = Box::new(body);
        let handle = |kind, loading| Stream {
            core: Arc::new(StreamCore {
                device: self.device().clone(),
                kind,
                capture: Some(Capture::new(loading)),
            }),
        };
        let finish = |h: &Stream| h.core.capture.as_ref().map(Capture::finish);
        let (exec, keep) = match &self.core.kind {
            StreamKind::Gpu { panic, .. } => {
                // Checked kernels take the stream's panic record; making it copies on the
                // stream, which a capture would record.
                self.ensure_panic_record()?;
                let cuda = self
                    .device()
                    .capture_context()?
                    .new_stream()
                    .during("creating a capture stream")?;
                let h = handle(
                    StreamKind::Gpu {
                        cuda: cuda.clone(),
                        panic: panic.clone(),
                    },
                    true,
                );
                // A first pass checks the launches and loads their modules, so that nothing
                // but launches happens while the stream is captured.
                let loaded = body(&h);
                finish(&h);
                loaded?;
                let h = handle(
                    StreamKind::Gpu {
                        cuda: cuda.clone(),
                        panic: panic.clone(),
                    },
                    false,
                );
                cuda.begin_capture(CUstreamCaptureMode::CU_STREAM_CAPTURE_MODE_RELAXED)
                    .during("beginning a graph capture")?;
                let ran = catch_unwind(AssertUnwindSafe(|| body(&h)));
                let ended = cuda.end_capture(CUgraphInstantiate_flags(0));
                let keep = finish(&h).unwrap_or_default();
                match ran {
                    Ok(r) => r?,
                    Err(p) => resume_unwind(p),
                }
                (ended.during("ending a graph capture")?, keep)
            }
            StreamKind::Sim { .. } => {
                let h = handle(
                    StreamKind::Sim {
                        pending: Mutex::new(None),
                    },
                    false,
                );
                let ran = body(&h);
                finish(&h);
                ran?;
                (None, Vec::new())
            }
        };
        Ok(Graph {
            stream: self.clone(),
            exec,
            body,
            keep,
            launched: false,
        })
    }
}

impl Graph<'_> {
    /// Replays the captured launches on the graph's stream, after the work already queued
    /// there; returns without waiting (like a launch).
    ///
    /// # Errors
    /// Driver errors; on the simulator, what the closure returns.
    pub fn launch(&mut self) -> Result<()> {
        match (&self.stream.core.kind, &self.exec) {
            (StreamKind::Gpu { cuda, .. }, Some(exec)) => {
                cuda.context()
                    .bind_to_thread()
                    .during("binding the context")?;
                // Ordered like a launch of each allocation the graph uses; the replay stream
                // becomes their user, so a forgotten graph's replays are still waited for.
                for (memory, write) in &self.keep {
                    memory
                        .uses()
                        .before(cuda, *write, || {
                            memory.cudarc_wait(cuda, *write);
                            Ok(())
                        })
                        .during("ordering a graph replay")?;
                }
                // SAFETY: `exec` is a live executable graph of this stream's context; the
                // memory its launches use is kept alive by `self` and borrowed by `body`.
                unsafe { result::graph::launch(exec.cu_graph_exec(), cuda.cu_stream()) }
                    .during("launching a graph")?;
                self.launched = true;
                Ok(())
            }
            (StreamKind::Gpu { .. }, None) => Ok(()),
            (StreamKind::Sim { .. }, _) => (self.body)(&self.stream),
        }
    }

    /// The stream the graph replays on.
    pub fn stream(&self) -> &Stream {
        &self.stream
    }
}

impl Drop for Graph<'_> {
    fn drop(&mut self) {
        if let (true, StreamKind::Gpu { cuda, .. }) = (self.launched, &self.stream.core.kind) {
            // Replays may still run; the borrows in `body` end with this drop. An error here
            // has nowhere to go, and the stream's next synchronisation reports it again.
            let _ = cuda.synchronize();
        }
    }
}

impl std::fmt::Debug for Graph<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Graph")
            .field("stream", &self.stream)
            .field("launched", &self.launched)
            .finish_non_exhaustive()
    }
}
