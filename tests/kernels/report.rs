//! Kernels of `tests/gpu_assert.rs` and `tests/gpu_print.rs` (also snapshotted by
//! `tests/feature_ptx.rs`): assertions, panics and printing.

#![allow(dead_code)]

use cuprum::prelude::*;

/// Every element must be below `limit`; the first that is not stops the kernel with its
/// index and value in the message.
#[kernel]
pub fn all_below(x: &[f32], limit: f32) {
    let i = gpu::global_id_x();
    if i < x.len() {
        assert!(x[i] < limit, "x[{}] = {:.2} is not below {limit}", i, x[i]);
    }
}

/// `a` and `b` must be equal element by element (Rust's `assert_eq!` message).
#[kernel]
pub fn same_as(a: &[i32], b: &[i32]) {
    let i = gpu::global_id_x();
    if i < a.len() {
        assert_eq!(a[i], b[i]);
    }
}

/// `a` and `b` must differ element by element, with a message naming the element.
#[kernel]
pub fn differs_from(a: &[u8], b: &[u8]) {
    let i = gpu::global_id_x();
    if i < a.len() {
        assert_ne!(a[i], b[i], "element {i}");
    }
}

/// `unchecked` removes bounds checks, not assertions: a negative value panics.
#[kernel(unchecked)]
pub fn no_negatives(x: &[i64]) {
    let i = gpu::global_id_x();
    if i < x.len() && x[i] < 0 {
        panic!("negative value {} at {}", x[i], i);
    }
}

/// Maps each remainder by 4 to a code; the last branch can only be reached by a wrong
/// `modulus` (`unreachable!` as a value).
#[kernel]
pub fn classify(out: &mut [u32], x: &[u32], modulus: u32) {
    let i = gpu::global_id_x();
    if i < x.len() {
        let r = x[i] % modulus;
        out[i] = if r == 0 {
            10
        } else if r == 1 {
            20
        } else if r == 2 {
            30
        } else if r == 3 {
            40
        } else {
            unreachable!("remainder {} of {}", r, modulus)
        };
    }
}

/// Doubles each element; `debug_assert!` checks it is not negative (only in builds with
/// debug assertions).
#[kernel]
pub fn double_non_negative(x: &mut [i32]) {
    let i = gpu::global_id_x();
    if i < x.len() {
        debug_assert!(x[i] >= 0, "x[{i}] = {} is negative", x[i]);
        x[i] *= 2;
    }
}

/// Prints two lines per element with every kind of format the GPU's printf honours.
#[kernel]
pub fn print_values(a: &[i32], f: &[f32], flags: &[bool], small: &[i8], big: &[u64]) {
    let i = gpu::global_id_x();
    if i < a.len() {
        gpu::println!(
            "out {i} a={} hex={:x} HEX={:#X} f={:.3} e={:e} g={} b={:>6}|{:<5}| {:+05} {{ok}} 100%",
            a[i],
            a[i],
            small[i],
            f[i],
            f[i] as f64,
            f[i],
            flags[i],
            flags[i],
            a[i]
        );
        gpu::println!(
            "out {} u={:>20} o={:o} {1:?} {w}",
            i,
            big[i],
            small[i],
            w = small[i] as i16 * 2
        );
    }
}

/// One line printed in two calls (launched with one thread: on a GPU, other threads' lines
/// could come between the calls).
#[kernel]
pub fn print_in_pieces(a: &[i32]) {
    gpu::print!("out single ");
    gpu::println!("{}", a.len());
}

/// A device function that asserts: its failure names its own line.
#[device]
fn positive(v: i64, i: usize) -> i64 {
    assert!(v > 0, "value {} at {} is not positive", v, i);
    if v == i64::MIN {
        gpu::println!("unreachable after the assertion: {v}");
    }
    v
}

/// Sums `x[i] + x[i + 1]` through `positive`.
#[kernel]
pub fn pair_sums(out: &mut [i64], x: &[i64]) {
    let i = gpu::global_id_x();
    if i < out.len() {
        out[i] = positive(x[i], i) + positive(x[i + 1], i + 1);
    }
}

/// Assertions without messages: Rust's default wording.
#[kernel]
pub fn plain_guards(x: &[i32], which: u32) {
    let i = gpu::global_id_x();
    if i < x.len() {
        if which == 0 {
            assert!(x[i] != 13);
        } else if which == 1 && x[i] == 13 {
            panic!();
        } else if which == 2 && x[i] == 13 {
            unreachable!();
        }
    }
}
