//! The PTX of the kernels that use the v0.2 language (`const`/`static` items, `gpu::Num`, const generics): an insta
//! snapshot each, and `ptxas` must accept each for sm_90 without spilling.

#[path = "kernels/const_generics.rs"]
mod const_generics;
#[path = "kernels/consts.rs"]
mod consts;
// The example that shows constants: snapshotted here rather than in `examples_ptx`, where
// adding it made clippy-driver 1.95 crash (SIGSEGV, not in rustc) on every run.
#[allow(dead_code)]
#[path = "../examples/convolution.rs"]
mod convolution;
#[path = "kernels/numbers.rs"]
mod numbers;

/// (snapshot name, PTX entry, PTX) of every kernel.
fn kernels() -> Vec<(&'static str, &'static str, &'static str)> {
    macro_rules! k {
        ($($m:ident :: $k:ident $(<$($t:tt),+>)?),* $(,)?) => {
            vec![$((concat!(stringify!($m), "__", stringify!($k) $($(, "_", stringify!($t))+)?), $m::$k $(::<$($t),+>)?::NAME, $m::$k $(::<$($t),+>)?::PTX)),*]
        };
    }
    k![
        consts::const_scalars,
        consts::const_tables,
        consts::smooth,
        consts::tile_transpose,
        consts::body_consts,
        consts::weighted,
        consts::via_device,
        consts::pairs,
        consts::copy_table,
        convolution::convolve_rows,
        convolution::convolve_cols,
        numbers::spread<f32>,
        numbers::spread<u8>,
        const_generics::block_sum<256>,
        const_generics::chunk_sum<f32, 4>,
        const_generics::dots,
    ]
}

#[test]
fn language_ptx_snapshots() {
    for (name, _, ptx) in kernels() {
        insta::assert_snapshot!(name, ptx);
    }
}

/// The fast module of convolve_cols (its launch-selected copy alone, which the launch runs when
/// its versioning test holds): the output loop is whole, for ptxas to unroll as in the
/// unchecked kernel (bench/NOTES.md, `convcols`).
#[test]
fn convolve_cols_fast_module_snapshot() {
    let ptx = convolution::convolve_cols::FAST_PTX.expect("convolve_cols has a fast module");
    assert!(!ptx.contains("__cuprum_panic"), "{ptx}");
    insta::assert_snapshot!("convolution__convolve_cols_fast", ptx);
}

#[test]
fn ptxas_accepts_every_language_kernel() {
    cuprum_testkit::assert_ptxas_accepts(&kernels());
    let fast = convolution::convolve_cols::FAST_PTX.expect("a fast module");
    cuprum_testkit::assert_ptxas_accepts(&[(
        "convolution__convolve_cols_fast",
        convolution::convolve_cols::NAME,
        fast,
    )]);
}

#[test]
fn tables_live_in_constant_memory() {
    for ptx in [consts::weighted::PTX, consts::const_tables::PTX] {
        assert!(ptx.contains(".const .align"), "no .const table:\n{ptx}");
        assert!(
            ptx.contains("ld.const"),
            "the table is not read as .const:\n{ptx}"
        );
    }
    // Read at constant indices, the table folds into the code.
    assert!(!consts::smooth::PTX.contains(".local"));
}

/// The `convolution` example (module constants, a `static` filter) on the simulator.
#[test]
fn convolution_example_runs_on_the_simulator() {
    match convolution::run(&cuprum::Device::simulator()) {
        Ok(Ok(summary)) => eprintln!("convolution: {summary}"),
        Ok(Err(wrong)) => panic!("convolution: wrong result: {wrong}"),
        Err(e) => panic!("convolution: {e}"),
    }
}
