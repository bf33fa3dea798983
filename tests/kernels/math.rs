//! Kernels of `tests/gpu_math.rs` (also snapshotted by `tests/feature_ptx.rs`).

#![allow(dead_code)]

use cuprum::prelude::*;

macro_rules! float_math {
    ($name:ident, $t:ty) => {
        #[kernel]
        pub fn $name(out: &mut [$t], x: &[$t], y: &[$t]) {
            let i = gpu::global_id_x();
            if i < x.len() {
                let (a, b) = (x[i], y[i]);
                let o = 24 * i;
                out[o] = a.sqrt();
                out[o + 1] = a.exp();
                out[o + 2] = a.exp2();
                out[o + 3] = a.ln();
                out[o + 4] = a.log2();
                out[o + 5] = a.log10();
                out[o + 6] = a.powf(b);
                out[o + 7] = a.powi(3);
                out[o + 8] = b.sin();
                out[o + 9] = b.cos();
                out[o + 10] = b.tan();
                out[o + 11] = (b / 10.0).asin() + (b / 10.0).acos();
                out[o + 12] = b.atan() + b.atan2(a);
                out[o + 13] = (b / 4.0).sinh() + (b / 4.0).cosh() + b.tanh();
                out[o + 14] = a.hypot(b) + a.cbrt() + a.recip();
                out[o + 15] = b.floor() + b.ceil() * 2.0 + b.round() * 4.0 + b.trunc() * 8.0;
                out[o + 16] = b.abs().copysign(-a) + a.mul_add(b, 1.0);
                // Sums only: a product here may be contracted into an FMA on the GPU, which the
                // CPU reference does not do (a few ulps apart where the terms cancel).
                out[o + 17] = a.min(b) + a.max(b) + a.max(b) + b.clamp(-1.0, 1.0);
                out[o + 18] = gpu::rsqrt(a);
                out[o + 19] = if (a - a / 0.0).is_nan() { 1.0 } else { 0.0 }
                    + if b.is_finite() { 2.0 } else { 0.0 };
                out[o + 20] = <$t>::from_bits(a.to_bits() ^ 1);
                out[o + 21] = (b * 100.0).round() / 100.0;
                out[o + 22] = a.ln().exp();
                out[o + 23] = b.cbrt().powi(2);
            }
        }
    };
}

float_math!(math_f32, f32);
float_math!(math_f64, f64);

macro_rules! int_math {
    ($name:ident, $t:ty) => {
        #[kernel]
        pub fn $name(out: &mut [$t], x: &[$t], y: &[$t]) {
            let i = gpu::global_id_x();
            if i < x.len() {
                let (a, b) = (x[i], y[i]);
                let o = 10 * i;
                out[o] = a.min(b).wrapping_add(a.max(b));
                out[o + 1] = a.pow(3).wrapping_mul(b.pow(0));
                out[o + 2] =
                    (a.count_ones() + b.leading_zeros() * 100 + a.trailing_zeros() * 10000) as $t;
                out[o + 3] = a.reverse_bits();
                out[o + 4] = a.rotate_left(b as u32 % 70).wrapping_sub(b.rotate_right(7));
                out[o + 5] = a.wrapping_neg() ^ b.wrapping_shl(35);
                out[o + 6] = a.wrapping_shr(b as u32);
                out[o + 7] = b.clamp(a.min(3), a.max(3));
                out[o + 8] = a.wrapping_add(b).wrapping_sub(7).wrapping_mul(b);
                out[o + 9] = a.pow(b as u32 % 5);
            }
        }
    };
}

int_math!(imath_u32, u32);
int_math!(imath_i64, i64);
int_math!(imath_u8, u8);

#[kernel]
pub fn clocks(out: &mut [u64]) {
    let t0 = gpu::clock64();
    let mut x = 1u64;
    for i in 0..1000u64 {
        x = x.wrapping_mul(6364136223846793005).wrapping_add(i);
    }
    let t1 = gpu::clock64();
    out[2 * gpu::global_id_x()] = t1 - t0;
    out[2 * gpu::global_id_x() + 1] = x;
}

macro_rules! float_to_int {
    ($name:ident, $t:ty) => {
        /// `x[i] as` every integer type: the signed results in `signed[5 * i..]` (i8, i16, i32,
        /// i64, isize), the unsigned in `unsigned[5 * i..]` (u8, u16, u32, u64, usize), each
        /// widened exactly.
        #[kernel]
        pub fn $name(signed: &mut [i64], unsigned: &mut [u64], x: &[$t]) {
            let i = gpu::global_id_x();
            if i < x.len() {
                let (v, o) = (x[i], 5 * i);
                signed[o] = v as i8 as i64;
                signed[o + 1] = v as i16 as i64;
                signed[o + 2] = v as i32 as i64;
                signed[o + 3] = v as i64;
                signed[o + 4] = v as isize as i64;
                unsigned[o] = v as u8 as u64;
                unsigned[o + 1] = v as u16 as u64;
                unsigned[o + 2] = v as u32 as u64;
                unsigned[o + 3] = v as u64;
                unsigned[o + 4] = v as usize as u64;
            }
        }
    };
}

float_to_int!(float_to_int_f32, f32);
float_to_int!(float_to_int_f64, f64);
