use cuprum::prelude::*;

#[kernel]
pub fn roots(out: &mut [f32], x: &[f32]) {
    out[0] = f32::sqrt(x[0]);
    out[1] = std::cmp::max(x[0], x[1]);
}

fn main() {}
