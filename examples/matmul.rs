//! Single-precision matrix multiply with 32×32 shared-memory tiles: each block computes a
//! 32×32 tile of C, each thread one element.
//!
//! Run: `cargo run --release --example matmul`. Exits non-zero when the result is wrong.

use cuprum::prelude::*;

/// `C = A · B`, row-major, `A` m×k, `B` k×n; m, n, k multiples of 32; block (32, 32),
/// grid (n/32, m/32).
#[cuprum_testkit::unchecked_twin]
#[kernel]
pub fn sgemm(c: &mut [f32], a: &[f32], b: &[f32], m: u32, n: u32, k: u32) {
    let a_tile = gpu::shared_array_2d::<f32, 32, 32>();
    let b_tile = gpu::shared_array_2d::<f32, 32, 32>();
    let (tx, ty) = (gpu::thread_idx().x as usize, gpu::thread_idx().y as usize);
    let row = gpu::block_idx().y as usize * 32 + ty;
    let col = gpu::block_idx().x as usize * 32 + tx;
    let (n, k) = (n as usize, k as usize);
    let mut acc = 0.0f32;
    for t in 0..k / 32 {
        a_tile[ty][tx] = a[row * k + t * 32 + tx];
        b_tile[ty][tx] = b[(t * 32 + ty) * n + col];
        gpu::sync_threads();
        for kk in 0..32 {
            acc += a_tile[ty][kk] * b_tile[kk][tx];
        }
        gpu::sync_threads();
    }
    c[row * n + col] = acc;
}

/// `A · B` computed on `stream`'s device.
pub fn compute(stream: &Stream, a: &[f32], b: &[f32], m: u32, n: u32, k: u32) -> Result<Vec<f32>> {
    let (da, db) = (stream.to_device(a)?, stream.to_device(b)?);
    let mut c = stream.to_device(&vec![f32::NAN; (m * n) as usize])?;
    launch!(sgemm<<<(n / 32, m / 32), (32, 32), stream>>>(&mut c, &da, &db, m, n, k))?;
    stream.to_host(&c)
}

/// Random positive matrices (no cancellation, so a relative tolerance holds) and (m, n, k).
pub fn inputs(dev: &Device) -> (Vec<f32>, Vec<f32>, u32, u32, u32) {
    let (m, n, k) = if cuprum_testkit::small_inputs(dev) {
        (64, 96, 128)
    } else {
        (4096, 4096, 4096)
    };
    (
        cuprum_testkit::random_f32((m * k) as usize, 0.0, 1.0),
        cuprum_testkit::random_f32((k * n) as usize, 0.0, 1.0),
        m,
        n,
        k,
    )
}

/// Checks a sample of entries (all of them for small matrices) against f64 dot products.
pub fn check(
    a: &[f32],
    b: &[f32],
    m: u32,
    n: u32,
    k: u32,
    c: &[f32],
) -> std::result::Result<String, String> {
    let (m, n, k) = (m as usize, n as usize, k as usize);
    let mut rng = fastrand::Rng::new();
    let samples = 4096.min(m * n);
    let mut worst = 0.0f64;
    for s in 0..samples {
        let idx = if m * n <= 4096 {
            s
        } else {
            rng.usize(0..m * n)
        };
        let (i, j) = (idx / n, idx % n);
        let want: f64 = (0..k)
            .map(|p| a[i * k + p] as f64 * b[p * n + j] as f64)
            .sum();
        let rel = ((c[idx] as f64 - want) / want).abs();
        if rel.is_nan() || rel > 1e-3 {
            return Err(format!(
                "C[{i}][{j}] = {}, expected {want} (relative error {rel:.1e})",
                c[idx]
            ));
        }
        worst = worst.max(rel);
    }
    Ok(format!(
        "{m}×{k} · {k}×{n}, {samples} entries within {worst:.1e}"
    ))
}

/// Runs the example on `dev`.
pub fn run(dev: &Device) -> Result<std::result::Result<String, String>> {
    let (a, b, m, n, k) = inputs(dev);
    let c = compute(&dev.default_stream(), &a, &b, m, n, k)?;
    Ok(check(&a, &b, m, n, k, &c))
}

fn main() -> std::process::ExitCode {
    cuprum_testkit::example_main("matmul", run)
}
