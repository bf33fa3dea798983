//! The all-pairs n-body force step of GPU Gems 3, chapter 31: each block walks the bodies a
//! tile at a time, staging each tile's positions and masses in shared memory, and each thread
//! accumulates the acceleration of its own body. Bodies are `[x, y, z, mass]` runs of four
//! `f32`s.
//!
//! Run: `cargo run --release --example nbody_tile`. Exits non-zero when the result is wrong.

use cuprum::prelude::*;

/// Bodies per tile, and threads per block.
pub const TILE: usize = 256;

/// `accel[3i..3i + 3]` = Σ_j m_j (p_j - p_i) / (|p_j - p_i|² + eps2)^{3/2} over all bodies j
/// (`body` holds `[x, y, z, m]` per body). Block `TILE`, grid bodies / `TILE` rounded up.
#[cuprum_testkit::unchecked_twin]
#[kernel(block = 256)] // `TILE` threads
pub fn nbody(accel: &mut [f32], body: &[f32], eps2: f32) {
    let tile = gpu::shared_array::<f32, { 4 * TILE }>();
    let n = body.len() / 4;
    let t = gpu::thread_idx().x as usize;
    let i = gpu::global_id_x();
    let (mut px, mut py, mut pz) = (0.0f32, 0.0f32, 0.0f32);
    if i < n {
        px = body[4 * i];
        py = body[4 * i + 1];
        pz = body[4 * i + 2];
    }
    let (mut ax, mut ay, mut az) = (0.0f32, 0.0f32, 0.0f32);
    for start in (0..n).step_by(TILE) {
        let j = start + t;
        for c in 0..4 {
            // Bodies past the end weigh nothing.
            tile[4 * t + c] = if j < n { body[4 * j + c] } else { 0.0 };
        }
        gpu::sync_threads();
        for k in 0..TILE {
            let dx = tile[4 * k] - px;
            let dy = tile[4 * k + 1] - py;
            let dz = tile[4 * k + 2] - pz;
            let d2 = dx * dx + dy * dy + dz * dz + eps2;
            let inv = 1.0 / d2.sqrt();
            let s = tile[4 * k + 3] * (inv * inv * inv);
            ax += dx * s;
            ay += dy * s;
            az += dz * s;
        }
        gpu::sync_threads();
    }
    if i < n {
        accel[3 * i] = ax;
        accel[3 * i + 1] = ay;
        accel[3 * i + 2] = az;
    }
}

/// The accelerations of `body`'s bodies on `stream`'s device.
pub fn compute(stream: &Stream, body: &[f32], eps2: f32) -> Result<Vec<f32>> {
    let n = body.len() / 4;
    let db = stream.to_device(body)?;
    let mut acc = stream.to_device(&vec![f32::NAN; 3 * n])?;
    launch!(nbody<<<n.div_ceil(TILE) as u32, TILE as u32, stream>>>(&mut acc, &db, eps2))?;
    stream.to_host(&acc)
}

/// Random bodies: positions in [-1, 1)³, masses in [0.5, 1.5).
pub fn inputs(n: usize) -> Vec<f32> {
    let p = cuprum_testkit::random_f32(3 * n, -1.0, 1.0);
    let m = cuprum_testkit::random_f32(n, 0.5, 1.5);
    (0..n)
        .flat_map(|i| [p[3 * i], p[3 * i + 1], p[3 * i + 2], m[i]])
        .collect()
}

/// Checks the bodies in `sample` against f64 sums: each component within `1e-4` of the sum
/// of its terms' magnitudes.
pub fn check(
    body: &[f32],
    eps2: f32,
    got: &[f32],
    sample: impl Iterator<Item = usize>,
) -> std::result::Result<String, String> {
    let n = body.len() / 4;
    let mut checked = 0;
    for i in sample {
        let (mut want, mut mag) = ([0.0f64; 3], [0.0f64; 3]);
        for j in 0..n {
            let d: [f64; 3] =
                std::array::from_fn(|c| body[4 * j + c] as f64 - body[4 * i + c] as f64);
            let d2 = d[0] * d[0] + d[1] * d[1] + d[2] * d[2] + eps2 as f64;
            let s = body[4 * j + 3] as f64 / (d2 * d2.sqrt());
            for c in 0..3 {
                want[c] += d[c] * s;
                mag[c] += (d[c] * s).abs();
            }
        }
        for c in 0..3 {
            let g = got[3 * i + c] as f64;
            if g.is_nan() || (g - want[c]).abs() > 1e-4 * mag[c] {
                return Err(format!(
                    "body {i}, component {c}: {g}, expected {}",
                    want[c]
                ));
            }
        }
        checked += 1;
    }
    Ok(format!("{checked} of {n} bodies checked"))
}

/// Runs the example on `dev`.
pub fn run(dev: &Device) -> Result<std::result::Result<String, String>> {
    let n = if cuprum_testkit::small_inputs(dev) {
        700
    } else {
        30_001
    };
    let (body, eps2) = (inputs(n), 0.01);
    let got = compute(&dev.default_stream(), &body, eps2)?;
    Ok(check(&body, eps2, &got, (0..n).step_by(n / 100)))
}

fn main() -> std::process::ExitCode {
    cuprum_testkit::example_main("nbody_tile", run)
}
