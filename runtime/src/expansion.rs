//! What `#[kernel]`'s expansion calls: each kernel's static description, the per-context
//! cache of its loaded function, launch validation and argument marshalling. Hidden from
//! users (re-exported as `cuprum::__private`); its signatures are the contract between the
//! macro and the runtime.

use std::sync::{Arc, Mutex};

use cudarc::driver::sys::CUfunction_attribute as FnAttr;
use cudarc::driver::{CudaFunction, CudaStream, CudaViewMut, LaunchArgs};

use crate::buffer::{DeviceSlice, DeviceSliceMut};
use crate::config::LaunchConfig;
use crate::device::DeviceCore;
use crate::element::Element;
use crate::error::{DriverContext, Error, Result};
use crate::panic_record::PanicRecord;
use crate::stream::Stream;

/// What `launch!` takes as its stream: a [`Stream`] (or a reference to one).
#[diagnostic::on_unimplemented(
    message = "a kernel is launched on a `Stream`, not on `{Self}`",
    label = "expected a `Stream`",
    note = "write `dev.default_stream()`, or make one with `dev.new_stream()?`"
)]
pub trait LaunchStream {
    /// The stream.
    fn launch_stream(&self) -> &Stream;
}

impl LaunchStream for Stream {
    fn launch_stream(&self) -> &Stream {
        self
    }
}

impl<T: LaunchStream + ?Sized> LaunchStream for &T {
    fn launch_stream(&self) -> &Stream {
        (**self).launch_stream()
    }
}

/// The stream of a `launch!`.
pub fn launch_stream<S: LaunchStream + ?Sized>(stream: &S) -> &Stream {
    stream.launch_stream()
}

/// What a runtime check guards against.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SiteKind {
    /// An index out of bounds.
    Index,
    /// An integer division or remainder by zero.
    DivZero,
    /// `step_by(0)`.
    StepZero,
}

/// A runtime check in a kernel's source.
#[derive(Clone, Copy, Debug)]
pub struct Site {
    /// What it checks.
    pub kind: SiteKind,
    /// Source file.
    pub file: &'static str,
    /// Line, 1-based.
    pub line: u32,
    /// Column, 1-based.
    pub column: u32,
}

/// A kernel as the macro describes it.
#[derive(Debug)]
pub struct KernelInfo {
    /// The PTX entry name.
    pub name: &'static str,
    /// The PTX module.
    pub ptx: &'static str,
    /// The tag its panic path writes (FNV-1a of the name).
    pub tag: u32,
    /// Whether the kernel takes the panic-record parameter.
    pub checked: bool,
    /// `max_threads` from `#[kernel(max_threads = N)]`, 0 when unset.
    pub max_threads: u32,
    /// The runtime checks, indexed by site number.
    pub sites: &'static [Site],
}

static REGISTRY: Mutex<Vec<&'static KernelInfo>> = Mutex::new(Vec::new());

fn register(info: &'static KernelInfo) {
    let mut r = REGISTRY.lock().unwrap_or_else(|e| e.into_inner());
    if !r
        .iter()
        .any(|k| std::ptr::eq(*k, info) || (k.tag == info.tag && k.ptx == info.ptx))
    {
        r.push(info);
    }
}

/// The kernel whose panic path writes `tag`.
pub(crate) fn lookup_kernel(tag: u32) -> Option<&'static KernelInfo> {
    REGISTRY
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .iter()
        .copied()
        .find(|k| k.tag == tag)
}

/// One kernel's loaded functions, one per CUDA context: the module is loaded on the first
/// launch in a context and reused after.
pub struct FunctionCache {
    entries: Mutex<Vec<(usize, Loaded)>>,
}

#[derive(Clone)]
struct Loaded {
    function: CudaFunction,
    /// Bytes of static shared memory the function uses.
    static_shared: u32,
    /// The most threads per block the compiled function can run (registers permitting).
    max_threads: u32,
    /// Dynamic shared memory the function is currently allowed to use.
    dynamic_limit: Arc<Mutex<u32>>,
}

impl FunctionCache {
    /// An empty cache (a `static` in each kernel's expansion).
    #[allow(clippy::new_without_default)]
    pub const fn new() -> FunctionCache {
        FunctionCache {
            entries: Mutex::new(Vec::new()),
        }
    }

    fn get(&self, dev: &DeviceCore, info: &'static KernelInfo) -> Result<Loaded> {
        let key = dev.ctx.cu_ctx() as usize;
        let mut entries = self.entries.lock().unwrap_or_else(|e| e.into_inner());
        if let Some((_, l)) = entries.iter().find(|(k, _)| *k == key) {
            return Ok(l.clone());
        }
        let module = dev
            .ctx
            .load_module(cudarc::nvrtc::Ptx::from_src(info.ptx))
            .during("loading a kernel's PTX module")?;
        let function = module
            .load_function(info.name)
            .during("finding the kernel in its module")?;
        let attr = |a| {
            function
                .get_attribute(a)
                .map(|v| v.max(0) as u32)
                .during("reading kernel attributes")
        };
        let loaded = Loaded {
            static_shared: attr(FnAttr::CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES)?,
            max_threads: attr(FnAttr::CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK)?,
            dynamic_limit: Arc::new(Mutex::new(dev.max_shared_per_block)),
            function,
        };
        register(info);
        entries.push((key, loaded.clone()));
        Ok(loaded)
    }
}

/// Where a launch runs.
pub enum Backend<'a> {
    /// A CUDA GPU.
    Gpu(GpuStream<'a>),
}

/// The backend of a stream.
pub fn backend(stream: &Stream) -> Backend<'_> {
    Backend::Gpu(GpuStream { stream })
}

/// A stream on a GPU, seen by a launch.
pub struct GpuStream<'a> {
    stream: &'a Stream,
}

/// A validated launch, ready for arguments.
pub struct GpuLaunch<'a> {
    cuda: &'a CudaStream,
    function: CudaFunction,
    config: cudarc::driver::LaunchConfig,
    panic_arg: Option<u64>,
}

/// A read-only slice argument: the view and its length.
pub struct GpuSlice<'a, T> {
    /// The memory.
    pub view: cudarc::driver::CudaView<'a, T>,
    /// Its length, as the kernel's `u64` parameter.
    pub len: u64,
}

/// A writable slice argument: the view and its length.
pub struct GpuSliceMut<'a, T> {
    /// The memory.
    pub view: CudaViewMut<'a, T>,
    /// Its length, as the kernel's `u64` parameter.
    pub len: u64,
}

impl<'a> GpuStream<'a> {
    fn core(&self) -> &DeviceCore {
        &self.stream.core.device.core
    }

    /// Validates `config` for this kernel on this device and gets the loaded function.
    /// `Ok(None)` for an empty grid: nothing to launch.
    pub fn prepare(
        &self,
        cache: &FunctionCache,
        info: &'static KernelInfo,
        config: &LaunchConfig,
    ) -> Result<Option<GpuLaunch<'a>>> {
        let dev = self.core();
        validate_block(dev, info, config)?;
        if config.is_empty() {
            return Ok(None);
        }
        let g = config.grid;
        for (axis, (v, max)) in ["x", "y", "z"]
            .iter()
            .zip([g.x, g.y, g.z].into_iter().zip(dev.max_grid))
        {
            if v > max {
                return Err(Error::LaunchConfig(format!(
                    "grid.{axis} = {v} exceeds this device's limit of {max} blocks"
                )));
            }
        }
        let loaded = cache.get(dev, info)?;
        let threads = config.threads_per_block();
        if threads > loaded.max_threads as u64 {
            return Err(Error::LaunchConfig(format!(
                "kernel `{}` can run at most {} threads per block on {} (its register use limits it), but the block has {threads}",
                info.name, loaded.max_threads, dev.name
            )));
        }
        let total_shared = loaded.static_shared as u64 + config.shared_bytes as u64;
        if total_shared > dev.max_shared_per_block_optin as u64 {
            return Err(Error::LaunchConfig(format!(
                "kernel `{}` needs {} bytes of shared memory per block ({} static + {} dynamic), more than the {} bytes {} allows",
                info.name, total_shared, loaded.static_shared, config.shared_bytes, dev.max_shared_per_block_optin, dev.name
            )));
        }
        if total_shared > dev.max_shared_per_block as u64 {
            let mut limit = loaded
                .dynamic_limit
                .lock()
                .unwrap_or_else(|e| e.into_inner());
            if *limit < config.shared_bytes {
                loaded
                    .function
                    .set_attribute(
                        FnAttr::CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                        config.shared_bytes as i32,
                    )
                    .during("raising the kernel's dynamic shared memory limit")?;
                *limit = config.shared_bytes;
            }
        }
        let panic_arg = if info.checked {
            Some(self.panic_record()?.device_ptr())
        } else {
            None
        };
        let d = |v: cuprum_std::Dim3| (v.x, v.y, v.z);
        Ok(Some(GpuLaunch {
            cuda: &self.stream.core.cuda,
            function: loaded.function,
            config: cudarc::driver::LaunchConfig {
                grid_dim: d(config.grid),
                block_dim: d(config.block),
                shared_mem_bytes: config.shared_bytes,
            },
            panic_arg,
        }))
    }

    fn panic_record(&self) -> Result<&'a PanicRecord> {
        let core = &self.stream.core;
        if let Some(r) = core.panic.get() {
            return Ok(r);
        }
        let record = PanicRecord::new(self.stream)?;
        Ok(core.panic.get_or_init(|| record))
    }

    fn same_device(&self, other: &crate::device::Device, what: &str) -> Result<()> {
        if Arc::ptr_eq(&other.core, &self.stream.core.device.core) {
            Ok(())
        } else {
            Err(Error::WrongDevice(format!(
                "{what}: a buffer on {} (GPU {}) was passed to a launch on {} (GPU {})",
                other.core.name,
                other.core.ordinal,
                self.core().name,
                self.core().ordinal
            )))
        }
    }

    /// A `&[T]` argument.
    pub fn slice<'b, T: Element>(
        &self,
        s: &'b (impl DeviceSlice<T> + ?Sized),
    ) -> Result<GpuSlice<'b, T>> {
        let v = s.__view();
        self.same_device(v.device(), "launch")?;
        let len = v.cuda.len() as u64;
        Ok(GpuSlice { view: v.cuda, len })
    }

    /// A `&mut [T]` argument.
    pub fn slice_mut<'b, T: Element>(
        &self,
        s: &'b mut (impl DeviceSliceMut<T> + ?Sized),
    ) -> Result<GpuSliceMut<'b, T>> {
        let v = s.__view_mut();
        self.same_device(v.device(), "launch")?;
        let len = v.cuda.len() as u64;
        Ok(GpuSliceMut { view: v.cuda, len })
    }
}

fn validate_block(dev: &DeviceCore, info: &KernelInfo, config: &LaunchConfig) -> Result<()> {
    let b = config.block;
    if b.volume() == 0 {
        return Err(Error::LaunchConfig(format!(
            "block ({}, {}, {}) has no threads",
            b.x, b.y, b.z
        )));
    }
    for (axis, (v, max)) in ["x", "y", "z"]
        .iter()
        .zip([b.x, b.y, b.z].into_iter().zip(dev.max_block))
    {
        if v > max {
            return Err(Error::LaunchConfig(format!(
                "block.{axis} = {v} exceeds this device's limit of {max}"
            )));
        }
    }
    let threads = b.volume();
    if threads > dev.max_threads_per_block as u64 {
        return Err(Error::LaunchConfig(format!(
            "a block of {threads} threads exceeds the limit of {} threads per block",
            dev.max_threads_per_block
        )));
    }
    if info.max_threads != 0 && threads > info.max_threads as u64 {
        return Err(Error::LaunchConfig(format!(
            "kernel `{}` is declared with max_threads = {}, but the block has {threads} threads",
            info.name, info.max_threads
        )));
    }
    Ok(())
}

impl<'a> GpuLaunch<'a> {
    /// The argument builder; push the kernel's arguments in order, then call `finish`.
    pub fn builder(&self) -> LaunchArgs<'_> {
        self.cuda.launch_builder(&self.function)
    }

    /// Pushes the hidden panic-record argument and launches.
    pub fn finish<'b>(&'b self, mut args: LaunchArgs<'b>) -> Result<()> {
        use cudarc::driver::PushKernelArg;
        if let Some(p) = &self.panic_arg {
            args.arg(p);
        }
        // SAFETY: the macro pushed exactly the kernel's parameters, with their types, from its
        // checked signature; slices are pushed as (device pointer, length) pairs of live views.
        unsafe { args.launch(self.config) }.during("launching a kernel")?;
        Ok(())
    }
}
