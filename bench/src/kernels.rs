//! The Cuprum side of the suite (bench/SPEC.md): the examples' own kernels (one home per
//! kernel), each with the `#[kernel(unchecked)]` twin that `#[cuprum_testkit::unchecked_twin]`
//! builds from the same body beside it.

/// Includes each example file as a module and re-exports its kernels and their unchecked
/// twins under the names the cases use; lists them for `write_ptx`.
macro_rules! examples {
    ($($module:ident = $path:literal: $($kernel:ident / $twin:ident $(<$($g:tt),*>)?),+;)*) => {
        $(
            #[allow(dead_code)]
            #[path = $path]
            pub(crate) mod $module;
            $(pub use $module::{$kernel, $twin::$kernel as $twin};)+
        )*

        /// (file name, PTX) of every suite kernel and its unchecked twin.
        fn all_ptx() -> Vec<(&'static str, &'static str)> {
            vec![$($(
                (stringify!($kernel), $kernel $(::<$($g),*>)? ::PTX),
                (stringify!($twin), $twin $(::<$($g),*>)? ::PTX),
            )+)*]
        }

        /// (file name, PTX) of the fast module of every suite kernel that has one.
        fn fast_ptx() -> Vec<(&'static str, &'static str)> {
            let all: Vec<(&'static str, Option<&'static str>)> = vec![$($(
                (stringify!($kernel), $kernel $(::<$($g),*>)? ::FAST_PTX),
                (stringify!($twin), $twin $(::<$($g),*>)? ::FAST_PTX),
            )+)*];
            all.into_iter().filter_map(|(n, p)| Some((n, p?))).collect()
        }
    };
}

examples! {
    ex_saxpy = "../../examples/saxpy.rs": saxpy / saxpy_unchecked;
    ex_reduce_sum = "../../examples/reduce_sum.rs": reduce_sum / reduce_sum_unchecked;
    ex_histogram = "../../examples/histogram.rs": histogram / histogram_unchecked;
    ex_transpose = "../../examples/transpose.rs": transpose / transpose_unchecked;
    ex_matmul = "../../examples/matmul.rs": sgemm / sgemm_unchecked;
    ex_block_scan = "../../examples/block_scan.rs": block_scan / block_scan_unchecked;
    ex_softmax = "../../examples/softmax.rs": softmax / softmax_unchecked;
    ex_jacobi = "../../examples/jacobi.rs": jacobi / jacobi_unchecked;
    ex_black_scholes = "../../examples/black_scholes.rs": black_scholes / black_scholes_unchecked;
    ex_vector_add = "../../examples/vector_add.rs": vector_add / vector_add_unchecked;
    ex_transpose_coalesced = "../../examples/transpose_coalesced.rs":
        transpose_coalesced / transpose_coalesced_unchecked;
    ex_convolution = "../../examples/convolution.rs":
        convolve_rows / convolve_rows_unchecked, convolve_cols / convolve_cols_unchecked;
    ex_fast_matmul = "../../examples/fast_matmul.rs": fast_matmul / fast_matmul_unchecked;
    ex_laplace = "../../examples/laplace.rs": laplace / laplace_unchecked;
    ex_reduce6 = "../../examples/reduce6.rs": reduce6 / reduce6_unchecked<256>;
    ex_nbody = "../../examples/nbody_tile.rs": nbody / nbody_unchecked;
}

/// Writes the PTX of every suite kernel to `dir/<kernel>.ptx` (twins: `<kernel>_unchecked.ptx`;
/// a kernel's fast module, which its launch runs when its versioning test holds:
/// `<kernel>.fast.ptx`).
pub fn write_ptx(dir: &std::path::Path) -> Result<(), String> {
    std::fs::create_dir_all(dir).map_err(|e| format!("creating {}: {e}", dir.display()))?;
    let fast = fast_ptx().into_iter().map(|(n, p)| (n, p, ".fast"));
    for (name, ptx, suffix) in all_ptx().into_iter().map(|(n, p)| (n, p, "")).chain(fast) {
        let path = dir.join(format!("{name}{suffix}.ptx"));
        std::fs::write(&path, ptx).map_err(|e| format!("writing {}: {e}", path.display()))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    /// Each twin is the same kernel without its checks: same entry name, and no panic path
    /// (which reads the kernel's id).
    #[test]
    fn twins_are_the_unchecked_builds_of_the_same_kernels() {
        let all = super::all_ptx();
        for pair in all.chunks(2) {
            let ((name, checked), (twin, unchecked)) = (pair[0], pair[1]);
            let entry = |ptx: &str| {
                ptx.lines()
                    .find_map(|l| l.split(".entry ").nth(1))
                    .map(|e| e.split('(').next().unwrap_or_default().to_string())
            };
            assert_eq!(entry(checked), entry(unchecked), "{name} / {twin}");
            assert!(entry(checked).is_some(), "{name} has no entry");
            assert!(
                !unchecked.contains("__cuprum_kernel_id"),
                "{twin} is not unchecked"
            );
        }
    }
}
