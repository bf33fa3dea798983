use cuprum::prelude::*;

#[kernel(block = (32, 64))]
pub fn too_many_threads(out: &mut [f32]) {
    out[0] = 1.0;
}

#[kernel(block = (32, 0))]
pub fn empty_axis(out: &mut [f32]) {
    out[0] = 1.0;
}

#[kernel(block = "32, 8")]
pub fn not_a_shape(out: &mut [f32]) {
    out[0] = 1.0;
}

fn main() {}
