//! Device functions with `mut` parameters, and kernels whose only barrier or warp operation
//! is inside a device function (both once broke the simulator), against the CPU.

use cuprum::prelude::*;

#[path = "kernels/device_params.rs"]
mod kernels;
use kernels::*;

#[test]
fn mut_parameters_of_device_functions() -> cuprum::Result<()> {
    for dev in cuprum_testkit::backends()? {
        let stream = dev.default_stream();
        let n = 700;
        let mut r = fastrand::Rng::new();
        let x: Vec<i64> = (0..n).map(|_| r.i64(-5..100_000)).collect();
        let dx = stream.to_device(&x)?;
        let mut out = stream.to_device(&vec![u32::MAX; n])?;
        launch!(collatz<<<(n as u32).div_ceil(128), 128, stream>>>(&mut out, &dx))?;
        let got = stream.to_host(&out)?;
        for i in 0..n {
            assert_eq!(
                got[i],
                collatz_steps(x[i], 500),
                "{}: element {i}",
                dev.name()
            );
        }
    }
    Ok(())
}

#[test]
fn barriers_and_warp_operations_inside_device_functions() -> cuprum::Result<()> {
    for dev in cuprum_testkit::backends()? {
        let stream = dev.default_stream();
        let (blocks, threads) = (3usize, 64usize);
        let n = blocks * threads;
        let x: Vec<u32> = (0..n).map(|_| fastrand::u32(..1 << 20)).collect();
        let dx = stream.to_device(&x)?;
        let mut out = stream.to_device(&vec![u32::MAX; n])?;
        let mut warp = stream.to_device(&vec![u32::MAX; n])?;
        let mut scratch = stream.to_device(&vec![u32::MAX; n])?;
        launch!(waits_in_device_fns<<<blocks as u32, threads as u32, stream>>>(&mut out, &mut warp, &mut scratch, &dx))?;
        let (out, warp) = (stream.to_host(&out)?, stream.to_host(&warp)?);
        for i in 0..n {
            let (b, t) = (i / threads, i % threads);
            assert_eq!(
                out[i],
                x[b * threads + (t + 1) % threads],
                "{}: element {i}",
                dev.name()
            );
            let w = i / 32 * 32;
            let want: u32 = x[w..w + 32].iter().sum();
            assert_eq!(warp[i], want, "{}: element {i}", dev.name());
        }
    }
    Ok(())
}

#[test]
fn array_and_tuple_results_of_device_functions() -> cuprum::Result<()> {
    for dev in cuprum_testkit::backends()? {
        let stream = dev.default_stream();
        let n = 300;
        let x = cuprum_testkit::random_f32(n, -5.0, 5.0);
        let dx = stream.to_device(&x)?;
        let mut out = stream.to_device(&vec![f32::NAN; 4 * n])?;
        launch!(array_results<<<3, 128, stream>>>(&mut out, &dx))?;
        let got = stream.to_host(&out)?;
        for i in 0..n {
            let (a, s) = spread_sum(x[i]);
            assert_eq!(
                got[4 * i..4 * i + 4],
                [a[0], a[1], a[2], s],
                "{}: {i}",
                dev.name()
            );
        }
    }
    Ok(())
}
