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
