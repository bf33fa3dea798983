//! Launch validation, one path for GPUs and the simulator: a configuration against the
//! device's limits and the kernel's declared ones, a block's shared memory against what
//! the device allows, and a slice argument's address against the alignment kernels assume
//! for its elements. Occupancy queries check shared memory the same way.

use crate::config::LaunchConfig;
use crate::device::DeviceCore;
use crate::element::Element;
use crate::error::{Error, Result};
use crate::registry::KernelInfo;

/// `Err` unless `config`'s block and grid fit `dev` and `info`'s `max_threads` and `block`. `Ok(false)`
/// for an empty grid (after the block was checked): nothing to launch.
pub(crate) fn check_config(
    dev: &DeviceCore,
    info: &KernelInfo,
    config: &LaunchConfig,
) -> Result<bool> {
    let b = config.block;
    if b.volume() == 0 {
        return Err(Error::LaunchConfig(format!(
            "block ({}, {}, {}) has no threads",
            b.x, b.y, b.z
        )));
    }
    within("block", [b.x, b.y, b.z], dev.max_block, "")?;
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
    if config.is_empty() {
        return Ok(false);
    }
    let g = config.grid;
    within("grid", [g.x, g.y, g.z], dev.max_grid, " blocks")?;
    Ok(true)
}

/// `Err` when an axis of `what` passes the device's limit.
fn within(what: &str, v: [u32; 3], max: [u32; 3], unit: &str) -> Result<()> {
    for (axis, (v, max)) in ["x", "y", "z"].iter().zip(v.into_iter().zip(max)) {
        if v > max {
            return Err(Error::LaunchConfig(format!(
                "{what}.{axis} = {v} exceeds this device's limit of {max}{unit}"
            )));
        }
    }
    Ok(())
}

/// `Err` unless a block of `kernel` with `static_shared` bytes of static and `dynamic`
/// bytes of dynamic shared memory fits on `dev`.
pub(crate) fn check_shared(
    dev: &DeviceCore,
    kernel: &str,
    static_shared: u32,
    dynamic: u32,
) -> Result<()> {
    let total = static_shared as u64 + dynamic as u64;
    if total > dev.max_shared_per_block_optin as u64 {
        return Err(Error::LaunchConfig(format!(
            "kernel `{kernel}` needs {total} bytes of shared memory per block ({static_shared} static + {dynamic} dynamic), more than the {} bytes {} allows",
            dev.max_shared_per_block_optin, dev.name
        )));
    }
    Ok(())
}

/// The alignment kernels assume for a slice of `T` (`cuprum_abi::element_align`).
fn device_align<T>() -> u64 {
    cuprum_abi::element_align(
        std::mem::size_of::<T>() as u64,
        std::mem::align_of::<T>() as u64,
    )
}

/// Refuses a slice argument whose first element's address `addr` breaks the alignment the
/// kernel assumes for `T` (every slice argument of a launch, on the GPU and on the
/// simulator, passes through this).
pub(crate) fn check_aligned<T: Element>(addr: u64) -> Result<()> {
    let align = device_align::<T>();
    if addr.is_multiple_of(align) {
        Ok(())
    } else {
        Err(Error::LaunchConfig(format!(
            "a slice of `{}` at address {addr:#x} is not aligned to {align} bytes, which kernels assume for its {}-byte elements (they move them in {align}-byte vector accesses); pass memory that starts at a multiple of {align} bytes (every buffer and view does)",
            std::any::type_name::<T>(),
            std::mem::size_of::<T>(),
        )))
    }
}
