use cuprum::prelude::*;

#[device]
pub fn square(a: f32) -> f32 {
    a * a
}

#[device]
pub fn half(a: f64) -> f64 {
    a * 0.5
}

#[device]
pub fn apply2(a: f32, b: f32, op: impl Fn(f32, f32) -> f32) -> f32 {
    op(a, b)
}

#[device]
pub fn apply1<F: Fn(f32) -> f32>(a: f32, op: F) -> f32 {
    op(a)
}

#[device]
pub fn scale_by(a: f32, s: f32) -> f32 {
    a * s
}

#[kernel]
pub fn misuse(out: &mut [f32], x: &[f32]) {
    let i = gpu::global_id_x();
    let n = 3.0f32;
    if i < out.len() {
        out[i] = apply2(x[i], 1.0, square) // two arguments expected
            + apply1(x[i], half) // f64, not f32
            + apply1(x[i], n) // a value, not a function
            + apply1(x[i], gpu::fast::exp) // a `cuprum::gpu` function
            + apply1(x[i], square); // right
    }
}

#[kernel]
pub fn as_values(out: &mut [f32], x: &[f32]) {
    let i = gpu::global_id_x();
    let f = square;
    if i < out.len() {
        out[i] = scale_by(x[i], square) // not a value
            + f(x[i], 2.0); // `f` is `square`: one argument
    }
}

fn main() {}
