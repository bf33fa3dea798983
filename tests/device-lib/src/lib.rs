//! `#[device]` functions of one crate that kernels of another crate call
//! (`tests/gpu_cross_crate.rs`): at the root and in a module, calling each other, with
//! references, slices and closures.

use cuprum::prelude::*;

/// `x * x`.
#[device]
pub fn square(x: f32) -> f32 {
    x * x
}

/// Helpers in a module.
pub mod stats {
    use cuprum::prelude::*;

    /// The sum of squares of a slice (through the crate's own `square`).
    #[device]
    pub fn sum_squares(v: &[f32]) -> f32 {
        let mut s = 0.0;
        for &e in v.iter() {
            s += crate::square(e);
        }
        s
    }

    /// Keeps the larger of `*m` and `v`.
    #[device]
    pub fn keep_max(m: &mut f32, v: f32) {
        if v > *m {
            *m = v;
        }
    }

    /// Applies `op` to every element.
    #[device]
    pub fn map_in_place(v: &mut [f32], op: impl Fn(f32) -> f32) {
        for e in v.iter_mut() {
            *e = op(*e);
        }
    }
}

/// A kernel of this crate using its own `pub` device functions.
#[kernel]
pub fn squares(out: &mut [f32], x: &[f32]) {
    let i = gpu::global_id_x();
    if i < out.len() && i < x.len() {
        out[i] = square(x[i]) + stats::sum_squares(&x[i..i + 1]);
    }
}
