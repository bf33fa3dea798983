//! Comparisons of 64-bit integers in 32 bits (`passes::compare32`): where value ranges put
//! both operands there, where the launch-selected copy assumes what the launch tests, and
//! where they may exceed 32 bits (left alone).

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

/// The bench's Jacobi step: `n: u32` widened, `n - 1` under `i < n`.
const JACOBI: &str = "fn jacobi(out: &mut [f32], inp: &[f32], n: u32) {
    let j = (gpu::block_idx().x * 32 + gpu::thread_idx().x) as usize;
    let i = (gpu::block_idx().y * 8 + gpu::thread_idx().y) as usize;
    let n = n as usize;
    if i < n && j < n {
        let idx = i * n + j;
        if i == 0 || j == 0 || i == n - 1 || j == n - 1 {
            out[idx] = inp[idx];
        } else {
            out[idx] = 0.25 * ((inp[idx - n] + inp[idx + n]) + (inp[idx - 1] + inp[idx + 1]));
        }
    }
}";

fn unchecked(src: &str) -> cuprum_codegen::CompiledKernel {
    let options = KernelOptions {
        checked: false,
        ..KernelOptions::default()
    };
    compile_with(src, &options).expect("compiles")
}

fn ir(k: &cuprum_codegen::CompiledKernel) -> String {
    crate::print::program(&k.program)
}

/// The 64-bit comparisons (`setp` on `.u64`, `.s64`, `.b64`) of a kernel's entry.
fn wide_compares(ptx: &str, name: &str) -> usize {
    entry_body(ptx, name)
        .lines()
        .filter(|l| {
            let l = l.trim_start();
            l.starts_with("setp.") && (l.contains("64 ") || l.contains("64\t"))
        })
        .count()
}

/// jacobi's guard and boundary test (`i == n - 1`, `n - 1` in `usize` under `i < n`) compare
/// values that fit in 32 bits: in 32 bits, in the unchecked build and in both bodies of the
/// checked one.
#[test]
fn jacobis_boundary_test_is_compared_in_32_bits() {
    for k in [unchecked(JACOBI), compile(JACOBI)] {
        let text = ir(&k);
        assert!(
            text.contains("(fits32(i_4) == fits32((n_5 - 1usize)))"),
            "{text}"
        );
        assert!(text.contains("(fits32(j_3) < fits32(n_5))"), "{text}");
    }
    // (The checked body's index checks compare in 64 bits.)
    let k = unchecked(JACOBI);
    assert_eq!(wide_compares(&k.ptx, "jacobi"), 0, "{}", k.ptx);
}

/// Operands that may lie past 32 bits keep their 64-bit comparison: a global index (up to
/// 2⁴¹) against a `usize` parameter, `n - 1` where nothing says `n >= 1` (it wraps to
/// 2⁶⁴ − 1 for `n = 0`), `n + 5` (past 2³² for the largest `u32`s), a `u64` shifted. With a
/// guard that proves `n >= 1`, the same `n - 1` is narrowed.
#[test]
fn values_that_may_exceed_32_bits_are_compared_in_64() {
    for src in [
        "fn k(out: &mut [u32], n: usize) { let i = gpu::global_id_x(); if i < n { out[0] = 1; } }",
        "fn k(out: &mut [u32], n: u32) {
            let i = gpu::thread_idx().x as usize;
            if i == (n as usize) - 1 { out[0] = 1; }
        }",
        "fn k(out: &mut [u32], n: u32) {
            let m = (n as usize) + 5;
            let i = gpu::thread_idx().x as usize;
            if i < m { out[0] = 1; }
        }",
        "fn k(out: &mut [u32], n: u32) {
            let m = (n as u64) << 3;
            let i = gpu::thread_idx().x as u64;
            if i < m { out[0] = 1; }
        }",
    ] {
        for k in [unchecked(src), compile(src)] {
            let text = ir(&k);
            assert!(!text.contains("fits32"), "{text}");
        }
        let k = unchecked(src);
        assert_eq!(wide_compares(&k.ptx, "k"), 1, "{}", k.ptx);
    }
    let guarded = "fn k(out: &mut [u32], n: u32) {
        let i = gpu::thread_idx().x as usize;
        let n = n as usize;
        if i < n && i == n - 1 { out[0] = 1; }
    }";
    let k = unchecked(guarded);
    assert!(ir(&k).contains("fits32((n_3 - 1usize))"), "{}", ir(&k));
    assert_eq!(wide_compares(&k.ptx, "k"), 0, "{}", k.ptx);
}

/// Laplace's `i + 1 < nx` (`i` a global index, `nx: usize`) fits only where the launch has
/// tested `nx` and `grid_dim().x · block_dim().x` below 2³¹: in the launch-selected copy,
/// whose test gains those bounds. The checked body and the unchecked build compare in 64 bits.
#[test]
fn the_fast_copy_assumes_what_the_launch_tests() {
    let k = compile(LAPLACE);
    let text = ir(&k);
    let (fast, body) = text.split_once("} else {").expect("versioned");
    assert!(
        fast.contains("(fits32((i_4 + 1usize)) < fits32(nx_2))"),
        "{text}"
    );
    assert!(body.contains("((i_4 + 1usize) < nx_2)"), "{text}");
    assert!(text.contains("1·nx_2 <= 2147483647"), "{text}");
    assert!(
        text.contains("1·grid_dim().x·block_dim().x <= 2147483648"),
        "{text}"
    );
    let t = k.program.host_test.as_ref().unwrap();
    // 8192 × 8192 in blocks of 32 × 8: the fast copy; `nx = 2³¹` or 2³¹ threads and more
    // along x: the checked body.
    let (grid, nx, ny) = ((256u64, 1024u64), 8192u64, 8192u64);
    assert!(holds(t, [nx * ny; 2], nx, ny, grid));
    assert!(!holds(t, [nx * ny; 2], 1 << 31, 1, grid));
    assert!(!holds(t, [nx * ny; 2], nx, ny, ((1 << 26) + 1, 1)));
    assert!(holds(t, [nx * ny; 2], nx, ny, (1 << 26, 1)));
    let u = unchecked(LAPLACE);
    assert!(!ir(&u).contains("fits32((i_4 + 1usize))"), "{}", ir(&u));
}

/// `Σ terms <= values[len]` for each of laplace's tests: lengths of `out` and `inp`, `nx`,
/// `ny`, grid in blocks of 32 × 8.
fn holds(t: &HostTest, lens: [u64; 2], nx: u64, ny: u64, grid: (u64, u64)) -> bool {
    let values: Vec<u64> = t
        .values
        .iter()
        .map(|v| match v {
            HostValue::Len(k) => lens[*k],
            HostValue::Scalar(2) => nx,
            HostValue::Scalar(3) => ny,
            HostValue::Const(c) => *c,
            HostValue::GridDim(0) => grid.0,
            HostValue::GridDim(1) => grid.1,
            HostValue::BlockDim(0) => 32,
            HostValue::BlockDim(1) => 8,
            other => panic!("{other:?}"),
        })
        .collect();
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

/// A guard of pure comparisons is one condition (`and` of the four, one branch), as nvcc's:
/// laplace's unchecked kernel branches once before its loads.
#[test]
fn a_pure_guard_is_one_branch() {
    let k = unchecked(LAPLACE);
    let body = entry_body(&k.ptx, "laplace");
    let before_loads = body.split("ld.global").next().unwrap();
    assert_eq!(before_loads.matches("bra").count(), 1, "{body}");
}
