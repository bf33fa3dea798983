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

#[test]
fn a_declared_block_is_required_and_constant() {
    // `block = (32, 8)`: `.reqntid` (the driver refuses another shape), and `block_dim()`
    // folds to constants (no `%ntid` read).
    let ptx = bce::transpose_coalesced::PTX;
    assert!(ptx.contains(".reqntid 32, 8, 1"), "{ptx}");
    assert!(!ptx.contains("%ntid"), "{ptx}");
    assert!(!ptx.contains(".maxntid"), "{ptx}");
}
