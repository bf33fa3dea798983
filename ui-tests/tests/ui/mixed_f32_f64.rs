use cuprum::prelude::*;

#[kernel]
pub fn widths(out: &mut [f32], x: &[f32], a: f64) {
    let i = gpu::global_id_x();
    out[i] = a * x[i];
    let half: f64 = 0.5;
    out[i] = x[i] * half;
}

fn main() {}
