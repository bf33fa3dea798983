//! Module loading: a kernel's module image (the build-time cubin for the device, or the PTX),
//! loaded once per CUDA context into the kernel's [`FunctionCache`], which its launches and
//! the occupancy queries share. Knows nothing of launches or of the kernel registry: the
//! caller says what to load ([`Image`]) and how to get the kernel's id.

use std::sync::{Arc, Mutex, OnceLock};

use cudarc::driver::sys::CUfunction_attribute as FnAttr;
use cudarc::driver::{CudaContext, CudaFunction, DevicePtrMut};

use crate::device::{DeviceCore, DeviceKind};
use crate::error::{DriverContext, Error, Result};

/// Cubins by compute capability (major × 10 + minor).
pub(crate) type Cubins<'a> = &'a [(u32, &'static [u8])];

/// What a kernel's module is made of.
pub(crate) struct Image<'a> {
    /// The PTX entry name.
    pub name: &'a str,
    /// The PTX module.
    pub ptx: &'a str,
    /// Cubins by compute capability (major × 10 + minor).
    pub sass: &'a [(u32, &'static [u8])],
    /// Whether the module has the kernel-id global (`cuprum_abi::KERNEL_ID_SYMBOL`) to fill.
    pub has_id: bool,
    /// The module of the launch-selected fast copy alone (PTX, cubins), loaded beside it.
    pub fast: Option<(&'a str, Cubins<'a>)>,
}

/// One kernel's loaded functions, one per CUDA context: the module is loaded the first time
/// the kernel is launched or queried in a context and reused after. Also the kernel's
/// identity: its id in the kernel registry, handed out on the first load.
pub struct FunctionCache {
    entries: Mutex<Vec<(usize, Loaded)>>,
    id: OnceLock<u32>,
}

/// A kernel's function, loaded in one context.
#[derive(Clone)]
pub(crate) struct Loaded {
    pub function: CudaFunction,
    /// The fast module's entry ([`Image::fast`]), which the launch runs when its test holds.
    pub fast: Option<CudaFunction>,
    /// Bytes of static shared memory the function uses.
    pub static_shared: u32,
    /// The most threads per block the compiled function can run (registers permitting).
    pub max_threads: u32,
    /// Dynamic shared memory the function may use without raising its limit (read at load).
    dynamic_default: u32,
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

    /// The kernel loaded in `dev`'s context: loaded now if it was not yet, after `register`
    /// gave the kernel its id (once per cache).
    pub(crate) fn get(
        &self,
        dev: &DeviceCore,
        image: &Image<'_>,
        register: impl FnOnce() -> Result<u32>,
    ) -> Result<Loaded> {
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
                let id = register()?;
                let _ = self.id.set(id);
                id
            }
        };
        let (function, [mut static_shared, mut max_threads, mut dynamic_default]) =
            load_function(ctx, dev, image, id)?;
        // Either function may run a launch: limits are the tighter of the two.
        let fast = match image.fast {
            Some((ptx, sass)) => {
                let fast_image = Image {
                    name: image.name,
                    ptx,
                    sass,
                    // A fast copy without checks has no failure path, nor the id's global.
                    has_id: image.has_id && ptx.contains(cuprum_abi::KERNEL_ID_SYMBOL),
                    fast: None,
                };
                let (f, [shared, threads, dynamic]) = load_function(ctx, dev, &fast_image, id)?;
                static_shared = static_shared.max(shared);
                max_threads = max_threads.min(threads);
                dynamic_default = dynamic_default.min(dynamic);
                Some(f)
            }
            None => None,
        };
        let loaded = Loaded {
            fast,
            static_shared,
            max_threads,
            dynamic_default,
            dynamic_limit: Arc::new(Mutex::new(dynamic_default)),
            function,
        };
        entries.push((key, loaded.clone()));
        Ok(loaded)
    }
}

impl Loaded {
    /// Lets the function use `bytes` of dynamic shared memory, raising its limit when it is
    /// lower (the caller checked that the device allows it). Within the function's default
    /// limit (every launch with at most 48 KiB of shared memory) it takes no lock.
    pub(crate) fn allow_dynamic_shared(&self, bytes: u32) -> Result<()> {
        if bytes <= self.dynamic_default {
            return Ok(());
        }
        let mut limit = self.dynamic_limit.lock().unwrap_or_else(|e| e.into_inner());
        if *limit < bytes {
            for f in std::iter::once(&self.function).chain(&self.fast) {
                f.set_attribute(
                    FnAttr::CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                    bytes as i32,
                )
                .during("raising the kernel's dynamic shared memory limit")?;
            }
            *limit = bytes;
        }
        Ok(())
    }
}

/// What to load for `image` on `dev`: the build-time cubin for exactly its compute capability
/// when there is one (no compilation by the driver), else the PTX (compiled by the driver on
/// first load, then cached on disk by it), or with `CUPRUM_LINEINFO=1` a cubin compiled
/// from it with line information.
fn module_image(dev: &DeviceCore, image: &Image<'_>) -> Result<cudarc::nvrtc::Ptx> {
    let (major, minor) = dev.compute_capability;
    Ok(
        match image.sass.iter().find(|(cc, _)| *cc == major * 10 + minor) {
            Some((_, cubin)) => cudarc::nvrtc::Ptx::from_binary(cubin.to_vec()),
            None if crate::lineinfo::wanted() => {
                cudarc::nvrtc::Ptx::from_binary(crate::lineinfo::compile(image.ptx)?)
            }
            None => cudarc::nvrtc::Ptx::from_src(image.ptx),
        },
    )
}

/// Loads `image`'s module into `ctx` (the cubin for the device when there is one), writes
/// the kernel's id into it when it has the id global, and returns the kernel with its static
/// shared memory and the most threads per block it can run.
fn load_function(
    ctx: &Arc<CudaContext>,
    dev: &DeviceCore,
    image: &Image<'_>,
    id: u32,
) -> Result<(CudaFunction, [u32; 3])> {
    ctx.bind_to_thread().during("binding the context")?;
    let module = ctx
        .load_module(module_image(dev, image)?)
        .during("loading a kernel's module")?;
    if image.has_id {
        let stream = ctx.default_stream();
        let mut global = module
            .get_global(cuprum_abi::KERNEL_ID_SYMBOL, &stream)
            .during("finding the kernel's id in its module")?;
        if global.len() != std::mem::size_of::<u32>() {
            return Err(Error::LaunchConfig(format!(
                "kernel `{}`: its module's `{}` has {} bytes, not 4 (a module from another version of Cuprum?)",
                image.name,
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
        .load_function(image.name)
        .during("finding the kernel in its module")?;
    let attr = |a| {
        function
            .get_attribute(a)
            .map(|v| v.max(0) as u32)
            .during("reading kernel attributes")
    };
    let attrs = [
        attr(FnAttr::CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES)?,
        attr(FnAttr::CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK)?,
        attr(FnAttr::CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES)?,
    ];
    Ok((function, attrs))
}
