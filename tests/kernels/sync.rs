//! Kernels of `tests/gpu_sync.rs` (also snapshotted by `tests/feature_ptx.rs`).

#![allow(dead_code)]

use cuprum::prelude::*;

/// Each thread writes its value, waits, then reads its neighbour's (within the block).
#[kernel]
pub fn rotate_in_block(out: &mut [u32], scratch: &mut [u32], x: &[u32]) {
    let n = (gpu::block_dim().x * gpu::block_dim().y * gpu::block_dim().z) as usize;
    let t = gpu::thread_idx();
    let local = ((t.z * gpu::block_dim().y + t.y) * gpu::block_dim().x + t.x) as usize;
    let base = gpu::block_idx().x as usize * n;
    scratch[base + local] = x[base + local] * 3;
    gpu::sync_threads();
    let next = (local + 1) % n;
    out[base + local] = scratch[base + next] + 1;
    gpu::sync_threads();
    // A second round on the same scratch: everyone must have read before anyone overwrites.
    scratch[base + local] = out[base + local];
    gpu::sync_threads();
    out[base + local] = scratch[base + (local + n - 1) % n] ^ x[base + local];
}
