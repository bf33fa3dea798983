//! `const` and `static` items in kernels against CPU references on random data.

use cuprum::prelude::*;
use cuprum_testkit::on_backends;

#[path = "kernels/consts.rs"]
mod kernels;
use kernels::*;

#[test]
fn scalar_constants_and_constant_expressions() -> cuprum::Result<()> {
    on_backends(|dev| {
        let stream = dev.default_stream();
        let n = 3001;
        let mut r = fastrand::Rng::new();
        let f: Vec<f32> = (0..n).map(|_| r.f32() * 10.0 - 5.0).collect();
        let i: Vec<i32> = (0..n).map(|_| r.i32(-1000..1000)).collect();
        let u: Vec<u32> = (0..n).map(|_| r.u32(..)).collect();
        let d: Vec<f64> = (0..n).map(|_| r.f64() * 4.0 - 2.0).collect();
        let l: Vec<u64> = (0..n).map(|_| r.u64(..)).collect();
        let (mut df, mut di, mut du, mut dd, mut dl) = (
            stream.to_device(&f)?,
            stream.to_device(&i)?,
            stream.to_device(&u)?,
            stream.to_device(&d)?,
            stream.to_device(&l)?,
        );
        launch!(const_scalars<<<(n as u32).div_ceil(128), 128, stream>>>(&mut df, &mut di, &mut du, &mut dd, &mut dl))?;
        let want_f: Vec<f32> = f.iter().map(|x| x * 3.0).collect();
        let want_i: Vec<i32> = i.iter().map(|x| x - 13).collect();
        let want_u: Vec<u32> = u.iter().map(|x| x & 15).collect();
        let want_d: Vec<f64> = d.iter().map(|x| x * (std::f64::consts::PI / 2.0)).collect();
        let want_l: Vec<u64> = l.iter().map(|x| x % (u32::MAX as u64 + 2)).collect();
        assert_eq!(stream.to_host(&df)?, want_f);
        assert_eq!(stream.to_host(&di)?, want_i);
        assert_eq!(stream.to_host(&du)?, want_u);
        assert_eq!(stream.to_host(&dd)?, want_d);
        assert_eq!(stream.to_host(&dl)?, want_l);
        Ok(())
    })
}

#[test]
fn constant_arrays_indexed_at_run_time() -> cuprum::Result<()> {
    on_backends(|dev| {
        let stream = dev.default_stream();
        let n = 2049;
        let x = cuprum_testkit::random_u32(n);
        let dx = stream.to_device(&x)?;
        let mut out = stream.to_device(&vec![u32::MAX; n])?;
        let mut steps = stream.to_device(&vec![i32::MIN; n])?;
        launch!(const_tables<<<(n as u32).div_ceil(256), 256, stream>>>(&mut out, &mut steps, &dx))?;
        let squares = [0u32, 1, 4, 9, 16, 25];
        let table = [[1, -1, 2], [0, 5, -3]];
        let want: Vec<u32> = x.iter().map(|v| squares[(v % 6) as usize]).collect();
        let want_steps: Vec<i32> = x
            .iter()
            .map(|v| table[(v % 2) as usize][(v / 2 % 3) as usize])
            .collect();
        assert_eq!(stream.to_host(&out)?, want);
        assert_eq!(stream.to_host(&steps)?, want_steps);
        Ok(())
    })
}

#[test]
fn static_weights_in_constant_memory() -> cuprum::Result<()> {
    on_backends(|dev| {
        let stream = dev.default_stream();
        let n = 5000;
        let x = cuprum_testkit::random_f32(n, -1.0, 1.0);
        let dx = stream.to_device(&x)?;
        let mut out = stream.to_device(&vec![f32::NAN; n])?;
        launch!(smooth<<<(n as u32).div_ceil(128), 128, stream>>>(&mut out, &dx))?;
        let got = stream.to_host(&out)?;
        let w = [0.0625f32, 0.25, 0.375, 0.25, 0.0625];
        for k in 2..n - 2 {
            let want: f32 = (0..5).map(|j| w[j] * x[k + j - 2]).sum();
            assert!((got[k] - want).abs() <= 1e-6, "{k}: {} vs {want}", got[k]);
        }
        assert!(got[0].is_nan() && got[n - 1].is_nan());
        Ok(())
    })
}

#[test]
fn static_table_read_at_run_time_indices() -> cuprum::Result<()> {
    on_backends(|dev| {
        let stream = dev.default_stream();
        let n = 4099;
        let x = cuprum_testkit::random_f32(n, -1.0, 1.0);
        let pick = cuprum_testkit::random_u32(n);
        let (dx, dp) = (stream.to_device(&x)?, stream.to_device(&pick)?);
        let mut out = stream.to_device(&vec![f32::NAN; n])?;
        launch!(weighted<<<(n as u32).div_ceil(128), 128, stream>>>(&mut out, &dx, &dp))?;
        let w = [0.0625f32, 0.25, 0.375, 0.25, 0.0625];
        let want: Vec<f32> = (0..n).map(|k| w[(pick[k] % 5) as usize] * x[k]).collect();
        assert_eq!(stream.to_host(&out)?, want);
        Ok(())
    })
}

#[test]
fn device_function_reads_module_constants() -> cuprum::Result<()> {
    on_backends(|dev| {
        let stream = dev.default_stream();
        let n = 777;
        let x = cuprum_testkit::random_f32(n, -1.0, 1.0);
        let dx = stream.to_device(&x)?;
        let mut out = stream.to_device(&vec![f32::NAN; n])?;
        launch!(via_device<<<(n as u32).div_ceil(128), 128, stream>>>(&mut out, &dx))?;
        let want: Vec<f32> = (0..n).map(|k| scaled(x[k], k)).collect();
        let got = stream.to_host(&out)?;
        if let Err(e) = cuprum_testkit::compare_f32(&got, &want, &want, 1e-6) {
            panic!("{e}");
        }
        Ok(())
    })
}

#[test]
fn constants_as_shared_and_local_lengths() -> cuprum::Result<()> {
    on_backends(|dev| {
        let stream = dev.default_stream();
        let (rows, cols) = (53u32, 37u32);
        let x = cuprum_testkit::random_f32((rows * cols) as usize, -1.0, 1.0);
        let dx = stream.to_device(&x)?;
        let mut out = stream.to_device(&vec![f32::NAN; x.len()])?;
        let t = TILE as u32;
        launch!(tile_transpose<<<(cols.div_ceil(t), rows.div_ceil(t)), (t, 4), stream>>>(&mut out, &dx, rows, cols))?;
        let got = stream.to_host(&out)?;
        for r in 0..rows as usize {
            for c in 0..cols as usize {
                assert_eq!(
                    got[c * rows as usize + r],
                    x[r * cols as usize + c],
                    "({r}, {c})"
                );
            }
        }
        Ok(())
    })
}

#[test]
fn local_arrays_of_arrays() -> cuprum::Result<()> {
    on_backends(|dev| {
        let stream = dev.default_stream();
        let n = 2222;
        let x = cuprum_testkit::random_f32(n, -2.0, 2.0);
        let dx = stream.to_device(&x)?;
        let mut out = stream.to_device(&vec![f32::NAN; n])?;
        launch!(pairs<<<(n as u32).div_ceil(128), 128, stream>>>(&mut out, &dx))?;
        let base = [
            [1.0f32, 0.5],
            [2.0, -1.0],
            [0.25, 4.0],
            [-3.0, 1.5],
            [1.0, 1.0],
            [0.0, 2.0],
            [5.0, -0.5],
            [-1.0, -2.0],
        ];
        let want: Vec<f32> = (0..n)
            .map(|k| {
                let pick = (k * 7 + 3) % 8;
                base[pick][0] * x[k] - (base[(pick + 1) % 8][1] + x[k])
            })
            .collect();
        assert_eq!(stream.to_host(&out)?, want);
        Ok(())
    })
}

#[test]
fn constant_table_copied_into_a_local() -> cuprum::Result<()> {
    on_backends(|dev| {
        let stream = dev.default_stream();
        let n = 999;
        let mut r = fastrand::Rng::new();
        let x: Vec<u32> = (0..n).map(|_| r.u32(0..1 << 20)).collect();
        let dx = stream.to_device(&x)?;
        let mut out = stream.to_device(&vec![u32::MAX; n])?;
        launch!(copy_table<<<(n as u32).div_ceil(128), 128, stream>>>(&mut out, &dx))?;
        let want: Vec<u32> = x
            .iter()
            .map(|&v| {
                let mut t = [0u32, 1, 4, 9, 16, 25];
                t[(v % 6) as usize] += v;
                t[(v / 6 % 6) as usize]
            })
            .collect();
        assert_eq!(stream.to_host(&out)?, want);
        Ok(())
    })
}

#[test]
fn body_constants() -> cuprum::Result<()> {
    on_backends(|dev| {
        let stream = dev.default_stream();
        let n = 1500;
        let mut r = fastrand::Rng::new();
        let x: Vec<i64> = (0..n).map(|_| r.i64(..)).collect();
        let dx = stream.to_device(&x)?;
        let mut out = stream.to_device(&vec![i64::MIN; n])?;
        launch!(body_consts<<<(n as u32).div_ceil(64), 64, stream>>>(&mut out, &dx))?;
        let coef = [3i64, -1, 4, -1];
        let want: Vec<i64> = x
            .iter()
            .map(|v| {
                (0..4).fold(0i64, |a, j| {
                    a.wrapping_add(coef[j].wrapping_mul(v.wrapping_shr(j as u32)))
                })
            })
            .collect();
        assert_eq!(stream.to_host(&out)?, want);
        Ok(())
    })
}
