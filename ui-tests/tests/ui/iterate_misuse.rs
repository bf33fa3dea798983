use cuprum::prelude::*;

#[kernel]
pub fn reversed(out: &mut [u32]) {
    for i in (0..).rev() {
        out[0] = i;
    }
}

#[kernel]
pub fn skipping(out: &mut [f32], x: &[f32]) {
    for (i, v) in x.iter().enumerate().skip(1) {
        out[i] = *v;
    }
}

fn main() {}
