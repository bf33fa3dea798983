//! `gpu::match_all_sync`, `gpu::lanemask_*`, `gpu::clock` and `gpu::fast::*` against the CPU
//! (on the GPU host, the GPU and the simulator each).

use cuprum::prelude::*;

#[path = "kernels/intrinsics.rs"]
mod kernels;
use kernels::*;

#[test]
fn lane_masks_and_match_all() -> cuprum::Result<()> {
    for dev in cuprum_testkit::backends()? {
        let stream = dev.default_stream();
        let warps = 12;
        let n = warps * 32;
        let mut r = fastrand::Rng::new();
        // Every third warp holds one value in all lanes; the others differ somewhere.
        let mut x = Vec::new();
        let mut f = Vec::new();
        for w in 0..warps {
            let v = r.u32(..);
            for lane in 0..32 {
                let differs = w % 3 != 0 && lane == r.usize(..32);
                x.push(if differs || (w % 3 == 1 && lane == 7) {
                    v ^ 1
                } else {
                    v
                });
                f.push(if w % 3 == 2 { lane as f32 * 0.5 } else { 1.5 });
            }
        }
        let (dx, df) = (stream.to_device(&x)?, stream.to_device(&f)?);
        let mut masks = stream.to_device(&vec![0xdead_beef_u32; 4 * n])?;
        let mut all = stream.to_device(&vec![0xdead_beef_u32; 4 * n])?;
        launch!(warp_masks<<<warps as u32 / 4, 128, stream>>>(&mut masks, &mut all, &dx, &df))?;
        let (masks, all) = (stream.to_host(&masks)?, stream.to_host(&all)?);
        for i in 0..n {
            let lane = (i % 32) as u32;
            let lt = ((1u64 << lane) - 1) as u32;
            let le = ((2u64 << lane) - 1) as u32;
            assert_eq!(
                masks[4 * i..4 * i + 4],
                [lt, le, !le, !lt],
                "{}: thread {i}",
                dev.name()
            );
            let warp = i / 32 * 32..i / 32 * 32 + 32;
            let same = x[warp.clone()].iter().all(|&v| v == x[warp.start]);
            let samef = f[warp.clone()].iter().all(|&v| v == f[warp.start]);
            let m = |s: bool| if s { u32::MAX } else { 0 };
            assert_eq!(
                all[4 * i..4 * i + 4],
                [m(same), same as u32, m(samef), samef as u32],
                "{}: thread {i}",
                dev.name()
            );
        }
    }
    Ok(())
}

#[test]
fn fast_approximations_and_clock() -> cuprum::Result<()> {
    for dev in cuprum_testkit::backends()? {
        let stream = dev.default_stream();
        let n = 1000;
        // Where CUDA documents small errors: |x| <= π for sin and cos, moderate exponents,
        // divisors well inside 2^-126..2^126.
        let x = cuprum_testkit::random_f32(n, -3.0, 3.0);
        let y = cuprum_testkit::random_f32(n, 0.25, 8.0);
        let (dx, dy) = (stream.to_device(&x)?, stream.to_device(&y)?);
        let mut out = stream.to_device(&vec![f32::NAN; 5 * n])?;
        let mut ticks = stream.to_device(&vec![u32::MAX; n])?;
        launch!(fast_math<<<8, 128, stream>>>(&mut out, &mut ticks, &dx, &dy))?;
        let (out, ticks) = (stream.to_host(&out)?, stream.to_host(&ticks)?);
        for i in 0..n {
            let want = [x[i].exp(), y[i].ln(), x[i].sin(), x[i].cos(), x[i] / y[i]];
            for (k, w) in want.into_iter().enumerate() {
                let g = out[5 * i + k];
                assert!(
                    (g - w).abs() <= 2e-5 * w.abs().max(1.0),
                    "{}: element {i}, function {k}: {g} vs {w}",
                    dev.name()
                );
            }
            // The counter runs forward: the second read is not before the first.
            assert!(
                ticks[i] < u32::MAX / 2,
                "{}: ticks {}",
                dev.name(),
                ticks[i]
            );
        }
    }
    Ok(())
}
