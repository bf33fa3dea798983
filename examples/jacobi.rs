//! One step of a 5-point Jacobi stencil on a square grid: interior points become the average
//! of their four neighbours, the boundary is copied.
//!
//! Run: `cargo run --release --example jacobi`. Exits non-zero when the result is wrong.

use cuprum::prelude::*;

/// One Jacobi step on an `n × n` grid; block (32, 8), grid (n/32, n/8) rounded up.
#[cuprum_testkit::unchecked_twin]
#[kernel(block = (32, 8))]
pub fn jacobi(out: &mut [f32], inp: &[f32], n: u32) {
    let j = (gpu::block_idx().x * 32 + gpu::thread_idx().x) as usize;
    let i = (gpu::block_idx().y * 8 + gpu::thread_idx().y) as usize;
    let n = n as usize;
    if i < n && j < n {
        let idx = i * n + j;
        if i == 0 || j == 0 || i == n - 1 || j == n - 1 {
            out[idx] = inp[idx];
        } else {
            out[idx] = 0.25 * ((inp[idx - n] + inp[idx + n]) + (inp[idx - 1] + inp[idx + 1]));
        }
    }
}

/// One step on `grid` (`n × n`), computed on `stream`'s device.
pub fn compute(stream: &Stream, grid: &[f32], n: u32) -> Result<Vec<f32>> {
    let d = stream.to_device(grid)?;
    let mut out = stream.to_device(&vec![f32::NAN; grid.len()])?;
    launch!(jacobi<<<(n.div_ceil(32), n.div_ceil(8)), (32, 8), stream>>>(&mut out, &d, n))?;
    stream.to_host(&out)
}

/// A random grid and its side.
pub fn inputs(dev: &Device) -> (Vec<f32>, u32) {
    let n = if cuprum_testkit::small_inputs(dev) {
        200
    } else {
        8192
    };
    (cuprum_testkit::random_f32((n * n) as usize, -1.0, 1.0), n)
}

/// Checks every point against the same expression in f32 on the CPU, bit for bit.
pub fn check(g: &[f32], n: u32, got: &[f32]) -> std::result::Result<String, String> {
    let n = n as usize;
    for i in 0..n {
        for j in 0..n {
            let idx = i * n + j;
            let want = if i == 0 || j == 0 || i == n - 1 || j == n - 1 {
                g[idx]
            } else {
                0.25 * ((g[idx - n] + g[idx + n]) + (g[idx - 1] + g[idx + 1]))
            };
            if got[idx].to_bits() != want.to_bits() {
                return Err(format!("point ({i}, {j}): {}, expected {want}", got[idx]));
            }
        }
    }
    Ok(format!("{n}×{n} grid, bit for bit"))
}

/// Runs the example on `dev`.
pub fn run(dev: &Device) -> Result<std::result::Result<String, String>> {
    let (g, n) = inputs(dev);
    let got = compute(&dev.default_stream(), &g, n)?;
    Ok(check(&g, n, &got))
}

fn main() -> std::process::ExitCode {
    cuprum_testkit::example_main("jacobi", run)
}
