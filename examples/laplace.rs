//! One Jacobi sweep of a Laplace solver, written the way Numba's documentation writes its
//! stencil: a 2-D grid of threads, each interior point guarded by
//! `if i >= 1 && j >= 1 && i + 1 < nx && j + 1 < ny`, the boundary left as it is.
//!
//! Run: `cargo run --release --example laplace`. Exits non-zero when the result is wrong.

use cuprum::prelude::*;

/// `out`'s interior = the average of `inp`'s four neighbours, on an `ny × nx` row-major grid;
/// `out`'s boundary is not written. Block (32, 8), grid (nx / 32, ny / 8) rounded up.
#[cuprum_testkit::unchecked_twin]
#[kernel]
pub fn laplace(out: &mut [f32], inp: &[f32], nx: usize, ny: usize) {
    let (i, j) = (gpu::global_id_x(), gpu::global_id_y());
    if i >= 1 && j >= 1 && i + 1 < nx && j + 1 < ny {
        out[j * nx + i] = 0.25
            * (inp[j * nx + i - 1]
                + inp[j * nx + i + 1]
                + inp[(j - 1) * nx + i]
                + inp[(j + 1) * nx + i]);
    }
}

/// `steps` sweeps from `grid`, ping-ponging between two buffers, on `stream`'s device.
pub fn compute(
    stream: &Stream,
    grid: &[f32],
    nx: usize,
    ny: usize,
    steps: usize,
) -> Result<Vec<f32>> {
    let mut a = stream.to_device(grid)?;
    let mut b = stream.to_device(grid)?;
    let blocks = (nx.div_ceil(32) as u32, ny.div_ceil(8) as u32);
    for _ in 0..steps {
        launch!(laplace<<<blocks, (32, 8), stream>>>(&mut b, &a, nx, ny))?;
        std::mem::swap(&mut a, &mut b);
    }
    stream.to_host(&a)
}

/// One sweep on the CPU, in the kernel's order of additions (so the result is exact).
pub fn sweep(out: &mut [f32], inp: &[f32], nx: usize, ny: usize) {
    for j in 1..ny - 1 {
        for i in 1..nx - 1 {
            out[j * nx + i] = 0.25
                * (inp[j * nx + i - 1]
                    + inp[j * nx + i + 1]
                    + inp[(j - 1) * nx + i]
                    + inp[(j + 1) * nx + i]);
        }
    }
}

/// Runs the example on `dev`: a few sweeps, compared bit for bit with the CPU's.
pub fn run(dev: &Device) -> Result<std::result::Result<String, String>> {
    let (nx, ny) = if cuprum_testkit::small_inputs(dev) {
        (130, 67)
    } else {
        (4099, 2050)
    };
    let steps = 5;
    let grid = cuprum_testkit::random_f32(nx * ny, -1.0, 1.0);
    let got = compute(&dev.default_stream(), &grid, nx, ny, steps)?;
    let (mut a, mut b) = (grid.clone(), grid);
    for _ in 0..steps {
        sweep(&mut b, &a, nx, ny);
        std::mem::swap(&mut a, &mut b);
    }
    Ok(
        match (0..a.len()).find(|&i| got[i].to_bits() != a[i].to_bits()) {
            Some(i) => Err(format!("point {i} is {}, expected {}", got[i], a[i])),
            None => Ok(format!("{steps} sweeps of {ny}×{nx}, bit for bit")),
        },
    )
}

fn main() -> std::process::ExitCode {
    cuprum_testkit::example_main("laplace", run)
}
