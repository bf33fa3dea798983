//! Sum of an array: per-thread grid-stride sums, a warp reduction with shuffles, a block
//! reduction through shared memory, and one atomic add per block.
//!
//! Run: `cargo run --release --example reduce_sum`. Exits non-zero when the result is wrong.

use cuprum::prelude::*;

/// `out[0] += sum(x)`: block 256, any grid (the bench uses 1024 blocks).
#[cuprum_testkit::unchecked_twin]
#[kernel]
pub fn reduce_sum(out: &mut [f32], x: &[f32]) {
    let warp_sums = gpu::shared_array::<f32, 8>();
    let mut v = 0.0f32;
    for i in (gpu::global_id_x()..x.len()).step_by(gpu::grid_stride_x()) {
        v += x[i];
    }
    for o in [16u32, 8, 4, 2, 1] {
        v += gpu::shfl_down_sync(gpu::FULL_MASK, v, o);
    }
    let (lane, warp) = (gpu::lane_id(), gpu::warp_id() as usize);
    if lane == 0 {
        warp_sums[warp] = v;
    }
    gpu::sync_threads();
    if warp == 0 {
        v = if lane < 8 {
            warp_sums[lane as usize]
        } else {
            0.0
        };
        for o in [16u32, 8, 4, 2, 1] {
            v += gpu::shfl_down_sync(gpu::FULL_MASK, v, o);
        }
        if lane == 0 {
            gpu::atomic_add(&mut out[0], v);
        }
    }
}

/// The sum of `x` computed on `stream`'s device.
pub fn compute(stream: &Stream, x: &[f32], blocks: u32) -> Result<f32> {
    let dx = stream.to_device(x)?;
    let mut out = stream.alloc_zeros::<f32>(1)?;
    launch!(reduce_sum<<<blocks, 256, stream>>>(&mut out, &dx))?;
    Ok(stream.to_host(&out)?[0])
}

/// Random positive inputs (so that a relative tolerance is meaningful).
pub fn inputs(dev: &Device) -> Vec<f32> {
    let n = if cuprum_testkit::small_inputs(dev) {
        (1 << 20) + 17
    } else {
        1 << 26
    };
    cuprum_testkit::random_f32(n, 0.0, 1.0)
}

/// Checks a sum against the CPU's, in f64.
pub fn check(x: &[f32], got: f32) -> std::result::Result<String, String> {
    let want: f64 = x.iter().map(|&v| v as f64).sum();
    let rel = ((got as f64 - want) / want).abs();
    if rel <= 1e-4 {
        Ok(format!(
            "sum of {} floats = {got} (relative error {rel:.1e})",
            x.len()
        ))
    } else {
        Err(format!(
            "sum {got}, expected {want} (relative error {rel:.1e})"
        ))
    }
}

/// Runs the example on `dev`.
pub fn run(dev: &Device) -> Result<std::result::Result<String, String>> {
    let x = inputs(dev);
    let got = compute(
        &dev.default_stream(),
        &x,
        if cuprum_testkit::small_inputs(dev) {
            64
        } else {
            1024
        },
    )?;
    Ok(check(&x, got))
}

fn main() -> std::process::ExitCode {
    cuprum_testkit::example_main("reduce_sum", run)
}
