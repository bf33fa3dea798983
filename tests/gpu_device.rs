//! `#[device]` functions (calling each other, in modules, with slices, returning early, still
//! callable from host code) and generic kernels with `instances(..)`.

use cuprum::prelude::*;

#[path = "kernels/device_fns.rs"]
mod kernels;
use kernels::*;

#[test]
fn device_functions_compute_like_the_host() -> cuprum::Result<()> {
    // On the GPU host: the GPU and the simulator, each against the CPU.
    for dev in cuprum_testkit::backends()? {
        let stream = dev.default_stream();
        let n = 1000;
        let x = cuprum_testkit::random_f32(n, -2.0, 2.0);
        let y = cuprum_testkit::random_f32(n, -2.0, 2.0);
        let mut r = fastrand::Rng::new();
        let a: Vec<i32> = (0..n).map(|_| r.i32(..)).collect();
        let (dx, dy, da) = (
            stream.to_device(&x)?,
            stream.to_device(&y)?,
            stream.to_device(&a)?,
        );
        let mut out = stream.to_device(&vec![f32::NAN; n])?;
        let mut ord = stream.alloc_zeros::<i32>(2 * n)?;
        launch!(uses_devices<<<8, 128, stream>>>(&mut out, &mut ord, &dx, &dy, &da))?;
        let got = stream.to_host(&out)?;
        let got_ord = stream.to_host(&ord)?;
        for i in 0..n {
            // The device functions are ordinary Rust functions on the host too.
            let want = norm2(x[i], y[i]) + window_sum(&x, i, 3) + 0.5;
            assert!(
                (got[i] - want).abs()
                    <= 4.0 * f32::EPSILON * (x[i] * x[i] + y[i] * y[i] + 3.0 * 2.0 + 0.5),
                "element {i}: {} vs {want}",
                got[i]
            );
            let (lo, hi) = geometry::order(a[i], a[(i + 1) % n]);
            assert_eq!(
                (got_ord[2 * i], got_ord[2 * i + 1]),
                (lo, hi),
                "element {i}"
            );
        }
    }
    Ok(())
}

#[test]
fn generic_kernel_instances() -> cuprum::Result<()> {
    // On the GPU host: the GPU and the simulator, each against the CPU.
    for dev in cuprum_testkit::backends()? {
        let stream = dev.default_stream();
        let n = 300;
        let x = cuprum_testkit::random_f32(n, -1.0, 1.0);
        let x64: Vec<f64> = x.iter().map(|&v| v as f64 * 1.000001).collect();
        let (dx, dx64) = (stream.to_device(&x)?, stream.to_device(&x64)?);
        let (mut o32, mut o64) = (stream.alloc_zeros::<f32>(n)?, stream.alloc_zeros::<f64>(n)?);
        launch!(scale::<f32><<<3, 128, stream>>>(&mut o32, &dx, 2.5))?;
        scale::<f64>::launch(
            &stream,
            LaunchConfig::for_elements(n, 128),
            &mut o64,
            &dx64,
            2.5,
        )?;
        let (g32, g64) = (stream.to_host(&o32)?, stream.to_host(&o64)?);
        for i in 0..n {
            assert!(
                (g32[i] - (x[i] * 2.5 + 1.0)).abs()
                    <= 2.0 * f32::EPSILON * (2.5 * x[i].abs() + 1.0),
                "f32 {i}"
            );
            assert!(
                (g64[i] - (x64[i] * 2.5 + 1.0)).abs()
                    <= 2.0 * f64::EPSILON * (2.5 * x64[i].abs() + 1.0),
                "f64 {i}"
            );
        }
        assert!(
            scale::<f32>::PTX.contains(".entry scale_f32(")
                && scale::<f64>::PTX.contains(".entry scale_f64(")
        );
    }
    Ok(())
}

#[test]
fn generic_device_functions() -> cuprum::Result<()> {
    // On the GPU host: the GPU and the simulator, each against the CPU.
    for dev in cuprum_testkit::backends()? {
        let stream = dev.default_stream();
        let n = 200;
        let x = cuprum_testkit::random_f32(n, -3.0, 3.0);
        let dx = stream.to_device(&x)?;
        let (mut a, mut b, mut c) = (
            stream.alloc_zeros::<f32>(n)?,
            stream.alloc_zeros::<f64>(n)?,
            stream.alloc_zeros::<i64>(n)?,
        );
        launch!(generic_devices<<<2, 128, stream>>>(&mut a, &mut b, &mut c, &dx))?;
        let (a, b, c) = (
            stream.to_host(&a)?,
            stream.to_host(&b)?,
            stream.to_host(&c)?,
        );
        for i in 0..n {
            assert!(
                cuprum_testkit::ulps_f32(a[i], clamp01(lerp(x[i], 2.0, 0.25))) <= 2,
                "f32 {i}"
            );
            assert!(
                cuprum_testkit::ulps_f64(b[i], clamp01(lerp(x[i] as f64, 2.0, 0.75))) <= 2,
                "f64 {i}"
            );
            assert_eq!(c[i], triple(i as i64) + 3, "i64 {i}");
        }
    }
    Ok(())
}
