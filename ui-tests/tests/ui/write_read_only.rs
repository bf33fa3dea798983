use cuprum::prelude::*;

#[kernel]
pub fn write(x: &[f32], out: &mut [f32], n: u32) {
    x[0] = 1.0;
    let count = 0;
    count += 1;
    out = x;
    n = 3;
}

fn main() {}
