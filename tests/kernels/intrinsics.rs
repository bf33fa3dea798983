//! Kernels of `tests/gpu_intrinsics.rs` (also snapshotted by `tests/feature_ptx.rs`):
//! `match_all_sync`, the lane masks, `clock`, and the fast `f32` approximations.

#![allow(dead_code)]

use cuprum::prelude::*;

/// Per thread: the four lane masks, and `match_all_sync` over the warp of an integer and of a
/// float (as `(mask, all equal)`).
#[kernel]
pub fn warp_masks(masks: &mut [u32], all: &mut [u32], x: &[u32], f: &[f32]) {
    let i = gpu::global_id_x();
    masks[4 * i] = gpu::lanemask_lt();
    masks[4 * i + 1] = gpu::lanemask_le();
    masks[4 * i + 2] = gpu::lanemask_gt();
    masks[4 * i + 3] = gpu::lanemask_ge();
    let (m, same) = gpu::match_all_sync(gpu::FULL_MASK, x[i]);
    let (mf, samef) = gpu::match_all_sync(gpu::FULL_MASK, f[i]);
    all[4 * i] = m;
    all[4 * i + 1] = same as u32;
    all[4 * i + 2] = mf;
    all[4 * i + 3] = samef as u32;
}

/// The fast approximations, and two reads of the cycle counter.
#[kernel]
pub fn fast_math(out: &mut [f32], ticks: &mut [u32], x: &[f32], y: &[f32]) {
    let i = gpu::global_id_x();
    if i < x.len() {
        let t0 = gpu::clock();
        out[5 * i] = gpu::fast::exp(x[i]);
        out[5 * i + 1] = gpu::fast::ln(y[i]);
        out[5 * i + 2] = gpu::fast::sin(x[i]);
        out[5 * i + 3] = gpu::fast::cos(x[i]);
        out[5 * i + 4] = gpu::fast::div(x[i], y[i]);
        let t1 = gpu::clock();
        ticks[i] = t1.wrapping_sub(t0);
    }
}
