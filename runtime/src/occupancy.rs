//! Occupancy: how many blocks of a kernel one multiprocessor keeps resident at once, and the
//! block size that keeps the most threads resident (CUDA's occupancy calculator, as Numba and
//! CuPy expose it).
//!
//! A kernel is named by its `INFO` (`&saxpy::INFO` for `#[kernel] fn saxpy`). On a GPU the
//! driver answers for the compiled kernel (registers, shared memory, launch bounds), loaded
//! through the kernel's own module cache, which its launches share. The simulator answers from a fixed model of an sm_90 multiprocessor that ignores
//! registers: at most 32 blocks and 64 warps (2048 threads), and 228 KiB of shared memory of
//! which each block also takes 1 KiB.
//!
//! ```
//! use cuprum::prelude::*;
//! use cuprum::occupancy;
//!
//! #[kernel]
//! pub fn double(y: &mut [f32]) {
//!     let i = gpu::global_id_x();
//!     if i < y.len() {
//!         y[i] *= 2.0;
//!     }
//! }
//!
//! # fn main() -> cuprum::Result<()> {
//! let dev = Device::simulator();
//! // The model: 64 warps per multiprocessor, so eight blocks of 256 threads.
//! assert_eq!(occupancy::max_active_blocks(&dev, &double::INFO, 256, 0)?, 8);
//! let cfg = LaunchConfig::for_occupancy(&dev, &double::INFO, 10_000)?;
//! let stream = dev.default_stream();
//! let mut y = stream.to_device(&vec![1.0f32; 10_000])?;
//! double::launch(&stream, cfg, &mut y)?;
//! assert!(stream.to_host(&y)?.iter().all(|&v| v == 2.0));
//! # Ok(()) }
//! ```

use crate::config::LaunchConfig;
use crate::device::{Device, DeviceCore, DeviceKind};
use crate::error::{DriverContext, Error, Result};
use crate::module::Loaded;
use crate::registry::KernelInfo;
use crate::validate::check_shared;

/// The simulator's model of a multiprocessor (sm_90, registers ignored).
const SIM_MAX_BLOCKS: u32 = 32;
const SIM_MAX_WARPS: u32 = 64;
const SIM_SHARED_BYTES: u32 = 228 * 1024;
const SIM_RESERVED_PER_BLOCK: u32 = 1024;
/// The most blocks the simulator runs at once for a cooperative launch (each is an OS thread
/// with its threads' coroutine stacks).
const SIM_COOPERATIVE_BLOCKS: u64 = 64;

/// What the calculator knows of a kernel on a device.
enum Kernel {
    Gpu(Loaded),
    Sim { static_shared: u32 },
}

impl Kernel {
    fn new(dev: &DeviceCore, info: &'static KernelInfo) -> Result<Kernel> {
        Ok(match &dev.kind {
            DeviceKind::Gpu { .. } => Kernel::Gpu(info.load(dev)?),
            DeviceKind::Sim => Kernel::Sim {
                static_shared: info.static_shared(),
            },
        })
    }

    fn static_shared(&self) -> u32 {
        match self {
            Kernel::Gpu(l) => l.static_shared,
            Kernel::Sim { static_shared } => *static_shared,
        }
    }

    /// The largest block the kernel can run on `dev`.
    fn max_block(&self, dev: &DeviceCore, info: &KernelInfo) -> u32 {
        let mut max = dev.max_threads_per_block;
        if info.max_threads != 0 {
            max = max.min(info.max_threads);
        }
        if let Kernel::Gpu(l) = self {
            max = max.min(l.max_threads);
        }
        max
    }

    /// Resident blocks per multiprocessor, for a block size and dynamic shared memory that
    /// the caller checked.
    fn active_blocks(&self, dev: &DeviceCore, block: u32, shared_bytes: u32) -> Result<u32> {
        match (self, &dev.kind) {
            (Kernel::Gpu(l), DeviceKind::Gpu { ctx, .. }) => {
                ctx.bind_to_thread().during("binding the context")?;
                // The driver counts no block for dynamic shared memory past the function's
                // limit; `check` made sure the device allows it.
                l.allow_dynamic_shared(shared_bytes)?;
                l.function
                    .occupancy_max_active_blocks_per_multiprocessor(
                        block,
                        shared_bytes as usize,
                        None,
                    )
                    .during("computing occupancy")
            }
            (Kernel::Sim { static_shared }, _) => {
                let per_block = static_shared + shared_bytes + SIM_RESERVED_PER_BLOCK;
                Ok(SIM_MAX_BLOCKS
                    .min(SIM_MAX_WARPS / block.div_ceil(32))
                    .min(SIM_SHARED_BYTES / per_block))
            }
            _ => unreachable!("a kernel is loaded for its device's kind"),
        }
    }

    /// `Err` unless `block` threads with `shared_bytes` of dynamic shared memory can launch.
    fn check(
        &self,
        dev: &DeviceCore,
        info: &KernelInfo,
        block: u32,
        shared_bytes: u32,
    ) -> Result<()> {
        let max = self.max_block(dev, info);
        if block == 0 || block > max {
            return Err(Error::LaunchConfig(format!(
                "occupancy: kernel `{}` runs blocks of 1 to {max} threads on {}, not {block}",
                info.name, dev.name
            )));
        }
        check_shared(dev, info.name, self.static_shared(), shared_bytes)?;
        Ok(())
    }
}

/// How many blocks of `block` threads, each with `shared_bytes` of dynamic shared memory, one
/// multiprocessor of `device` keeps resident at once (CUDA's
/// `cuOccupancyMaxActiveBlocksPerMultiprocessor`; the module docs give the simulator's model).
/// Multiply by [`Device::multiprocessor_count`] for the whole device.
///
/// # Errors
/// [`Error::LaunchConfig`] for a block size or shared memory the kernel cannot launch with;
/// driver errors.
pub fn max_active_blocks(
    device: &Device,
    kernel: &'static KernelInfo,
    block: u32,
    shared_bytes: u32,
) -> Result<u32> {
    let dev = &device.core;
    let k = Kernel::new(dev, kernel)?;
    k.check(dev, kernel, block, shared_bytes)?;
    k.active_blocks(dev, block, shared_bytes)
}

/// The block size (a multiple of 32, or the kernel's limit when that is smaller) that keeps
/// the most threads of `kernel` resident on a multiprocessor of `device`, the larger on a tie
/// (CUDA's `cuOccupancyMaxPotentialBlockSize`). `shared_bytes` gives the dynamic shared
/// memory a block of a given size needs (`|_| 0` for none).
///
/// # Errors
/// [`Error::LaunchConfig`] when no block size fits; driver errors.
pub fn best_block_size(
    device: &Device,
    kernel: &'static KernelInfo,
    shared_bytes: impl Fn(u32) -> u32,
) -> Result<u32> {
    let dev = &device.core;
    let k = Kernel::new(dev, kernel)?;
    let max = k.max_block(dev, kernel);
    let candidates: Vec<u32> = if max < 32 {
        vec![max]
    } else {
        (1..=max / 32).rev().map(|w| w * 32).collect()
    };
    let mut best: Option<(u64, u32)> = None;
    for block in candidates {
        let shared = shared_bytes(block);
        if k.check(dev, kernel, block, shared).is_err() {
            continue;
        }
        let threads = k.active_blocks(dev, block, shared)? as u64 * block as u64;
        if threads > 0 && best.is_none_or(|(t, _)| threads > t) {
            best = Some((threads, block));
        }
    }
    best.map(|(_, block)| block).ok_or_else(|| {
        Error::LaunchConfig(format!(
            "occupancy: no block size of kernel `{}` fits on {} with the shared memory asked for",
            kernel.name, dev.name
        ))
    })
}

/// How many blocks of `block` threads, each with `shared_bytes` of dynamic shared memory,
/// `dev` keeps resident at once: the largest grid a cooperative launch may have (resident
/// blocks per multiprocessor × multiprocessors; the simulator runs at most 64 at once).
pub(crate) fn resident_blocks(
    dev: &DeviceCore,
    kernel: &'static KernelInfo,
    block: u32,
    shared_bytes: u32,
) -> Result<u64> {
    let k = Kernel::new(dev, kernel)?;
    k.check(dev, kernel, block, shared_bytes)?;
    let all = k.active_blocks(dev, block, shared_bytes)? as u64 * dev.multiprocessors as u64;
    Ok(match k {
        Kernel::Sim { .. } => all.min(SIM_COOPERATIVE_BLOCKS),
        Kernel::Gpu(_) => all,
    })
}

/// `Err` unless a cooperative launch of `config` fits on `dev` at once.
pub(crate) fn check_cooperative(
    dev: &DeviceCore,
    kernel: &'static KernelInfo,
    config: &LaunchConfig,
) -> Result<()> {
    let threads = u32::try_from(config.threads_per_block()).unwrap_or(u32::MAX);
    let fits = resident_blocks(dev, kernel, threads, config.shared_bytes)?;
    let blocks = config.grid.volume();
    if blocks > fits {
        return Err(Error::LaunchConfig(format!(
            "cooperative kernel `{}`: a grid of {blocks} blocks cannot be resident at once on {} (at most {fits} blocks of {threads} threads with {} bytes of dynamic shared memory); size the grid with `LaunchConfig::for_cooperative`",
            kernel.name, dev.name, config.shared_bytes
        )));
    }
    Ok(())
}

impl LaunchConfig {
    /// The largest grid of `block`-thread blocks whose blocks are all resident at once on
    /// `stream`'s device: what a `#[kernel(cooperative)]` kernel that calls
    /// `gpu::grid_sync()` is launched with (loop over the data in a grid-stride loop).
    ///
    /// # Errors
    /// [`Error::LaunchConfig`] for a block size the kernel cannot run with; driver errors.
    pub fn for_cooperative(
        kernel: &'static KernelInfo,
        stream: &crate::Stream,
        block: u32,
    ) -> Result<LaunchConfig> {
        let dev = &stream.device().core;
        let blocks = resident_blocks(dev, kernel, block, 0)?;
        let blocks = u32::try_from(blocks).unwrap_or(u32::MAX);
        if blocks == 0 {
            return Err(Error::LaunchConfig(format!(
                "cooperative kernel `{}`: no block of {block} threads fits on {}",
                kernel.name, dev.name
            )));
        }
        Ok(LaunchConfig::new(blocks, block))
    }

    /// One thread per element of `n`, in blocks of the size that keeps the most threads of
    /// `kernel` resident ([`best_block_size`], without dynamic shared memory). `n == 0` gives
    /// an empty grid, which launches nothing.
    ///
    /// # Errors
    /// As [`best_block_size`]; [`Error::LaunchConfig`] when `n` needs more than `u32::MAX`
    /// blocks.
    pub fn for_occupancy(
        device: &Device,
        kernel: &'static KernelInfo,
        n: usize,
    ) -> Result<LaunchConfig> {
        let block = best_block_size(device, kernel, |_| 0)?;
        let blocks = u32::try_from(n.div_ceil(block as usize)).map_err(|_| {
            Error::LaunchConfig(format!(
                "{n} elements need more than {} blocks of {block} threads; use a grid-stride loop",
                u32::MAX
            ))
        })?;
        Ok(LaunchConfig::new(blocks, block))
    }
}
