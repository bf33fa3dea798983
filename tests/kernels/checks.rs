//! Kernels of `tests/gpu_checks.rs` (also snapshotted by `tests/feature_ptx.rs`).

#![allow(dead_code)]

use cuprum::prelude::*;

/// Writes `out[i + shift]` without checking: out of range for the last `shift` threads.
#[kernel]
pub fn shifted_copy(out: &mut [f32], x: &[f32], shift: usize) {
    let i = gpu::global_id_x();
    if i < x.len() {
        out[i + shift] = x[i];
    }
}

#[kernel]
pub fn divide(out: &mut [i32], num: &[i32], den: &[i32]) {
    let i = gpu::global_id_x();
    if i < out.len() {
        out[i] = num[i] / den[i];
    }
}

/// Sums `x` from `x[start + i]` on while it stays positive: with `x` all positive, every
/// thread runs off the end of `x`. The condition's out-of-range read must stop the kernel
/// (on the GPU it reads the slice's zero sink, which ends the loop; the panic is raised where
/// the thread stops).
#[kernel]
pub fn run_off_the_end(out: &mut [f32], x: &[f32]) {
    let t = gpu::global_id_x();
    if t < out.len() {
        let mut i = t;
        let mut s = 0.0f32;
        while x[i] > 0.0 {
            s += x[i];
            i += 1;
        }
        out[t] = s;
    }
}

/// A grid-stride loop whose last turn reads one element past `x` in one thread only.
#[kernel]
pub fn strided_off_by_one(out: &mut [f32], x: &[f32], bad_thread: usize) {
    let t = gpu::global_id_x();
    let extra = if t == bad_thread { 1 } else { 0 };
    let mut s = 0.0f32;
    for i in (t..x.len()).step_by(gpu::grid_stride_x()) {
        s += if i + gpu::grid_stride_x() >= x.len() {
            x[i + extra]
        } else {
            x[i]
        };
    }
    if t < out.len() {
        out[t] = s;
    }
}

/// Shared and local arrays indexed past their ends by thread `bad_thread`.
#[kernel]
pub fn small_arrays(out: &mut [u32], bad_thread: u32, shared: bool) {
    let s = gpu::shared_array::<u32, 64>();
    let t = gpu::thread_idx().x;
    let mut local = [0u32; 4];
    let k = if t == bad_thread { 64 } else { t };
    if shared {
        s[k as usize] = t;
    } else {
        local[(k % 4 + k / 64 * 4) as usize] = t;
    }
    gpu::sync_threads();
    out[t as usize] = s[t as usize] + local[(t % 4) as usize];
}

/// Several checked accesses in one statement (their checks run before their loads): which
/// index is out of range is chosen by `which` (a bit each for x, y and out), and the first
/// failing one in Rust's evaluation order must be the one reported.
#[kernel]
pub fn several_accesses(out: &mut [f32], x: &[f32], y: &[f32], which: u32) {
    let t = gpu::global_id_x();
    if t == 0 {
        let i = if which & 1 != 0 { x.len() } else { 0 };
        let j = if which & 2 != 0 { y.len() + 1 } else { 1 };
        let k = if which & 4 != 0 { out.len() + 2 } else { 2 };
        out[k] = x[i] * 2.0 + y[j];
        let (a, b) = (x[i], y[j]);
        out[0] = a - b;
    }
}

/// A run whose checks go first (a loaded value is stored, then another access is checked):
/// a thread's first failing access in Rust's order is the one reported. `shift_a` and
/// `shift_b` move the reads of `a` and `b` past their ends for some threads.
#[kernel]
pub fn run_of_copies(
    a_out: &mut [f32],
    b_out: &mut [f32],
    a: &[f32],
    b: &[f32],
    shift_a: usize,
    shift_b: usize,
) {
    let t = gpu::global_id_x();
    if t < a_out.len() && t < b_out.len() {
        a_out[t] = a[t + shift_a];
        b_out[t] = b[t + shift_b];
    }
}

/// A short loop whose turns' checks go first (each turn stores a loaded value): the first
/// turn that fails is the one reported.
#[kernel]
pub fn turns_of_copies(out: &mut [f32], x: &[f32], stride: usize) {
    let t = gpu::global_id_x();
    for k in [0usize, 1, 2, 3] {
        if t * 4 + k < out.len() {
            out[t * 4 + k] = x[t + k * stride];
        }
    }
}
