//! Shared memory (static 1-D and 2-D, dynamic) and atomics on global and shared places.

use cuprum::prelude::*;

#[path = "kernels/shared.rs"]
mod kernels;
use kernels::*;

// The histogram is the example's (one home per kernel).
#[allow(dead_code)]
#[path = "../examples/histogram.rs"]
mod histogram_example;
use histogram_example::histogram;

fn rng() -> fastrand::Rng {
    fastrand::Rng::new()
}

#[test]
fn shared_histogram_counts_exactly() -> cuprum::Result<()> {
    // On the GPU host: the GPU and the simulator, each against the CPU.
    for dev in cuprum_testkit::backends()? {
        let stream = dev.default_stream();
        let n = 100_003;
        let mut r = rng();
        let data: Vec<u32> = (0..n).map(|_| r.u32(..)).collect();
        let mut want = vec![0u32; 256];
        for &d in &data {
            want[(d & 255) as usize] += 1;
        }
        let dd = stream.to_device(&data)?;
        let mut bins = stream.alloc_zeros::<u32>(256)?;
        launch!(histogram<<<40, 256, stream>>>(&mut bins, &dd))?;
        assert_eq!(stream.to_host(&bins)?, want);
    }
    Ok(())
}

#[test]
fn transpose_through_a_2d_tile() -> cuprum::Result<()> {
    // On the GPU host: the GPU and the simulator, each against the CPU.
    for dev in cuprum_testkit::backends()? {
        let stream = dev.default_stream();
        let (rows, cols) = (70u32, 45u32);
        let x = cuprum_testkit::random_f32((rows * cols) as usize, -1.0, 1.0);
        let dx = stream.to_device(&x)?;
        let mut out = stream.to_device(&vec![f32::NAN; x.len()])?;
        launch!(transpose<<<(cols.div_ceil(32), rows.div_ceil(32)), (32, 8), stream>>>(&mut out, &dx, rows, cols))?;
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
    }
    Ok(())
}

#[test]
fn block_scan_in_dynamic_shared_memory() -> cuprum::Result<()> {
    // On the GPU host: the GPU and the simulator, each against the CPU.
    for dev in cuprum_testkit::backends()? {
        let stream = dev.default_stream();
        let (block, blocks) = (256usize, 9usize);
        let n = block * blocks - 17;
        let mut r = rng();
        let x: Vec<i64> = (0..n).map(|_| r.i64(-1000..1000)).collect();
        let dx = stream.to_device(&x)?;
        let mut out = stream.to_device(&vec![i64::MIN; n])?;
        launch!(block_scan<<<blocks as u32, block as u32, (block * 8) as u32, stream>>>(&mut out, &dx))?;
        let got = stream.to_host(&out)?;
        for b in 0..blocks {
            let mut acc = 0;
            for t in 0..block {
                let i = b * block + t;
                if i < n {
                    acc += x[i];
                    assert_eq!(got[i], acc, "element {i}");
                }
            }
        }
    }
    Ok(())
}
