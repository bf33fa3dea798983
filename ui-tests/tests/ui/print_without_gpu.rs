use cuprum::prelude::*;

#[kernel]
pub fn show(x: &[f32]) {
    let i = gpu::global_id_x();
    println!("x[{i}] = {}", x[i]);
}

fn main() {}
