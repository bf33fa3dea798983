//! The 1-D heat equation, many explicit steps in one cooperative launch (as Numba's
//! grid-group example): every thread of the grid waits for the step to finish
//! (`gpu::grid_sync()`) before the next reads it. The grid is as large as can be resident at
//! once (`LaunchConfig::for_cooperative`); each thread covers several points.
//!
//! Run: `cargo run --release --example cooperative`. Exits non-zero when the result is wrong.

use cuprum::prelude::*;

/// One explicit step of `u_t = k u_xx` from `src` into `dst` (the ends held fixed), over the
/// whole grid with a grid-stride loop.
#[device]
pub fn diffuse(dst: &mut [f32], src: &[f32], k: f32) {
    let n = src.len();
    let mut i = gpu::global_id_x();
    while i < n {
        dst[i] = if i == 0 || i == n - 1 {
            src[i]
        } else {
            src[i] + k * (src[i - 1] - 2.0 * src[i] + src[i + 1])
        };
        i += gpu::grid_stride_x();
    }
}

/// `steps` steps, alternating between `a` and `b`; the result is in `b` after an odd number
/// of steps and in `a` after an even one.
#[kernel(cooperative)]
pub fn heat(a: &mut [f32], b: &mut [f32], k: f32, steps: u32) {
    for s in 0..steps {
        if s % 2 == 0 {
            diffuse(b, a, k);
        } else {
            diffuse(a, b, k);
        }
        gpu::grid_sync();
    }
}

/// `steps` steps from `u0` on `stream`'s device.
pub fn compute(stream: &Stream, u0: &[f32], k: f32, steps: u32) -> Result<Vec<f32>> {
    let mut a = stream.to_device(u0)?;
    let mut b = stream.to_device(&vec![f32::NAN; u0.len()])?;
    let config = LaunchConfig::for_cooperative(&heat::INFO, stream, 128)?;
    heat::launch(stream, config, &mut a, &mut b, k, steps)?;
    stream.to_host(if steps % 2 == 1 { &b } else { &a })
}

/// A random initial temperature and the number of points.
pub fn inputs(dev: &Device) -> Vec<f32> {
    let n = if cuprum_testkit::small_inputs(dev) {
        3000
    } else {
        1 << 20
    };
    cuprum_testkit::random_f32(n, 0.0, 100.0)
}

/// The same steps on the CPU.
pub fn reference(u0: &[f32], k: f32, steps: u32) -> Vec<f32> {
    let mut u = u0.to_vec();
    let mut next = u.clone();
    let n = u.len();
    for _ in 0..steps {
        for i in 0..n {
            next[i] = if i == 0 || i == n - 1 {
                u[i]
            } else {
                u[i] + k * (u[i - 1] - 2.0 * u[i] + u[i + 1])
            };
        }
        std::mem::swap(&mut u, &mut next);
    }
    u
}

/// Compares with the CPU: the GPU contracts `a + k * b` into FMAs, so within a small
/// relative error (the scheme is stable for k <= 0.5: errors do not grow).
pub fn check(u0: &[f32], k: f32, steps: u32, got: &[f32]) -> std::result::Result<String, String> {
    let want = reference(u0, k, steps);
    for (i, (&g, &w)) in got.iter().zip(&want).enumerate() {
        if (g - w).abs() > 1e-4 * (1.0 + w.abs()) {
            return Err(format!("point {i}: {g}, expected {w}"));
        }
    }
    Ok(format!("{} points, {steps} steps", u0.len()))
}

/// Runs the example on `dev`.
pub fn run(dev: &Device) -> Result<std::result::Result<String, String>> {
    let u0 = inputs(dev);
    let (k, steps) = (0.25, 41);
    let got = compute(&dev.default_stream(), &u0, k, steps)?;
    Ok(check(&u0, k, steps, &got))
}

fn main() -> std::process::ExitCode {
    cuprum_testkit::example_main("cooperative", run)
}
