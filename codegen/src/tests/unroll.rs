//! Counted `while` loops that LLVM unrolls by a factor are not unrolled again by ptxas: the
//! unrolled loop's header carries `.pragma "nounroll"` (`llvm.loop.unroll.followup_unrolled`
//! in the lowering, `lower::expr`), as its remainder loop's does (LLVM's own). Stepped `for`
//! loops are left to ptxas (reduce_sum lost 7% with the pragma), and so are loops LLVM leaves
//! rolled (convolve_cols' output loop, `latch.rs`).

use super::common;

use cuprum_codegen::{check, passes, KernelOptions};

const NOUNROLL: &str = ".pragma \"nounroll\";";

/// For each loop of `ptx` whose header is marked `nounroll`: how many global loads it holds;
/// also asserts that only loop headers are marked.
fn marked_loops(ptx: &str) -> Vec<usize> {
    let loops = cuprum_codegen::latch::loops(ptx);
    let mut found: Vec<usize> = loops
        .iter()
        .filter(|(header, body)| {
            let at = body.iter().position(|l| *l == format!("{header}:"));
            at.and_then(|i| body.get(i + 1))
                .is_some_and(|l| l.trim() == NOUNROLL)
        })
        .map(|(_, body)| {
            body.iter()
                .filter(|l| l.trim().starts_with("ld.global"))
                .count()
        })
        .collect();
    assert_eq!(found.len(), ptx.matches(NOUNROLL).count(), "{ptx}");
    found.sort_unstable();
    found
}

fn ptx(src: &str, attr: proc_macro2::TokenStream) -> String {
    let options = KernelOptions::parse(attr).unwrap();
    common::compile_with(src, &options).unwrap().ptx
}

const REDUCE6: &str = "fn reduce(out: &mut [f32], x: &[f32]) {
    let t = gpu::thread_idx().x as usize;
    let grid_size = 256 * 2 * gpu::grid_dim().x as usize;
    let mut i = gpu::block_idx().x as usize * 512 + t;
    let mut sum = 0.0f32;
    while i < x.len() {
        sum += x[i];
        if i + 256 < x.len() {
            sum += x[i + 256];
        }
        i += grid_size;
    }
    out[gpu::block_idx().x as usize] = sum;
}";

/// reduce6 (bench suite): its counted grid-stride `while`, unrolled 4× by LLVM (eight loads a
/// turn) with a remainder loop (two), is marked `nounroll` in both, checked and unchecked.
#[test]
fn counted_while_loops_unrolled_by_llvm_are_not_unrolled_again() {
    for attr in [quote::quote!(), quote::quote!(unchecked)] {
        let ptx = ptx(REDUCE6, attr);
        assert_eq!(marked_loops(&ptx), [2, 8], "{ptx}");
    }
}

/// reduce_sum (bench suite): a stepped `for` over a slice, unrolled by LLVM, is left to ptxas:
/// only its remainder loop (one load, LLVM's own `unroll.disable`) is marked.
#[test]
fn stepped_for_loops_are_left_to_ptxas() {
    let src = "fn sum(out: &mut [f32], x: &[f32]) {
        let mut s = 0.0f32;
        for i in (gpu::global_id_x()..x.len()).step_by(gpu::grid_stride_x()) {
            s += x[i];
        }
        out[gpu::global_id_x()] = s;
    }";
    for attr in [quote::quote!(), quote::quote!(unchecked)] {
        let ptx = ptx(src, attr);
        assert_eq!(marked_loops(&ptx), [1], "{ptx}");
        let unrolled = cuprum_codegen::latch::loops(&ptx)
            .iter()
            .map(|(_, body)| {
                body.iter()
                    .filter(|l| l.trim().starts_with("ld.global"))
                    .count()
            })
            .max();
        assert!(unrolled > Some(1), "LLVM no longer unrolls it:\n{ptx}");
    }
}

/// A counted `while` LLVM leaves rolled (a barrier in its body: not unrolled by a runtime
/// count) carries no `nounroll`.
#[test]
fn counted_loops_left_rolled_are_not_marked() {
    let src = "fn staged(out: &mut [f32], x: &[f32]) {
        let tile = gpu::shared_array::<f32, 256>();
        let t = gpu::thread_idx().x as usize;
        let mut s = 0.0f32;
        let mut i = t;
        while i < x.len() {
            tile[t] = x[i];
            gpu::sync_threads();
            s += tile[255 - t];
            gpu::sync_threads();
            i += 256;
        }
        out[gpu::global_id_x()] = s;
    }";
    let options = KernelOptions::parse(quote::quote!(block = 256)).unwrap();
    let mut p = check::check_kernel(&common::parse(src), &options, &Default::default(), &[])
        .unwrap_or_else(|e| panic!("{e}"));
    passes::optimize(&mut p, &options);
    assert_eq!(p.kernel.counted.len(), 1, "the loop is counted");
    let ptx = common::compile_with(src, &options).unwrap().ptx;
    assert!(ptx.contains("bar.sync"), "{ptx}");
    assert!(!ptx.contains(NOUNROLL), "{ptx}");
}

/// convolve_cols (`latch.rs`): its loops, which ptxas unrolls once their latches are in the
/// form it unrolls, carry no `nounroll`.
#[test]
fn convolve_cols_loops_are_not_marked() {
    let src = "fn cols(out: &mut [f32], inp: &[f32], width: u32, height: u32) {
        let tile = gpu::shared_array_2d::<f32, 16, { 10 * 8 + 1 }>();
        let (tx, ty) = (gpu::thread_idx().x as usize, gpu::thread_idx().y as usize);
        let (w, h) = (width as usize, height as usize);
        let x = gpu::block_idx().x as usize * 16 + tx;
        let y0 = gpu::block_idx().y as usize * 8 * 8;
        for i in 1..9 {
            tile[tx][ty + i * 8] = inp[(y0 + ty + (i - 1) * 8) * w + x];
        }
        tile[tx][ty] = if y0 > 0 { inp[(y0 + ty - 8) * w + x] } else { 0.0 };
        let below = y0 + 8 * 8 + ty;
        tile[tx][ty + 9 * 8] = if below < h { inp[below * w + x] } else { 0.0 };
        gpu::sync_threads();
        for i in 1..9 {
            let r = ty + i * 8;
            let mut acc = 0.0f32;
            for k in 0..17 {
                acc += tile[tx][r + k - 8];
            }
            out[(y0 + r - 8) * w + x] = acc;
        }
    }";
    for attr in [
        quote::quote!(block = (16, 8)),
        quote::quote!(block = (16, 8), unchecked),
    ] {
        let ptx = ptx(src, attr);
        assert!(!ptx.contains(NOUNROLL), "{ptx}");
    }
}
