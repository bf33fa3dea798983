//! Kernels of `tests/gpu_device.rs` (also snapshotted by `tests/feature_ptx.rs`).

#![allow(dead_code)]

use cuprum::prelude::*;

#[device]
pub fn square(x: f32) -> f32 {
    x * x
}

#[device]
pub fn norm2(x: f32, y: f32) -> f32 {
    square(x) + square(y)
}

/// Sum of a window of a slice, with an early return for an empty window.
#[device]
pub fn window_sum(v: &[f32], start: usize, len: usize) -> f32 {
    if len == 0 {
        return 0.0;
    }
    let mut s = 0.0;
    for i in start..(start + len).min(v.len()) {
        s += v[i];
    }
    s
}

pub mod geometry {
    use cuprum::prelude::*;

    /// (min, max) of two values, as a tuple.
    #[device]
    pub fn order(a: i32, b: i32) -> (i32, i32) {
        if a < b {
            (a, b)
        } else {
            (b, a)
        }
    }
}

#[device]
pub fn bump(out: &mut [f32], i: usize, by: f32) {
    out[i] += by;
}

#[kernel]
pub fn uses_devices(out: &mut [f32], ord: &mut [i32], x: &[f32], y: &[f32], a: &[i32]) {
    let i = gpu::global_id_x();
    if i < x.len() {
        out[i] = norm2(x[i], y[i]) + window_sum(x, i, 3);
        bump(out, i, 0.5);
        let (lo, hi) = geometry::order(a[i], a[(i + 1) % a.len()]);
        ord[2 * i] = lo;
        ord[2 * i + 1] = hi;
    }
}

/// A generic kernel compiled for f32 and f64.
#[kernel(instances(f32, f64))]
pub fn scale<T: gpu::Float>(out: &mut [T], x: &[T], a: T) {
    let i = gpu::global_id_x();
    if i < x.len() {
        out[i] = x[i] * a + 1.0;
    }
}

/// Generic device functions, instantiated by the types they are called with.
#[device]
pub fn lerp<T: gpu::Float>(a: T, b: T, t: T) -> T {
    a + (b - a) * t
}

#[device]
pub fn clamp01<T: gpu::Float>(x: T) -> T {
    x.max(T::from_f64(0.0)).min(T::from_f64(1.0))
}

#[device]
pub fn triple<T: gpu::Int>(x: T) -> T {
    x + x + x
}

#[kernel]
pub fn generic_devices(o32: &mut [f32], o64: &mut [f64], oi: &mut [i64], x: &[f32]) {
    let i = gpu::global_id_x();
    if i < x.len() {
        o32[i] = clamp01(lerp(x[i], 2.0, 0.25));
        o64[i] = clamp01(lerp(x[i] as f64, 2.0, 0.75));
        oi[i] = triple(i as i64) + triple::<i64>(1);
    }
}
