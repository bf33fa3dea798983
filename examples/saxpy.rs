//! `y = a * x + y` on 16 million random floats, checked against the CPU.
//!
//! Run: `cargo run --release --example saxpy`. Exits non-zero when the result is wrong.

use std::process::ExitCode;

use cuprum::prelude::*;
use cuprum_testkit::{compare_f32, device, random_f32, random_scalar};

/// One thread per element.
#[kernel]
pub fn saxpy(y: &mut [f32], x: &[f32], a: f32) {
    let i = gpu::global_id_x();
    if i < y.len() {
        y[i] = a * x[i] + y[i];
    }
}

fn run() -> Result<bool, Error> {
    let dev = device()?;
    // The simulator runs on the CPU: a smaller problem keeps the example quick there.
    let n = if dev.is_simulator() { 1 << 20 } else { 1 << 24 };
    let x = random_f32(n, -1.0, 1.0);
    let y0 = random_f32(n, -1.0, 1.0);
    let a = random_scalar(0.5, 2.0);

    let stream = dev.default_stream();
    let dx = stream.to_device(&x)?;
    let mut dy = stream.to_device(&y0)?;
    let start = stream.record_event()?;
    launch!(saxpy<<<LaunchConfig::for_elements(n, 256).grid, 256, stream>>>(&mut dy, &dx, a))?;
    let end = stream.record_event()?;
    let got = stream.to_host(&dy)?;
    let ms = start.elapsed_ms(&end)?;

    let want: Vec<f32> = x.iter().zip(&y0).map(|(&x, &y)| a * x + y).collect();
    let scale: Vec<f32> = x.iter().map(|&x| (a * x).abs()).collect();
    // The GPU fuses `a * x + y` into one FMA (as nvcc does); allow the one rounding.
    match compare_f32(&got, &want, &scale, 2.0 * f32::EPSILON) {
        Ok(worst) => {
            let gbs = (3 * n * 4) as f64 / (ms as f64 * 1e-3) / 1e9;
            println!(
                "saxpy: {n} elements on {}: OK (largest relative error {worst:.2e}); first launch {ms:.3} ms, {gbs:.0} GB/s",
                dev.name()
            );
            Ok(true)
        }
        Err(e) => {
            eprintln!("saxpy: WRONG RESULT: {e}");
            Ok(false)
        }
    }
}

fn main() -> ExitCode {
    match run() {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::FAILURE,
        Err(e) => {
            eprintln!("saxpy: error: {e}");
            ExitCode::FAILURE
        }
    }
}
