//! Kernels with const generic parameters, each instance against a CPU reference.

use cuprum::prelude::*;
use cuprum_testkit::on_backends;

#[path = "kernels/const_generics.rs"]
mod kernels;
use kernels::*;

fn block_sums(x: &[u32], block: usize) -> Vec<u32> {
    x.chunks(block)
        .map(|c| c.iter().fold(0u32, |a, v| a.wrapping_add(*v)))
        .collect()
}

#[test]
fn block_size_as_a_const_parameter() -> cuprum::Result<()> {
    on_backends(|dev| {
        let stream = dev.default_stream();
        let n = 10_000;
        let x = cuprum_testkit::random_u32(n);
        let dx = stream.to_device(&x)?;

        let blocks = n.div_ceil(256);
        let mut out = stream.to_device(&vec![u32::MAX; blocks])?;
        launch!(block_sum::<256><<<blocks as u32, 256, stream>>>(&mut out, &dx))?;
        assert_eq!(stream.to_host(&out)?, block_sums(&x, 256));

        let blocks = n.div_ceil(64);
        let mut out = stream.to_device(&vec![u32::MAX; blocks])?;
        block_sum::<64>::launch(
            &stream,
            LaunchConfig::new(blocks as u32, 64u32),
            &mut out,
            &dx,
        )?;
        assert_eq!(stream.to_host(&out)?, block_sums(&x, 64));
        Ok(())
    })
}

#[test]
fn type_and_const_parameters_together() -> cuprum::Result<()> {
    on_backends(|dev| {
        let stream = dev.default_stream();
        let n = 3001usize;
        let mut r = fastrand::Rng::new();

        let x: Vec<f32> = (0..n).map(|_| r.f32() - 0.5).collect();
        let dx = stream.to_device(&x)?;
        let m = n.div_ceil(4);
        let mut out = stream.to_device(&vec![f32::NAN; m])?;
        launch!(chunk_sum::<f32, 4><<<(m as u32).div_ceil(128), 128, stream>>>(&mut out, &dx))?;
        let want: Vec<f32> = x
            .chunks(4)
            .map(|c| c.iter().fold(0.0, |a, v| a + v))
            .collect();
        assert_eq!(stream.to_host(&out)?, want);

        let x: Vec<f64> = (0..n).map(|_| r.f64() - 0.5).collect();
        let dx = stream.to_device(&x)?;
        let m = n.div_ceil(8);
        let mut out = stream.to_device(&vec![f64::NAN; m])?;
        launch!(chunk_sum::<f64, 8><<<(m as u32).div_ceil(128), 128, stream>>>(&mut out, &dx))?;
        let want: Vec<f64> = x
            .chunks(8)
            .map(|c| c.iter().fold(0.0, |a, v| a + v))
            .collect();
        assert_eq!(stream.to_host(&out)?, want);

        let x: Vec<i64> = (0..n).map(|_| r.i64(-1 << 40..1 << 40)).collect();
        let dx = stream.to_device(&x)?;
        let m = n.div_ceil(3);
        let mut out = stream.to_device(&vec![i64::MIN; m])?;
        launch!(chunk_sum::<i64, 3><<<(m as u32).div_ceil(128), 128, stream>>>(&mut out, &dx))?;
        let want: Vec<i64> = x.chunks(3).map(|c| c.iter().sum()).collect();
        assert_eq!(stream.to_host(&out)?, want);
        Ok(())
    })
}

#[test]
fn device_function_with_a_const_parameter() -> cuprum::Result<()> {
    on_backends(|dev| {
        let stream = dev.default_stream();
        let n = 1234;
        let x = cuprum_testkit::random_f32(n, -3.0, 3.0);
        let dx = stream.to_device(&x)?;
        let mut out = stream.to_device(&vec![f32::NAN; n])?;
        launch!(dots<<<(n as u32).div_ceil(128), 128, stream>>>(&mut out, &dx))?;
        let want: Vec<f32> = x
            .iter()
            .map(|&v| dot([v, 1.0, 2.0], [2.0, v, 0.5]) + dot([v; 5], [1.0, 2.0, 3.0, 4.0, 5.0]))
            .collect();
        let got = stream.to_host(&out)?;
        let scale: Vec<f32> = x.iter().map(|v| 20.0 * v.abs() + 2.0).collect();
        if let Err(e) = cuprum_testkit::compare_f32(&got, &want, &scale, 1e-6) {
            panic!("{e}");
        }
        Ok(())
    })
}

/// A device function checked inline (it takes a slice and a closure) sees the const
/// arguments of each call (`PADDED` sizes its shared array), and the closure passed to it the
/// const parameters of the kernel that wrote it.
#[test]
fn inlined_device_function_with_const_parameters() -> cuprum::Result<()> {
    on_backends(|dev| {
        let stream = dev.default_stream();
        let x = cuprum_testkit::random_f32(128, -3.0, 3.0);
        let dx = stream.to_device(&x)?;
        let mut out = stream.to_device(&[f32::NAN; 2])?;
        launch!(staged_sums::<3><<<1, 32, stream>>>(&mut out, &dx))?;
        let got = stream.to_host(&out)?;
        let a = x[..64].iter().sum::<f32>() + 0.5;
        let b = x.iter().sum::<f32>() * 3.0;
        if let Err(e) = cuprum_testkit::compare_f32(&got, &[a, b], &[200.0, 600.0], 1e-6) {
            panic!("{e}");
        }
        Ok(())
    })
}
