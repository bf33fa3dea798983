use cuprum::prelude::*;

const FORMAT: &str = "x = {}";

#[kernel]
pub fn show(x: &[f32]) {
    gpu::println!(FORMAT, x[0]);
}

fn main() {}
