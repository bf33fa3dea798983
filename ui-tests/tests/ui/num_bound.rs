use cuprum::prelude::*;

#[kernel(instances(f32, i32))]
pub fn fill<T: gpu::Float>(out: &mut [T]) {
    let k = gpu::global_id_x();
    if k < out.len() {
        out[k] = T::ONE;
    }
}

#[kernel]
pub fn zero_of_bool(out: &mut [bool]) {
    out[0] = bool::ZERO;
}

fn main() {}
