use cuprum::prelude::*;

#[kernel]
pub fn fill(out: Vec<f32>, v: f32) {
    let _ = v;
}

fn main() {}
