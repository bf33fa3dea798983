// One build reports every independent mistake, each at its own span.
use cuprum::prelude::*;

#[kernel]
pub fn three(out: &mut [f32], x: &[f32], n: u32) {
    let scratch = vec![0.0f32; 4];
    let i = gpu::thread_id().x;
    out[n] = x[0] * 2.0;
}

fn main() {}
