//! Kernels of `tests/gpu_warp.rs` (also snapshotted by `tests/feature_ptx.rs`).

#![allow(dead_code)]

use cuprum::prelude::*;

macro_rules! shuffles {
    ($name:ident, $t:ty) => {
        /// out[4 * i + k] = the k-th shuffle of v[i] (idx, up, down, xor).
        #[kernel]
        pub fn $name(out: &mut [$t], v: &[$t], src: &[u32]) {
            let i = gpu::global_id_x();
            let lane = gpu::lane_id();
            let x = v[i];
            let a = gpu::shfl_sync(gpu::FULL_MASK, x, src[i]);
            let b = gpu::shfl_up_sync(gpu::FULL_MASK, x, 3);
            let c = gpu::shfl_down_sync(gpu::FULL_MASK, x, 5);
            let d = gpu::shfl_xor_sync(gpu::FULL_MASK, x, lane % 7 + 1 - lane % 7);
            out[4 * i] = a;
            out[4 * i + 1] = b;
            out[4 * i + 2] = c;
            out[4 * i + 3] = d;
        }
    };
}

shuffles!(shfl_i32, i32);
shuffles!(shfl_u32, u32);
shuffles!(shfl_i64, i64);
shuffles!(shfl_u64, u64);
shuffles!(shfl_f32, f32);
shuffles!(shfl_f64, f64);

/// Warp sum by shuffling down, as reductions do.
#[kernel]
pub fn warp_sum(out: &mut [f32], v: &[f32]) {
    let i = gpu::global_id_x();
    let mut x = v[i];
    for d in [16u32, 8, 4, 2, 1] {
        x += gpu::shfl_down_sync(gpu::FULL_MASK, x, d);
    }
    if gpu::lane_id() == 0 {
        out[i / 32] = x;
    }
}

/// Votes, match, activemask, sync_warp and the barrier reductions, per thread.
#[kernel]
pub fn votes(out: &mut [u32], v: &[u32]) {
    let i = gpu::global_id_x();
    let x = v[i];
    let p = x % 3 == 0;
    gpu::sync_warp(gpu::FULL_MASK);
    let ballot = gpu::ballot_sync(gpu::FULL_MASK, p);
    let all = gpu::all_sync(gpu::FULL_MASK, x < 1000) as u32;
    let any = gpu::any_sync(gpu::FULL_MASK, x == 7) as u32;
    let m = gpu::match_any_sync(gpu::FULL_MASK, x % 4);
    let active = gpu::activemask();
    let count = gpu::sync_threads_count(p);
    let and = gpu::sync_threads_and(x > 0) as u32;
    let or = gpu::sync_threads_or(x == 5) as u32;
    out[8 * i] = ballot;
    out[8 * i + 1] = all;
    out[8 * i + 2] = any;
    out[8 * i + 3] = m;
    out[8 * i + 4] = active;
    out[8 * i + 5] = count;
    out[8 * i + 6] = and;
    out[8 * i + 7] = or;
}

/// `redux.sync` over a partial mask (`gpu::__redux_*_sync`, the hidden builtins behind
/// `gpu::warp::sum/min/max` for 32-bit integers): the lanes of `masks[warp]` reduce their
/// values into `sa` and `sb` (sum, min, max); the others write nothing.
#[kernel]
pub fn redux_masks(sa: &mut [i32], sb: &mut [u32], a: &[i32], b: &[u32], masks: &[u32]) {
    let i = gpu::global_id_x();
    let m = masks[i / 32];
    if m & (1u32 << gpu::lane_id()) != 0 {
        let (x, y) = (a[i], b[i]);
        sa[3 * i] = gpu::__redux_add_sync(m, x);
        sa[3 * i + 1] = gpu::__redux_min_sync(m, x);
        sa[3 * i + 2] = gpu::__redux_max_sync(m, x);
        sb[3 * i] = gpu::__redux_add_sync(m, y);
        sb[3 * i + 1] = gpu::__redux_min_sync(m, y);
        sb[3 * i + 2] = gpu::__redux_max_sync(m, y);
    }
}
