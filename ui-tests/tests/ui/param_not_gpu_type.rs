use cuprum::prelude::*;

pub struct Point {
    pub x: f32,
    pub y: f32,
}

#[kernel]
pub fn params(out: &mut [f32], c: char, wide: u128, p: Point, pair: (f32, f32), arr: [f32; 4], s: &str) {
    out[0] = 1.0;
}

fn main() {}
