//! Kernels generic over `gpu::Num` against the same generic code run on the host.

use cuprum::prelude::*;
use cuprum_testkit::on_backends;

#[path = "kernels/numbers.rs"]
mod kernels;
use kernels::*;

/// What `spread` computes, on the host, with the same trait.
fn spread_reference<T: gpu::Num>(x: &[T]) -> Vec<T> {
    (0..x.len())
        .map(|k| {
            let (mut lo, mut hi) = (T::MAX, T::MIN);
            for j in 0..4 {
                let v = x[(k + j) % x.len()];
                if v < lo {
                    lo = v;
                }
                if v > hi {
                    hi = v;
                }
            }
            hi - lo + (T::default() + x[k] * T::ONE + T::ZERO)
        })
        .collect()
}

#[test]
fn num_constants_in_every_instance() -> cuprum::Result<()> {
    on_backends(|dev| {
        let stream = dev.default_stream();
        let n = 1031;
        let mut r = fastrand::Rng::new();
        let grid = (n as u32).div_ceil(128);

        let x: Vec<f32> = (0..n).map(|_| r.f32() * 8.0 - 4.0).collect();
        let dx = stream.to_device(&x)?;
        let mut out = stream.to_device(&vec![f32::NAN; n])?;
        launch!(spread::<f32><<<grid, 128, stream>>>(&mut out, &dx))?;
        assert_eq!(stream.to_host(&out)?, spread_reference(&x));

        let x: Vec<i32> = (0..n).map(|_| r.i32(-1000..1000)).collect();
        let dx = stream.to_device(&x)?;
        let mut out = stream.to_device(&vec![i32::MIN; n])?;
        launch!(spread::<i32><<<grid, 128, stream>>>(&mut out, &dx))?;
        assert_eq!(stream.to_host(&out)?, spread_reference(&x));

        let x: Vec<u64> = (0..n).map(|_| r.u64(0..1 << 40)).collect();
        let dx = stream.to_device(&x)?;
        let mut out = stream.to_device(&vec![u64::MAX; n])?;
        launch!(spread::<u64><<<grid, 128, stream>>>(&mut out, &dx))?;
        assert_eq!(stream.to_host(&out)?, spread_reference(&x));

        let x: Vec<u8> = (0..n).map(|_| r.u8(0..100)).collect();
        let dx = stream.to_device(&x)?;
        let mut out = stream.to_device(&vec![u8::MAX; n])?;
        launch!(spread::<u8><<<grid, 128, stream>>>(&mut out, &dx))?;
        assert_eq!(stream.to_host(&out)?, spread_reference(&x));
        Ok(())
    })
}
