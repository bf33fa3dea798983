//! Host-evaluated versioning (`passes::host`): the test the launch evaluates reads the
//! launch's values, and holds only when every access of the fast copy is in bounds.

use cuprum_abi::versioning::{holds, Term, Test};
use cuprum_codegen::{HostTest, HostValue};

use super::common::{compile, entry_body};

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

/// `test.holds` for these values, as the launch computes it.
fn evaluate(t: &HostTest, values: &[u64]) -> bool {
    let terms: Vec<Vec<Term>> = t
        .tests
        .iter()
        .map(|(terms, _)| {
            terms
                .iter()
                .map(|(c, f)| Term {
                    coefficient: *c,
                    factors: f,
                })
                .collect()
        })
        .collect();
    let tests: Vec<Test> = t
        .tests
        .iter()
        .zip(&terms)
        .map(|((_, len), terms)| Test { terms, len: *len })
        .collect();
    holds(&tests, values)
}

#[test]
fn the_launch_tests_the_values_the_kernel_reads() {
    let k = compile(LAPLACE);
    let t = k
        .program
        .host_test
        .as_ref()
        .expect("laplace is versioned on a host test");
    // Parameters by position: out 0, inp 1, nx 2, ny 3.
    let mut values = t.values.clone();
    values.sort_by_key(|v| format!("{v:?}"));
    assert_eq!(
        values,
        [
            HostValue::BlockDim(0),
            HostValue::BlockDim(1),
            HostValue::Const((1 << 31) - 1),
            HostValue::Const(1 << 31),
            HostValue::GridDim(0),
            HostValue::GridDim(1),
            HostValue::Len(0),
            HostValue::Len(1),
            HostValue::Scalar(2),
            HostValue::Scalar(3)
        ]
    );
    // The kernel takes the flag after its parameters, before the panic record's address,
    // and tests nothing else before choosing its copy: no 64-bit products on entry.
    let body = entry_body(&k.ptx, "laplace");
    let header = body.split(')').next().unwrap();
    let params: Vec<&str> = header
        .lines()
        .filter(|l| l.trim_start().starts_with(".param"))
        .collect();
    assert_eq!(params.len(), 8, "{body}");
    assert!(params[6].contains(".param .u32 laplace_param_6"), "{body}");
    assert!(params[7].contains(".ptr .global .align 8"), "{body}");
    // Nor the code both copies begin with (hoisted above the branch, it made ptxas
    // schedule transpose_coalesced's loads after a store: bench/NOTES.md, `hostflag`).
    let entry = body.split("bra").next().unwrap();
    assert!(
        !entry.contains("mul") && !entry.contains("%tid"),
        "work before the branch:\n{body}"
    );
    // A kernel the passes do not version takes no flag.
    let plain = compile("fn k(x: &mut [f32]) { x[0] = 1.0; }");
    assert!(plain.program.host_test.is_none());
    assert!(!plain.ptx.contains(".param .u32"), "{}", plain.ptx);
}

/// Every index the fast copy of `laplace` computes for an `ny × nx` launch is below the
/// lengths whenever the test holds (brute force over every thread the guard admits), and
/// the test holds for the lengths the kernel is written for.
#[test]
fn the_host_test_holds_only_when_every_access_is_in_bounds() {
    let k = compile(LAPLACE);
    let t = k.program.host_test.as_ref().unwrap();
    let value = |v: &HostValue, lens: [u64; 2], nx: u64, ny: u64| match v {
        HostValue::Len(p) => lens[*p],
        HostValue::Scalar(2) => nx,
        HostValue::Scalar(3) => ny,
        HostValue::Const(c) => *c,
        // A block of 32 × 8 threads, one block per axis (below 2³¹ global indices: the
        // fast copy's 32-bit comparisons, `passes::compare32`).
        HostValue::BlockDim(0) => 32,
        HostValue::BlockDim(1) => 8,
        HostValue::GridDim(_) => 1,
        other => panic!("{other:?}"),
    };
    let mut held = 0;
    for nx in 0..9u64 {
        for ny in 0..9u64 {
            let n = nx * ny;
            for lo in n.saturating_sub(nx + 2)..n + 2 {
                for li in n.saturating_sub(nx + 2)..n + 2 {
                    let values: Vec<u64> = t
                        .values
                        .iter()
                        .map(|v| value(v, [lo, li], nx, ny))
                        .collect();
                    let fast = evaluate(t, &values);
                    let mut in_bounds = true;
                    for j in 1..ny.saturating_sub(1) {
                        for i in 1..nx.saturating_sub(1) {
                            in_bounds &=
                                j * nx + i < lo && j * nx + i + 1 < li && (j + 1) * nx + i < li;
                        }
                    }
                    assert!(!fast || in_bounds, "nx {nx} ny {ny} out {lo} in {li}");
                    if lo >= n && li >= n {
                        assert!(fast, "nx {nx} ny {ny} out {lo} in {li}: the test fails");
                    }
                    held += usize::from(fast);
                }
            }
        }
    }
    assert!(held > 0);
    // Values past `u64`'s products: exact, never wrapped into a small number.
    let big = u64::MAX;
    let values: Vec<u64> = t
        .values
        .iter()
        .map(|v| value(v, [1 << 20, 1 << 20], big, big))
        .collect();
    assert!(!evaluate(t, &values));
    let values: Vec<u64> = t
        .values
        .iter()
        .map(|v| value(v, [1 << 20, 1 << 20], 1 << 32, 1 << 32))
        .collect();
    assert!(!evaluate(t, &values), "2^64 must not wrap to 0");
}

/// Only a kernel that takes the flag may read it (`verify`).
#[test]
fn only_a_kernel_with_a_host_test_reads_the_flag() {
    let mut p = compile(LAPLACE).program;
    assert_eq!(
        cuprum_codegen::verify::problems(&p, Some(true)),
        Vec::<String>::new()
    );
    p.host_test = None;
    let problems = cuprum_codegen::verify::problems(&p, Some(true));
    assert!(
        problems.iter().any(|m| m.contains("versioning flag")),
        "{problems:?}"
    );
}

/// The launch-selected copy also gets a module of its own, whose entry has the kernel's name
/// and parameters (the flag among them, unread) and is that copy alone: in one function with
/// the checked copy and its calls to the failure handler, ptxas unrolled convolve_cols' fast
/// loop 4× where the unchecked kernel's is unrolled 8× (bench/NOTES.md, `convcols`).
#[test]
fn the_launch_selected_copy_has_a_module_of_its_own() {
    let k = compile(LAPLACE);
    let fast = k.fast_ptx.as_deref().expect("laplace has a fast module");
    let params = |ptx: &str| -> Vec<String> {
        let body = entry_body(ptx, "laplace");
        let header = body.split(')').next().unwrap().to_string();
        header
            .lines()
            .filter(|l| l.trim_start().starts_with(".param"))
            .map(str::to_string)
            .collect()
    };
    assert_eq!(params(fast), params(&k.ptx));
    let body = entry_body(fast, "laplace");
    // No test of the flag, no checked copy, no failure path.
    assert!(!body.contains("[laplace_param_6]"), "{body}");
    assert!(!body.contains("call"), "{body}");
    assert!(
        body.matches("ld.global").count() == 4 && body.matches("st.global").count() == 1,
        "{body}"
    );
    // The kernel's own module keeps both copies (it runs when the test fails).
    assert!(entry_body(&k.ptx, "laplace").contains("[laplace_param_6]"));
    // A kernel the passes do not version has no fast module.
    assert!(compile("fn k(x: &mut [f32]) { x[0] = 1.0; }")
        .fast_ptx
        .is_none());
}

/// `examples/matmul.rs`' `sgemm` with `T × T` tiles: a block of undeclared shape loads a tile
/// of `a` and of `b` per turn of `for t in 0..k / T` into shared tiles indexed by the thread
/// indices.
fn sgemm_src(tile: usize) -> String {
    "fn sgemm(c: &mut [f32], a: &[f32], b: &[f32], m: u32, n: u32, k: u32) {
        let a_tile = gpu::shared_array_2d::<f32, T, T>();
        let b_tile = gpu::shared_array_2d::<f32, T, T>();
        let (tx, ty) = (gpu::thread_idx().x as usize, gpu::thread_idx().y as usize);
        let row = gpu::block_idx().y as usize * T + ty;
        let col = gpu::block_idx().x as usize * T + tx;
        let (n, k) = (n as usize, k as usize);
        let mut acc = 0.0f32;
        for t in 0..k / T {
            a_tile[ty][tx] = a[row * k + t * T + tx];
            b_tile[ty][tx] = b[(t * T + ty) * n + col];
            gpu::sync_threads();
            for kk in 0..T {
                acc += a_tile[ty][kk] * b_tile[kk][tx];
            }
            gpu::sync_threads();
        }
        c[row * n + col] = acc;
    }"
    .replace('T', &tile.to_string())
}

/// A launch of `sgemm_src(8)` as the host test sees it.
#[derive(Clone, Copy, Debug)]
struct Gemm {
    block: [u64; 2],
    grid: [u64; 2],
    n: u64,
    k: u64,
    lens: [u64; 3],
}

fn gemm_value(v: &HostValue, g: Gemm) -> u64 {
    match v {
        HostValue::Len(p) => g.lens[*p],
        HostValue::Scalar(4) => g.n,
        HostValue::Scalar(5) => g.k,
        HostValue::Const(c) => *c,
        HostValue::BlockDim(a) => g.block.get(*a as usize).copied().unwrap_or(1),
        HostValue::GridDim(a) => g.grid.get(*a as usize).copied().unwrap_or(1),
        other => panic!("{other:?}"),
    }
}

/// Whether every access of `sgemm_src(tile)` is in bounds for the launch `g` (every thread,
/// every turn).
fn gemm_in_bounds(tile: u64, g: Gemm) -> bool {
    let [bx, by] = g.block;
    let (n, k) = (g.n, g.k);
    for gy in 0..g.grid[1] {
        for gx in 0..g.grid[0] {
            for ty in 0..by {
                for tx in 0..bx {
                    if tx >= tile || ty >= tile {
                        return false;
                    }
                    let (row, col) = (gy * tile + ty, gx * tile + tx);
                    for t in 0..k / tile {
                        if row * k + t * tile + tx >= g.lens[1]
                            || (t * tile + ty) * n + col >= g.lens[2]
                        {
                            return false;
                        }
                    }
                    if row * n + col >= g.lens[0] {
                        return false;
                    }
                }
            }
        }
    }
    true
}

/// Loop predication and the shared tiles' extents (issue 15, `sgemmver`): `t` in
/// `0..k / T` gives `T·t <= k − T` (the index at the last turn), and `tile[ty][tx]` holds
/// when `block_dim() <= (T, T)`, so the launch tests both and the copy it selects has no
/// check at all; the test fails, and the checked body runs, for a block wider or taller than
/// the tile, for operands shorter than the grid reaches, and for a `k` past `a`'s rows.
#[test]
fn the_launch_tests_the_tile_loop_and_the_block_shape() {
    let tile = 8u64;
    let k = compile(&sgemm_src(tile as usize));
    let t = k.program.host_test.as_ref().expect("sgemm is versioned");
    assert!(t.values.contains(&HostValue::BlockDim(0)), "{t:?}");
    assert!(t.values.contains(&HostValue::Const(tile)), "{t:?}");
    // The launch-selected copy checks nothing.
    let fast = k.fast_ptx.as_deref().expect("a module for the copy");
    let body = entry_body(fast, "sgemm");
    assert!(!body.contains("__cuprum_panic"), "{body}");
    let test = |g: Gemm| {
        let values: Vec<u64> = t.values.iter().map(|v| gemm_value(v, g)).collect();
        evaluate(t, &values)
    };
    let mut held = 0;
    let blocks = [
        [8, 8],
        [4, 8],
        [8, 2],
        [16, 4],
        [4, 16],
        [9, 8],
        [8, 9],
        [1, 1],
    ];
    for block in blocks {
        for grid in [[1, 1], [2, 1], [1, 3], [2, 2]] {
            for kk in [0, 5, 8, 13, 16, 24] {
                let (m, n) = (grid[1] * tile, grid[0] * tile);
                let full = [m * n, m * kk, kk * n];
                for da in [0, 1, 5, 9] {
                    for db in [0, 1, 9] {
                        let lens = [
                            full[0],
                            full[1].saturating_sub(da),
                            full[2].saturating_sub(db),
                        ];
                        let g = Gemm {
                            block,
                            grid,
                            n,
                            k: kk,
                            lens,
                        };
                        let fast = test(g);
                        assert!(!fast || gemm_in_bounds(tile, g), "{g:?}: a wrong fast copy");
                        held += usize::from(fast);
                        // The launch the kernel is written for selects the copy.
                        if block == [8, 8] && da == 0 && db == 0 {
                            assert!(fast, "{g:?}: the test fails");
                        }
                        // A block past the tile always runs the checked body.
                        if block[0] > tile || block[1] > tile {
                            assert!(!fast, "{g:?}");
                        }
                    }
                }
            }
        }
    }
    assert!(held > 0);
}

/// reduce #6's shape: a grid-stride loop whose slice reads the `while` proves, then a tree
/// loop over a shared array indexed by the thread. Only the shared array's checks would leave
/// the loops, which makes no second body (the copy once ran 8% slower on an H100, through a
/// `passes::counted` bug fixed since; the rule is kept as measured): no copy, no fast module.
/// The same loops with a slice check the launch can prove (`out[t]`) are still versioned.
#[test]
fn shared_array_checks_alone_do_not_version_a_loop() {
    let src = |write: &str| {
        format!(
            "fn k(out: &mut [f32], x: &[f32]) {{
                let sdata = gpu::shared_array::<f32, 256>();
                let t = gpu::thread_idx().x as usize;
                let mut i = gpu::block_idx().x as usize * 512 + t;
                let mut sum = 0.0f32;
                while i < x.len() {{
                    sum += x[i];
                    i += 512 * gpu::grid_dim().x as usize;
                }}
                sdata[t] = sum;
                gpu::sync_threads();
                let mut s = 128;
                while s > 0 {{
                    if t < s {{
                        sum += sdata[t + s];
                        {write}
                    }}
                    gpu::sync_threads();
                    s /= 2;
                }}
                if t == 0 {{ out[gpu::block_idx().x as usize] = sum; }}
            }}"
        )
    };
    let shared_only = compile(&src("sdata[t] = sum;"));
    assert!(shared_only.fast_ptx.is_none(), "{}", shared_only.ptx);
    assert!(shared_only.program.host_test.is_none());
    let with_slice = compile(&src("sdata[t] = sum; out[t] = sum;"));
    assert!(with_slice.fast_ptx.is_some(), "{}", with_slice.ptx);
}
