//! Kernels of `tests/gpu_options.rs` (also snapshotted by `tests/feature_ptx.rs`): the kernel
//! attributes and memory fences.

#![allow(dead_code)]

use cuprum::prelude::*;

/// Launch bounds: at most 256 threads per block, at least 2 blocks per multiprocessor.
#[kernel(max_threads = 256, min_blocks = 2)]
pub fn bounded(out: &mut [u32], x: &[u32]) {
    let i = gpu::global_id_x();
    if i < x.len() {
        out[i] = x[i].rotate_left(7) ^ 0x9e37_79b9;
    }
}

/// Per-warp sums in eight shared slots. With `max_threads = 256`, `warp_id()` is below 8 and
/// `thread_idx().x` below 256, so the slot index needs no check (the PTX snapshot shows none).
#[kernel(max_threads = 256)]
pub fn warp_slots(out: &mut [u32], x: &[u32]) {
    let red = gpu::shared_array::<u32, 8>();
    let t = gpu::thread_idx().x as usize;
    let w = gpu::warp_id() as usize;
    if gpu::lane_id() == 0 {
        red[w] = 0;
    }
    gpu::sync_threads();
    let i = gpu::global_id_x();
    let v = if i < x.len() { x[i] } else { 0 };
    gpu::atomic_add(&mut red[w], v);
    gpu::sync_threads();
    if t < 8 {
        out[gpu::block_idx().x as usize * 8 + t] = red[t];
    }
}

/// Approximate math and flush-to-zero.
#[kernel(fastmath)]
pub fn fast(out: &mut [f32], x: &[f32]) {
    let i = gpu::global_id_x();
    if i < x.len() {
        out[i] = x[i].sin() * x[i].exp() / (1.0 + x[i].sqrt());
    }
}

/// The same without `fastmath`, to compare against.
#[kernel]
pub fn precise(out: &mut [f32], x: &[f32]) {
    let i = gpu::global_id_x();
    if i < x.len() {
        out[i] = x[i].sin() * x[i].exp() / (1.0 + x[i].sqrt());
    }
}

/// No bounds checks: no hidden panic-record parameter, no checks in the PTX.
#[kernel(unchecked)]
pub fn unchecked_copy(out: &mut [f32], x: &[f32]) {
    let i = gpu::global_id_x();
    if i < x.len() {
        out[i] = x[i];
    }
}

/// A flag published with fences: the writer stores data, fences, then sets the flag; every
/// block's first thread counts the blocks that saw the data before the flag.
#[kernel]
pub fn fences(data: &mut [u32], flags: &mut [u32]) {
    let b = gpu::block_idx().x as usize;
    if gpu::thread_idx().x == 0 {
        data[b] = b as u32 + 1;
        gpu::thread_fence();
        gpu::thread_fence_block();
        gpu::thread_fence_system();
        gpu::atomic_exch(&mut flags[b], 1);
    }
}
