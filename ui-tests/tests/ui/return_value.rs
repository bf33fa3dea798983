use cuprum::prelude::*;

#[kernel]
pub fn sum(x: &[f32]) -> f32 {
    let mut s = 0.0;
    for i in 0..x.len() {
        s += x[i];
    }
    s
}

fn main() {}
