use cuprum::prelude::*;

#[kernel]
pub fn maybe(out: &mut [f32], x: &[f32]) {
    let i = gpu::global_id_x();
    let scale: f32;
    if x[i] > 0.0 {
        scale = 2.0;
    }
    out[i] = x[i] * scale;
}

fn main() {}
