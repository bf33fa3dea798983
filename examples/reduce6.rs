//! Reduction #6 of CUDA's reduction sample, with warp shuffles for the last steps: the block
//! size is a const generic, each thread first sums two elements per turn of a grid-stride
//! loop, then the block reduces in shared memory down to one warp, which finishes with
//! `shfl_down_sync`. One partial sum per block.
//!
//! Run: `cargo run --release --example reduce6`. Exits non-zero when the result is wrong.

use cuprum::prelude::*;

/// `out[b]` = the sum of the elements block `b` visits: block `BLOCK` threads (a power of two
/// from 64), any grid, `out.len()` = the grid's size.
#[cuprum_testkit::unchecked_twin]
#[kernel(instances(256))]
pub fn reduce6<const BLOCK: usize>(out: &mut [f32], x: &[f32]) {
    let sdata = gpu::shared_array::<f32, BLOCK>();
    let t = gpu::thread_idx().x as usize;
    let block = gpu::block_idx().x as usize;
    let grid_size = BLOCK * 2 * gpu::grid_dim().x as usize;
    let mut i = block * BLOCK * 2 + t;
    let mut sum = 0.0f32;
    while i < x.len() {
        sum += x[i];
        if i + BLOCK < x.len() {
            sum += x[i + BLOCK];
        }
        i += grid_size;
    }
    sdata[t] = sum;
    gpu::sync_threads();
    let mut s = BLOCK / 2;
    while s > 32 {
        if t < s {
            sum += sdata[t + s];
            sdata[t] = sum;
        }
        gpu::sync_threads();
        s /= 2;
    }
    if t < 32 {
        sum += sdata[t + 32];
        for offset in [16u32, 8, 4, 2, 1] {
            sum += gpu::shfl_down_sync(gpu::FULL_MASK, sum, offset);
        }
    }
    if t == 0 {
        out[block] = sum;
    }
}

/// The per-block sums of `x` over `blocks` blocks of 256 threads, on `stream`'s device.
pub fn compute(stream: &Stream, x: &[f32], blocks: u32) -> Result<Vec<f32>> {
    let dx = stream.to_device(x)?;
    let mut out = stream.to_device(&vec![f32::NAN; blocks as usize])?;
    launch!(reduce6::<256><<<blocks, 256, stream>>>(&mut out, &dx))?;
    stream.to_host(&out)
}

/// What each of `blocks` blocks of `block` threads sums, in f64.
pub fn reference(x: &[f32], block: usize, blocks: usize) -> Vec<f64> {
    let mut sums = vec![0.0f64; blocks];
    let grid_size = 2 * block * blocks;
    for (i, &v) in x.iter().enumerate() {
        sums[(i % grid_size) / (2 * block)] += v as f64;
    }
    sums
}

/// Each block's sum within `1e-5` of the f64 sum of its elements' magnitudes (inputs in
/// [0, 1) here, so of the sum itself).
pub fn check(got: &[f32], want: &[f64]) -> std::result::Result<String, String> {
    for (b, (&g, &w)) in got.iter().zip(want).enumerate() {
        if (g as f64).is_nan() || (g as f64 - w).abs() > 1e-5 * w.abs() + 1e-6 {
            return Err(format!("block {b} summed {g}, expected {w}"));
        }
    }
    Ok(format!("{} block sums", got.len()))
}

/// Runs the example on `dev`.
pub fn run(dev: &Device) -> Result<std::result::Result<String, String>> {
    let (n, blocks) = if cuprum_testkit::small_inputs(dev) {
        (100_001, 20)
    } else {
        (1 << 24, 1024)
    };
    let x = cuprum_testkit::random_f32(n, 0.0, 1.0);
    let got = compute(&dev.default_stream(), &x, blocks)?;
    Ok(check(&got, &reference(&x, 256, blocks as usize)))
}

fn main() -> std::process::ExitCode {
    cuprum_testkit::example_main("reduce6", run)
}
