use cuprum::prelude::*;

#[device]
pub fn total(v: &[f32]) -> f32 {
    let mut s = 0.0;
    for i in 0..v.len() {
        s += v[i];
    }
    s
}

#[kernel]
pub fn sums(out: &mut [f32]) {
    let tile = gpu::shared_array::<f32, 64>();
    tile[gpu::thread_idx().x as usize] = 1.0;
    gpu::sync_threads();
    out[0] = total(tile);
}

fn main() {}
