//! Row convolution with a 17-tap filter, after CUDA's `convolutionSeparable` sample: the
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
#[kernel(max_threads = 128)]
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

/// The convolution of each row of the `height × width` image `img`, on `stream`'s device.
pub fn compute(stream: &Stream, img: &[f32], width: u32, height: u32) -> Result<Vec<f32>> {
    let d = stream.to_device(img)?;
    let mut out = stream.to_device(&vec![f32::NAN; img.len()])?;
    let grid = (width.div_ceil(TILE as u32), height);
    launch!(convolve_rows<<<grid, TILE as u32, stream>>>(&mut out, &d, width))?;
    stream.to_host(&out)
}

/// The same on the CPU, and the sum of the magnitudes of each output's terms (its scale).
pub fn reference(img: &[f32], width: usize) -> (Vec<f32>, Vec<f32>) {
    let mut want = vec![0.0f32; img.len()];
    let mut scale = vec![0.0f32; img.len()];
    for (r, row) in img.chunks(width).enumerate() {
        for x in 0..width {
            let (mut acc, mut mag) = (0.0f32, 0.0f32);
            for (k, w) in FILTER.iter().enumerate() {
                let v = (x + k)
                    .checked_sub(RADIUS)
                    .and_then(|i| row.get(i))
                    .copied()
                    .unwrap_or(0.0);
                acc += w * v;
                mag += (w * v).abs();
            }
            want[r * width + x] = acc;
            scale[r * width + x] = mag;
        }
    }
    (want, scale)
}

/// Runs the example on `dev`.
pub fn run(dev: &Device) -> Result<std::result::Result<String, String>> {
    let (width, height) = if cuprum_testkit::small_inputs(dev) {
        (333u32, 40u32)
    } else {
        (4099, 2048)
    };
    let img = cuprum_testkit::random_f32((width * height) as usize, -1.0, 1.0);
    let got = compute(&dev.default_stream(), &img, width, height)?;
    let (want, scale) = reference(&img, width as usize);
    Ok(
        cuprum_testkit::compare_f32(&got, &want, &scale, 1e-5).map(|worst| {
            format!("{width}×{height} rows convolved, largest relative error {worst:.1e}")
        }),
    )
}

fn main() -> std::process::ExitCode {
    cuprum_testkit::example_main("convolution", run)
}
