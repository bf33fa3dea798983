//! Device functions with reference and sub-slice parameters, against the CPU (on the GPU host,
//! the GPU and the simulator each).

use cuprum::prelude::*;

#[path = "kernels/device_refs.rs"]
mod kernels;
use kernels::*;

#[test]
fn comparator_on_shared_elements_sorts_each_block() -> cuprum::Result<()> {
    for dev in cuprum_testkit::backends()? {
        let stream = dev.default_stream();
        let blocks = 5;
        let keys = cuprum_testkit::random_u32(blocks * 256);
        let vals: Vec<u32> = (0..blocks as u32 * 256).collect();
        let (mut dk, mut dv) = (stream.to_device(&keys)?, stream.to_device(&vals)?);
        launch!(sort_pairs_in_block<<<blocks as u32, 128, stream>>>(&mut dk, &mut dv))?;
        let (gk, gv) = (stream.to_host(&dk)?, stream.to_host(&dv)?);
        for b in 0..blocks {
            let r = b * 256..(b + 1) * 256;
            let mut want = keys[r.clone()].to_vec();
            want.sort_unstable();
            assert_eq!(gk[r.clone()], want[..], "{}: block {b}", dev.name());
            for i in r {
                assert_eq!(keys[gv[i] as usize], gk[i], "{}: value of {i}", dev.name());
            }
        }
    }
    Ok(())
}

#[test]
fn scan_helper_on_a_shared_array() -> cuprum::Result<()> {
    for dev in cuprum_testkit::backends()? {
        let stream = dev.default_stream();
        let blocks = 4;
        let x: Vec<u32> = (0..blocks * 128).map(|_| fastrand::u32(..1000)).collect();
        let dx = stream.to_device(&x)?;
        let mut out = stream.to_device(&vec![u32::MAX; x.len()])?;
        launch!(block_scan_with_helper<<<blocks as u32, 128, stream>>>(&mut out, &dx))?;
        let got = stream.to_host(&out)?;
        for b in 0..blocks {
            let mut acc = 0;
            for t in 0..128 {
                acc += x[b * 128 + t];
                assert_eq!(
                    got[b * 128 + t],
                    acc,
                    "{}: block {b} thread {t}",
                    dev.name()
                );
            }
        }
    }
    Ok(())
}

#[test]
fn sub_slices_local_arrays_and_references() -> cuprum::Result<()> {
    for dev in cuprum_testkit::backends()? {
        let stream = dev.default_stream();
        let (n, width) = (300, 4);
        let x = cuprum_testkit::random_f32(n + width, -2.0, 2.0);
        let dx = stream.to_device(&x)?;
        let stats0 = cuprum_testkit::random_f32(n, -2.0, 2.0);
        let mut stats = stream.to_device(&stats0)?;
        let mut out = stream.to_device(&vec![f32::NAN; n])?;
        launch!(parts<<<3, 128, stream>>>(&mut out, &mut stats, &dx, width))?;
        let (got, got_stats) = (stream.to_host(&out)?, stream.to_host(&stats)?);
        for i in 0..n {
            // The same device functions, as host Rust.
            let w = &x[i..i + width];
            let window = total(w) + w[w.len() - 1] * 0.5;
            let mut a = [0.0f32; 8];
            let written = fill(&mut a[2..6], x[i]);
            let (left, right) = a.split_at_mut(4);
            fill(left, 1.0);
            let (lo, hi) = min_max(right);
            let mut best = window;
            keep_max(&mut best, total(&a));
            let want = best + written as f32 + lo * 10.0 + hi * 100.0;
            assert!(
                (got[i] - want).abs() <= 1e-4 * (1.0 + want.abs()),
                "{}: element {i}: {} vs {want}",
                dev.name(),
                got[i]
            );
            assert_eq!(
                got_stats[i],
                stats0[i].max(x[i]),
                "{}: stats {i}",
                dev.name()
            );
        }
    }
    Ok(())
}

#[test]
fn a_sub_slice_past_the_end_stops_the_kernel() -> cuprum::Result<()> {
    for dev in cuprum_testkit::backends()? {
        let stream = dev.default_stream();
        let n = 100;
        let x = cuprum_testkit::random_f32(n, -2.0, 2.0);
        let dx = stream.to_device(&x)?;
        let mut stats = stream.to_device(&x)?;
        let mut out = stream.to_device(&vec![f32::NAN; n])?;
        // Thread n - 1 takes x[n - 1..n + 3]: past the end of x.
        let r = launch!(parts<<<1, 128, stream>>>(&mut out, &mut stats, &dx, 4));
        let r = r.and_then(|_| stream.synchronize());
        match r {
            Err(cuprum::Error::KernelPanic(p)) => {
                assert!(
                    p.to_string().contains("device_refs.rs"),
                    "{}: {p}",
                    dev.name()
                );
            }
            other => panic!("{}: expected a kernel panic, got {other:?}", dev.name()),
        }
    }
    Ok(())
}

#[test]
fn closures_passed_to_device_functions() -> cuprum::Result<()> {
    for dev in cuprum_testkit::backends()? {
        let stream = dev.default_stream();
        let n = 400;
        let x = cuprum_testkit::random_f32(n + 4, -2.0, 2.0);
        let scale = 1.5f32;
        let dx = stream.to_device(&x)?;
        let mut out = stream.to_device(&vec![f32::NAN; n])?;
        let mut calls = stream.to_device(&vec![u32::MAX; n])?;
        launch!(closures<<<4, 128, stream>>>(&mut out, &mut calls, &dx, scale))?;
        let (got, got_calls) = (stream.to_host(&out)?, stream.to_host(&calls)?);
        for i in 0..n {
            // The same device functions and closures, as host Rust.
            let mut count = 0u32;
            let scaled = |v: f32| v * scale;
            let sum = fold(&x[i..i + 4], 0.0, |a, b| a + scaled(b));
            let biggest = fold(&x[i..i + 4], f32::MIN, |a: f32, b: f32| a.max(b));
            let mut bump = |v: f32| -> f32 {
                count += 1;
                v + 1.0
            };
            let want = combine(sum, biggest, |a, b| bump(a) * b);
            assert!(
                (got[i] - want).abs() <= 1e-5 * (1.0 + want.abs()),
                "{}: element {i}: {} vs {want}",
                dev.name(),
                got[i]
            );
            assert_eq!(got_calls[i], count, "{}: calls {i}", dev.name());
        }
    }
    Ok(())
}

#[test]
fn device_functions_passed_by_name() -> cuprum::Result<()> {
    for dev in cuprum_testkit::backends()? {
        let stream = dev.default_stream();
        let n = 500usize;
        let grid = n.div_ceil(128);
        let x = cuprum_testkit::random_f32(n + 4, -2.0, 2.0);
        let dx = stream.to_device(&x)?;
        let mut out = stream.to_device(&vec![f32::NAN; n])?;
        let mut blocks = stream.to_device(&vec![f32::NAN; 2 * grid])?;
        launch!(functions_as_values<<<grid as u32, 128, stream>>>(&mut out, &mut blocks, &dx))?;
        let (got, got_blocks) = (stream.to_host(&out)?, stream.to_host(&blocks)?);
        for i in 0..n {
            // The same device functions, passed by name, as host Rust.
            let w = &x[i..i + 4];
            let sum = fold(w, 0.0, add_f);
            let biggest = fold(w, f32::MIN, larger::<f32>);
            let halves = fold_twice(w, 1.0, ops::add_half);
            let want = larger(combine(sum, biggest, add_f), halves * 10.0);
            assert!(
                (got[i] - want).abs() <= 1e-5 * (1.0 + want.abs()),
                "{}: element {i}: {} vs {want}",
                dev.name(),
                got[i]
            );
        }
        // Each block's maximum and sum over the elements below `x.len()` (`n + 4`).
        for b in 0..grid {
            let part = &x[128 * b..(128 * b + 128).min(x.len())];
            let max = part.iter().copied().fold(f32::MIN, f32::max);
            let sum: f32 = part.iter().sum();
            let abs: f32 = part.iter().map(|v| v.abs()).sum();
            assert_eq!(
                got_blocks[2 * b],
                max,
                "{}: block {b}'s maximum",
                dev.name()
            );
            assert!(
                (got_blocks[2 * b + 1] - sum).abs() <= 1e-5 * (1.0 + abs),
                "{}: block {b}'s sum: {} vs {sum}",
                dev.name(),
                got_blocks[2 * b + 1]
            );
        }
    }
    Ok(())
}
