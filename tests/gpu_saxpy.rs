//! saxpy through `Device::default()` on fresh random data, against a CPU reference.

use cuprum::prelude::*;
use cuprum_testkit::{compare_f32, random_f32, random_scalar};

// saxpy is the example's (one home per kernel).
#[allow(dead_code)]
#[path = "../examples/saxpy.rs"]
mod saxpy_example;
use saxpy_example::saxpy;

/// A grid-stride loop: every element is visited whatever the grid size.
#[kernel]
pub fn saxpy_strided(y: &mut [f32], x: &[f32], a: f32) {
    for i in (gpu::global_id_x()..y.len()).step_by(gpu::grid_stride_x()) {
        y[i] = a * x[i] + y[i];
    }
}

fn check(n: usize, strided: bool) -> cuprum::Result<()> {
    // On the GPU host: the GPU and the simulator, each against the CPU.
    for dev in cuprum_testkit::backends()? {
        let stream = dev.default_stream();
        let x = random_f32(n, -4.0, 4.0);
        let y = random_f32(n, -4.0, 4.0);
        let a = random_scalar(-3.0, 3.0);
        let dx = stream.to_device(&x)?;
        let mut dy = stream.to_device(&y)?;
        if strided {
            launch!(saxpy_strided<<<7, 128, stream>>>(&mut dy, &dx, a))?;
        } else {
            saxpy::launch(&stream, LaunchConfig::for_elements(n, 256), &mut dy, &dx, a)?;
        }
        let got = stream.to_host(&dy)?;
        let want: Vec<f32> = x.iter().zip(&y).map(|(&x, &y)| a * x + y).collect();
        let scale: Vec<f32> = x.iter().map(|&x| (a * x).abs()).collect();
        compare_f32(&got, &want, &scale, 2.0 * f32::EPSILON)
            .unwrap_or_else(|e| panic!("n = {n}: {e}"));
    }
    Ok(())
}

#[test]
fn saxpy_matches_cpu_reference() -> cuprum::Result<()> {
    for n in [1, 255, 256, 1000, 1 << 20] {
        check(n, false)?;
    }
    Ok(())
}

#[test]
fn grid_stride_loop_covers_every_element() -> cuprum::Result<()> {
    for n in [1, 100, 7 * 128, 100_003] {
        check(n, true)?;
    }
    Ok(())
}

#[test]
fn views_launch_like_buffers() -> cuprum::Result<()> {
    // On the GPU host: the GPU and the simulator, each against the CPU.
    for dev in cuprum_testkit::backends()? {
        let stream = dev.default_stream();
        let n = 10_000;
        let x = random_f32(n, -1.0, 1.0);
        let y = random_f32(n, -1.0, 1.0);
        let dx = stream.to_device(&x)?;
        let mut dy = stream.to_device(&y)?;
        let (lo, hi) = (1234, 8765);
        launch!(saxpy<<<LaunchConfig::for_elements(hi - lo, 128).grid, 128, stream>>>(&mut dy.slice_mut(lo..hi), &dx.slice(lo..hi), 2.0))?;
        let got = stream.to_host(&dy)?;
        for i in 0..n {
            let want = if (lo..hi).contains(&i) {
                2.0 * x[i] + y[i]
            } else {
                y[i]
            };
            assert!(
                (got[i] - want).abs() <= 4.0 * f32::EPSILON * (2.0 * x[i].abs() + want.abs()),
                "element {i}: {} vs {want}",
                got[i]
            );
        }
    }
    Ok(())
}
