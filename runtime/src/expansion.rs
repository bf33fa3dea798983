//! What `#[kernel]`'s expansion calls: each kernel's static description, the per-context
//! cache of its loaded function, launch validation and argument marshalling. Hidden from
//! users (re-exported as `cuprum::__private`); its signatures are the contract between the
//! macro and the runtime.

use std::marker::PhantomData;
use std::sync::{Arc, Mutex, OnceLock};

use cudarc::driver::sys::CUfunction_attribute as FnAttr;
use cudarc::driver::{
    CudaFunction, CudaStream, DevicePtrMut, DeviceRepr, DeviceSlice as _, LaunchArgs, PushKernelArg,
};
use cuprum_abi::CheckKind;
use cuprum_std::sim::{run_grid, GridSpec, SimSlice, SimSliceMut, Stop, Thread};

use crate::buffer::{DeviceSlice, DeviceSliceMut, Repr, ReprMut};
use crate::config::LaunchConfig;
use crate::device::{Device, DeviceCore, DeviceKind};
use crate::element::Element;
use crate::error::{DriverContext, Error, KernelPanic, Result};
use crate::panic_record::PanicRecord;
use crate::stream::{LaunchGate, Stream, StreamKind};

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

/// A runtime check in a kernel's source.
#[derive(Clone, Copy, Debug)]
pub struct Site {
    /// What it checks.
    pub kind: CheckKind,
    /// Source file.
    pub file: &'static str,
    /// Line, 1-based.
    pub line: u32,
    /// Column, 1-based.
    pub column: u32,
    /// For [`CheckKind::Panic`]: the message, in Rust's wording, from the values the failing
    /// thread recorded.
    pub message: Option<fn(&[u64]) -> String>,
}

/// A kernel as the macro describes it: `k::INFO` for a `#[kernel] fn k`, which
/// [`occupancy`](crate::occupancy) queries take. The fields are for Cuprum's own use.
#[derive(Debug)]
pub struct KernelInfo {
    /// The PTX entry name.
    pub name: &'static str,
    /// The PTX module.
    pub ptx: &'static str,
    /// Whether the kernel takes the panic-record parameter.
    pub checked: bool,
    /// `max_threads` from `#[kernel(max_threads = N)]`, 0 when unset.
    pub max_threads: u32,
    /// The block shape from `#[kernel(block = (X, Y, Z))]`, `[0, 0, 0]` when unset: the
    /// compiler relied on it, so a launch with another shape is refused.
    pub block: [u32; 3],
    /// The runtime checks, indexed by site number.
    pub sites: &'static [Site],
    /// Whether threads wait for each other (the simulator then runs each block's threads as
    /// coroutines).
    pub cooperative: bool,
    /// The bytes of the kernel's locals (device functions' included): the simulator sizes
    /// its threads' stacks from it.
    pub frame_bytes: usize,
    /// `#[kernel(cooperative)]`: launched cooperatively, with the grid barrier's word as the
    /// last hidden parameter, and refused when the grid cannot be resident at once.
    pub grid_sync: bool,
    /// Static shared arrays, for the simulator.
    pub shared: &'static [cuprum_std::sim::SharedDecl],
    /// Cubins assembled at build time (`CUPRUM_SASS`), by compute capability (major × 10 +
    /// minor): a device of exactly that capability loads the cubin instead of compiling the
    /// PTX.
    pub sass: &'static [(u32, &'static [u8])],
}

/// Every kernel launched on a GPU, by kernel id - 1 (0 is the id of a module nobody
/// registered).
///
/// The id is what a checked kernel's panic path records (see `cuprum_abi::KERNEL_ID_SYMBOL`).
/// It is handed out per [`FunctionCache`], the one `static` in each kernel's `launch`: `INFO`
/// is a `const`, whose address is not unique, and two kernels may share a name (in different
/// modules) and even their PTX.
static REGISTRY: Mutex<Vec<&'static KernelInfo>> = Mutex::new(Vec::new());

fn register(info: &'static KernelInfo) -> Result<u32> {
    let mut r = REGISTRY.lock().unwrap_or_else(|e| e.into_inner());
    r.push(info);
    u32::try_from(r.len())
        .map_err(|_| Error::LaunchConfig("more than 2^32 - 1 kernels were registered".into()))
}

/// The kernel whose module holds `id`.
pub(crate) fn lookup_kernel(id: u32) -> Option<&'static KernelInfo> {
    let r = REGISTRY.lock().unwrap_or_else(|e| e.into_inner());
    r.get((id as usize).checked_sub(1)?).copied()
}

/// One kernel's loaded functions, one per CUDA context: the module is loaded on the first
/// launch in a context and reused after. Also the kernel's identity: its id in the registry.
pub struct FunctionCache {
    entries: Mutex<Vec<(usize, Loaded)>>,
    id: OnceLock<u32>,
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
            id: OnceLock::new(),
        }
    }

    fn get(&self, dev: &DeviceCore, info: &'static KernelInfo) -> Result<Loaded> {
        let DeviceKind::Gpu { ctx, .. } = &dev.kind else {
            unreachable!("only GPUs load modules")
        };
        let key = ctx.cu_ctx() as usize;
        let mut entries = self.entries.lock().unwrap_or_else(|e| e.into_inner());
        if let Some((_, l)) = entries.iter().find(|(k, _)| *k == key) {
            return Ok(l.clone());
        }
        // `entries` is locked: one thread registers the kernel.
        let id = match self.id.get() {
            Some(&id) => id,
            None => {
                let id = register(info)?;
                let _ = self.id.set(id);
                id
            }
        };
        let (function, static_shared, max_threads) = load_function(ctx, dev, info, Some(id))?;
        let loaded = Loaded {
            static_shared,
            max_threads,
            dynamic_limit: Arc::new(Mutex::new(dev.max_shared_per_block)),
            function,
        };
        entries.push((key, loaded.clone()));
        Ok(loaded)
    }
}

/// What to load for `info` on `dev`: the build-time cubin for exactly its compute capability
/// when there is one (no compilation by the driver), else the PTX (compiled by the driver on
/// first load, then cached on disk by it), or with `CUPRUM_LINEINFO=1` a cubin compiled
/// from it with line information.
pub(crate) fn module_image(dev: &DeviceCore, info: &KernelInfo) -> Result<cudarc::nvrtc::Ptx> {
    let (major, minor) = dev.compute_capability;
    Ok(
        match info.sass.iter().find(|(cc, _)| *cc == major * 10 + minor) {
            Some((_, cubin)) => cudarc::nvrtc::Ptx::from_binary(cubin.to_vec()),
            None if crate::lineinfo::wanted() => {
                cudarc::nvrtc::Ptx::from_binary(crate::lineinfo::compile(info.ptx)?)
            }
            None => cudarc::nvrtc::Ptx::from_src(info.ptx),
        },
    )
}

/// Loads `info`'s module into `ctx` (the cubin for the device when there is one) and returns
/// the kernel with its static shared memory and the most threads per block it can run. A
/// checked kernel that will be launched gets its registry id written into the module.
pub(crate) fn load_function(
    ctx: &Arc<cudarc::driver::CudaContext>,
    dev: &DeviceCore,
    info: &KernelInfo,
    id: Option<u32>,
) -> Result<(CudaFunction, u32, u32)> {
    ctx.bind_to_thread().during("binding the context")?;
    let module = ctx
        .load_module(module_image(dev, info)?)
        .during("loading a kernel's module")?;
    if let (true, Some(id)) = (info.checked, id) {
        let stream = ctx.default_stream();
        let mut global = module
            .get_global(cuprum_abi::KERNEL_ID_SYMBOL, &stream)
            .during("finding the kernel's id in its module")?;
        if global.len() != std::mem::size_of::<u32>() {
            return Err(Error::LaunchConfig(format!(
                "kernel `{}`: its module's `{}` has {} bytes, not 4 (a module from another version of Cuprum?)",
                info.name,
                cuprum_abi::KERNEL_ID_SYMBOL,
                global.len()
            )));
        }
        let (ptr, _record) = global.device_ptr_mut(&stream);
        // SAFETY: `ptr` is the module's 4-byte global, just checked; the copy is synchronous
        // and nothing runs this module yet.
        unsafe { cudarc::driver::result::memcpy_htod_sync(ptr, &[id]) }
            .during("writing the kernel's id into its module")?;
    }
    let function = module
        .load_function(info.name)
        .during("finding the kernel in its module")?;
    let attr = |a| {
        function
            .get_attribute(a)
            .map(|v| v.max(0) as u32)
            .during("reading kernel attributes")
    };
    let static_shared = attr(FnAttr::CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES)?;
    let max_threads = attr(FnAttr::CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK)?;
    Ok((function, static_shared, max_threads))
}

/// Where a launch runs.
pub enum Backend<'a> {
    /// A CUDA GPU.
    Gpu(GpuStream<'a>),
    /// The CPU simulator.
    Sim(SimStream<'a>),
}

/// The backend of a stream.
pub fn backend(stream: &Stream) -> Backend<'_> {
    match &stream.core.kind {
        StreamKind::Gpu { cuda, panic } => Backend::Gpu(GpuStream {
            stream,
            cuda,
            panic,
        }),
        StreamKind::Sim { .. } => Backend::Sim(SimStream { stream }),
    }
}

/// A stream on a GPU, seen by a launch.
pub struct GpuStream<'a> {
    stream: &'a Stream,
    cuda: &'a Arc<CudaStream>,
    panic: &'a OnceLock<PanicRecord>,
}

/// A validated launch, ready for arguments.
pub struct GpuLaunch<'a> {
    cuda: &'a CudaStream,
    function: CudaFunction,
    config: cudarc::driver::LaunchConfig,
    panic_arg: Option<u64>,
    /// The grid barrier's zeroed word (cooperative kernels): allocated on the stream for this
    /// launch, freed in stream order after it.
    grid_word: Option<cudarc::driver::CudaSlice<u32>>,
}

/// A read-only slice argument: the address and its length.
pub struct GpuSlice<'a, T> {
    /// The memory's device address.
    pub view: KernelPtr,
    /// Its length, as the kernel's `u64` parameter.
    pub len: u64,
    _borrow: PhantomData<&'a [T]>,
}

/// A writable slice argument: the address and its length.
pub struct GpuSliceMut<'a, T> {
    /// The memory's device address.
    pub view: KernelPtr,
    /// Its length, as the kernel's `u64` parameter.
    pub len: u64,
    _borrow: PhantomData<&'a mut [T]>,
}

/// A slice argument's device address. Launches pass it as a plain value: the ordering that
/// cudarc's views would add (events waited on and recorded at every launch, and only while a
/// context has several streams) is done by Cuprum's own bookkeeping (`order.rs`), which costs
/// no driver call for memory used on one stream.
#[repr(transparent)]
pub struct KernelPtr(u64);

// SAFETY: a `u64` device address, the kernel's pointer parameter.
unsafe impl DeviceRepr for KernelPtr {}

// SAFETY: pushes the address of the `u64` the kernel reads as its pointer parameter; the
// reference outlives the launch arguments.
unsafe impl<'a, 'b: 'a> PushKernelArg<&'b mut KernelPtr> for LaunchArgs<'a> {
    #[inline(always)]
    fn arg(&mut self, arg: &'b mut KernelPtr) -> &mut Self {
        let shared: &'b KernelPtr = arg;
        <Self as PushKernelArg<&'b KernelPtr>>::arg(self, shared)
    }
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
        let gate = self.stream.launch_gate()?;
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
        if info.grid_sync {
            crate::occupancy::check_cooperative(dev, info, config)?;
        }
        if gate == LaunchGate::Load {
            return Ok(None);
        }
        let grid_word = if info.grid_sync {
            Some(
                self.cuda
                    .alloc_zeros::<u32>(2)
                    .during("allocating the grid barrier of a cooperative launch")?,
            )
        } else {
            None
        };
        let panic_arg = if info.checked {
            Some(self.panic_record()?.device_ptr())
        } else {
            None
        };
        let d = |v: cuprum_std::Dim3| (v.x, v.y, v.z);
        Ok(Some(GpuLaunch {
            cuda: self.cuda,
            function: loaded.function,
            config: cudarc::driver::LaunchConfig {
                grid_dim: d(config.grid),
                block_dim: d(config.block),
                shared_mem_bytes: config.shared_bytes,
            },
            panic_arg,
            grid_word,
        }))
    }

    fn panic_record(&self) -> Result<&'a PanicRecord> {
        if let Some(r) = self.panic.get() {
            return Ok(r);
        }
        let record = PanicRecord::new(self.cuda)?;
        Ok(self.panic.get_or_init(|| record))
    }

    /// A `&[T]` argument: ordered after other streams' writes of the memory (or, in a
    /// capture, kept for the graph's replays to order).
    pub fn slice<'b, T: Element>(
        &self,
        s: &'b (impl DeviceSlice<T> + ?Sized),
    ) -> Result<GpuSlice<'b, T>> {
        let v = s.__view();
        same_device(self.stream, v.device())?;
        let Repr::Gpu(view) = &v.repr else {
            unreachable!("a GPU's buffers are GPU memory")
        };
        same_context(self.cuda, view.stream())?;
        if !crate::graph::keep_read(self.stream, &v) {
            v.before_use(self.cuda)?;
        }
        Ok(GpuSlice {
            view: KernelPtr(v.kernel_ptr()),
            len: view.len() as u64,
            _borrow: PhantomData,
        })
    }

    /// A `&mut [T]` argument: ordered after other streams' reads and writes of the memory
    /// (or, in a capture, kept for the graph's replays to order).
    pub fn slice_mut<'b, T: Element>(
        &self,
        s: &'b mut (impl DeviceSliceMut<T> + ?Sized),
    ) -> Result<GpuSliceMut<'b, T>> {
        let mut v = s.__view_mut();
        same_device(self.stream, v.device())?;
        let ReprMut::Gpu(view) = &v.repr else {
            unreachable!("a GPU's buffers are GPU memory")
        };
        same_context(self.cuda, view.stream())?;
        let len = view.len() as u64;
        if !crate::graph::keep_write(self.stream, &v) {
            v.before_use(self.cuda)?;
        }
        Ok(GpuSliceMut {
            view: KernelPtr(v.kernel_ptr()),
            len,
            _borrow: PhantomData,
        })
    }
}

/// Memory swapped into a buffer through `cuda_slice_mut` must belong to the launch's context.
fn same_context(launch: &CudaStream, memory: &CudaStream) -> Result<()> {
    if launch.context().cu_ctx() == memory.context().cu_ctx() {
        Ok(())
    } else {
        Err(Error::WrongDevice(format!(
            "launch: a buffer holds memory of GPU {} (a cudarc slice assigned to it), passed to a launch on GPU {}",
            memory.context().ordinal(),
            launch.context().ordinal()
        )))
    }
}

/// A buffer passed to a launch must live on the launch's device.
fn same_device(stream: &Stream, buffer: &Device) -> Result<()> {
    let launch = stream.device();
    if buffer.same(launch) {
        Ok(())
    } else {
        Err(Error::WrongDevice(format!(
            "launch: a buffer on {} (device {}) was passed to a launch on {} (device {})",
            buffer.name(),
            buffer.ordinal(),
            launch.name(),
            launch.ordinal()
        )))
    }
}

fn validate_grid(dev: &DeviceCore, config: &LaunchConfig) -> Result<()> {
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
    Ok(())
}

/// A stream on the simulator, seen by a launch.
pub struct SimStream<'a> {
    stream: &'a Stream,
}

impl SimStream<'_> {
    /// A `&[T]` argument.
    ///
    /// # Safety
    /// The view carries no lifetime: the caller uses it only while `s` is borrowed (within
    /// the launch it is made for).
    pub unsafe fn slice<T: Element>(
        &self,
        s: &(impl DeviceSlice<T> + ?Sized),
    ) -> Result<SimSlice<T>> {
        let v = s.__view();
        same_device(self.stream, v.device())?;
        match v.repr {
            Repr::Sim(view, _) => Ok(view),
            Repr::Gpu(_) => unreachable!("the simulator's buffers are simulator memory"),
        }
    }

    /// A `&mut [T]` argument.
    ///
    /// # Safety
    /// As [`SimStream::slice`], while `s` is borrowed exclusively.
    pub unsafe fn slice_mut<T: Element>(
        &self,
        s: &mut (impl DeviceSliceMut<T> + ?Sized),
    ) -> Result<SimSliceMut<T>> {
        let v = s.__view_mut();
        same_device(self.stream, v.device())?;
        match v.repr {
            ReprMut::Sim(view, _) => Ok(view),
            ReprMut::Gpu(_) => unreachable!("the simulator's buffers are simulator memory"),
        }
    }

    /// Runs the kernel's simulator body over the grid. Like a GPU launch, a failure inside the
    /// kernel is reported by the stream's next synchronisation; an invalid configuration is
    /// an error now.
    ///
    /// The views `body` captured (from `slice`/`slice_mut`) point into the caller's buffers,
    /// which stay borrowed by the caller until this returns: the simulator runs the whole
    /// grid before returning.
    pub fn launch(
        &self,
        info: &'static KernelInfo,
        config: &LaunchConfig,
        body: impl Fn(&Thread) -> Result<(), Stop> + Sync,
    ) -> Result<()> {
        let record_only = self.stream.launch_gate()? != LaunchGate::Run;
        let dev = &self.stream.core.device.core;
        validate_block(dev, info, config)?;
        if config.is_empty() {
            return Ok(());
        }
        validate_grid(dev, config)?;
        let static_shared: usize = info.shared.iter().map(|d| d.bytes).sum();
        let total = static_shared as u64 + config.shared_bytes as u64;
        if total > dev.max_shared_per_block_optin as u64 {
            return Err(Error::LaunchConfig(format!(
                "kernel `{}` needs {total} bytes of shared memory per block ({static_shared} static + {} dynamic), more than the {} bytes the simulator allows (as an H100/H200)",
                info.name, config.shared_bytes, dev.max_shared_per_block_optin
            )));
        }
        if info.grid_sync {
            crate::occupancy::check_cooperative(dev, info, config)?;
        }
        if record_only {
            // Captured into a graph: checked now, run at each replay.
            return Ok(());
        }
        let spec = GridSpec {
            grid: config.grid,
            block: config.block,
            shared: info.shared,
            dynamic_shared_bytes: config.shared_bytes as usize,
            cooperative: info.cooperative,
            frame_bytes: info.frame_bytes,
            workers: dev.multiprocessors as usize,
            grid_sync: info.grid_sync,
        };
        if let Err(f) = run_grid(&spec, &body) {
            let (file, line, column) =
                f.loc
                    .map(|l| (l.file, l.line, l.column))
                    .unwrap_or(("<unknown>", 0, 0));
            self.stream
                .defer_error(Error::KernelPanic(Box::new(KernelPanic {
                    kernel: info.name.to_string(),
                    message: f.message,
                    file,
                    line,
                    column,
                    block: f.block,
                    thread: f.thread,
                })));
        }
        Ok(())
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
    if info.block != [0; 3] && [b.x, b.y, b.z] != info.block {
        let [x, y, z] = info.block;
        return Err(Error::LaunchConfig(format!(
            "kernel `{}` is declared with block = ({x}, {y}, {z}), but is launched with a block of ({}, {}, {})",
            info.name, b.x, b.y, b.z
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
    ///
    /// # Safety
    /// `args` holds exactly the kernel's parameters, in order, with their types: each slice
    /// as the address and length of a [`GpuSlice`] or [`GpuSliceMut`] made by this launch's
    /// stream (so ordered and alive), then the scalars. `launch` expansions push them from
    /// the kernel's checked signature.
    pub unsafe fn finish<'b>(&'b self, mut args: LaunchArgs<'b>) -> Result<()> {
        if let Some(p) = &self.panic_arg {
            args.arg(p);
        }
        if let Some(w) = &self.grid_word {
            args.arg(w);
            // SAFETY: as below; `prepare` checked that every block is resident at once.
            unsafe { args.launch_cooperative(self.config) }
                .during("launching a cooperative kernel")?;
            return Ok(());
        }
        // SAFETY: the macro pushed exactly the kernel's parameters, with their types, from its
        // checked signature; slices are pushed as (device pointer, length) pairs of live views.
        unsafe { args.launch(self.config) }.during("launching a kernel")?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn twin(sites: &'static [Site]) -> KernelInfo {
        KernelInfo {
            name: "twin",
            ptx: "",
            checked: true,
            max_threads: 0,
            block: [0; 3],
            sites,
            cooperative: false,
            shared: &[],
            sass: &[],
            frame_bytes: 0,
            grid_sync: false,
        }
    }

    /// Two kernels with one name (and one PTX) get two ids, each of which finds its own
    /// kernel: what a failed check records names exactly one kernel.
    #[test]
    fn kernels_with_one_name_get_distinct_ids() {
        static A: [Site; 1] = [Site {
            kind: CheckKind::Index,
            file: "a.rs",
            line: 1,
            column: 1,
            message: None,
        }];
        static B: [Site; 1] = [Site {
            kind: CheckKind::RemZero,
            file: "b.rs",
            line: 2,
            column: 2,
            message: None,
        }];
        let (a, b): (&'static KernelInfo, &'static KernelInfo) =
            (Box::leak(Box::new(twin(&A))), Box::leak(Box::new(twin(&B))));
        let (ia, ib) = (register(a).unwrap(), register(b).unwrap());
        assert_ne!(ia, ib);
        assert!(std::ptr::eq(lookup_kernel(ia).unwrap(), a));
        assert!(std::ptr::eq(lookup_kernel(ib).unwrap(), b));
        assert!(
            lookup_kernel(0).is_none(),
            "0 is the id of an unregistered module"
        );
    }
}
