//! Kernels of the host-API tests (`tests/gpu_runtime.rs`, `tests/gpu_graph.rs`,
//! `tests/gpu_memory.rs`): small integer arithmetic, so that CPU references match exactly and
//! the order of launches shows in the result (affine maps do not commute).

#![allow(dead_code)]

use cuprum::prelude::*;

/// `y[i] = a * x[i] + y[i]`.
#[kernel]
pub fn axpy(y: &mut [f32], x: &[f32], a: f32) {
    let i = gpu::global_id_x();
    if i < y.len() {
        y[i] = a * x[i] + y[i];
    }
}

/// `out[i] = x[i] * m + c`, wrapping. Unchecked: no hidden parameter, so cudarc can launch
/// its PTX directly with `(pointer, length)` pairs and the scalars.
#[kernel(unchecked)]
pub fn affine(out: &mut [u32], x: &[u32], m: u32, c: u32) {
    let i = gpu::global_id_x();
    if i < out.len() && i < x.len() {
        out[i] = x[i].wrapping_mul(m).wrapping_add(c);
    }
}

/// `y[i] = y[i] * m + c` in place, wrapping.
#[kernel]
pub fn step(y: &mut [u32], m: u32, c: u32) {
    let i = gpu::global_id_x();
    if i < y.len() {
        y[i] = y[i].wrapping_mul(m).wrapping_add(c);
    }
}

/// One wrapping sum per block, through 4 KiB of static shared memory (blocks of a power of
/// two threads, at most 1024).
#[kernel]
pub fn block_sums(out: &mut [u32], x: &[u32]) {
    let s = gpu::shared_array::<u32, 1024>();
    let t = gpu::thread_idx().x as usize;
    let i = gpu::global_id_x();
    s[t] = if i < x.len() { x[i] } else { 0 };
    gpu::sync_threads();
    let mut half = gpu::block_dim().x as usize / 2;
    while half > 0 {
        if t < half {
            s[t] = s[t].wrapping_add(s[t + half]);
        }
        gpu::sync_threads();
        half /= 2;
    }
    if t == 0 {
        out[gpu::block_idx().x as usize] = s[0];
    }
}

/// Writes `y[at]` from thread 0: out of bounds (a failed check) when `at >= y.len()`.
#[kernel]
pub fn poke(y: &mut [u32], at: u32) {
    if gpu::global_id_x() == 0 {
        y[at as usize] = 7;
    }
}

/// A launch bound: at most 128 threads per block.
#[kernel(max_threads = 128)]
pub fn bounded_step(y: &mut [u32], m: u32, c: u32) {
    let i = gpu::global_id_x();
    if i < y.len() {
        y[i] = y[i].wrapping_mul(m).wrapping_add(c);
    }
}

/// The CPU reference of `step` and `affine`.
pub fn affine_ref(x: u32, m: u32, c: u32) -> u32 {
    x.wrapping_mul(m).wrapping_add(c)
}
