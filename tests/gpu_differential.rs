//! The cheapest codegen test: every example kernel on the GPU and on the simulator, on the
//! same fresh inputs, must agree (exactly for integer kernels, within a few ulps for floating
//! point: the GPU contracts `a * b + c` into FMAs and takes `exp` and friends from libdevice).
//! Needs a GPU: without one it says so and passes, unless `CUPRUM_DEVICE=gpu` demands one.

use cuprum::{Device, Error};
use cuprum_testkit::ulps_f32;

macro_rules! examples {
    ($($m:ident = $p:literal;)*) => {$(
        #[allow(dead_code)]
        #[path = $p]
        mod $m;
    )*};
}

examples! {
    saxpy = "../examples/saxpy.rs";
    reduce_sum = "../examples/reduce_sum.rs";
    histogram = "../examples/histogram.rs";
    transpose = "../examples/transpose.rs";
    matmul = "../examples/matmul.rs";
    block_scan = "../examples/block_scan.rs";
    softmax = "../examples/softmax.rs";
    jacobi = "../examples/jacobi.rs";
    black_scholes = "../examples/black_scholes.rs";
    cooperative = "../examples/cooperative.rs";
    bitonic_sort = "../examples/bitonic_sort.rs";
}

/// The GPU, or `None` (after saying why) when there is none and none is demanded.
fn gpu() -> Option<Device> {
    match Device::gpu(0) {
        Ok(d) => Some(d),
        Err(Error::NoGpu) if std::env::var("CUPRUM_DEVICE").map_or(true, |v| v == "sim") => {
            eprintln!("gpu_differential: skipped: no GPU to compare the simulator with");
            None
        }
        Err(e) => panic!("CUPRUM_DEVICE asks for a GPU: {e}"),
    }
}

fn close_f32(what: &str, a: &[f32], b: &[f32], ulps: u64) {
    assert_eq!(a.len(), b.len(), "{what}: lengths");
    for (i, (&x, &y)) in a.iter().zip(b).enumerate() {
        assert!(
            ulps_f32(x, y) <= ulps || (x - y).abs() <= 1e-6,
            "{what}: element {i}: GPU {x}, simulator {y}"
        );
    }
}

#[test]
fn every_example_agrees_on_gpu_and_simulator() -> cuprum::Result<()> {
    let Some(gpu) = gpu() else { return Ok(()) };
    let sim = Device::simulator();
    let (g, s) = (gpu.default_stream(), sim.default_stream());

    let (x, y, a) = saxpy::inputs(&sim);
    close_f32(
        "saxpy",
        &saxpy::compute(&g, &x, &y, a)?.0,
        &saxpy::compute(&s, &x, &y, a)?.0,
        1,
    );

    let x = reduce_sum::inputs(&sim);
    let (rg, rs) = (
        reduce_sum::compute(&g, &x, 64)?,
        reduce_sum::compute(&s, &x, 64)?,
    );
    assert!(
        ((rg - rs) / rs).abs() <= 1e-5,
        "reduce_sum: GPU {rg}, simulator {rs} (the atomics' order differs)"
    );

    let d = histogram::inputs(&sim);
    assert_eq!(
        histogram::compute(&g, &d, 64)?,
        histogram::compute(&s, &d, 64)?,
        "histogram"
    );

    let (m, rows, cols) = transpose::inputs(&sim);
    assert_eq!(
        transpose::compute(&g, &m, rows, cols)?,
        transpose::compute(&s, &m, rows, cols)?,
        "transpose"
    );

    let (am, bm, mm, nn, kk) = matmul::inputs(&sim);
    close_f32(
        "matmul",
        &matmul::compute(&g, &am, &bm, mm, nn, kk)?,
        &matmul::compute(&s, &am, &bm, mm, nn, kk)?,
        64,
    );

    let x = block_scan::inputs(&sim);
    assert_eq!(
        block_scan::compute(&g, &x)?,
        block_scan::compute(&s, &x)?,
        "block_scan"
    );

    let x = softmax::inputs(&sim);
    close_f32(
        "softmax",
        &softmax::compute(&g, &x)?,
        &softmax::compute(&s, &x)?,
        8,
    );

    let (grid, n) = jacobi::inputs(&sim);
    assert_eq!(
        jacobi::compute(&g, &grid, n)?,
        jacobi::compute(&s, &grid, n)?,
        "jacobi (no contraction possible)"
    );

    let o = black_scholes::inputs(&sim);
    let ((cg, pg), (cs, ps)) = (
        black_scholes::compute(&g, &o)?,
        black_scholes::compute(&s, &o)?,
    );
    for i in 0..cg.len() {
        for (what, a, b) in [("call", cg[i], cs[i]), ("put", pg[i], ps[i])] {
            assert!(
                (a - b).abs() <= 1e-4 + 1e-4 * b.abs(),
                "black_scholes {what} {i}: GPU {a}, simulator {b}"
            );
        }
    }

    let u0 = cooperative::inputs(&sim);
    let (ug, us) = (
        cooperative::compute(&g, &u0, 0.25, 41)?,
        cooperative::compute(&s, &u0, 0.25, 41)?,
    );
    for (i, (a, b)) in ug.iter().zip(&us).enumerate() {
        assert!(
            (a - b).abs() <= 1e-4 * (1.0 + b.abs()),
            "cooperative {i}: GPU {a}, simulator {b}"
        );
    }

    let keys = bitonic_sort::inputs(&sim);
    assert_eq!(
        bitonic_sort::compute(&g, &keys)?,
        bitonic_sort::compute(&s, &keys)?,
        "bitonic_sort"
    );
    Ok(())
}
