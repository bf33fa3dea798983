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
