use cuprum::prelude::*;

/// The block's sum and the running maximum of its values (`gpu::block`), and the warp's
/// minimum (`gpu::warp`).
#[kernel]
pub fn block_and_warp(out: &mut [i32], x: &[i32]) {
    let i = gpu::global_id_x();
    let v = x[i];
    let total = gpu::block::sum(v);
    let running = gpu::block::inclusive_scan(v, |a, b| if b > a { b } else { a });
    out[i] = total + running + gpu::warp::min(v);
}

/// Each kept value's rank among the kept values of its block (the others are left as they
/// are): a block
/// collective after a `&&` guard, with a partial last block (the shape of stream compaction).
///
/// Regression: before device functions were marked `convergent`, LLVM's early CFG
/// simplification threaded the guard's known-false edge through the not-yet-inlined call, so
/// each side of the branch had its own copy of the scan and its barriers, and the threads past
/// the end waited at a different `bar.sync` from the others (undefined behaviour; it hung
/// `examples/compaction.rs` on the H200 and compute-sanitizer's synccheck reported it).
#[kernel]
pub fn guarded_rank(rank: &mut [u32], x: &[f32], threshold: f32) {
    let i = gpu::global_id_x();
    let kept = i < x.len() && x[i] > threshold;
    let r = gpu::block::exclusive_sum(kept as u32);
    if kept {
        rank[i] = r;
    }
}

/// `gpu::warp::sum`, `min` and `max` of each shuffled type: one `redux.sync` each for `i32`
/// and `u32` (sm_80, the default target), five shuffles each for `f32` and `i64`.
#[kernel]
pub fn warp_reductions(a: &mut [i32], b: &mut [u32], c: &mut [f32], d: &mut [i64]) {
    let i = gpu::global_id_x();
    let (x, y, z, w) = (a[i], b[i], c[i], d[i]);
    a[i] = gpu::warp::sum(x) ^ gpu::warp::min(x) ^ gpu::warp::max(x);
    b[i] = gpu::warp::sum(y) ^ gpu::warp::min(y) ^ gpu::warp::max(y);
    c[i] = gpu::warp::sum(z) + gpu::warp::min(z) + gpu::warp::max(z);
    d[i] = gpu::warp::sum(w) ^ gpu::warp::min(w) ^ gpu::warp::max(w);
}

/// The same for `i32` on sm_75, which has no `redux.sync`: shuffles.
#[kernel(target = "sm_75")]
pub fn warp_reductions_sm75(a: &mut [i32]) {
    let i = gpu::global_id_x();
    let x = a[i];
    a[i] = gpu::warp::sum(x) ^ gpu::warp::min(x) ^ gpu::warp::max(x);
}
