//! Kernels of `tests/gpu_atomics.rs` (also snapshotted by `tests/feature_ptx.rs`).

#![allow(dead_code)]

use cuprum::prelude::*;

/// Defines, for element type `$t`, a kernel that applies each integer atomic to its own slot
/// from every thread, and records what `atomic_exch`/`cas` returned.
macro_rules! int_atomics {
    ($name:ident, $t:ty) => {
        #[kernel]
        pub fn $name(acc: &mut [$t], olds: &mut [$t], v: &[$t]) {
            let i = gpu::global_id_x();
            if i < v.len() {
                let x = v[i];
                gpu::atomic_add(&mut acc[0], x);
                gpu::atomic_sub(&mut acc[1], x);
                gpu::atomic_min(&mut acc[2], x);
                gpu::atomic_max(&mut acc[3], x);
                gpu::atomic_and(&mut acc[4], x);
                gpu::atomic_or(&mut acc[5], x);
                gpu::atomic_xor(&mut acc[6], x);
                gpu::atomic_inc(&mut acc[7], 1000);
                gpu::atomic_dec(&mut acc[8], 1000);
                gpu::atomic_add_block(&mut acc[9], x);
                gpu::atomic_add_system(&mut acc[10], x);
                gpu::atomic_max_system(&mut acc[11], x);
                gpu::atomic_min_block(&mut acc[12], x);
                gpu::atomic_inc_system(&mut acc[13], 1000);
                olds[i] = gpu::atomic_exch(&mut acc[14], x);
                // Only the thread that sees the initial value wins the swap.
                let won = gpu::atomic_cas(&mut acc[15], 7, x);
                if won == 7 {
                    acc[16] = x;
                }
            }
        }
    };
}

int_atomics!(atomics_i32, i32);
int_atomics!(atomics_u32, u32);
int_atomics!(atomics_i64, i64);
int_atomics!(atomics_u64, u64);

macro_rules! float_atomics {
    ($name:ident, $t:ty) => {
        #[kernel]
        pub fn $name(acc: &mut [$t], olds: &mut [$t], v: &[$t]) {
            let i = gpu::global_id_x();
            if i < v.len() {
                let x = v[i];
                gpu::atomic_add(&mut acc[0], x);
                gpu::atomic_sub(&mut acc[1], x);
                gpu::atomic_min(&mut acc[2], x);
                gpu::atomic_max(&mut acc[3], x);
                gpu::atomic_add_block(&mut acc[4], x);
                gpu::atomic_add_system(&mut acc[5], x);
                gpu::atomic_max_system(&mut acc[6], x);
                gpu::atomic_min_block(&mut acc[7], x);
                olds[i] = gpu::atomic_exch(&mut acc[8], x);
                gpu::atomic_exch_system(&mut acc[9], x);
            }
        }
    };
}

float_atomics!(atomics_f32, f32);
float_atomics!(atomics_f64, f64);

/// Atomics on shared memory: per-block counts, then one global add per block. The
/// system-scope add goes through NVVM's generic-pointer intrinsic: its 32-bit shared address
/// is widened and converted (`cvta.shared.u64`) first.
#[kernel]
pub fn shared_atomics(out: &mut [u64], v: &[u32]) {
    let s = gpu::shared_array::<u64, 5>();
    let t = gpu::thread_idx().x as usize;
    if t < 5 {
        s[t] = if t == 2 { u64::MAX } else { 0 };
    }
    gpu::sync_threads();
    let i = gpu::global_id_x();
    if i < v.len() {
        let x = v[i] as u64;
        gpu::atomic_add(&mut s[0], x);
        gpu::atomic_max_block(&mut s[1], x);
        gpu::atomic_min(&mut s[2], x);
        gpu::atomic_or_block(&mut s[3], 1u64 << (x % 64));
        gpu::atomic_add_system(&mut s[4], x);
    }
    gpu::sync_threads();
    if t == 0 {
        gpu::atomic_add(&mut out[0], s[0]);
        gpu::atomic_max(&mut out[1], s[1]);
        gpu::atomic_min(&mut out[2], s[2]);
        gpu::atomic_or(&mut out[3], s[3]);
        gpu::atomic_add(&mut out[4], s[4]);
    }
}

/// Relaxed loads (`gpu::atomic_load`, at each scope): each block publishes the sum of its
/// values with an exchange, and the last block to finish (counted in `done`, after a fence)
/// adds the published sums, each read with a relaxed load; each thread also halves its own
/// element of `scaled`, read with a system-scope load.
#[kernel]
pub fn relaxed_loads(
    total: &mut [u64],
    sums: &mut [u64],
    done: &mut [u32],
    scaled: &mut [f32],
    v: &[u32],
) {
    let s = gpu::shared_array::<u64, 1>();
    let t = gpu::thread_idx().x as usize;
    let b = gpu::block_idx().x as usize;
    let blocks = gpu::grid_dim().x;
    if t == 0 {
        s[0] = 0;
    }
    gpu::sync_threads();
    let i = gpu::global_id_x();
    if i < v.len() {
        gpu::atomic_add(&mut s[0], v[i] as u64);
    }
    if i < scaled.len() {
        scaled[i] = 0.5 * gpu::atomic_load_system(&mut scaled[i]);
    }
    gpu::sync_threads();
    if t == 0 {
        gpu::atomic_exch(&mut sums[b], gpu::atomic_load_block(&mut s[0]));
        gpu::thread_fence();
        if gpu::atomic_add(&mut done[0], 1u32) == blocks - 1 {
            gpu::thread_fence();
            let mut acc = 0u64;
            for k in 0..blocks as usize {
                acc += gpu::atomic_load(&mut sums[k]);
            }
            total[0] = acc;
        }
    }
}
