//! Kernel attributes (`max_threads`/`min_blocks`, `fastmath`, `unchecked`) and fences.

use cuprum::prelude::*;

#[path = "kernels/options.rs"]
mod kernels;
use kernels::*;

#[test]
fn launch_bounds_hold_and_compute() -> cuprum::Result<()> {
    // On the GPU host: the GPU and the simulator, each against the CPU.
    for dev in cuprum_testkit::backends()? {
        let stream = dev.default_stream();
        let n = 1000;
        let x = cuprum_testkit::random_u32(n);
        let dx = stream.to_device(&x)?;
        let mut out = stream.alloc_zeros::<u32>(n)?;
        launch!(bounded<<<4, 256, stream>>>(&mut out, &dx))?;
        let got = stream.to_host(&out)?;
        for i in 0..n {
            assert_eq!(got[i], x[i].rotate_left(7) ^ 0x9e37_79b9, "element {i}");
        }
        // More threads than the kernel declared is an error before launch.
        match launch!(bounded<<<1, 512, stream>>>(&mut out, &dx)) {
            Err(Error::LaunchConfig(msg)) => assert!(msg.contains("max_threads = 256"), "{msg}"),
            other => panic!("expected a launch configuration error, got {other:?}"),
        }
    }
    Ok(())
}

#[test]
fn max_threads_bounds_thread_indices() -> cuprum::Result<()> {
    // On the GPU host: the GPU and the simulator, each against the CPU.
    for dev in cuprum_testkit::backends()? {
        let stream = dev.default_stream();
        let blocks = 6;
        let x = cuprum_testkit::random_u32(blocks * 256 - 17);
        let dx = stream.to_device(&x)?;
        let mut out = stream.alloc_zeros::<u32>(blocks * 8)?;
        launch!(warp_slots<<<blocks as u32, 256, stream>>>(&mut out, &dx))?;
        let got = stream.to_host(&out)?;
        for (slot, g) in got.iter().enumerate() {
            let want = x
                .iter()
                .skip(slot * 32)
                .take(32)
                .fold(0u32, |a, &v| a.wrapping_add(v));
            assert_eq!(*g, want, "block {}, warp {}", slot / 8, slot % 8);
        }
    }
    Ok(())
}

#[test]
fn fastmath_is_close_to_precise() -> cuprum::Result<()> {
    // On the GPU host: the GPU and the simulator, each against the CPU.
    for dev in cuprum_testkit::backends()? {
        let stream = dev.default_stream();
        let n = 2000;
        let x = cuprum_testkit::random_f32(n, 0.1, 3.0);
        let dx = stream.to_device(&x)?;
        let (mut a, mut b) = (stream.alloc_zeros::<f32>(n)?, stream.alloc_zeros::<f32>(n)?);
        launch!(fast<<<8, 256, stream>>>(&mut a, &dx))?;
        launch!(precise<<<8, 256, stream>>>(&mut b, &dx))?;
        let (a, b) = (stream.to_host(&a)?, stream.to_host(&b)?);
        for i in 0..n {
            let want = x[i].sin() * x[i].exp() / (1.0 + x[i].sqrt());
            assert!(
                cuprum_testkit::ulps_f32(b[i], want) <= 8,
                "precise {i}: {} vs {want}",
                b[i]
            );
            assert!(
                (a[i] - want).abs() <= 1e-4 * want.abs().max(1.0),
                "fast {i}: {} vs {want}",
                a[i]
            );
        }
    }
    Ok(())
}

#[test]
fn unchecked_kernels_compute_the_same() -> cuprum::Result<()> {
    // On the GPU host: the GPU and the simulator, each against the CPU.
    for dev in cuprum_testkit::backends()? {
        let stream = dev.default_stream();
        let x = cuprum_testkit::random_f32(777, -1.0, 1.0);
        let dx = stream.to_device(&x)?;
        let mut out = stream.to_device(&vec![f32::NAN; 777])?;
        // SAFETY: `unchecked_copy` guards its index by `x.len()`, and `out` is as long as `x`.
        unsafe { launch!(unchecked_copy<<<4, 256, stream>>>(&mut out, &dx)) }?;
        assert_eq!(stream.to_host(&out)?, x);
        assert!(!unchecked_copy::PTX.contains("__cuprum_panic"));
    }
    Ok(())
}

#[test]
fn fences_order_writes() -> cuprum::Result<()> {
    // On the GPU host: the GPU and the simulator, each against the CPU.
    for dev in cuprum_testkit::backends()? {
        let stream = dev.default_stream();
        let blocks = 64;
        let (mut data, mut flags) = (
            stream.alloc_zeros::<u32>(blocks)?,
            stream.alloc_zeros::<u32>(blocks)?,
        );
        launch!(fences<<<blocks as u32, 32, stream>>>(&mut data, &mut flags))?;
        assert_eq!(
            stream.to_host(&data)?,
            (1..=blocks as u32).collect::<Vec<_>>()
        );
        assert!(stream.to_host(&flags)?.iter().all(|&f| f == 1));
    }
    Ok(())
}
