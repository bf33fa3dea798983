//! Kernels using `DeviceCopy` types, their `#[device] impl` methods and constants of another
//! module and of another crate, imported with `use`, against the same code on the host.

use cuprum::prelude::*;
use cuprum_testkit::backends;

#[path = "kernels/model.rs"]
mod model;

#[path = "kernels/imported.rs"]
mod imported;

use cuprum_device_lib::{Pixel, Tone, GAMMA};
use imported::{shade, step_bodies};
use model::{Body, Mode, DT};

#[test]
fn types_methods_and_constants_of_another_module() -> cuprum::Result<()> {
    let n = 1500 + fastrand::usize(..100);
    let steps = fastrand::u32(1..8);
    let xs = cuprum_testkit::random_f32(n, -2.0, 2.0);
    let vs = cuprum_testkit::random_f32(n, -1.0, 1.0);
    let modes: Vec<u16> = (0..n).map(|_| [1, 2, 4][fastrand::usize(..3)]).collect();
    let springs: Vec<u16> = (0..n).map(|_| fastrand::u16(..)).collect();
    let mut want_x = Vec::new();
    let mut want_v = Vec::new();
    for i in 0..n {
        let mode = match modes[i] {
            1 => Mode::Still,
            2 => Mode::Drift,
            _ => Mode::Spring,
        };
        let mut b = Body {
            x: xs[i],
            v: vs[i],
            mode,
            spring: springs[i],
        };
        if b.mode == Mode::Still {
            b = Body::at(b.x + 1.0);
        }
        for _ in 0..steps {
            b = b.stepped(DT);
        }
        want_x.push(b.x + imported::energy(b));
        want_v.push(b.v + b.mode as u16 as f32);
    }
    for device in backends()? {
        let stream = device.default_stream();
        let mut dx = stream.to_device(&xs)?;
        let mut dv = stream.to_device(&vs)?;
        let (dm, ds) = (stream.to_device(&modes)?, stream.to_device(&springs)?);
        launch!(step_bodies<<<(n as u32).div_ceil(128), 128, stream>>>(&mut dx, &mut dv, &dm, &ds, steps))?;
        let (gx, gv) = (stream.to_host(&dx)?, stream.to_host(&dv)?);
        for i in 0..n {
            for (g, w) in [(gx[i], want_x[i]), (gv[i], want_v[i])] {
                // The GPU fuses multiply-adds: a few ulps per step.
                assert!((g - w).abs() <= 1e-5 * w.abs().max(1.0), "{i}: {g} vs {w}");
            }
        }
    }
    Ok(())
}

#[test]
fn types_methods_and_constants_of_another_crate() -> cuprum::Result<()> {
    let n = 1000 + fastrand::usize(..100);
    let xs = cuprum_testkit::random_f32(n, -2.0, 2.0);
    let p = Pixel {
        r: fastrand::f32(),
        g: fastrand::f32(),
        b: fastrand::f32(),
    };
    for tone in [Tone::Dark, Tone::Light] {
        let want: Vec<f32> = xs
            .iter()
            .map(|&x| {
                let q = Pixel {
                    r: p.r * x,
                    g: p.g,
                    b: p.b + x,
                };
                let t = if tone == Tone::Dark { 0.5 } else { 2.0 };
                q.luma() * t + GAMMA
            })
            .collect();
        for device in backends()? {
            let stream = device.default_stream();
            let dx = stream.to_device(&xs)?;
            let mut out = stream.to_device(&vec![f32::NAN; n])?;
            launch!(shade<<<(n as u32).div_ceil(128), 128, stream>>>(&mut out, &dx, p, tone))?;
            let got = stream.to_host(&out)?;
            for i in 0..n {
                let tol = 1e-5 * want[i].abs().max(1.0);
                assert!(
                    (got[i] - want[i]).abs() <= tol,
                    "{i}: {} vs {}",
                    got[i],
                    want[i]
                );
            }
        }
    }
    Ok(())
}

/// Constants of another module of the same file, imported with relative paths.
mod tiles {
    pub const TILE: usize = 16;
    pub mod scales {
        pub const SCALE: f32 = 1.5;
    }
}

mod same_file {
    use super::tiles::{scales::SCALE, TILE};
    use cuprum::prelude::*;

    /// Sums each window of `TILE` values (a local array of that length), scaled.
    #[kernel]
    pub fn windows(out: &mut [f32], x: &[f32]) {
        let i = gpu::global_id_x();
        if i < out.len() {
            let mut w = [0.0f32; TILE];
            for k in 0..TILE {
                w[k] = x[i + k] * SCALE;
            }
            let mut s = 0.0;
            for v in w {
                s += v;
            }
            out[i] = s;
        }
    }
}

#[test]
fn constants_of_another_module_of_the_file() -> cuprum::Result<()> {
    use tiles::{scales::SCALE, TILE};
    let n = 500 + fastrand::usize(..50);
    let x = cuprum_testkit::random_f32(n + TILE, -1.0, 1.0);
    let want: Vec<f32> = (0..n)
        .map(|i| x[i..i + TILE].iter().map(|v| v * SCALE).sum())
        .collect();
    for device in backends()? {
        let stream = device.default_stream();
        let dx = stream.to_device(&x)?;
        let mut out = stream.to_device(&vec![f32::NAN; n])?;
        launch!(same_file::windows<<<(n as u32).div_ceil(128), 128, stream>>>(&mut out, &dx))?;
        let got = stream.to_host(&out)?;
        for i in 0..n {
            assert!(
                (got[i] - want[i]).abs() <= 1e-5 * want[i].abs().max(1.0),
                "{i}: {} vs {}",
                got[i],
                want[i]
            );
        }
    }
    Ok(())
}
