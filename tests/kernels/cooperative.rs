//! Kernels of `tests/gpu_cooperative.rs` (also snapshotted by `tests/feature_ptx.rs`): grid-wide
//! barriers in cooperative launches.

#![allow(dead_code)]

use cuprum::prelude::*;

/// `count` rounds: each thread writes its value, the grid meets, each thread adds the value
/// of the thread one block further on (written by another block), the grid meets again.
#[kernel(cooperative)]
pub fn rounds(out: &mut [u32], scratch: &mut [u32], count: u32) {
    let n = scratch.len();
    let i = gpu::global_id_x();
    let far = (i + gpu::block_dim().x as usize) % n;
    let mut acc = 0u32;
    for r in 0..count {
        scratch[i] = (i as u32).wrapping_mul(r + 1) ^ acc;
        gpu::grid_sync();
        acc = acc.wrapping_add(scratch[far]);
        gpu::grid_sync();
    }
    out[i] = acc;
}

/// Block 1's first thread indexes past the end before the barrier the others wait at.
#[kernel(cooperative)]
pub fn leader_fails(out: &mut [u32], bad: usize) {
    let i = gpu::global_id_x();
    let at = if i == gpu::block_dim().x as usize {
        bad
    } else {
        i
    };
    out[at] = 1;
    gpu::grid_sync();
    out[i] = 2;
}

/// Block 1 leaves without reaching the barrier (a GPU hangs; the simulator reports it).
#[kernel(cooperative)]
pub fn block_leaves(out: &mut [u32]) {
    if gpu::block_idx().x == 1 {
        return;
    }
    gpu::grid_sync();
    out[gpu::global_id_x()] = 1;
}
