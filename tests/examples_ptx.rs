//! Every example kernel's PTX: an insta snapshot (a changed snapshot is a reviewed decision),
//! and `ptxas` must accept it for sm_90 and for sm_80, the oldest target Cuprum defaults to.
//! Without `ptxas` the check fails under `CI` and says how to install it elsewhere.

macro_rules! examples {
    ($($file:ident = $path:literal: $($kernel:ident $(<$g:literal>)?),+;)*) => {
        $(
            #[allow(dead_code)]
            #[path = $path]
            mod $file;
        )*

        /// (name, PTX entry, PTX) of every example kernel.
        fn all_kernels() -> Vec<(&'static str, &'static str, &'static str)> {
            vec![$($((
                stringify!($kernel),
                $file::$kernel $(::<$g>)?::NAME,
                $file::$kernel $(::<$g>)?::PTX,
            )),+),*]
        }
    };
}

examples! {
    saxpy = "../examples/saxpy.rs": saxpy;
    reduce_sum = "../examples/reduce_sum.rs": reduce_sum;
    histogram = "../examples/histogram.rs": histogram;
    transpose = "../examples/transpose.rs": transpose;
    matmul = "../examples/matmul.rs": sgemm;
    block_scan = "../examples/block_scan.rs": block_scan;
    softmax = "../examples/softmax.rs": softmax;
    jacobi = "../examples/jacobi.rs": jacobi;
    black_scholes = "../examples/black_scholes.rs": black_scholes;
    cooperative = "../examples/cooperative.rs": heat;
    bitonic_sort = "../examples/bitonic_sort.rs": bitonic_sort_shared, bitonic_merge_global, bitonic_merge_shared;
    vector_add = "../examples/vector_add.rs": vector_add;
    transpose_coalesced = "../examples/transpose_coalesced.rs": transpose_coalesced;
    fast_matmul = "../examples/fast_matmul.rs": fast_matmul;
    laplace = "../examples/laplace.rs": laplace;
    reduce6 = "../examples/reduce6.rs": reduce6<256>;
    nbody_tile = "../examples/nbody_tile.rs": nbody;
    nbody = "../examples/nbody.rs": nbody_step, kinetic_energy;
    compaction = "../examples/compaction.rs": count_kept, write_kept;
}

/// An example's `run`: its verdict on a device.
type ExampleRun = fn(&cuprum::Device) -> cuprum::Result<Result<String, String>>;

/// Every example's `run` on the simulator: each must compute the right answer without a GPU.
#[test]
fn every_example_runs_on_the_simulator() {
    let dev = cuprum::Device::simulator();
    let runs: Vec<(&str, ExampleRun)> = vec![
        ("saxpy", saxpy::run),
        ("reduce_sum", reduce_sum::run),
        ("histogram", histogram::run),
        ("transpose", transpose::run),
        ("matmul", matmul::run),
        ("block_scan", block_scan::run),
        ("softmax", softmax::run),
        ("jacobi", jacobi::run),
        ("black_scholes", black_scholes::run),
        ("cooperative", cooperative::run),
        ("bitonic_sort", bitonic_sort::run),
        ("vector_add", vector_add::run),
        ("transpose_coalesced", transpose_coalesced::run),
        ("fast_matmul", fast_matmul::run),
        ("laplace", laplace::run),
        ("reduce6", reduce6::run),
        ("nbody_tile", nbody_tile::run),
        ("nbody", nbody::run),
    ];
    for (name, run) in runs {
        match run(&dev) {
            Ok(Ok(summary)) => eprintln!("{name}: {summary}"),
            Ok(Err(wrong)) => panic!("{name}: wrong result: {wrong}"),
            Err(e) => panic!("{name}: {e}"),
        }
    }
}

#[test]
fn ptx_snapshots() {
    for (name, _, ptx) in all_kernels() {
        insta::assert_snapshot!(name, ptx);
    }
}

/// The histogram counts in shared memory with shared atomics.
#[test]
fn histogram_uses_shared_atomics() {
    assert!(histogram::histogram::PTX.contains("atom.shared.add.u32"));
}

/// Each kernel's PTX holds its entry (that compiling a kernel again gives the same bytes is
/// `codegen/src/tests/deterministic.rs`).
#[test]
fn each_ptx_holds_its_entry() {
    for (name, entry, ptx) in all_kernels() {
        assert!(
            ptx.contains(&format!(".entry {entry}(")),
            "{name}: no entry in its PTX"
        );
    }
}

#[test]
fn ptxas_accepts_every_example() {
    if cuprum::inspect::find_ptxas().is_none() {
        assert!(
            std::env::var_os("CI").is_none(),
            "ptxas is required under CI: pip install nvidia-cuda-nvcc-cu12 (scripts/setup.sh does)"
        );
        eprintln!("ptxas_accepts_every_example: skipped: ptxas not found (pip install nvidia-cuda-nvcc-cu12, or set CUPRUM_PTXAS)");
        return;
    }
    for (name, entry, ptx) in all_kernels() {
        for arch in ["sm_90", "sm_80"] {
            let resources = cuprum::inspect::resources(ptx, arch)
                .unwrap_or_else(|e| panic!("{name} on {arch}: {e}"));
            let entry = resources
                .iter()
                .find(|r| r.kernel == entry)
                .unwrap_or_else(|| panic!("{name}: ptxas reported no entry"));
            assert!(entry.registers > 0, "{name} on {arch}: {entry:?}");
            assert_eq!(
                (entry.spill_stores, entry.spill_loads),
                (0, 0),
                "{name} on {arch} spills: {entry:?}"
            );
        }
    }
}
