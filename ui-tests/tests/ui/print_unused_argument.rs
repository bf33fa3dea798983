use cuprum::prelude::*;

#[kernel]
pub fn show(x: &[f32], n: u32) {
    let i = gpu::global_id_x();
    gpu::println!("x[{}] = {}", i, x[i], n);
}

fn main() {}
