use cuprum::prelude::*;

#[kernel]
pub fn same(a: &[f32], b: &[f32]) {
    let i = gpu::global_id_x();
    let left = [a[i], a[i + 1]];
    let right = [b[i], b[i + 1]];
    assert_eq!(left, right, "at {}", i);
}

fn main() {}
