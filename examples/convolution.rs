//! Separable convolution with a 17-tap filter, after CUDA's `convolutionSeparable` sample
//! (a row pass, then a column pass in the sample's shape: 16×8 threads, eight outputs per
//! thread, halos of a block's height above and below): the
//! filter is a `static` table (constant memory, as the sample's `__constant__ c_Kernel`), the
//! tile and its halo are a shared array whose length is a constant expression, and the sizes
//! are module `const`s.
//!
//! Run: `cargo run --release --example convolution`. Exits non-zero when the result is wrong.

use cuprum::prelude::*;

/// Taps on each side of the centre.
pub const RADIUS: usize = 8;
/// Taps in all.
pub const TAPS: usize = 2 * RADIUS + 1;
/// Output pixels per block (one per thread).
pub const TILE: usize = 128;
/// The filter's normalisation: its weights are binomial coefficients over 2^16.
const NORM: f32 = 1.0 / 65536.0;
/// The filter: `C(16, k) / 2^16`, which sums to 1.
pub static FILTER: [f32; TAPS] = [
    1.0 * NORM,
    16.0 * NORM,
    120.0 * NORM,
    560.0 * NORM,
    1820.0 * NORM,
    4368.0 * NORM,
    8008.0 * NORM,
    11440.0 * NORM,
    12870.0 * NORM,
    11440.0 * NORM,
    8008.0 * NORM,
    4368.0 * NORM,
    1820.0 * NORM,
    560.0 * NORM,
    120.0 * NORM,
    16.0 * NORM,
    1.0 * NORM,
];

/// `out[r][x] = Σ FILTER[k] · inp[r][x + k - RADIUS]` (zero outside the row). Block `TILE`
/// threads; grid (`width / TILE` rounded up, `height`).
#[cuprum_testkit::unchecked_twin]
#[kernel(block = 128)] // `TILE` threads
pub fn convolve_rows(out: &mut [f32], inp: &[f32], width: u32) {
    let tile = gpu::shared_array::<f32, { TILE + 2 * RADIUS }>();
    let t = gpu::thread_idx().x as usize;
    let row = gpu::block_idx().y as usize;
    let w = width as usize;
    let x0 = gpu::block_idx().x as usize * TILE;
    // The tile and its halo: pixel x0 + j - RADIUS goes to tile[j].
    let mut j = t;
    while j < TILE + 2 * RADIUS {
        let x = x0 + j;
        tile[j] = if x >= RADIUS && x - RADIUS < w {
            inp[row * w + x - RADIUS]
        } else {
            0.0
        };
        j += TILE;
    }
    gpu::sync_threads();
    let x = x0 + t;
    if x < w {
        let mut acc = 0.0f32;
        for k in 0..TAPS {
            acc += FILTER[k] * tile[t + k];
        }
        out[row * w + x] = acc;
    }
}

/// Threads per block across the image in the column pass (one column each).
pub const COLS_X: usize = 16;
/// Threads per block down the image in the column pass; also the height of each halo, so at
/// least `RADIUS`.
pub const COLS_Y: usize = 8;
/// Outputs per thread in the column pass, `COLS_Y` rows apart.
pub const STEPS: usize = 8;

/// `out[y][x] = Σ FILTER[k] · inp[y + k - RADIUS][x]` (zero outside the image). Block
/// (`COLS_X`, `COLS_Y`); grid (`width / COLS_X`, `height / (STEPS · COLS_Y)`), both exact.
#[cuprum_testkit::unchecked_twin]
#[kernel(block = (16, 8))] // (`COLS_X`, `COLS_Y`)
pub fn convolve_cols(out: &mut [f32], inp: &[f32], width: u32, height: u32) {
    let tile = gpu::shared_array_2d::<f32, COLS_X, { (STEPS + 2) * COLS_Y + 1 }>();
    let (tx, ty) = (gpu::thread_idx().x as usize, gpu::thread_idx().y as usize);
    let (w, h) = (width as usize, height as usize);
    let x = gpu::block_idx().x as usize * COLS_X + tx;
    // Tile row r holds image row y0 + r - COLS_Y.
    let y0 = gpu::block_idx().y as usize * STEPS * COLS_Y;
    for i in 1..STEPS + 1 {
        tile[tx][ty + i * COLS_Y] = inp[(y0 + ty + (i - 1) * COLS_Y) * w + x];
    }
    tile[tx][ty] = if y0 > 0 {
        inp[(y0 + ty - COLS_Y) * w + x]
    } else {
        0.0
    };
    let below = y0 + STEPS * COLS_Y + ty;
    tile[tx][ty + (STEPS + 1) * COLS_Y] = if below < h { inp[below * w + x] } else { 0.0 };
    gpu::sync_threads();
    for i in 1..STEPS + 1 {
        let r = ty + i * COLS_Y;
        let mut acc = 0.0f32;
        for k in 0..TAPS {
            acc += FILTER[k] * tile[tx][r + k - RADIUS];
        }
        out[(y0 + r - COLS_Y) * w + x] = acc;
    }
}

/// The convolution of each row of the `height × width` image `img`, on `stream`'s device.
pub fn compute(stream: &Stream, img: &[f32], width: u32, height: u32) -> Result<Vec<f32>> {
    let d = stream.to_device(img)?;
    let mut out = stream.to_device(&vec![f32::NAN; img.len()])?;
    let grid = (width.div_ceil(TILE as u32), height);
    launch!(convolve_rows<<<grid, TILE as u32, stream>>>(&mut out, &d, width))?;
    stream.to_host(&out)
}

/// The same on the CPU, along rows (`columns` false) or columns, and the sum of the
/// magnitudes of each output's terms (its scale).
pub fn reference(img: &[f32], width: usize, columns: bool) -> (Vec<f32>, Vec<f32>) {
    let height = img.len() / width;
    let (mut want, mut scale) = (vec![0.0f32; img.len()], vec![0.0f32; img.len()]);
    for y in 0..height {
        for x in 0..width {
            let (mut acc, mut mag) = (0.0f32, 0.0f32);
            for (k, w) in FILTER.iter().enumerate() {
                let (px, py) = if columns {
                    (Some(x), (y + k).checked_sub(RADIUS))
                } else {
                    ((x + k).checked_sub(RADIUS), Some(y))
                };
                let v = match (px, py) {
                    (Some(px), Some(py)) if px < width && py < height => img[py * width + px],
                    _ => 0.0,
                };
                acc += w * v;
                mag += (w * v).abs();
            }
            want[y * width + x] = acc;
            scale[y * width + x] = mag;
        }
    }
    (want, scale)
}

/// The column pass over the `height × width` image `img`, on `stream`'s device (`width` a
/// multiple of `COLS_X`, `height` of `STEPS · COLS_Y`).
pub fn compute_cols(stream: &Stream, img: &[f32], width: u32, height: u32) -> Result<Vec<f32>> {
    let d = stream.to_device(img)?;
    let mut out = stream.to_device(&vec![f32::NAN; img.len()])?;
    let grid = (width / COLS_X as u32, height / (STEPS * COLS_Y) as u32);
    let block = (COLS_X as u32, COLS_Y as u32);
    launch!(convolve_cols<<<grid, block, stream>>>(&mut out, &d, width, height))?;
    stream.to_host(&out)
}

/// Runs the example on `dev`: the row pass on a width that is not a multiple of the tile,
/// and the column pass.
pub fn run(dev: &Device) -> Result<std::result::Result<String, String>> {
    let sim = cuprum_testkit::small_inputs(dev);
    let (width, height) = if sim { (333u32, 40u32) } else { (4099, 2048) };
    let img = cuprum_testkit::random_f32((width * height) as usize, -1.0, 1.0);
    let got = compute(&dev.default_stream(), &img, width, height)?;
    let (want, scale) = reference(&img, width as usize, false);
    let rows = match cuprum_testkit::compare_f32(&got, &want, &scale, 1e-5) {
        Ok(worst) => worst,
        Err(e) => return Ok(Err(format!("rows: {e}"))),
    };
    let (width, height) = if sim { (48u32, 128u32) } else { (4096, 2048) };
    let img = cuprum_testkit::random_f32((width * height) as usize, -1.0, 1.0);
    let got = compute_cols(&dev.default_stream(), &img, width, height)?;
    let (want, scale) = reference(&img, width as usize, true);
    Ok(cuprum_testkit::compare_f32(&got, &want, &scale, 1e-5)
        .map(|cols| {
            format!("rows and columns convolved, largest relative errors {rows:.1e} and {cols:.1e}")
        })
        .map_err(|e| format!("columns: {e}")))
}

fn main() -> std::process::ExitCode {
    cuprum_testkit::example_main("convolution", run)
}
