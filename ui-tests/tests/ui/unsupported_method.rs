use cuprum::prelude::*;

#[kernel]
pub fn methods(out: &mut [f32], x: &[f32], n: u32) {
    let a = x[0].sqr();
    let b = n.maximum(3);
    let c = x.iter();
    let d = x[0].to_string();
}

fn main() {}
