//! Kernels of `tests/gpu_control_flow.rs` (also snapshotted by `tests/feature_ptx.rs`):
//! reversed and stepped ranges, and `for` over `iter()`, `iter_mut()`, `enumerate()` and
//! `zip(..)` of slices, shared arrays and local arrays.

#![allow(dead_code)]

use cuprum::prelude::*;

/// Reversed ranges, exclusive and inclusive, stepped, signed, empty; also plain host Rust.
#[device]
pub fn reversed_mix(v: u32) -> u32 {
    let n = (v % 40) as usize;
    let mut acc = 0u32;
    for k in (0..n).rev() {
        acc = acc.wrapping_mul(31).wrapping_add(k as u32);
    }
    for k in (3..=n).rev().step_by(3) {
        acc ^= (k as u32) << 3;
    }
    let mut s: i32 = 0;
    for j in (-5..(n as i32) - 10).rev().step_by(2) {
        s = s * 3 + j;
    }
    for _ in (n..2).rev() {
        s += 1000;
    }
    acc.wrapping_add(s as u32)
}

#[kernel]
pub fn reversed(out: &mut [u32], x: &[u32]) {
    let i = gpu::global_id_x();
    if i < x.len() {
        out[i] = reversed_mix(x[i]);
    }
}

/// `iter()`, `iter_mut()`, `enumerate()`, `zip(..)` over a local array and slices.
#[kernel]
pub fn iterators(out: &mut [f32], scaled: &mut [f32], x: &[f32], w: &[f32]) {
    let i = gpu::global_id_x();
    if i < out.len() {
        let mut a = [0.0f32; 8];
        for (k, v) in a.iter_mut().enumerate() {
            *v = x[(i + k) % x.len()] * (k as f32 + 1.0);
        }
        let mut acc = 0.0f32;
        for (v, c) in a.iter().zip(w.iter()) {
            acc += *v * c;
        }
        for v in a.iter_mut() {
            *v += 1.0;
        }
        let mut m = f32::MIN;
        for &v in a.iter() {
            m = m.max(v);
        }
        out[i] = acc + m;
    }
    if i == 0 {
        for (k, (o, v)) in scaled.iter_mut().zip(x.iter()).enumerate() {
            *o = *v * 2.0 + k as f32;
        }
    }
}

/// Iterating a shared array: each thread fills its slot, thread 0 sums them all.
#[kernel]
pub fn shared_iter(out: &mut [u32], x: &[u32]) {
    let s = gpu::shared_array::<u32, 128>();
    let t = gpu::thread_idx().x as usize;
    let i = gpu::global_id_x();
    s[t] = x[i];
    gpu::sync_threads();
    if t == 0 {
        let mut total = 0u32;
        for (k, v) in s.iter().enumerate() {
            total = total.wrapping_add(*v ^ k as u32);
        }
        out[gpu::block_idx().x as usize] = total;
    }
}

/// Grid-stride `while` loops that `passes::counted` lowers as counted loops (LLVM unrolls
/// them): per thread, a mix of the elements it visits two grid strides apart (and the one a
/// stride further, when there is one), and the index of the first element ≥ 2³¹ it visits
/// (`x.len()` or past it when none: the loop stops with a `break`).
#[kernel]
pub fn stride_whiles(mixes: &mut [u32], firsts: &mut [u32], x: &[u32]) {
    let t = gpu::global_id_x();
    let stride = 2 * gpu::grid_stride_x();
    let mut i = t;
    let mut acc = 0u32;
    while i < x.len() {
        acc = acc.wrapping_mul(3).wrapping_add(x[i]);
        if i + gpu::grid_stride_x() < x.len() {
            acc ^= x[i + gpu::grid_stride_x()];
        }
        i += stride;
    }
    mixes[t] = acc;
    let mut j = t;
    while j < x.len() {
        if x[j] >= 1u32 << 31 {
            break;
        }
        j = j + gpu::grid_stride_x();
    }
    firsts[t] = j as u32;
}
