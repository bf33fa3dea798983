use cuprum::prelude::*;

#[kernel]
pub struct Saxpy {
    a: f32,
}

#[kernel]
const N: usize = 4;

fn main() {}
