//! Kernels of `tests/gpu_shared.rs` (also snapshotted by `tests/feature_ptx.rs`); its
//! histogram is `examples/histogram.rs`'s.

#![allow(dead_code)]

use cuprum::prelude::*;

/// 32×33 tiled transpose through a 2-D shared array.
#[kernel]
pub fn transpose(out: &mut [f32], inp: &[f32], rows: u32, cols: u32) {
    let tile = gpu::shared_array_2d::<f32, 32, 33>();
    let (bx, by) = (gpu::block_idx().x * 32, gpu::block_idx().y * 32);
    let (tx, ty) = (gpu::thread_idx().x, gpu::thread_idx().y);
    for k in (0..32).step_by(8) {
        let (r, c) = (by + ty + k, bx + tx);
        if r < rows && c < cols {
            tile[(ty + k) as usize][tx as usize] = inp[(r * cols + c) as usize];
        }
    }
    gpu::sync_threads();
    for k in (0..32).step_by(8) {
        let (r, c) = (bx + ty + k, by + tx);
        if r < cols && c < rows {
            out[(r * rows + c) as usize] = tile[tx as usize][(ty + k) as usize];
        }
    }
}

/// Block-wide inclusive scan (Hillis–Steele) in dynamic shared memory sized by the launch.
#[kernel]
pub fn block_scan(out: &mut [i64], x: &[i64]) {
    let s = gpu::dynamic_shared::<i64>();
    let t = gpu::thread_idx().x as usize;
    let n = gpu::block_dim().x as usize;
    let base = gpu::block_idx().x as usize * n;
    let i = base + t;
    s[t] = if i < x.len() { x[i] } else { 0 };
    gpu::sync_threads();
    let mut offset = 1;
    while offset < n {
        let add = if t >= offset { s[t - offset] } else { 0 };
        gpu::sync_threads();
        s[t] += add;
        gpu::sync_threads();
        offset *= 2;
    }
    if i < out.len() {
        out[i] = s[t];
    }
    if t == 0 && s.len() != n {
        out[i] = -1; // the dynamic array's length is the launch's bytes / 8
    }
}
