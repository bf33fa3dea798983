use cuprum::prelude::*;

#[device]
pub fn max2(a: f32, b: f32) -> f32 {
    a.max(b)
}

#[device]
pub fn apply2(a: f32, b: f32, op: impl Fn(f32, f32) -> f32) -> f32 {
    op(a, b)
}

#[kernel]
pub fn apply(out: &mut [f32], x: &[f32]) {
    let square = |v: f32| v * v;
    let i = gpu::global_id_x();
    if i < out.len() {
        let s = square;
        out[i] = apply2(x[i], 1.0, max2) + s; // `max2` by name is fine
    }
}

fn main() {}
