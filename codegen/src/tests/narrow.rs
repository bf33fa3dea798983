//! 32-bit index arithmetic (`passes::narrow`): where it is applied, and the launch's test that
//! makes it exact.

use cuprum_codegen::{HostTest, HostValue, KernelOptions};

use super::common::{compile, compile_with, entry_body};

const LAPLACE: &str = "fn laplace(out: &mut [f32], inp: &[f32], nx: usize, ny: usize) {
    let (i, j) = (gpu::global_id_x(), gpu::global_id_y());
    if i >= 1 && j >= 1 && i + 1 < nx && j + 1 < ny {
        out[j * nx + i] = 0.25
            * (inp[j * nx + i - 1]
                + inp[j * nx + i + 1]
                + inp[(j - 1) * nx + i]
                + inp[(j + 1) * nx + i]);
    }
}";

fn unchecked(src: &str) -> cuprum_codegen::CompiledKernel {
    let options = KernelOptions {
        checked: false,
        ..KernelOptions::default()
    };
    compile_with(src, &options).expect("compiles")
}

/// `Σ terms <= values[len]` for each test, exactly, as the launch computes it.
fn holds(t: &HostTest, values: &[u64]) -> bool {
    t.tests.iter().all(|(terms, len)| {
        let sum: i128 = terms
            .iter()
            .map(|(c, f)| {
                c * f
                    .iter()
                    .map(|&k| i128::from(values[k as usize]))
                    .product::<i128>()
            })
            .sum();
        sum <= i128::from(values[*len as usize])
    })
}

/// Laplace's values: lengths of out and inp, nx, ny, constants.
fn values(t: &HostTest, out: u64, inp: u64, nx: u64, ny: u64) -> Vec<u64> {
    t.values
        .iter()
        .map(|v| match v {
            HostValue::Len(0) => out,
            HostValue::Len(1) => inp,
            HostValue::Scalar(2) => nx,
            HostValue::Scalar(3) => ny,
            HostValue::Const(c) => *c,
            // Blocks of 32 × 8 covering the grid (`passes::compare32`'s tests).
            HostValue::BlockDim(0) => 32,
            HostValue::BlockDim(1) => 8,
            HostValue::GridDim(0) => nx.div_ceil(32),
            HostValue::GridDim(1) => ny.div_ceil(8),
            other => panic!("{other:?}"),
        })
        .collect()
}

/// The fast copy is taken for lengths of up to 2³¹ less the largest literal offset of the
/// slice's narrowed indices (`inp[j * nx + i - 1]`: `x - 1` with `x` sign-extended from 32
/// bits, so `x` must stay below 2³¹), never past them; the 64-bit checked body runs there.
#[test]
fn the_launch_tests_the_lengths_below_2_pow_31() {
    let k = compile(LAPLACE);
    let t = k.program.host_test.as_ref().expect("versioned");
    let (nx, big) = (1u64 << 16, 1u64 << 31);
    // `nx · ny` elements: the bounds hold for every `ny`; the lengths decide.
    for (len_out, len_in, fast) in [
        (big - 1, big - 1, true),
        (big, big - 1, true),
        (big - 1, big, false),
        (big + 1, big - 1, false),
    ] {
        let ny = len_out.min(len_in) / nx;
        let v = values(t, len_out, len_in, nx, ny);
        assert_eq!(holds(t, &v), fast, "out {len_out} in {len_in}");
    }
    // The fast copy computes `j * nx + i` in 32 bits; the checked body in 64.
    let body = entry_body(&k.ptx, "laplace");
    assert!(body.contains("mul.lo.s32"), "{body}");
    // Widened once per address: `mul.wide.s32 i, 4` (or `cvt.s64.s32` then a shift).
    assert!(
        body.contains("mul.wide.s32") || body.contains("cvt.s64.s32"),
        "{body}"
    );
    assert!(body.contains("mul.lo.s64"), "{body}");
}

/// An `unchecked` kernel gets no copy with 32-bit indices (laplace's measured nothing on the
/// H200: bench/NOTES.md, `stencil`), and takes no flag.
#[test]
fn unchecked_kernels_keep_their_single_body() {
    for src in [
        LAPLACE,
        "fn k(x: &mut [f32], n: usize) { let i = gpu::global_id_x(); x[i * n + 1] = 0.0; }",
    ] {
        let k = unchecked(src);
        assert!(k.program.host_test.is_none(), "{src}");
        assert!(!k.ptx.contains("mul.lo.s32"), "{}", k.ptx);
    }
}

/// Indices whose checks stay (not known in range) keep 64 bits in a checked kernel.
#[test]
fn checked_indices_stay_64_bits() {
    let k = compile(
        "fn k(x: &mut [f32], n: usize) { let i = gpu::global_id_x(); x[i * n + 1] = 0.0; }",
    );
    assert!(!k.ptx.contains("mul.lo.s32"), "{}", k.ptx);
    assert!(k.program.host_test.is_none());
}

/// The two copies of a launch-versioned kernel end apart (the checked body in its own
/// `exit`), and both keep every store: ended by `llvm.nvvm.exit` (which reads no memory), a
/// copy lost three of `transpose`'s four stores after its barrier as dead (wrong on the H200;
/// the simulator runs the IR, not the PTX).
#[test]
fn the_fast_copy_keeps_its_stores() {
    let src = "fn transpose(out: &mut [f32], inp: &[f32], rows: u32, cols: u32) {
        let tile = gpu::shared_array_2d::<f32, 32, 33>();
        let (bx, by) = (gpu::block_idx().x * 32, gpu::block_idx().y * 32);
        let (tx, ty) = (gpu::thread_idx().x, gpu::thread_idx().y);
        for k in [0u32, 8, 16, 24] {
            let (r, c) = (by + ty + k, bx + tx);
            if r < rows && c < cols {
                tile[(ty + k) as usize][tx as usize] = inp[r as usize * cols as usize + c as usize];
            }
        }
        gpu::sync_threads();
        for k in [0u32, 8, 16, 24] {
            let (orow, ocol) = (bx + ty + k, by + tx);
            if orow < cols && ocol < rows {
                out[orow as usize * rows as usize + ocol as usize] = tile[tx as usize][(ty + k) as usize];
            }
        }
    }";
    let options = KernelOptions {
        block: Some([32, 8, 1]),
        ..KernelOptions::default()
    };
    let k = compile_with(src, &options).expect("compiles");
    assert!(
        k.program.host_test.is_some(),
        "versioned on the launch's flag"
    );
    let body = entry_body(&k.ptx, "transpose");
    // The fast copy is laid out first and ends in `ret`; the checked body (and its failure
    // paths) after it, ending in `exit`.
    let (fast, checked) = body.split_once("ret;").expect("the fast copy returns");
    assert!(!fast.contains("__cuprum_panic"), "{body}");
    assert!(checked.contains("exit;"), "{body}");
    let stores = |s: &str| s.matches("st.global").count();
    assert_eq!(stores(fast), 4, "{body}");
    assert_eq!(stores(checked), 4, "{body}");
}
