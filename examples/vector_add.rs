//! `c = a + b`, one thread per element: the first kernel of CUDA's samples (`vectorAdd`).
//!
//! Run: `cargo run --release --example vector_add`. Exits non-zero when the result is wrong.

use cuprum::prelude::*;

/// `c[i] = a[i] + b[i]`: block 256, grid `c.len() / 256` rounded up.
#[cuprum_testkit::unchecked_twin]
#[kernel]
pub fn vector_add(c: &mut [f32], a: &[f32], b: &[f32]) {
    let i = gpu::global_id_x();
    if i < c.len() {
        c[i] = a[i] + b[i];
    }
}

/// `a + b` computed on `stream`'s device.
pub fn compute(stream: &Stream, a: &[f32], b: &[f32]) -> Result<Vec<f32>> {
    let (da, db) = (stream.to_device(a)?, stream.to_device(b)?);
    let mut dc = stream.to_device(&vec![f32::NAN; a.len()])?;
    let grid = a.len().div_ceil(256) as u32;
    launch!(vector_add<<<grid, 256, stream>>>(&mut dc, &da, &db))?;
    stream.to_host(&dc)
}

/// Checks every element exactly (one IEEE addition each).
pub fn check(a: &[f32], b: &[f32], got: &[f32]) -> std::result::Result<String, String> {
    match (0..a.len()).find(|&i| got[i].to_bits() != (a[i] + b[i]).to_bits()) {
        Some(i) => Err(format!("c[{i}] = {}, expected {}", got[i], a[i] + b[i])),
        None => Ok(format!("{} elements added exactly", a.len())),
    }
}

/// Runs the example on `dev`.
pub fn run(dev: &Device) -> Result<std::result::Result<String, String>> {
    let n = if cuprum_testkit::small_inputs(dev) {
        100_003
    } else {
        1 << 24
    };
    let a = cuprum_testkit::random_f32(n, -1.0, 1.0);
    let b = cuprum_testkit::random_f32(n, -1.0, 1.0);
    let got = compute(&dev.default_stream(), &a, &b)?;
    Ok(check(&a, &b, &got))
}

fn main() -> std::process::ExitCode {
    cuprum_testkit::example_main("vector_add", run)
}
