//! Matrix transpose through a 32×33 shared tile (the extra column avoids bank conflicts):
//! both the reads and the writes of global memory are coalesced.
//!
//! Run: `cargo run --release --example transpose`. Exits non-zero when the result is wrong.

use cuprum::prelude::*;

/// `out[c * rows + r] = inp[r * cols + c]`: block (32, 8), grid (cols/32, rows/32) rounded up.
#[cuprum_testkit::unchecked_twin]
#[kernel(block = (32, 8))]
pub fn transpose(out: &mut [f32], inp: &[f32], rows: u32, cols: u32) {
    let tile = gpu::shared_array_2d::<f32, 32, 33>();
    let (bx, by) = (gpu::block_idx().x * 32, gpu::block_idx().y * 32);
    let (tx, ty) = (gpu::thread_idx().x, gpu::thread_idx().y);
    for k in [0u32, 8, 16, 24] {
        let (r, c) = (by + ty + k, bx + tx);
        if r < rows && c < cols {
            tile[(ty + k) as usize][tx as usize] = inp[r as usize * cols as usize + c as usize];
        }
    }
    gpu::sync_threads();
    for k in [0u32, 8, 16, 24] {
        let (orow, ocol) = (bx + ty + k, by + tx);
        if orow < cols && ocol < rows {
            out[orow as usize * rows as usize + ocol as usize] =
                tile[tx as usize][(ty + k) as usize];
        }
    }
}

/// The transpose of the `rows × cols` matrix `m`, computed on `stream`'s device.
pub fn compute(stream: &Stream, m: &[f32], rows: u32, cols: u32) -> Result<Vec<f32>> {
    let d = stream.to_device(m)?;
    let mut out = stream.to_device(&vec![f32::NAN; m.len()])?;
    launch!(transpose<<<(cols.div_ceil(32), rows.div_ceil(32)), (32, 8), stream>>>(&mut out, &d, rows, cols))?;
    stream.to_host(&out)
}

/// A random matrix and its shape (not multiples of 32 on the simulator, to test the edges).
pub fn inputs(dev: &Device) -> (Vec<f32>, u32, u32) {
    let (rows, cols) = if cuprum_testkit::small_inputs(dev) {
        (300, 170)
    } else {
        (8192, 8192)
    };
    (
        cuprum_testkit::random_f32((rows * cols) as usize, -1.0, 1.0),
        rows,
        cols,
    )
}

/// Checks element by element, exactly.
pub fn check(m: &[f32], rows: u32, cols: u32, got: &[f32]) -> std::result::Result<String, String> {
    let (rows, cols) = (rows as usize, cols as usize);
    for r in 0..rows {
        for c in 0..cols {
            if got[c * rows + r].to_bits() != m[r * cols + c].to_bits() {
                return Err(format!(
                    "out[{c}][{r}] = {}, expected {}",
                    got[c * rows + r],
                    m[r * cols + c]
                ));
            }
        }
    }
    Ok(format!("{rows}×{cols} transposed exactly"))
}

/// Runs the example on `dev`.
pub fn run(dev: &Device) -> Result<std::result::Result<String, String>> {
    let (m, rows, cols) = inputs(dev);
    let got = compute(&dev.default_stream(), &m, rows, cols)?;
    Ok(check(&m, rows, cols, &got))
}

fn main() -> std::process::ExitCode {
    cuprum_testkit::example_main("transpose", run)
}
