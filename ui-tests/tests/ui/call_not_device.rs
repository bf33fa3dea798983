use cuprum::prelude::*;

fn square(v: f32) -> f32 {
    v * v
}

#[kernel]
pub fn squares(out: &mut [f32], x: &[f32]) {
    let i = gpu::global_id_x();
    if i < out.len() {
        out[i] = square(x[i]);
    }
}

fn main() {}
