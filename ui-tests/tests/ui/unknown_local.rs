use cuprum::prelude::*;

mod params {
    pub const SCALE: f32 = 2.0;
}
use params::SCALE;

#[kernel]
pub fn locals(out: &mut [f32], input: &[f32]) {
    let idx = gpu::global_id_x();
    out[idx] = inptu[idx] * SCALE;
}

fn main() {}
