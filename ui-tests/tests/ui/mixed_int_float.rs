use cuprum::prelude::*;

#[kernel]
pub fn mixed(out: &mut [f32], x: &[f32], n: u32) {
    let i = gpu::global_id_x();
    out[i] = x[i] * 2;
    out[i] = 3 * x[i];
    out[i] = x[i] + n;
}

fn main() {}
