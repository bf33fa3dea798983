use cuprum::prelude::*;

// 2^32 × 2^32 elements of 4 bytes: the size must not wrap to a 0-byte array.
#[kernel]
pub fn huge(out: &mut [u32]) {
    let s = gpu::shared_array_2d::<u32, 4294967296, 4294967296>();
    s[0][0] = 1;
    out[0] = s[0][0];
}

fn main() {}
