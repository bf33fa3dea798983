//! The PTX of kernels written the way CUDA's samples and Numba's documentation write them
//! (`tests/kernels/bce.rs`, issue 15): a snapshot each, so that a change in which checks the
//! IR passes remove shows as a diff; `ptxas` must accept each.

#[path = "kernels/bce.rs"]
mod bce;

fn kernels() -> Vec<(&'static str, &'static str, &'static str)> {
    vec![
        (
            "transpose_coalesced",
            bce::transpose_coalesced::NAME,
            bce::transpose_coalesced::PTX,
        ),
        ("jacobi_2d", bce::jacobi_2d::NAME, bce::jacobi_2d::PTX),
        ("fast_matmul", bce::fast_matmul::NAME, bce::fast_matmul::PTX),
        ("vector_add", bce::vector_add::NAME, bce::vector_add::PTX),
        ("rows_from", bce::rows_from::NAME, bce::rows_from::PTX),
        ("sgemm_tiles", bce::sgemm_tiles::NAME, bce::sgemm_tiles::PTX),
        (
            "rows_from_unchecked",
            bce::rows_from_unchecked::rows_from::NAME,
            bce::rows_from_unchecked::rows_from::PTX,
        ),
    ]
}

#[test]
fn bce_ptx_snapshots() {
    for (name, _, ptx) in kernels() {
        insta::assert_snapshot!(name, ptx);
    }
}

#[test]
fn ptxas_accepts_every_bce_kernel() {
    cuprum_testkit::assert_ptxas_accepts(&kernels());
}

/// `passes::narrow`: the fast copy of the checked kernel computes the index it versions
/// away (`(j + 1) * nx + i`) in 32 bits and widens it once (`cvt.s64.s32` or
/// `mul.wide.s32`); its checked body, and the unchecked kernel, keep 64-bit indices.
#[test]
fn indices_are_computed_in_32_bits_in_the_fast_copy() {
    let checked = bce::rows_from::PTX;
    let unchecked = bce::rows_from_unchecked::rows_from::PTX;
    assert!(
        checked.contains("cvt.s64.s32") || checked.contains("mul.wide.s32"),
        "{checked}"
    );
    assert!(checked.contains("mul.lo.s64"), "{checked}");
    assert!(!unchecked.contains("mul.lo.s32"), "{unchecked}");
    assert!(unchecked.contains("mul.lo.s64"), "{unchecked}");
}

#[test]
fn a_declared_block_is_required_and_constant() {
    // `block = (32, 8)`: `.reqntid` (the driver refuses another shape), and `block_dim()`
    // folds to constants (no `%ntid` read).
    let ptx = bce::transpose_coalesced::PTX;
    assert!(ptx.contains(".reqntid 32, 8, 1"), "{ptx}");
    assert!(!ptx.contains("%ntid"), "{ptx}");
    assert!(!ptx.contains(".maxntid"), "{ptx}");
}

#[allow(dead_code)]
#[path = "kernels/big_frame.rs"]
mod big_frame;

/// A versioned body must not double a large local frame: `big_frame`'s 40 arrays of 1024
/// `f64` (320 KiB per thread) once asked for 640 KiB as a fast copy and a checked body,
/// past the GPU's 512 KiB per thread, and the launch failed with "invalid argument".
#[test]
fn versioning_never_doubles_a_large_frame() {
    let ptx = big_frame::big_frame::PTX;
    let depot: usize = ptx
        .split("__local_depot")
        .skip(1)
        .filter_map(|rest| rest.split_once('[')?.1.split_once(']')?.0.parse().ok())
        .max()
        .expect("big_frame keeps its arrays in local memory");
    let arrays = big_frame::ARRAYS * 1024 * 8;
    assert!(
        (arrays..arrays + 4096).contains(&depot),
        "local frame of {depot} bytes for {arrays} bytes of arrays"
    );
}
