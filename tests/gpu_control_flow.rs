//! Reversed ranges and iterator chains in kernels, against the CPU (on the GPU host, the GPU
//! and the simulator each).

use cuprum::prelude::*;

#[path = "kernels/control_flow.rs"]
mod kernels;
use kernels::*;

#[test]
fn reversed_and_stepped_ranges() -> cuprum::Result<()> {
    for dev in cuprum_testkit::backends()? {
        let stream = dev.default_stream();
        let n = 1000;
        let x = cuprum_testkit::random_u32(n);
        let dx = stream.to_device(&x)?;
        let mut out = stream.to_device(&vec![u32::MAX; n])?;
        launch!(reversed<<<8, 128, stream>>>(&mut out, &dx))?;
        let got = stream.to_host(&out)?;
        for i in 0..n {
            assert_eq!(got[i], reversed_mix(x[i]), "{}: element {i}", dev.name());
        }
    }
    Ok(())
}

#[test]
fn iterator_chains_over_slices_and_local_arrays() -> cuprum::Result<()> {
    for dev in cuprum_testkit::backends()? {
        let stream = dev.default_stream();
        let n = 500;
        let x = cuprum_testkit::random_f32(n, -2.0, 2.0);
        let w = cuprum_testkit::random_f32(11, -1.0, 1.0);
        let (dx, dw) = (stream.to_device(&x)?, stream.to_device(&w)?);
        let mut out = stream.to_device(&vec![f32::NAN; n])?;
        let mut scaled = stream.to_device(&vec![f32::NAN; n - 3])?;
        launch!(iterators<<<4, 128, stream>>>(&mut out, &mut scaled, &dx, &dw))?;
        let (got, got_scaled) = (stream.to_host(&out)?, stream.to_host(&scaled)?);
        for i in 0..n {
            let a: Vec<f32> = (0..8).map(|k| x[(i + k) % n] * (k as f32 + 1.0)).collect();
            let acc = a.iter().zip(&w).fold(0.0f32, |s, (v, c)| s + v * c);
            let m = a.iter().fold(f32::MIN, |m, v| m.max(v + 1.0));
            let want = acc + m;
            assert!(
                (got[i] - want).abs() <= 1e-5 * (1.0 + want.abs()) * 16.0,
                "{}: element {i}: {} vs {want}",
                dev.name(),
                got[i]
            );
        }
        for (k, (&g, &v)) in got_scaled.iter().zip(&x).enumerate() {
            assert_eq!(g, v * 2.0 + k as f32, "{}: scaled {k}", dev.name());
        }
    }
    Ok(())
}

#[test]
fn iterating_a_shared_array() -> cuprum::Result<()> {
    for dev in cuprum_testkit::backends()? {
        let stream = dev.default_stream();
        let blocks = 6;
        let x = cuprum_testkit::random_u32(blocks * 128);
        let dx = stream.to_device(&x)?;
        let mut out = stream.to_device(&vec![0xdead_beef_u32; blocks])?;
        launch!(shared_iter<<<blocks as u32, 128, stream>>>(&mut out, &dx))?;
        let got = stream.to_host(&out)?;
        for b in 0..blocks {
            let want = x[b * 128..(b + 1) * 128]
                .iter()
                .enumerate()
                .fold(0u32, |t, (k, v)| t.wrapping_add(v ^ k as u32));
            assert_eq!(got[b], want, "{}: block {b}", dev.name());
        }
    }
    Ok(())
}

#[test]
fn grid_stride_while_loops() -> cuprum::Result<()> {
    for dev in cuprum_testkit::backends()? {
        let stream = dev.default_stream();
        let (blocks, threads) = (7usize, 96usize);
        let total = blocks * threads;
        for n in [0, 5, total, 2 * total + 1, 100_003] {
            let x = cuprum_testkit::random_u32(n);
            let dx = stream.to_device(&x)?;
            let mut mixes = stream.to_device(&vec![u32::MAX; total])?;
            let mut firsts = stream.to_device(&vec![u32::MAX; total])?;
            launch!(stride_whiles<<<blocks as u32, threads as u32, stream>>>(
                &mut mixes, &mut firsts, &dx
            ))?;
            let (got_mix, got_first) = (stream.to_host(&mixes)?, stream.to_host(&firsts)?);
            for t in 0..total {
                let mut acc = 0u32;
                for i in (t..n).step_by(2 * total) {
                    acc = acc.wrapping_mul(3).wrapping_add(x[i]);
                    if i + total < n {
                        acc ^= x[i + total];
                    }
                }
                let first = (t..n)
                    .step_by(total)
                    .find(|&j| x[j] >= 1 << 31)
                    .unwrap_or(t + n.saturating_sub(t).div_ceil(total) * total);
                let name = dev.name();
                assert_eq!(got_mix[t], acc, "{name}: n {n}, thread {t}");
                assert_eq!(got_first[t], first as u32, "{name}: n {n}, thread {t}");
            }
        }
    }
    Ok(())
}
