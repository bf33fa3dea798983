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
