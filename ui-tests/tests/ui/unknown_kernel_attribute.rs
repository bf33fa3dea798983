use cuprum::prelude::*;

#[kernel(fast_math, max_thread = 256)]
pub fn scale(out: &mut [f32]) {
    out[0] = 1.0;
}

#[kernel(max_threads = 4096, min_blocks = "2")]
pub fn bounds(out: &mut [f32]) {
    out[0] = 1.0;
}

#[kernel(instance(f32))]
pub fn once(out: &mut [f32]) {
    out[0] = 1.0;
}

fn main() {}
