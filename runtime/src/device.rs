//! `Device`: a CUDA GPU, or the CPU simulator, chosen by ordinal or by `CUPRUM_DEVICE`.

use std::any::Any;
use std::fmt;
use std::sync::{Arc, Mutex, OnceLock, Weak};

use cudarc::driver::sys::CUdevice_attribute as Attr;
use cudarc::driver::CudaContext;

use crate::error::{DriverContext, Error, Result};

/// A device that runs kernels: a CUDA GPU or the CPU simulator.
///
/// Cheap to clone; clones share the device's context and default stream. There is one
/// `Device` per GPU in a process: `Device::gpu(n)` called twice gives the same device, whose
/// buffers and streams mix freely; memory of one device passed to a launch or copy on another
/// is [`Error::WrongDevice`], reported before anything reaches the driver. `Send` and `Sync`.
///
/// ```
/// use cuprum::prelude::*;
/// # fn main() -> cuprum::Result<()> {
/// // Every GPU, or the simulator where there is none.
/// let mut devices: Vec<Device> = (0..Device::count()).map(Device::gpu).collect::<Result<_>>()?;
/// if devices.is_empty() {
///     devices.push(Device::simulator());
/// }
/// for dev in &devices {
///     let stream = dev.default_stream();
///     let x = stream.to_device(&[1.0f32, 2.0, 3.0])?;
///     assert_eq!(stream.to_host(&x)?, vec![1.0, 2.0, 3.0]);
/// }
/// assert!(matches!(Device::gpu(Device::count()), Err(Error::NoGpu | Error::NoSuchDevice { .. })));
/// # Ok(()) }
/// ```
#[derive(Clone)]
pub struct Device {
    pub(crate) core: Arc<DeviceCore>,
}

/// What a device is, shared by its handles and streams.
pub(crate) struct DeviceCore {
    pub kind: DeviceKind,
    pub name: String,
    pub compute_capability: (u32, u32),
    pub multiprocessors: u32,
    pub max_threads_per_block: u32,
    pub max_block: [u32; 3],
    pub max_grid: [u32; 3],
    pub max_shared_per_block_optin: u32,
    /// The default stream's shared state while a handle to it lives (a `StreamCore`, which
    /// `stream.rs` defines above this module: see [`Device::default_stream`]).
    pub default_stream: Mutex<Weak<dyn Any + Send + Sync>>,
    /// A second cudarc handle of the GPU's context, without event tracking, for graph
    /// capture streams (see `graph.rs`); made on first capture.
    capture_ctx: OnceLock<Arc<CudaContext>>,
    /// Which simulated device this is ([`Device::simulated`]); 0 for GPUs.
    sim_ordinal: usize,
}

/// The two kinds of device.
pub(crate) enum DeviceKind {
    /// A CUDA GPU, by its primary context.
    Gpu {
        ctx: Arc<CudaContext>,
        ordinal: usize,
    },
    /// The CPU simulator.
    Sim,
}

/// Whether the CUDA driver library can be loaded (cudarc panics instead of failing when it
/// cannot, so every entry point asks this first).
pub(crate) fn driver_present() -> bool {
    // SAFETY: only probes whether the shared library loads.
    unsafe { cudarc::driver::sys::is_culib_present() }
}

impl Device {
    /// The number of CUDA devices (0 when there is no driver).
    pub fn count() -> usize {
        if !driver_present() {
            return 0;
        }
        CudaContext::device_count()
            .map(|n| n.max(0) as usize)
            .unwrap_or(0)
    }

    /// GPU number `ordinal` (the same `Device` for every call while one is alive).
    ///
    /// # Errors
    /// [`Error::NoGpu`] without a driver or device, [`Error::NoSuchDevice`] for an ordinal
    /// past the last device.
    pub fn gpu(ordinal: usize) -> Result<Device> {
        if !driver_present() {
            return Err(Error::NoGpu);
        }
        let count = match CudaContext::device_count() {
            Ok(n) if n > 0 => n as usize,
            _ => return Err(Error::NoGpu),
        };
        if ordinal >= count {
            return Err(Error::NoSuchDevice { ordinal, count });
        }
        // One `Device` per GPU: buffers check their device by identity, and cudarc tracks
        // cross-stream use per context handle.
        static GPUS: Mutex<Vec<(usize, Weak<DeviceCore>)>> = Mutex::new(Vec::new());
        let mut gpus = GPUS.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(core) = gpus
            .iter()
            .find(|(n, _)| *n == ordinal)
            .and_then(|(_, core)| core.upgrade())
        {
            return Ok(Device { core });
        }
        let core = Arc::new(Self::open_gpu(ordinal)?);
        gpus.retain(|(n, core)| *n != ordinal && core.strong_count() > 0);
        gpus.push((ordinal, Arc::downgrade(&core)));
        Ok(Device { core })
    }

    fn open_gpu(ordinal: usize) -> Result<DeviceCore> {
        let ctx = CudaContext::new(ordinal).during("creating the device context")?;
        let attr = |a: Attr| {
            ctx.attribute(a)
                .map(|v| v.max(0) as u32)
                .during("reading device attributes")
        };
        let cc = ctx
            .compute_capability()
            .during("reading the compute capability")?;
        let core = DeviceCore {
            name: ctx.name().during("reading the device name")?,
            compute_capability: (cc.0 as u32, cc.1 as u32),
            multiprocessors: attr(Attr::CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT)?,
            max_threads_per_block: attr(Attr::CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK)?,
            max_block: [
                attr(Attr::CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X)?,
                attr(Attr::CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y)?,
                attr(Attr::CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z)?,
            ],
            max_grid: [
                attr(Attr::CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X)?,
                attr(Attr::CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y)?,
                attr(Attr::CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z)?,
            ],
            max_shared_per_block_optin: attr(
                Attr::CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN,
            )?,
            kind: DeviceKind::Gpu { ctx, ordinal },
            default_stream: Mutex::new(Weak::<()>::new()),
            capture_ctx: OnceLock::new(),
            sim_ordinal: 0,
        };
        Ok(core)
    }

    /// The CPU simulator: runs every kernel on this machine's cores, with GPU semantics (see
    /// `cuprum::gpu::sim`). There is one simulator per process; it is
    /// [`Device::simulated(0)`](Device::simulated).
    pub fn simulator() -> Device {
        Device::simulated(0)
    }

    /// Simulated device number `ordinal`: `Device::simulated(0)` is [`Device::simulator`],
    /// and each other ordinal is one more simulated device, distinct from the others as two
    /// GPUs are (their buffers do not mix), for multi-device programs on the simulator
    /// (`cuprum::nccl` communicators over several devices). Every call with the same ordinal
    /// gives the same device; they all run kernels on the same host cores.
    pub fn simulated(ordinal: usize) -> Device {
        // Simulated devices live as long as the process, like the simulator always has.
        static SIMS: Mutex<Vec<Device>> = Mutex::new(Vec::new());
        let mut sims = SIMS.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(d) = sims.iter().find(|d| d.core.sim_ordinal == ordinal) {
            return d.clone();
        }
        let d = Self::new_simulated(ordinal);
        sims.push(d.clone());
        d
    }

    fn new_simulated(ordinal: usize) -> Device {
        let cores = std::thread::available_parallelism()
            .map(|n| n.get() as u32)
            .unwrap_or(1);
        let name = match ordinal {
            0 => format!("Cuprum CPU simulator ({cores} worker threads)"),
            n => format!("Cuprum CPU simulator #{n} ({cores} worker threads)"),
        };
        let core = DeviceCore {
            kind: DeviceKind::Sim,
            name,
            compute_capability: (9, 0),
            multiprocessors: cores,
            max_threads_per_block: 1024,
            max_block: [1024, 1024, 64],
            max_grid: [i32::MAX as u32, 65535, 65535],
            max_shared_per_block_optin: 227 * 1024,
            default_stream: Mutex::new(Weak::<()>::new()),
            capture_ctx: OnceLock::new(),
            sim_ordinal: ordinal,
        };
        Device {
            core: Arc::new(core),
        }
    }

    /// The device to use. `CUPRUM_DEVICE=gpu` (GPU 0) or `gpu:N` demands a GPU (a missing one
    /// is an error); `CUPRUM_DEVICE=sim` chooses the simulator. Without the variable: GPU 0,
    /// or the simulator, with a one-line notice on stderr, when there is no GPU.
    ///
    /// # Errors
    /// As [`Device::gpu`] when a GPU is demanded; [`Error::BadDeviceSelector`] for an unknown
    /// `CUPRUM_DEVICE`.
    #[allow(clippy::should_implement_trait)] // The name users expect; it is fallible, unlike Default.
    pub fn default() -> Result<Device> {
        match std::env::var("CUPRUM_DEVICE") {
            Ok(sel) => match parse_selector(&sel)? {
                Selector::Gpu(n) => Device::gpu(n),
                Selector::Sim => Ok(Device::simulator()),
            },
            Err(_) => match Device::gpu(0) {
                Err(Error::NoGpu) => {
                    static NOTICE: std::sync::Once = std::sync::Once::new();
                    NOTICE.call_once(|| {
                        eprintln!("cuprum: no CUDA GPU found; running kernels on the CPU simulator")
                    });
                    Ok(Device::simulator())
                }
                other => other,
            },
        }
    }

    /// The device's name, e.g. "NVIDIA H200".
    pub fn name(&self) -> &str {
        &self.core.name
    }

    /// The compute capability, e.g. `(9, 0)` (the simulator reports `(9, 0)`).
    pub fn compute_capability(&self) -> (u32, u32) {
        self.core.compute_capability
    }

    /// The number of streaming multiprocessors (the simulator's worker threads).
    pub fn multiprocessor_count(&self) -> u32 {
        self.core.multiprocessors
    }

    /// The device's ordinal among the machine's GPUs (for a simulated device, its number
    /// among [`Device::simulated`] devices: 0 for [`Device::simulator`]).
    pub fn ordinal(&self) -> usize {
        match &self.core.kind {
            DeviceKind::Gpu { ordinal, .. } => *ordinal,
            DeviceKind::Sim => self.core.sim_ordinal,
        }
    }

    /// Whether this is the CPU simulator.
    pub fn is_simulator(&self) -> bool {
        matches!(self.core.kind, DeviceKind::Sim)
    }

    /// The cudarc context, for interop (`None` for the simulator): cudarc streams and slices
    /// made from it can be adopted with
    /// [`Stream::from_cuda_stream`](crate::Stream::from_cuda_stream) and
    /// [`DeviceBuffer::from_cuda_slice`](crate::DeviceBuffer::from_cuda_slice).
    pub fn cuda_context(&self) -> Option<&Arc<CudaContext>> {
        match &self.core.kind {
            DeviceKind::Gpu { ctx, .. } => Some(ctx),
            DeviceKind::Sim => None,
        }
    }

    /// Free and total device memory in bytes, as the driver reports them (other processes'
    /// allocations included).
    ///
    /// # Errors
    /// [`Error::Unsupported`] on the simulator, whose memory is the host's; driver errors.
    pub fn memory_info(&self) -> Result<(usize, usize)> {
        match &self.core.kind {
            DeviceKind::Gpu { ctx, .. } => ctx.mem_get_info().during("querying device memory"),
            DeviceKind::Sim => Err(Error::Unsupported(
                "memory_info: the simulator's device memory is host memory".into(),
            )),
        }
    }

    /// The handle graph captures make their streams from: the GPU's context, with cudarc's
    /// event tracking off (no memory is ever allocated through it).
    pub(crate) fn capture_context(&self) -> Result<Arc<CudaContext>> {
        let DeviceKind::Gpu { ordinal, .. } = &self.core.kind else {
            unreachable!("only GPUs capture graphs")
        };
        if let Some(ctx) = self.core.capture_ctx.get() {
            return Ok(ctx.clone());
        }
        let ctx = CudaContext::new(*ordinal).during("opening the context for graph capture")?;
        // SAFETY: tracking only concerns slices allocated through this handle; there are none.
        unsafe { ctx.disable_event_tracking() };
        Ok(self.core.capture_ctx.get_or_init(|| ctx).clone())
    }

    /// Whether `other` is this same device.
    pub(crate) fn same(&self, other: &Device) -> bool {
        Arc::ptr_eq(&self.core, &other.core)
    }
}

impl fmt::Debug for Device {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Device")
            .field("name", &self.core.name)
            .field("ordinal", &self.ordinal())
            .field("compute_capability", &self.core.compute_capability)
            .finish()
    }
}

/// Devices are equal when they are the same GPU (or the same simulated device).
impl PartialEq for Device {
    fn eq(&self, other: &Device) -> bool {
        self.same(other)
    }
}

impl Eq for Device {}

/// What `CUPRUM_DEVICE` asks for.
enum Selector {
    Gpu(usize),
    Sim,
}

fn parse_selector(s: &str) -> Result<Selector> {
    let s = s.trim();
    match s {
        "gpu" => return Ok(Selector::Gpu(0)),
        "sim" => return Ok(Selector::Sim),
        _ => {}
    }
    if let Some(n) = s.strip_prefix("gpu:") {
        return n
            .parse()
            .map(Selector::Gpu)
            .map_err(|_| Error::BadDeviceSelector(s.to_string()));
    }
    Err(Error::BadDeviceSelector(s.to_string()))
}
