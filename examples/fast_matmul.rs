//! Matrix multiply with 16×16 shared tiles, written the way Numba's documentation writes its
//! `fast_matmul`: each thread one element of C, tiles zero-filled where they overhang the
//! matrices, so any shapes work.
//!
//! Run: `cargo run --release --example fast_matmul`. Exits non-zero when the result is wrong.

use cuprum::prelude::*;

/// Threads per block along each side, and the tiles' side.
pub const TPB: usize = 16;

/// `C = A · B`, row-major, `A` m×k, `B` k×n: block (`TPB`, `TPB`), the only shape accepted,
/// grid (n / `TPB`, m / `TPB`) rounded up.
#[cuprum_testkit::unchecked_twin]
#[kernel(block = (16, 16))]
pub fn fast_matmul(c: &mut [f32], a: &[f32], b: &[f32], m: usize, n: usize, k: usize) {
    let sa = gpu::shared_array_2d::<f32, TPB, TPB>();
    let sb = gpu::shared_array_2d::<f32, TPB, TPB>();
    let (x, y) = (gpu::global_id_x(), gpu::global_id_y());
    let (tx, ty) = (gpu::thread_idx().x as usize, gpu::thread_idx().y as usize);
    let mut tmp = 0.0f32;
    for i in 0..(k + TPB - 1) / TPB {
        sa[ty][tx] = 0.0;
        sb[ty][tx] = 0.0;
        if y < m && tx + i * TPB < k {
            sa[ty][tx] = a[y * k + tx + i * TPB];
        }
        if x < n && ty + i * TPB < k {
            sb[ty][tx] = b[(ty + i * TPB) * n + x];
        }
        gpu::sync_threads();
        for j in 0..TPB {
            tmp += sa[ty][j] * sb[j][tx];
        }
        gpu::sync_threads();
    }
    if y < m && x < n {
        c[y * n + x] = tmp;
    }
}

/// `a · b` on `stream`'s device.
pub fn compute(
    stream: &Stream,
    a: &[f32],
    b: &[f32],
    m: usize,
    n: usize,
    k: usize,
) -> Result<Vec<f32>> {
    let (da, db) = (stream.to_device(a)?, stream.to_device(b)?);
    let mut dc = stream.to_device(&vec![f32::NAN; m * n])?;
    let grid = (n.div_ceil(TPB) as u32, m.div_ceil(TPB) as u32);
    launch!(fast_matmul<<<grid, (TPB as u32, TPB as u32), stream>>>(&mut dc, &da, &db, m, n, k))?;
    stream.to_host(&dc)
}

/// Checks the entries at `sample` (indices into C) against f64 dot products: relative error
/// at most `1e-3` of the sum of the terms' magnitudes.
pub fn check(
    a: &[f32],
    b: &[f32],
    (n, k): (usize, usize),
    got: &[f32],
    sample: impl Iterator<Item = usize>,
) -> std::result::Result<String, String> {
    let mut checked = 0;
    for i in sample {
        let (row, col) = (i / n, i % n);
        let terms = (0..k).map(|t| a[row * k + t] as f64 * b[t * n + col] as f64);
        let (want, mag) = terms.fold((0.0, 0.0), |(s, m), v| (s + v, m + v.abs()));
        let g = got[i] as f64;
        if g.is_nan() || (g - want).abs() > 1e-3 * mag {
            return Err(format!("c[{row}][{col}] = {g}, expected {want}"));
        }
        checked += 1;
    }
    Ok(format!("{checked} entries of C checked"))
}

/// Runs the example on `dev` (shapes that are not multiples of the tile).
pub fn run(dev: &Device) -> Result<std::result::Result<String, String>> {
    let (m, n, k) = if cuprum_testkit::small_inputs(dev) {
        (50, 37, 45)
    } else {
        (1000, 1500, 777)
    };
    let a = cuprum_testkit::random_f32(m * k, -1.0, 1.0);
    let b = cuprum_testkit::random_f32(k * n, -1.0, 1.0);
    let got = compute(&dev.default_stream(), &a, &b, m, n, k)?;
    Ok(check(&a, &b, (n, k), &got, 0..m * n))
}

fn main() -> std::process::ExitCode {
    cuprum_testkit::example_main("fast_matmul", run)
}
