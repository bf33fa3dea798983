use cuprum::prelude::*;

#[kernel]
pub fn literals(out: &mut [u8], w: &mut [i8]) {
    out[0] = 300;
    let small: i8 = -129;
    w[0] = small;
    let big = 5_000_000_000u32;
    let huge: f32 = 1e39;
}

fn main() {}
