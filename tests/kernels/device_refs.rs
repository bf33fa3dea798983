//! Kernels of `tests/gpu_device_refs.rs` (also snapshotted by `tests/feature_ptx.rs`): device
//! functions taking `&T` / `&mut T` (to locals, slice elements, shared elements) and slices
//! taken from shared memory, local arrays and sub-slices (`&x[a..b]`, `split_at_mut`).

#![allow(dead_code)]

use cuprum::prelude::*;

/// sortingNetworks' comparator: orders two key/value pairs in direction `dir`.
#[device]
pub fn comparator(key_a: &mut u32, val_a: &mut u32, key_b: &mut u32, val_b: &mut u32, dir: bool) {
    if (*key_a > *key_b) == dir {
        let t = *key_a;
        *key_a = *key_b;
        *key_b = t;
        let t = *val_a;
        *val_a = *val_b;
        *val_b = t;
    }
}

/// Bitonic sort of 256 key/value pairs per block (128 threads), in shared memory.
#[kernel]
pub fn sort_pairs_in_block(keys: &mut [u32], vals: &mut [u32]) {
    let s_key = gpu::shared_array::<u32, 256>();
    let s_val = gpu::shared_array::<u32, 256>();
    let t = gpu::thread_idx().x as usize;
    let base = gpu::block_idx().x as usize * 256;
    s_key[t] = keys[base + t];
    s_val[t] = vals[base + t];
    s_key[t + 128] = keys[base + t + 128];
    s_val[t + 128] = vals[base + t + 128];
    let mut size = 2;
    while size <= 256 {
        let dir = size == 256 || (t & (size / 2)) == 0;
        let mut stride = size / 2;
        while stride > 0 {
            gpu::sync_threads();
            let pos = 2 * t - (t & (stride - 1));
            comparator(
                &mut s_key[pos],
                &mut s_val[pos],
                &mut s_key[pos + stride],
                &mut s_val[pos + stride],
                dir,
            );
            stride /= 2;
        }
        size *= 2;
    }
    gpu::sync_threads();
    keys[base + t] = s_key[t];
    vals[base + t] = s_val[t];
    keys[base + t + 128] = s_key[t + 128];
    vals[base + t + 128] = s_val[t + 128];
}

/// Scan's `scan1Inclusive`: an inclusive prefix sum of one value per thread over `size`
/// threads, in a shared buffer of `2 * size` elements that the caller passes.
#[device]
pub fn scan_inclusive(v: u32, s: &mut [u32], size: usize) -> u32 {
    let t = gpu::thread_idx().x as usize;
    let mut pos = 2 * t - (t & (size - 1));
    s[pos] = 0;
    pos += size;
    s[pos] = v;
    let mut offset = 1;
    while offset < size {
        gpu::sync_threads();
        let x = s[pos] + s[pos - offset];
        gpu::sync_threads();
        s[pos] = x;
        offset *= 2;
    }
    s[pos]
}

#[kernel]
pub fn block_scan_with_helper(out: &mut [u32], x: &[u32]) {
    let s_data = gpu::shared_array::<u32, 256>();
    let i = gpu::global_id_x();
    out[i] = scan_inclusive(x[i], s_data, 128);
}

/// Sum of a slice, whatever it is part of.
#[device]
pub fn total(v: &[f32]) -> f32 {
    let mut s = 0.0;
    for k in 0..v.len() {
        s += v[k];
    }
    s
}

/// Writes `value` to every element of a slice, and returns how many it wrote.
#[device]
pub fn fill(v: &mut [f32], value: f32) -> usize {
    for e in v.iter_mut() {
        *e = value;
    }
    v.len()
}

/// Keeps the larger of `*m` and `v`.
#[device]
pub fn keep_max(m: &mut f32, v: f32) {
    if v > *m {
        *m = v;
    }
}

/// (min, max) of a slice, as a tuple.
#[device]
pub fn min_max(v: &[f32]) -> (f32, f32) {
    let mut lo = f32::MAX;
    let mut hi = f32::MIN;
    for &e in v.iter() {
        lo = lo.min(e);
        keep_max(&mut hi, e);
    }
    (lo, hi)
}

/// Sub-slices of a global slice and of a local array, `split_at_mut` of a local array,
/// `&mut` to a local and to a slice element.
#[kernel]
pub fn parts(out: &mut [f32], stats: &mut [f32], x: &[f32], width: usize) {
    let i = gpu::global_id_x();
    if i < out.len() {
        let w = &x[i..i + width];
        let window = total(w) + w[w.len() - 1] * 0.5;
        let mut a = [0.0f32; 8];
        let written = fill(&mut a[2..6], x[i]);
        let (left, right) = a.split_at_mut(4);
        fill(left, 1.0);
        let (lo, hi) = min_max(right);
        let mut best = window;
        keep_max(&mut best, total(&a));
        out[i] = best + written as f32 + lo * 10.0 + hi * 100.0;
        keep_max(&mut stats[i], x[i]);
    }
}

/// A reduction over a slice with the operation as a closure argument.
#[device]
pub fn fold(v: &[f32], init: f32, op: impl Fn(f32, f32) -> f32) -> f32 {
    let mut acc = init;
    for &e in v.iter() {
        acc = op(acc, e);
    }
    acc
}

/// A generic closure type (`FnMut`), applied twice.
#[device]
pub fn combine<F: FnMut(f32, f32) -> f32>(a: f32, b: f32, mut op: F) -> f32 {
    let first = op(a, b);
    op(first, b)
}

/// Closures: written in the kernel and called there, passed to device functions, capturing
/// the kernel's locals (one of them written through).
#[kernel]
pub fn closures(out: &mut [f32], calls: &mut [u32], x: &[f32], scale: f32) {
    let i = gpu::global_id_x();
    if i + 4 <= x.len() && i < out.len() {
        let mut count = 0u32;
        let scaled = |v: f32| v * scale;
        let sum = fold(&x[i..i + 4], 0.0, |a, b| a + scaled(b));
        let biggest = fold(&x[i..i + 4], f32::MIN, |a: f32, b: f32| a.max(b));
        let mut bump = |v: f32| -> f32 {
            count += 1;
            v + 1.0
        };
        let c = combine(sum, biggest, |a, b| bump(a) * b);
        out[i] = c;
        calls[i] = count;
    }
}

/// `a + b`, to pass by name.
#[device]
pub fn add_f(a: f32, b: f32) -> f32 {
    a + b
}

/// The larger of two numbers of any type, to pass by name (with or without `::<T>`).
#[device]
pub fn larger<T: gpu::Num>(a: T, b: T) -> T {
    if a > b {
        a
    } else {
        b
    }
}

/// Operations in a module, passed by path.
pub mod ops {
    use cuprum::prelude::*;

    /// `a + b / 2`.
    #[device]
    pub fn add_half(a: f32, b: f32) -> f32 {
        a + b * 0.5
    }
}

/// A fold applied twice, passing its closure on (by reference, then by value).
#[device]
pub fn fold_twice(v: &[f32], init: f32, op: impl Fn(f32, f32) -> f32) -> f32 {
    let once = fold(v, init, &op);
    fold(v, once, op)
}

/// A tree reduction over a block's shared array with any operation (blocks of 128).
#[device]
pub fn block_reduce<F: Fn(f32, f32) -> f32>(s: &mut [f32], v: f32, op: F) -> f32 {
    let t = gpu::thread_idx().x as usize;
    s[t] = v;
    let mut half = s.len() / 2;
    while half > 0 {
        gpu::sync_threads();
        if t < half {
            s[t] = op(s[t], s[t + half]);
        }
        half /= 2;
    }
    gpu::sync_threads();
    let r = s[0];
    gpu::sync_threads();
    r
}

/// `#[device]` functions passed by name where a closure is expected: plain, generic (with
/// and without `::<T>`), by module path, passed on by the callee, to a block reduction over
/// shared memory, and named by a `let`.
#[kernel]
pub fn functions_as_values(out: &mut [f32], blocks: &mut [f32], x: &[f32]) {
    let i = gpu::global_id_x();
    let s = gpu::shared_array::<f32, 128>();
    let v = if i < x.len() { x[i] } else { f32::MIN };
    let block_max = block_reduce(s, v, larger);
    let block_sum = block_reduce(s, if i < x.len() { x[i] } else { 0.0 }, add_f);
    if gpu::thread_idx().x == 0 {
        let b = gpu::block_idx().x as usize;
        blocks[2 * b] = block_max;
        blocks[2 * b + 1] = block_sum;
    }
    if i + 4 <= x.len() && i < out.len() {
        let w = &x[i..i + 4];
        let sum = fold(w, 0.0, add_f);
        let biggest = fold(w, f32::MIN, larger::<f32>);
        let halves = fold_twice(w, 1.0, ops::add_half);
        let pick = larger::<f32>;
        out[i] = pick(combine(sum, biggest, add_f), halves * 10.0);
    }
}
