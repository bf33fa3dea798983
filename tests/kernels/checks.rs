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
