//! Kernels calling `pub` `#[device]` functions of another crate (`tests/device-lib`), against
//! the CPU (on the GPU host, the GPU and the simulator each).

use cuprum::prelude::*;
use cuprum_device_lib::stats;

#[kernel]
pub fn uses_another_crate(out: &mut [f32], best: &mut [f32], x: &[f32]) {
    let i = gpu::global_id_x();
    if i + 3 <= x.len() && i < out.len() {
        let mut local = [0.0f32; 3];
        local[0] = x[i];
        local[1] = x[i + 1];
        local[2] = x[i + 2];
        stats::map_in_place(&mut local, |v| v + 1.0);
        out[i] = stats::sum_squares(&x[i..i + 3]) + cuprum_device_lib::square(local[2]);
        stats::keep_max(&mut best[i], local[0]);
    }
}

#[test]
fn device_functions_of_another_crate() -> cuprum::Result<()> {
    for dev in cuprum_testkit::backends()? {
        let stream = dev.default_stream();
        let n = 300;
        let x = cuprum_testkit::random_f32(n + 3, -2.0, 2.0);
        let b0 = cuprum_testkit::random_f32(n, -1.0, 3.0);
        let dx = stream.to_device(&x)?;
        let mut out = stream.to_device(&vec![f32::NAN; n])?;
        let mut best = stream.to_device(&b0)?;
        launch!(uses_another_crate<<<3, 128, stream>>>(&mut out, &mut best, &dx))?;
        let (got, got_best) = (stream.to_host(&out)?, stream.to_host(&best)?);
        for i in 0..n {
            let want = stats::sum_squares(&x[i..i + 3]) + cuprum_device_lib::square(x[i + 2] + 1.0);
            assert!(
                (got[i] - want).abs() <= 1e-5 * (1.0 + want.abs()),
                "{}: element {i}: {} vs {want}",
                dev.name(),
                got[i]
            );
            assert_eq!(
                got_best[i],
                b0[i].max(x[i] + 1.0),
                "{}: best {i}",
                dev.name()
            );
        }
        // The library's own kernel, using the same functions.
        let mut sq = stream.to_device(&vec![f32::NAN; n])?;
        launch!(cuprum_device_lib::squares<<<3, 128, stream>>>(&mut sq, &dx))?;
        let sq = stream.to_host(&sq)?;
        for i in 0..n {
            assert_eq!(sq[i], 2.0 * x[i] * x[i], "{}: squares {i}", dev.name());
        }
    }
    Ok(())
}

/// Another crate's `#[device]` function passed by its path where another crate's device
/// function takes a closure.
#[kernel]
pub fn passes_another_crates_function(out: &mut [f32], x: &[f32]) {
    let i = gpu::global_id_x();
    if i + 2 <= x.len() && i < out.len() {
        let mut pair = [x[i], x[i + 1]];
        stats::map_in_place(&mut pair, cuprum_device_lib::square);
        out[i] = pair[0].max(pair[1]);
    }
}

#[test]
fn a_function_of_another_crate_passed_by_path() -> cuprum::Result<()> {
    let n = 300;
    let x = cuprum_testkit::random_f32(n + 2, -2.0, 2.0);
    // Every backend on the same input, each exactly as the host computes it (no rounding
    // differs: a square and a maximum).
    cuprum_testkit::on_backends(|dev| {
        let stream = dev.default_stream();
        let dx = stream.to_device(&x)?;
        let mut out = stream.to_device(&vec![f32::NAN; n])?;
        launch!(passes_another_crates_function<<<3, 128, stream>>>(&mut out, &dx))?;
        let got = stream.to_host(&out)?;
        for i in 0..n {
            let mut pair = [x[i], x[i + 1]];
            stats::map_in_place(&mut pair, cuprum_device_lib::square);
            assert_eq!(got[i], pair[0].max(pair[1]), "{}: element {i}", dev.name());
        }
        Ok(got.iter().map(|v| v.to_bits()).collect::<Vec<_>>())
    })
    .map(drop)
}
