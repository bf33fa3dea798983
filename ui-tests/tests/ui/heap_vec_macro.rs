use cuprum::prelude::*;

#[kernel]
pub fn scratch(out: &mut [f32]) {
    let tmp = vec![0.0f32; 8];
    out[0] = 1.0;
}

fn main() {}
