use cuprum::prelude::*;

#[kernel]
pub fn with_lifetime<'a>(out: &'a mut [f32]) {
    out[0] = 1.0;
}

#[kernel]
pub fn with_const<const N: usize>(out: &mut [f32]) {
    out[0] = 1.0;
}

#[kernel(instances(f32, f32))]
pub fn twice<T: gpu::Float>(out: &mut [T]) {
    out[0] = out[0] + out[0];
}

fn main() {}
