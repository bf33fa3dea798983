//! Row softmax: one block per row, maxima and sums reduced with warp butterflies (`shfl_xor`)
//! and shared memory, `exp` from libdevice.
//!
//! Run: `cargo run --release --example softmax`. Exits non-zero when the result is wrong.

use cuprum::prelude::*;

/// Each row of a `rows × 1024` matrix replaced by its softmax; block 256, grid `rows`.
#[cuprum_testkit::unchecked_twin]
#[kernel(block = 256)]
pub fn softmax(out: &mut [f32], x: &[f32], cols: u32) {
    let red = gpu::shared_array::<f32, 8>();
    let t = gpu::thread_idx().x as usize;
    let base = gpu::block_idx().x as usize * cols as usize;
    let v = [
        x[base + t],
        x[base + t + 256],
        x[base + t + 512],
        x[base + t + 768],
    ];
    let (lane, warp) = (gpu::lane_id(), gpu::warp_id() as usize);
    let mut m = v[0].max(v[1]).max(v[2]).max(v[3]);
    for o in [16u32, 8, 4, 2, 1] {
        m = m.max(gpu::shfl_xor_sync(gpu::FULL_MASK, m, o));
    }
    if lane == 0 {
        red[warp] = m;
    }
    gpu::sync_threads();
    m = red[0];
    for w in 1..8 {
        m = m.max(red[w]);
    }
    gpu::sync_threads();
    let e = [
        (v[0] - m).exp(),
        (v[1] - m).exp(),
        (v[2] - m).exp(),
        (v[3] - m).exp(),
    ];
    let mut s = e[0] + e[1] + e[2] + e[3];
    for o in [16u32, 8, 4, 2, 1] {
        s += gpu::shfl_xor_sync(gpu::FULL_MASK, s, o);
    }
    if lane == 0 {
        red[warp] = s;
    }
    gpu::sync_threads();
    s = red[0];
    for w in 1..8 {
        s += red[w];
    }
    for j in 0..4 {
        out[base + t + 256 * j] = e[j] / s;
    }
}

/// The row softmax of `x` (rows of 1024) computed on `stream`'s device.
pub fn compute(stream: &Stream, x: &[f32]) -> Result<Vec<f32>> {
    let d = stream.to_device(x)?;
    let mut out = stream.to_device(&vec![f32::NAN; x.len()])?;
    launch!(softmax<<<(x.len() / 1024) as u32, 256, stream>>>(&mut out, &d, 1024))?;
    stream.to_host(&out)
}

/// Random rows of 1024.
pub fn inputs(dev: &Device) -> Vec<f32> {
    let rows = if cuprum_testkit::small_inputs(dev) {
        64
    } else {
        65536
    };
    cuprum_testkit::random_f32(rows * 1024, -4.0, 4.0)
}

/// Checks every element against an f64 softmax (relative 1e-5, absolute 1e-9).
pub fn check(x: &[f32], got: &[f32]) -> std::result::Result<String, String> {
    for (r, row) in x.chunks(1024).enumerate() {
        let m = row
            .iter()
            .cloned()
            .fold(f64::NEG_INFINITY, |a, v| a.max(v as f64));
        let s: f64 = row.iter().map(|&v| (v as f64 - m).exp()).sum();
        for (c, &v) in row.iter().enumerate() {
            let want = (v as f64 - m).exp() / s;
            let g = got[r * 1024 + c] as f64;
            if g.is_nan() || (g - want).abs() > 1e-9 + 1e-5 * want.abs() {
                return Err(format!("row {r}, column {c}: {g}, expected {want}"));
            }
        }
    }
    Ok(format!("{} rows of 1024", x.len() / 1024))
}

/// Runs the example on `dev`.
pub fn run(dev: &Device) -> Result<std::result::Result<String, String>> {
    let x = inputs(dev);
    let got = compute(&dev.default_stream(), &x)?;
    Ok(check(&x, &got))
}

fn main() -> std::process::ExitCode {
    cuprum_testkit::example_main("softmax", run)
}
