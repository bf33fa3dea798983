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

/// A colour: a `DeviceCopy` struct that kernels of other crates take by value.
#[derive(Clone, Copy, Debug, PartialEq, DeviceCopy)]
#[repr(C)]
pub struct Pixel {
    pub r: f32,
    pub g: f32,
    pub b: f32,
}

#[device]
impl Pixel {
    /// Its luma, with this crate's weights.
    pub fn luma(&self) -> f32 {
        LUMA[0] * self.r + LUMA[1] * self.g + LUMA[2] * self.b
    }
}

/// The luma weights the method reads.
pub const LUMA: [f32; 3] = [0.25, 0.5, 0.25];

/// A constant that kernels of other crates import by name.
pub const GAMMA: f32 = 0.75;

/// A tone: a `DeviceCopy` enum of this crate.
#[derive(Clone, Copy, Debug, PartialEq, DeviceCopy)]
#[repr(u8)]
pub enum Tone {
    Dark,
    Light,
}
