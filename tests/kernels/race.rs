//! The kernel of `tests/gpu_lineinfo.rs`: a planted shared-memory race for
//! compute-sanitizer's racecheck, which must name the lines below.

#![allow(dead_code)]

use cuprum::prelude::*;

/// Each thread writes its shared slot and reads its neighbour's with no barrier between: the
/// read races with the neighbour's write.
#[kernel]
pub fn racy_neighbours(out: &mut [f32], x: &[f32]) {
    let tile = gpu::shared_array::<f32, 128>();
    let t = gpu::thread_idx().x as usize;
    let i = gpu::global_id_x();
    tile[t] = x[i];
    out[i] = tile[(t + 1) % 128];
}
