//! Matrix transpose written the way CUDA's `transposeCoalesced` sample writes it: a 32×33
//! shared tile, 32×8 threads each moving four elements with `for j in (0..32).step_by(8)`,
//! and a bounds guard around each load and store, so any width and height work.
//!
//! Run: `cargo run --release --example transpose_coalesced`. Exits non-zero when the result
//! is wrong.

use cuprum::prelude::*;

/// The tile's side.
pub const TILE: usize = 32;
/// Rows of threads per block: each thread moves `TILE / ROWS` elements.
pub const ROWS: usize = 8;

/// `out` (`width × height`, row-major) = the transpose of `inp` (`height × width`): block
/// (`TILE`, `ROWS`), the only shape accepted, grid (`width / TILE`, `height / TILE`) rounded up.
#[cuprum_testkit::unchecked_twin]
#[kernel(block = (32, 8))]
pub fn transpose_coalesced(out: &mut [f32], inp: &[f32], width: usize, height: usize) {
    let tile = gpu::shared_array_2d::<f32, TILE, { TILE + 1 }>();
    let (tx, ty) = (gpu::thread_idx().x as usize, gpu::thread_idx().y as usize);
    let (bx, by) = (gpu::block_idx().x as usize, gpu::block_idx().y as usize);
    let (x, y) = (bx * TILE + tx, by * TILE + ty);
    for j in (0..TILE).step_by(ROWS) {
        if x < width && y + j < height {
            tile[ty + j][tx] = inp[(y + j) * width + x];
        }
    }
    gpu::sync_threads();
    let (x, y) = (by * TILE + tx, bx * TILE + ty);
    for j in (0..TILE).step_by(ROWS) {
        if x < height && y + j < width {
            out[(y + j) * height + x] = tile[tx][ty + j];
        }
    }
}

/// The transpose of the `height × width` matrix `m`, on `stream`'s device.
pub fn compute(stream: &Stream, m: &[f32], width: usize, height: usize) -> Result<Vec<f32>> {
    let d = stream.to_device(m)?;
    let mut out = stream.to_device(&vec![f32::NAN; m.len()])?;
    let grid = (width.div_ceil(TILE) as u32, height.div_ceil(TILE) as u32);
    launch!(transpose_coalesced<<<grid, (TILE as u32, ROWS as u32), stream>>>(&mut out, &d, width, height))?;
    stream.to_host(&out)
}

/// The transpose on the CPU.
pub fn reference(m: &[f32], width: usize, height: usize) -> Vec<f32> {
    let mut t = vec![0.0f32; m.len()];
    for y in 0..height {
        for x in 0..width {
            t[x * height + y] = m[y * width + x];
        }
    }
    t
}

/// Runs the example on `dev` (sizes that are not multiples of the tile on the simulator).
pub fn run(dev: &Device) -> Result<std::result::Result<String, String>> {
    let (width, height) = if cuprum_testkit::small_inputs(dev) {
        (150, 77)
    } else {
        (8000, 6001)
    };
    let m = cuprum_testkit::random_f32(width * height, -1.0, 1.0);
    let got = compute(&dev.default_stream(), &m, width, height)?;
    let want = reference(&m, width, height);
    Ok(
        match (0..m.len()).find(|&i| got[i].to_bits() != want[i].to_bits()) {
            Some(i) => Err(format!("out[{i}] = {}, expected {}", got[i], want[i])),
            None => Ok(format!("{height}×{width} transposed exactly")),
        },
    )
}

fn main() -> std::process::ExitCode {
    cuprum_testkit::example_main("transpose_coalesced", run)
}
