//! Kernels generic over constants: a block reduction whose block size is a const parameter
//! (its shared array's length and its loop bound), and one generic over a type and a
//! constant.

use cuprum::prelude::*;

/// Sums each block's `BLOCK` elements in shared memory (reduction #3 of CUDA's samples).
#[kernel(instances(64, 256))]
pub fn block_sum<const BLOCK: usize>(out: &mut [u32], x: &[u32]) {
    let s = gpu::shared_array::<u32, BLOCK>();
    let t = gpu::thread_idx().x as usize;
    let i = gpu::block_idx().x as usize * BLOCK + t;
    s[t] = if i < x.len() { x[i] } else { 0 };
    gpu::sync_threads();
    let mut half = BLOCK / 2;
    while half > 0 {
        if t < half {
            s[t] += s[t + half];
        }
        gpu::sync_threads();
        half /= 2;
    }
    if t == 0 {
        out[gpu::block_idx().x as usize] = s[0];
    }
}

/// Each thread sums `PER` consecutive elements, in a local array of `PER` values.
#[kernel(instances((f32, 4), (f64, 8), (i64, 3)))]
pub fn chunk_sum<T: gpu::Num, const PER: usize>(out: &mut [T], x: &[T]) {
    let k = gpu::global_id_x();
    if k < out.len() {
        let mut vals = [T::ZERO; PER];
        for j in 0..PER {
            if k * PER + j < x.len() {
                vals[j] = x[k * PER + j];
            }
        }
        let mut acc = T::ZERO;
        for j in 0..PER {
            acc += vals[j];
        }
        out[k] = acc;
    }
}

/// A device function generic over a type and a length, instantiated per call.
#[device]
pub fn dot<T: gpu::Num, const N: usize>(a: [T; N], b: [T; N]) -> T {
    let mut acc = T::ZERO;
    for j in 0..N {
        acc += a[j] * b[j];
    }
    acc
}

/// Dot products of length 3 and 5 through one generic device function.
#[kernel]
pub fn dots(out: &mut [f32], x: &[f32]) {
    const LONG: usize = 5;
    let k = gpu::global_id_x();
    if k < out.len() {
        let v = x[k];
        let short = dot::<f32, 3>([v, 1.0, 2.0], [2.0, v, 0.5]);
        let long = dot::<f32, LONG>([v; LONG], [1.0, 2.0, 3.0, 4.0, 5.0]);
        out[k] = short + long;
    }
}

/// Sums `x[..PER * 32]` in `PER`-element runs per lane through a shared array of `PER * 32`
/// (`PADDED`, a const parameter, sizes it), then applies `f`: a device function taking a
/// slice and a closure (so checked inline), generic over constants.
#[device]
pub fn staged_sum<const PER: usize, const PADDED: usize>(x: &[f32], f: impl Fn(f32) -> f32) -> f32 {
    let s = gpu::shared_array::<f32, PADDED>();
    let lane = gpu::lane_id() as usize;
    let mut vals = [0.0f32; PER];
    for j in 0..PER {
        vals[j] = x[j * 32 + lane];
    }
    for j in 0..PER {
        s[j * 32 + lane] = vals[j];
    }
    gpu::sync_warp(gpu::FULL_MASK);
    let mut acc = 0.0f32;
    for j in 0..PER {
        acc += s[lane * PER + j];
    }
    gpu::sync_warp(gpu::FULL_MASK);
    f(gpu::warp::sum(acc))
}

/// One warp per block: `out[0]` is `staged_sum::<2, 64>` of `x[..64]` plus `SHIFT`, `out[1]`
/// `staged_sum::<4, 128>` of `x[..128]` times the kernel's own `SCALE` (a closure naming a const
/// parameter of the caller, inside the callee that has const parameters of its own).
#[kernel(instances(3))]
pub fn staged_sums<const SCALE: usize>(out: &mut [f32], x: &[f32]) {
    const SHIFT: f32 = 0.5;
    let a = staged_sum::<2, 64>(x, |v| v + SHIFT);
    let b = staged_sum::<4, 128>(x, |v| v * SCALE as f32);
    if gpu::lane_id() == 0 {
        out[0] = a;
        out[1] = b;
    }
}
