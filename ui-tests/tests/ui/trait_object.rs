use cuprum::prelude::*;

#[kernel]
pub fn map(out: &mut [f32], f: &dyn Fn(f32) -> f32) {
    out[0] = 1.0;
}

#[kernel]
pub fn map_boxed(out: &mut [f32], f: Box<dyn Fn(f32) -> f32>) {
    out[0] = 1.0;
}

#[kernel]
pub fn map_impl(out: &mut [f32], f: impl Fn(f32) -> f32) {
    out[0] = 1.0;
}

fn main() {}
