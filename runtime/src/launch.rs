//! Launches: what `#[kernel]`'s expansion calls (re-exported as `cuprum::__private`): the
//! stream's backend, the launch's validation (`validate.rs`) and module (`module.rs`), the
//! arguments, and the launch itself. Its signatures are the contract between the macro and
//! the runtime.

use std::marker::PhantomData;
use std::sync::{Arc, OnceLock};

use cudarc::driver::{
    CudaFunction, CudaStream, DeviceRepr, DeviceSlice as _, LaunchArgs, PushKernelArg,
};
use cuprum_std::sim::{run_grid, GridSpec, SimSlice, SimSliceMut, Stop, Thread};

use crate::buffer::{DeviceSlice, DeviceSliceMut, KeepAlive, Repr, ReprMut};
use crate::capture::LaunchGate;
use crate::config::LaunchConfig;
use crate::device::DeviceCore;
use crate::element::Element;
use crate::error::{DriverContext, Error, KernelPanic, Result};
use crate::panic_record::PanicRecord;
use crate::registry::KernelInfo;
use crate::stream::{Stream, StreamKind};
use crate::validate::{check_aligned, check_config, check_shared};

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
    /// The entry of the kernel's fast module, when it has one (`KernelInfo::fast_ptx`).
    fast: Option<CudaFunction>,
    config: cudarc::driver::LaunchConfig,
    panic_arg: Option<u64>,
    /// The grid barrier's zeroed word (cooperative kernels): allocated on the stream for this
    /// launch, freed in stream order after it.
    grid_word: Option<cudarc::driver::CudaSlice<u32>>,
}

/// One argument of a launch, as the expansion passes it: [`Slice`] for a `&[T]` parameter,
/// [`SliceMut`] for `&mut [T]`, [`Value`] for a parameter by value (a scalar, an array or a
/// `DeviceCopy` struct). The runtime owns the calling convention: on a GPU a slice is its
/// device address and its length (a `u64`), a value its bytes; on the simulator the kernel's
/// body takes a view of the slice, or the value.
pub trait KernelArg {
    /// What a GPU launch passes (it lives until the launch is queued).
    type Gpu: GpuArg;
    /// What the simulator's kernel body takes.
    type Sim;
    /// The argument for a launch on `stream`: memory of another device is an error, and a
    /// slice is ordered after other streams' conflicting uses of it (or, in a graph capture,
    /// kept for the graph to order).
    ///
    /// # Errors
    /// [`Error::WrongDevice`]; driver errors.
    fn gpu(self, stream: &GpuStream<'_>) -> Result<Self::Gpu>;
    /// The argument for a launch on `stream`.
    ///
    /// # Errors
    /// [`Error::WrongDevice`].
    ///
    /// # Safety
    /// A slice's view carries no lifetime: the caller uses it only while the argument is
    /// borrowed (within the launch it is made for).
    unsafe fn sim(self, stream: &SimStream<'_>) -> Result<Self::Sim>;
}

/// A kernel parameter's value on a GPU, ready to be passed: see [`KernelArg`].
pub trait GpuArg {
    /// Appends the parameter's values (a slice: its address, then its length) to `args`.
    fn push<'a>(&'a self, args: &mut LaunchArgs<'a>);
}

/// A `&[T]` argument.
pub struct Slice<'b, T, S: ?Sized>(&'b S, PhantomData<fn() -> T>);

impl<'b, T: Element, S: DeviceSlice<T> + ?Sized> Slice<'b, T, S> {
    /// The argument `s`.
    #[inline(always)]
    pub fn new(s: &'b S) -> Self {
        Slice(s, PhantomData)
    }
}

/// A `&mut [T]` argument.
pub struct SliceMut<'b, T, S: ?Sized>(&'b mut S, PhantomData<fn() -> T>);

impl<'b, T: Element, S: DeviceSliceMut<T> + ?Sized> SliceMut<'b, T, S> {
    /// The argument `s`.
    #[inline(always)]
    pub fn new(s: &'b mut S) -> Self {
        SliceMut(s, PhantomData)
    }
}

/// An argument by value: its bytes are the kernel's parameter.
pub struct Value<T>(pub T);

impl<'b, T: Element, S: DeviceSlice<T> + ?Sized> KernelArg for Slice<'b, T, S> {
    type Gpu = GpuSlice<'b, T>;
    type Sim = SimSlice<T>;
    #[inline(always)]
    fn gpu(self, stream: &GpuStream<'_>) -> Result<GpuSlice<'b, T>> {
        stream.slice(self.0)
    }
    #[inline(always)]
    unsafe fn sim(self, stream: &SimStream<'_>) -> Result<SimSlice<T>> {
        // SAFETY: the caller's promise.
        unsafe { stream.slice(self.0) }
    }
}

impl<'b, T: Element, S: DeviceSliceMut<T> + ?Sized> KernelArg for SliceMut<'b, T, S> {
    type Gpu = GpuSlice<'b, T>;
    type Sim = SimSliceMut<T>;
    #[inline(always)]
    fn gpu(self, stream: &GpuStream<'_>) -> Result<GpuSlice<'b, T>> {
        stream.slice_mut(self.0)
    }
    #[inline(always)]
    unsafe fn sim(self, stream: &SimStream<'_>) -> Result<SimSliceMut<T>> {
        // SAFETY: the caller's promise.
        unsafe { stream.slice_mut(self.0) }
    }
}

impl<T: DeviceRepr> KernelArg for Value<T> {
    type Gpu = Value<T>;
    type Sim = T;
    #[inline(always)]
    fn gpu(self, _: &GpuStream<'_>) -> Result<Value<T>> {
        Ok(self)
    }
    #[inline(always)]
    unsafe fn sim(self, _: &SimStream<'_>) -> Result<T> {
        Ok(self.0)
    }
}

impl<T: DeviceRepr> GpuArg for Value<T> {
    #[inline(always)]
    fn push<'a>(&'a self, args: &mut LaunchArgs<'a>) {
        args.arg(&self.0);
    }
}

/// A slice argument on a GPU: its device address and its length, ordered (and, for a
/// `&mut [T]`, borrowed exclusively) for the launch.
pub struct GpuSlice<'b, T> {
    /// The memory's device address. Launches pass it as a plain value: the ordering that
    /// cudarc's views would add (events waited on and recorded at every launch, and only
    /// while a context has several streams) is done by Cuprum's own bookkeeping (`order.rs`),
    /// which costs no driver call for memory used on one stream.
    ptr: u64,
    /// Its length, the kernel's `u64` parameter after the pointer.
    len: u64,
    _borrow: PhantomData<&'b [T]>,
}

impl<T> GpuArg for GpuSlice<'_, T> {
    #[inline(always)]
    fn push<'a>(&'a self, args: &mut LaunchArgs<'a>) {
        args.arg(&self.ptr).arg(&self.len);
    }
}

/// A launch argument's value in a versioning test the launch evaluates
/// ([`cuprum_abi::versioning`]): a slice argument's length as the launch passes it to the
/// kernel (the view's own, never what a `DeviceSlice::len` says), an unsigned scalar's value.
/// Implemented only for the arguments the runtime makes, so generated code cannot be handed
/// a length that differs from the kernel's.
pub trait LaunchValue {
    /// The value, as a `u64`.
    fn launch_value(&self) -> u64;
}

impl<T> LaunchValue for GpuSlice<'_, T> {
    #[inline(always)]
    fn launch_value(&self) -> u64 {
        self.len
    }
}

impl<T: Element> LaunchValue for SimSlice<T> {
    #[inline(always)]
    fn launch_value(&self) -> u64 {
        self.len() as u64
    }
}

impl<T: Element> LaunchValue for SimSliceMut<T> {
    #[inline(always)]
    fn launch_value(&self) -> u64 {
        self.len() as u64
    }
}

macro_rules! launch_value_of_unsigned {
    ($($t:ty),*) => {$(
        impl LaunchValue for $t {
            #[inline(always)]
            fn launch_value(&self) -> u64 {
                *self as u64
            }
        }
        impl LaunchValue for Value<$t> {
            #[inline(always)]
            fn launch_value(&self) -> u64 {
                self.0 as u64
            }
        }
    )*};
}
launch_value_of_unsigned!(u8, u16, u32, u64, usize);

/// The versioning flag a kernel takes when its fast copy is selected at launch: 1 when every
/// test holds for `values` (exactly: [`cuprum_abi::versioning::holds`]), else 0.
#[inline]
pub fn host_test(tests: &[cuprum_abi::versioning::Test<'_>], values: &[u64]) -> u32 {
    u32::from(cuprum_abi::versioning::holds(tests, values))
}

impl<'a> GpuStream<'a> {
    fn core(&self) -> &DeviceCore {
        &self.stream.core.device.core
    }

    /// The argument `arg` for a launch on this stream (see [`KernelArg::gpu`]).
    ///
    /// # Errors
    /// As [`KernelArg::gpu`].
    #[inline(always)]
    pub fn arg<A: KernelArg>(&self, arg: A) -> Result<A::Gpu> {
        arg.gpu(self)
    }

    /// Validates `config` for this kernel on this device and gets the loaded function.
    /// `Ok(None)` for an empty grid: nothing to launch.
    pub fn prepare(
        &self,
        info: &'static KernelInfo,
        config: &LaunchConfig,
    ) -> Result<Option<GpuLaunch<'a>>> {
        let gate = self.stream.launch_gate()?;
        let dev = self.core();
        if !check_config(dev, info, config)? {
            return Ok(None);
        }
        let loaded = info.load(dev)?;
        let threads = config.threads_per_block();
        if threads > loaded.max_threads as u64 {
            return Err(Error::LaunchConfig(format!(
                "kernel `{}` can run at most {} threads per block on {} (its register use limits it), but the block has {threads}",
                info.name, loaded.max_threads, dev.name
            )));
        }
        check_shared(dev, info.name, loaded.static_shared, config.shared_bytes)?;
        loaded.allow_dynamic_shared(config.shared_bytes)?;
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
            fast: loaded.fast,
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
    fn slice<'b, T: Element>(
        &self,
        s: &'b (impl DeviceSlice<T> + ?Sized),
    ) -> Result<GpuSlice<'b, T>> {
        let v = s.__view();
        self.stream.check_device("launch", v.device())?;
        let Repr::Gpu(view) = &v.repr else {
            unreachable!("a GPU's buffers are GPU memory")
        };
        same_context(self.cuda, view.stream())?;
        let ptr = v.kernel_ptr();
        check_aligned::<T>(ptr)?;
        if !captured(self.stream, || v.keep_alive()) {
            v.before_use(self.cuda)?;
        }
        Ok(GpuSlice {
            ptr,
            len: view.len() as u64,
            _borrow: PhantomData,
        })
    }

    /// A `&mut [T]` argument: ordered after other streams' reads and writes of the memory
    /// (or, in a capture, kept for the graph's replays to order).
    fn slice_mut<'b, T: Element>(
        &self,
        s: &'b mut (impl DeviceSliceMut<T> + ?Sized),
    ) -> Result<GpuSlice<'b, T>> {
        let mut v = s.__view_mut();
        self.stream.check_device("launch", v.device())?;
        let ReprMut::Gpu(view) = &v.repr else {
            unreachable!("a GPU's buffers are GPU memory")
        };
        same_context(self.cuda, view.stream())?;
        let len = view.len() as u64;
        let ptr = v.kernel_ptr();
        check_aligned::<T>(ptr)?;
        if !captured(self.stream, || v.keep_alive()) {
            v.before_use(self.cuda)?;
        }
        Ok(GpuSlice {
            ptr,
            len,
            _borrow: PhantomData,
        })
    }
}

/// Whether `stream` is a graph capture's handle: then a launch's use of memory is kept for
/// the graph, which orders each replay, and not ordered now.
fn captured(stream: &Stream, keep: impl FnOnce() -> Option<KeepAlive>) -> bool {
    match &stream.core.capture {
        Some(capture) => {
            capture.keep(keep);
            true
        }
        None => false,
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

/// A stream on the simulator, seen by a launch.
pub struct SimStream<'a> {
    stream: &'a Stream,
}

impl SimStream<'_> {
    /// The argument `arg` for a launch on this stream (see [`KernelArg::sim`]).
    ///
    /// # Errors
    /// As [`KernelArg::sim`].
    ///
    /// # Safety
    /// As [`KernelArg::sim`].
    #[inline(always)]
    pub unsafe fn arg<A: KernelArg>(&self, arg: A) -> Result<A::Sim> {
        // SAFETY: the caller's promise.
        unsafe { arg.sim(self) }
    }

    /// A `&[T]` argument.
    ///
    /// # Safety
    /// The view carries no lifetime: the caller uses it only while `s` is borrowed (within
    /// the launch it is made for).
    unsafe fn slice<T: Element>(&self, s: &(impl DeviceSlice<T> + ?Sized)) -> Result<SimSlice<T>> {
        let v = s.__view();
        self.stream.check_device("launch", v.device())?;
        match v.repr {
            Repr::Sim(view, _) => {
                check_aligned::<T>(view.addr() as u64)?;
                Ok(view)
            }
            Repr::Gpu(_) => unreachable!("the simulator's buffers are simulator memory"),
        }
    }

    /// A `&mut [T]` argument.
    ///
    /// # Safety
    /// As [`SimStream::slice`], while `s` is borrowed exclusively.
    unsafe fn slice_mut<T: Element>(
        &self,
        s: &mut (impl DeviceSliceMut<T> + ?Sized),
    ) -> Result<SimSliceMut<T>> {
        let v = s.__view_mut();
        self.stream.check_device("launch", v.device())?;
        match v.repr {
            ReprMut::Sim(view, _) => {
                check_aligned::<T>(view.as_slice().addr() as u64)?;
                Ok(view)
            }
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
        if !check_config(dev, info, config)? {
            return Ok(());
        }
        check_shared(dev, info.name, info.static_shared(), config.shared_bytes)?;
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

impl GpuLaunch<'_> {
    /// The launch of a kernel whose fast copy the launch selects: with `fast` (the kernel's
    /// versioning test held for this launch's arguments) it runs the fast module's entry,
    /// which is that copy alone, else the kernel's module. Both take the same arguments.
    pub fn select(mut self, fast: bool) -> Self {
        if let (true, Some(f)) = (fast, self.fast.take()) {
            self.function = f;
        }
        self
    }

    /// Launches the kernel with `args`, then the hidden parameters (the panic record's
    /// address for a checked kernel, the grid barrier's word for a cooperative one).
    ///
    /// # Safety
    /// `args` are the kernel's parameters, in order, each of its parameter's type: made by
    /// [`KernelArg::gpu`] on this launch's stream from the kernel's checked signature, as the
    /// `launch` of a `#[kernel]` expansion does; and [`GpuLaunch::select`]ed `fast` only when
    /// the kernel's versioning test holds for them (the fast copy omits the checks it proves).
    pub unsafe fn launch(&self, args: &[&dyn GpuArg]) -> Result<()> {
        let mut builder = self.cuda.launch_builder(&self.function);
        for a in args {
            a.push(&mut builder);
        }
        if let Some(p) = &self.panic_arg {
            builder.arg(p);
        }
        if let Some(w) = &self.grid_word {
            builder.arg(w);
            // SAFETY: as below; `prepare` checked that every block is resident at once.
            unsafe { builder.launch_cooperative(self.config) }
                .during("launching a cooperative kernel")?;
            return Ok(());
        }
        // SAFETY: the caller's promise: the parameters are the kernel's, with their types,
        // slices as (device address, length) of live, ordered memory.
        unsafe { builder.launch(self.config) }.during("launching a kernel")?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::prelude::kernel;

    /// A device slice made of a simulator view, for the alignment check below.
    struct Foreign<'a, T>(SimSlice<T>, &'a crate::Device);

    impl<T: Element> DeviceSlice<T> for Foreign<'_, T> {
        fn len(&self) -> usize {
            self.0.len()
        }
        fn __view(&self) -> crate::buffer::RawView<'_, T> {
            crate::buffer::RawView::sim_for_tests(self.0, self.1)
        }
    }

    /// `c[i] = a[i]` where `i < c.len()`: versioned on `len(c) <= len(a)`, which the launch
    /// evaluates.
    #[kernel]
    fn copy_guarded(c: &mut [f32], a: &[f32]) {
        let i = gpu::global_id_x();
        if i < c.len() {
            c[i] = a[i];
        }
    }

    /// A slice whose `len` says more than the memory it hands the launch.
    struct Forged<'a, T>(SimSlice<T>, &'a crate::Device, usize);

    impl<T: Element> DeviceSlice<T> for Forged<'_, T> {
        fn len(&self) -> usize {
            self.2
        }
        fn __view(&self) -> crate::buffer::RawView<'_, T> {
            crate::buffer::RawView::sim_for_tests(self.0, self.1)
        }
    }

    /// A forged length cannot select the fast copy: the launch's test reads the length of
    /// the view the kernel gets, so an access past it is still reported (as the bounds
    /// failure it is, not as a failed proof), and the elements past it are not read.
    #[test]
    fn a_forged_length_does_not_select_the_fast_copy() {
        assert!(
            copy_guarded::PTX.contains(".param .u32"),
            "versioned on a host test"
        );
        let device = crate::Device::simulator();
        let stream = device.default_stream();
        let n = 300;
        let src = stream
            .to_device(&(0..n).map(|i| i as f32).collect::<Vec<_>>())
            .unwrap();
        let Repr::Sim(raw, _) = src.__view().repr else {
            unreachable!("simulator memory")
        };
        let m = 200;
        // SAFETY: `m` of the buffer's `n` elements, used only while `src` lives.
        let short = unsafe { raw.reinterpret::<f32>(0, m) };
        for said in [m, n, usize::MAX] {
            let a = Forged(short, &device, said);
            // The launch's value of it is the view's length, whatever `len` says.
            let sim = SimStream { stream: &stream };
            // SAFETY: the view is not used after this statement.
            let arg = unsafe { sim.arg(Slice::new(&a)) }.unwrap();
            assert_eq!(arg.launch_value(), m as u64);
            let mut c = stream.alloc_zeros::<f32>(n).unwrap();
            let failed = copy_guarded::launch(&stream, LaunchConfig::new(2, 256), &mut c, &a)
                .and_then(|()| stream.synchronize());
            match failed {
                Err(Error::KernelPanic(p)) => assert_eq!(
                    p.message, "index out of bounds: the len is 200 but the index is 200",
                    "len() said {said}"
                ),
                other => panic!("len() said {said}: {other:?}"),
            }
        }
        // An honest view of all `n`: the test holds, and the copy is right.
        let mut c = stream.alloc_zeros::<f32>(n).unwrap();
        copy_guarded::launch(&stream, LaunchConfig::new(2, 256), &mut c, &src).unwrap();
        let got = stream.to_host(&c).unwrap();
        assert!(got.iter().enumerate().all(|(i, &v)| v == i as f32));
        assert_eq!(host_test(&[], &[]), 1);
    }

    /// A launch on the simulator refuses a slice of 16-byte elements that is not 16-byte
    /// aligned, with the same check as on a GPU (`validate::check_aligned`).
    #[test]
    fn misaligned_slices_are_refused_on_the_simulator() {
        let device = crate::Device::simulator();
        let stream = device.default_stream();
        let bytes = stream.alloc_zeros::<u8>(96).unwrap();
        let Repr::Sim(raw, _) = bytes.__view().repr else {
            unreachable!("simulator memory")
        };
        let sim = SimStream { stream: &stream };
        for offset in [0, 4, 8, 12, 16, 32] {
            // SAFETY: 4 elements of 16 bytes from `offset` lie within the 96 bytes.
            let view = unsafe { raw.reinterpret::<[f32; 4]>(offset, 4) };
            // SAFETY: the view is not used after this statement.
            let got = unsafe { sim.arg(Slice::new(&Foreign(view, &device))) };
            match got {
                Ok(_) => assert_eq!(offset % 16, 0, "offset {offset} accepted"),
                Err(Error::LaunchConfig(msg)) => {
                    assert_ne!(offset % 16, 0, "offset {offset} refused");
                    assert!(msg.contains("not aligned to 16 bytes"), "{msg}");
                }
                Err(e) => panic!("offset {offset}: {e}"),
            }
        }
        // 4-byte elements at a 4-byte offset are fine.
        // SAFETY: as above.
        let view = unsafe { raw.reinterpret::<f32>(4, 8) };
        // SAFETY: as above.
        assert!(unsafe { sim.arg(Slice::new(&Foreign(view, &device))) }.is_ok());
    }
}
