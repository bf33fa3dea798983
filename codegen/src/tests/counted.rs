//! `passes::counted`: which `while` loops are proved counted, in checked and unchecked builds,
//! and the trip count the lowering then computes on entry.

use super::common;

use cuprum_codegen::{check, passes, KernelOptions};

/// How many `while` loops of the kernel `src` the passes prove counted, with `attr`.
fn counted(src: &str, attr: proc_macro2::TokenStream) -> usize {
    let options = KernelOptions::parse(attr).unwrap();
    let mut p = check::check_kernel(&common::parse(src), &options, &Default::default(), &[])
        .unwrap_or_else(|e| panic!("{e}"));
    passes::optimize(&mut p, &options);
    p.kernel.counted.len()
}

/// Counted in the checked build and in the unchecked one.
fn both(src: &str) -> usize {
    let (c, u) = (
        counted(src, quote::quote!()),
        counted(src, quote::quote!(unchecked)),
    );
    assert_eq!(c, u, "checked and unchecked builds differ:\n{src}");
    c
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

#[test]
fn grid_stride_while_loops_are_counted() {
    assert_eq!(both(REDUCE6), 1);
    // `grid_stride_x()`, `i = i + s`, a `break`, a bound that is a local bound to a length.
    let src = "fn first_neg(out: &mut [u32], x: &[f32]) {
        let n = x.len();
        let mut i = gpu::global_id_x();
        let mut found = 0u32;
        while i < n {
            if x[i] < 0.0 {
                found = 1;
                break;
            }
            i = i + gpu::grid_stride_x();
        }
        out[gpu::global_id_x()] = found;
    }";
    assert_eq!(both(src), 1);
}

#[test]
fn loops_that_may_wrap_or_stall_are_not_counted() {
    let not_counted = [
        // The bound is any `usize`: `i + s` may wrap.
        "fn k(out: &mut [f32], n: usize) {
            let mut i = gpu::global_id_x();
            while i < n { out[0] += 1.0; i += gpu::grid_stride_x(); }
        }",
        // The step may be 0.
        "fn k(out: &mut [f32], s: usize) {
            let mut i = gpu::global_id_x();
            while i < out.len() { out[i] = 1.0; i += s; }
        }",
        // The step reads memory.
        "fn k(out: &mut [f32], x: &[usize]) {
            let mut i = gpu::global_id_x();
            while i < out.len() { out[i] = 1.0; i += x[0]; }
        }",
        // `continue` skips the step.
        "fn k(out: &mut [f32]) {
            let mut i = gpu::global_id_x();
            while i < out.len() {
                if out[i] > 0.0 { continue; }
                out[i] = 1.0;
                i += gpu::grid_stride_x();
            }
        }",
        // The body assigns `i` before the step.
        "fn k(out: &mut [f32]) {
            let mut i = gpu::global_id_x();
            while i < out.len() { out[i] = 1.0; i += 1; i += gpu::grid_stride_x(); }
        }",
        // A step declared in the body.
        "fn k(out: &mut [f32]) {
            let mut i = gpu::global_id_x();
            while i < out.len() { let s = gpu::grid_stride_x(); out[i] = 1.0; i += s; }
        }",
        // `u32` arithmetic wraps: the step's range is the whole type.
        "fn k(out: &mut [f32]) {
            let mut i = gpu::thread_idx().x;
            while (i as usize) < out.len() { out[i as usize] = 1.0; i += gpu::grid_dim().x * 1024; }
        }",
        // A signed induction.
        "fn k(out: &mut [f32]) {
            let mut i = gpu::thread_idx().x as i64;
            while i < out.len() as i64 { out[i as usize] = 1.0; i += 1; }
        }",
    ];
    for src in not_counted {
        assert_eq!(both(src), 0, "{src}");
    }
}

#[test]
fn a_counted_while_is_unrolled() {
    for attr in [quote::quote!(), quote::quote!(unchecked)] {
        let options = KernelOptions::parse(attr).unwrap();
        let ptx = common::compile_with(REDUCE6, &options).unwrap().ptx;
        // The last turn, computed on entry; several loads of `x` per turn.
        assert!(ptx.contains("div.u64"), "{ptx}");
        assert!(ptx.matches("ld.global.nc").count() >= 8, "{ptx}");
    }
}

/// convolve_rows' tile loop: one or two turns (`j < 144`, step 128). Counted, its runtime
/// trip count made ptxas unroll it by 4 with a remainder loop, and the kernel ran at 0.92
/// of nvcc (bench/NOTES.md, 2026-12-02, branch `rows`); it stays as written, its exit test
/// `j < 144` in the PTX. A constant bound with more turns is still counted.
#[test]
fn short_loops_are_left_as_written() {
    let tile = "fn rows(out: &mut [f32], inp: &[f32], width: u32) {
        let tile = gpu::shared_array::<f32, { 128 + 2 * 8 }>();
        let t = gpu::thread_idx().x as usize;
        let w = width as usize;
        let x0 = gpu::block_idx().x as usize * 128;
        let mut j = t;
        while j < 128 + 2 * 8 {
            let x = x0 + j;
            tile[j] = if x >= 8 && x - 8 < w { inp[x - 8] } else { 0.0 };
            j += 128;
        }
        gpu::sync_threads();
        out[x0 + t] = tile[t] + tile[t + 16];
    }";
    assert_eq!(both(tile), 0);
    let attr = quote::quote!(block = 128);
    for a in [attr.clone(), quote::quote!(unchecked, block = 128)] {
        let options = KernelOptions::parse(a).unwrap();
        let ptx = common::compile_with(tile, &options).unwrap().ptx;
        assert!(
            !ptx.contains("shr.u64"),
            "no last turn computed on entry:\n{ptx}"
        );
    }
    // Eight turns at most: counted (the checked build versions the body: two copies).
    let long = tile.replace("128 + 2 * 8", "1024");
    assert_eq!(counted(&long, quote::quote!(unchecked)), 1);
    assert!(counted(&long, quote::quote!()) >= 1);
    // A bound from a length: counted (as reduce6's).
    assert_eq!(both(REDUCE6), 1);
}

/// A versioned kernel binds its `let`s again in the copy (the same locals): a stride bound by
/// `let` keeps its range, so the grid-stride loop stays counted in both bodies, and the fast
/// module's loop is unrolled as the unchecked build's is. (Before: a local bound twice had no
/// value, and reduce6's versioned copy ran its loop rolled, 8% slower on an H100.)
#[test]
fn a_versioned_kernels_let_bound_stride_stays_counted() {
    let src = "fn k(y: &mut [f32], x: &[f32]) {
        let t = gpu::thread_idx().x as usize;
        let stride = 512 * gpu::grid_dim().x as usize;
        let mut i = gpu::global_id_x();
        let mut s = 0.0f32;
        while i < x.len() {
            s += x[i];
            if i + 256 < x.len() {
                s += x[i + 256];
            }
            y[t] = s;
            i += stride;
        }
    }";
    // Both bodies of the checked build, and the unchecked build's one.
    assert_eq!(counted(src, quote::quote!()), 2);
    assert_eq!(counted(src, quote::quote!(unchecked)), 1);
    let k = common::compile(src);
    let fast = k.fast_ptx.as_deref().expect("the kernel is versioned");
    let unchecked = common::compile_with(
        src,
        &KernelOptions::parse(quote::quote!(unchecked)).unwrap(),
    )
    .unwrap();
    let loads = |ptx: &str| common::entry_body(ptx, "k").matches("ld.global").count();
    assert!(loads(fast) > 2, "{fast}");
    assert_eq!(loads(fast), loads(&unchecked.ptx), "{fast}");
}
