//! `y = a * x + y` on random floats, checked against the CPU.
//!
//! Run: `cargo run --release --example saxpy`. Exits non-zero when the result is wrong.

use cuprum::prelude::*;

/// One thread per element.
#[cuprum_testkit::unchecked_twin]
#[kernel]
pub fn saxpy(y: &mut [f32], x: &[f32], a: f32) {
    let i = gpu::global_id_x();
    if i < y.len() {
        y[i] = a * x[i] + y[i];
    }
}

/// `a * x + y` computed on `stream`'s device, and the milliseconds the kernel took.
pub fn compute(stream: &Stream, x: &[f32], y: &[f32], a: f32) -> Result<(Vec<f32>, f32)> {
    let dx = stream.to_device(x)?;
    let mut dy = stream.to_device(y)?;
    let start = stream.record_event()?;
    launch!(saxpy<<<LaunchConfig::for_elements(x.len(), 256).grid, 256, stream>>>(&mut dy, &dx, a))?;
    let end = stream.record_event()?;
    let out = stream.to_host(&dy)?;
    Ok((out, start.elapsed_ms(&end)?))
}

/// Random x, y and a (smaller on the simulator).
pub fn inputs(dev: &Device) -> (Vec<f32>, Vec<f32>, f32) {
    let n = if cuprum_testkit::small_inputs(dev) {
        1 << 20
    } else {
        1 << 24
    };
    (
        cuprum_testkit::random_f32(n, -1.0, 1.0),
        cuprum_testkit::random_f32(n, -1.0, 1.0),
        cuprum_testkit::random_scalar(0.5, 2.0),
    )
}

/// Checks against the CPU; the GPU fuses `a * x + y` into one FMA (as nvcc does), so one
/// rounding of difference is allowed.
pub fn check(x: &[f32], y: &[f32], a: f32, got: &[f32]) -> std::result::Result<String, String> {
    let want: Vec<f32> = x.iter().zip(y).map(|(&x, &y)| a * x + y).collect();
    let scale: Vec<f32> = x.iter().map(|&x| (a * x).abs()).collect();
    cuprum_testkit::compare_f32(got, &want, &scale, 2.0 * f32::EPSILON)
        .map(|worst| format!("{} elements, largest relative error {worst:.2e}", x.len()))
}

/// Runs the example on `dev`.
pub fn run(dev: &Device) -> Result<std::result::Result<String, String>> {
    let (x, y, a) = inputs(dev);
    let (got, ms) = compute(&dev.default_stream(), &x, &y, a)?;
    let gbs = (3 * x.len() * 4) as f64 / (ms as f64 * 1e-3) / 1e9;
    Ok(check(&x, &y, a, &got)
        .map(|s| format!("{s}; first launch {ms:.3} ms ({gbs:.0} GB/s, module load included)")))
}

fn main() -> std::process::ExitCode {
    cuprum_testkit::example_main("saxpy", run)
}
