use cuprum::prelude::*;

#[kernel]
pub fn roots(out: &mut [f32], x: &[f32]) {
    // `f32::sqrt(x)` is the method in function form, which kernels accept.
    out[0] = f32::sqrt(x[0]);
    out[1] = std::cmp::max(x[0], x[1]);
    out[2] = core::f32::sqrt(x[0]);
    out[3] = f32::squareroot(x[0]);
    out[4] = f32::max(x[0]);
}

fn main() {}
