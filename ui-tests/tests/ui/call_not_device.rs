// A plain function is not callable from a kernel. Kernels fetch `#[device]` functions through
// the macro `#[device]` defines under the function's name, so rustc reports the missing macro;
// its note ("`square` is in scope, but it is a function") means: mark it `#[device]`.
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
