//! Kernels of `tests/gpu_device_params.rs` (also snapshotted by `tests/feature_ptx.rs`):
//! `mut` parameters of device functions, and barriers and warp operations that only a device
//! function calls.

#![allow(dead_code)]

use cuprum::prelude::*;

/// Collatz steps of `v` (at most `limit`): the parameter is reassigned.
#[device]
pub fn collatz_steps(mut v: i64, limit: u32) -> u32 {
    let mut steps = 0;
    while v > 1 && steps < limit {
        v = if v % 2 == 0 { v / 2 } else { 3 * v + 1 };
        steps += 1;
    }
    steps
}

#[kernel]
pub fn collatz(out: &mut [u32], x: &[i64]) {
    let i = gpu::global_id_x();
    if i < x.len() {
        out[i] = collatz_steps(x[i], 500);
    }
}

/// The block's sum, through shared memory and a barrier that only this function calls.
#[device]
pub fn exchange(scratch: &mut [u32], v: u32) -> u32 {
    let t = gpu::thread_idx().x as usize;
    let base = gpu::block_idx().x as usize * gpu::block_dim().x as usize;
    scratch[base + t] = v;
    gpu::sync_threads();
    let n = gpu::block_dim().x as usize;
    scratch[base + (t + 1) % n]
}

/// The warp's sum, by shuffles that only this function calls.
#[device]
pub fn warp_total(v: u32) -> u32 {
    let mut s = v;
    let mut d = 16;
    while d > 0 {
        s += gpu::shfl_xor_sync(gpu::FULL_MASK, s, d);
        d /= 2;
    }
    s
}

/// Its kernel body has no barrier and no warp operation of its own.
#[kernel]
pub fn waits_in_device_fns(out: &mut [u32], warp: &mut [u32], scratch: &mut [u32], x: &[u32]) {
    let i = gpu::global_id_x();
    out[i] = exchange(scratch, x[i]);
    warp[i] = warp_total(x[i]);
}

/// An array result and a tuple of an array and a scalar.
#[device]
pub fn spread(v: f32) -> [f32; 3] {
    [v - 1.0, v, v + 1.0]
}

#[device]
pub fn spread_sum(v: f32) -> ([f32; 3], f32) {
    let a = spread(v);
    (a, a[0] + a[1] + a[2])
}

#[kernel]
pub fn array_results(out: &mut [f32], x: &[f32]) {
    let i = gpu::global_id_x();
    if i < x.len() {
        let (a, s) = spread_sum(x[i]);
        out[4 * i] = a[0];
        out[4 * i + 1] = a[1];
        out[4 * i + 2] = a[2];
        out[4 * i + 3] = s;
    }
}
