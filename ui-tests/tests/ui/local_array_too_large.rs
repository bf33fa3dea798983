use cuprum::prelude::*;

#[kernel]
pub fn scratch(out: &mut [f32]) {
    let mut tile = [0.0f32; 4096];
    tile[0] = 1.0;
    out[0] = tile[0];
}

fn main() {}
