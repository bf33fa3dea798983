use cuprum::prelude::*;

#[kernel]
pub fn label(out: &mut [f32], name: String) {
    let b = Box::new(1.0f32);
    let v = Vec::new();
    out[0] = 1.0;
}

fn main() {}
