use cuprum::prelude::*;

#[kernel]
pub fn show(x: &[f32]) {
    let i = gpu::global_id_x();
    let pair = (x[i], i);
    gpu::println!("{} {}", i, pair);
}

fn main() {}
