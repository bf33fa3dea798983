use cuprum::prelude::*;

#[kernel]
pub async fn later(out: &mut [f32]) {
    out[0] = 1.0;
}

#[kernel]
pub unsafe fn raw(out: &mut [f32]) {
    out[0] = 1.0;
}

#[kernel]
pub fn mutable(mut out: &mut [f32]) {
    out[0] = 1.0;
}

fn main() {}
