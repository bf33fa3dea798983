use cuprum::prelude::*;

#[kernel]
pub fn ids(out: &mut [u32]) {
    let t = gpu::thread_id().x;
    gpu::syncthreads();
    let w = gpu::WARP_SIZ;
    let z = gpu::global_idx();
}

fn main() {}
