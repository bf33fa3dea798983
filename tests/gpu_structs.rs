//! `#[derive(DeviceCopy)]` structs in kernels against CPU references on random data.

use cuprum::prelude::*;
use cuprum_testkit::on_backends;

#[path = "kernels/structs.rs"]
mod kernels;
use kernels::*;

/// Whether `got` equals `want` to a few units in the last place: the GPU contracts `a * b + c`
/// into one fused multiply-add, which rounds once where the host rounds twice.
fn close<T: Into<f64> + Copy>(got: &[T], want: &[T], rel: f64) -> Result<(), String> {
    if got.len() != want.len() {
        return Err(format!("{} values, {} expected", got.len(), want.len()));
    }
    for (k, (g, w)) in got.iter().zip(want).enumerate() {
        let (g, w) = ((*g).into(), (*w).into());
        if (g - w).abs() > rel * w.abs().max(1.0) {
            return Err(format!("{k}: {g} vs {w}"));
        }
    }
    Ok(())
}

#[test]
fn struct_parameters_by_value() -> cuprum::Result<()> {
    on_backends(|dev| {
        let stream = dev.default_stream();
        let n = 1000;
        let mut r = fastrand::Rng::new();
        let p = Particle {
            pos: [r.f32(), r.f32() * 2.0, r.f32() - 4.0],
            mass: r.f32() + 0.5,
            vel: [r.f64() - 0.5, r.f64() * 3.0],
            id: r.u32(0..1000),
            flags: r.u32(0..64),
        };
        let m = Mixed(r.i64(-1000..1000), r.f32(), r.u16(..), r.u8(..), r.bool());
        let mut out = stream.to_device(&vec![f64::NAN; n])?;
        launch!(struct_param<<<(n as u32).div_ceil(128), 128, stream>>>(&mut out, p, m))?;
        let got = stream.to_host(&out)?;
        let want: Vec<f64> = (0..n)
            .map(|k| {
                p.pos[k % 3] as f64 * p.mass as f64
                    + p.vel[k % 2] * p.id as f64
                    + p.flags as f64
                    + m.0 as f64
                    + m.1 as f64 * (m.2 as f64 + m.3 as f64)
                    + if m.4 { 1.0 } else { 0.0 }
                    + k as f64
            })
            .collect();
        close(&got, &want, 1e-12).unwrap();
        Ok(())
    })
}

#[test]
fn struct_locals_literals_and_device_functions() -> cuprum::Result<()> {
    on_backends(|dev| {
        let stream = dev.default_stream();
        let n = 777;
        let xs = cuprum_testkit::random_f32(n, -2.0, 2.0);
        let ys = cuprum_testkit::random_f32(n, -2.0, 2.0);
        let dt = fastrand::f32() * 0.1;
        let (dx, dy) = (stream.to_device(&xs)?, stream.to_device(&ys)?);
        let mut out = stream.to_device(&vec![f32::NAN; 3 * n])?;
        let mut ids = stream.to_device(&vec![u32::MAX; n])?;
        launch!(struct_locals<<<(n as u32).div_ceil(64), 64, stream>>>(&mut out, &mut ids, &dx, &dy, dt))?;
        let mut want = Vec::new();
        let mut want_ids = Vec::new();
        for k in 0..n {
            // The device functions are ordinary Rust on the host.
            let mut q = advanced(make(xs[k], ys[k], 2.0, k as u32), dt);
            q.pos[2] *= q.mass;
            q.flags |= 8;
            want.extend([q.pos[0], q.pos[1], q.pos[2] + 0.5 + 0.25]);
            want_ids.push(q.id * 16 + q.flags);
        }
        close(&stream.to_host(&out)?, &want, 1e-5).unwrap();
        assert_eq!(stream.to_host(&ids)?, want_ids);
        Ok(())
    })
}

#[test]
fn nested_structs_and_arrays_of_structs() -> cuprum::Result<()> {
    on_backends(|dev| {
        let stream = dev.default_stream();
        let n = 999;
        let mut r = fastrand::Rng::new();
        let mut mixed = || Mixed(r.i64(-50..50), r.f32(), r.u16(..), r.u8(..), r.bool());
        let parts = [mixed(), mixed()];
        let b = Body {
            centre: Particle {
                pos: [fastrand::f32(), fastrand::f32(), fastrand::f32()],
                mass: 1.0,
                vel: [fastrand::f64(), fastrand::f64()],
                id: 3,
                flags: 0,
            },
            parts,
            weight: fastrand::f64() * 10.0,
        };
        let xs = cuprum_testkit::random_f32(n, -1.0, 1.0);
        let dx = stream.to_device(&xs)?;
        let mut out = stream.to_device(&vec![f64::NAN; n])?;
        launch!(nested<<<(n as u32).div_ceil(128), 128, stream>>>(&mut out, b, &dx))?;
        let want: Vec<f64> = (0..n)
            .map(|k| {
                let mut local = b;
                local.centre.pos[k % 3] = xs[k];
                local.parts[k % 2].1 = xs[k] * 2.0;
                let mut ring = [b.parts[0], b.parts[1], local.parts[0]];
                ring[k % 3].0 += k as i64;
                let mut acc = local.weight;
                for (r, x) in ring.iter().zip(local.centre.pos) {
                    acc = acc + r.0 as f64 + r.1 as f64 + x as f64;
                }
                acc + local.parts[k % 2].1 as f64 + local.centre.vel[1]
            })
            .collect();
        assert_eq!(stream.to_host(&out)?, want);
        Ok(())
    })
}

#[test]
fn impl_methods() -> cuprum::Result<()> {
    on_backends(|dev| {
        let stream = dev.default_stream();
        let n = 513;
        let xs = cuprum_testkit::random_f32(n, -1.0, 1.0);
        let ys = cuprum_testkit::random_f32(n, -1.0, 1.0);
        let dt = 0.01 + fastrand::f32() * 0.1;
        let (dx, dy) = (stream.to_device(&xs)?, stream.to_device(&ys)?);
        let mut out = stream.to_device(&vec![f64::NAN; 2 * n])?;
        launch!(methods<<<(n as u32).div_ceil(64), 64, stream>>>(&mut out, &dx, &dy, dt))?;
        let mut want = Vec::new();
        for k in 0..n {
            // The methods are ordinary Rust methods on the host.
            let mut p = Particle::at(xs[k], ys[k], 1.5).scaled(2.0);
            for _ in 0..Particle::STEPS {
                p.step(xs[k] as f64, -(ys[k] as f64), dt);
            }
            want.push(p.kinetic());
            want.push(p.pos[0] as f64 + p.pos[1] as f64 + p.id as f64);
        }
        close(&stream.to_host(&out)?, &want, 1e-5).unwrap();
        Ok(())
    })
}
