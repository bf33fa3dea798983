use cuprum::prelude::*;

#[kernel]
pub fn show(x: &[f32]) {
    let i = gpu::global_id_x();
    gpu::println!("x[{i}] = {:x}", x[i]);
}

fn main() {}
