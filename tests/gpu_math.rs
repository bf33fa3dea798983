//! Every math method kernels have on f32, f64 and the integers, against Rust's own on the CPU:
//! exact where IEEE or Rust define the result bit for bit, within a few ulps for the
//! transcendental functions (libdevice on the GPU, the platform's libm on the CPU).

use cuprum::prelude::*;
use cuprum_testkit::{ulps_f32, ulps_f64};

#[path = "kernels/math.rs"]
mod kernels;
use kernels::*;

/// Number of unary float functions checked per element.
const F: usize = 24;

fn reference<T>(a: T, b: T, rsqrt: impl Fn(T) -> T) -> [T; F]
where
    T: num::Float,
{
    let c = |v: f64| T::from_f64(v);
    [
        a.sqrt(),
        a.exp(),
        a.exp2(),
        a.ln(),
        a.log2(),
        a.log10(),
        a.powf(b),
        a.powi(3),
        b.sin(),
        b.cos(),
        b.tan(),
        (b / c(10.0)).asin() + (b / c(10.0)).acos(),
        b.atan() + b.atan2(a),
        (b / c(4.0)).sinh() + (b / c(4.0)).cosh() + b.tanh(),
        a.hypot(b) + a.cbrt() + a.recip(),
        b.floor() + b.ceil() * c(2.0) + b.round() * c(4.0) + b.trunc() * c(8.0),
        b.abs().copysign(-a) + a.mul_add(b, c(1.0)),
        a.min(b)
            + a.max(b)
            + a.max(b)
            + (if b < c(-1.0) {
                c(-1.0)
            } else if b > c(1.0) {
                c(1.0)
            } else {
                b
            }),
        rsqrt(a),
        (if (a - a / c(0.0)).is_nan() {
            c(1.0)
        } else {
            c(0.0)
        }) + if b.is_finite() { c(2.0) } else { c(0.0) },
        T::flip_low_bit(a),
        (b * c(100.0)).round() / c(100.0),
        a.ln().exp(),
        b.cbrt().powi(2),
    ]
}

/// A little trait so one reference serves f32 and f64.
mod num {
    pub trait Float:
        Copy
        + PartialOrd
        + std::ops::Add<Output = Self>
        + std::ops::Sub<Output = Self>
        + std::ops::Mul<Output = Self>
        + std::ops::Div<Output = Self>
        + std::ops::Neg<Output = Self>
    {
        fn from_f64(v: f64) -> Self;
        fn flip_low_bit(self) -> Self;
        fn sqrt(self) -> Self;
        fn exp(self) -> Self;
        fn exp2(self) -> Self;
        fn ln(self) -> Self;
        fn log2(self) -> Self;
        fn log10(self) -> Self;
        fn powf(self, b: Self) -> Self;
        fn powi(self, n: i32) -> Self;
        fn sin(self) -> Self;
        fn cos(self) -> Self;
        fn tan(self) -> Self;
        fn asin(self) -> Self;
        fn acos(self) -> Self;
        fn atan(self) -> Self;
        fn atan2(self, b: Self) -> Self;
        fn sinh(self) -> Self;
        fn cosh(self) -> Self;
        fn tanh(self) -> Self;
        fn hypot(self, b: Self) -> Self;
        fn cbrt(self) -> Self;
        fn recip(self) -> Self;
        fn floor(self) -> Self;
        fn ceil(self) -> Self;
        fn round(self) -> Self;
        fn trunc(self) -> Self;
        fn abs(self) -> Self;
        fn copysign(self, s: Self) -> Self;
        fn mul_add(self, a: Self, b: Self) -> Self;
        fn min(self, b: Self) -> Self;
        fn max(self, b: Self) -> Self;
        fn is_nan(self) -> bool;
        fn is_finite(self) -> bool;
    }
    macro_rules! imp {
        ($t:ty, $bits:ty) => {
            impl Float for $t {
                fn from_f64(v: f64) -> $t {
                    v as $t
                }
                fn flip_low_bit(self) -> $t {
                    <$t>::from_bits(self.to_bits() ^ 1)
                }
                fn sqrt(self) -> $t {
                    <$t>::sqrt(self)
                }
                fn exp(self) -> $t {
                    <$t>::exp(self)
                }
                fn exp2(self) -> $t {
                    <$t>::exp2(self)
                }
                fn ln(self) -> $t {
                    <$t>::ln(self)
                }
                fn log2(self) -> $t {
                    <$t>::log2(self)
                }
                fn log10(self) -> $t {
                    <$t>::log10(self)
                }
                fn powf(self, b: $t) -> $t {
                    <$t>::powf(self, b)
                }
                fn powi(self, n: i32) -> $t {
                    <$t>::powi(self, n)
                }
                fn sin(self) -> $t {
                    <$t>::sin(self)
                }
                fn cos(self) -> $t {
                    <$t>::cos(self)
                }
                fn tan(self) -> $t {
                    <$t>::tan(self)
                }
                fn asin(self) -> $t {
                    <$t>::asin(self)
                }
                fn acos(self) -> $t {
                    <$t>::acos(self)
                }
                fn atan(self) -> $t {
                    <$t>::atan(self)
                }
                fn atan2(self, b: $t) -> $t {
                    <$t>::atan2(self, b)
                }
                fn sinh(self) -> $t {
                    <$t>::sinh(self)
                }
                fn cosh(self) -> $t {
                    <$t>::cosh(self)
                }
                fn tanh(self) -> $t {
                    <$t>::tanh(self)
                }
                fn hypot(self, b: $t) -> $t {
                    <$t>::hypot(self, b)
                }
                fn cbrt(self) -> $t {
                    <$t>::cbrt(self)
                }
                fn recip(self) -> $t {
                    <$t>::recip(self)
                }
                fn floor(self) -> $t {
                    <$t>::floor(self)
                }
                fn ceil(self) -> $t {
                    <$t>::ceil(self)
                }
                fn round(self) -> $t {
                    <$t>::round(self)
                }
                fn trunc(self) -> $t {
                    <$t>::trunc(self)
                }
                fn abs(self) -> $t {
                    <$t>::abs(self)
                }
                fn copysign(self, s: $t) -> $t {
                    <$t>::copysign(self, s)
                }
                fn mul_add(self, a: $t, b: $t) -> $t {
                    <$t>::mul_add(self, a, b)
                }
                fn min(self, b: $t) -> $t {
                    <$t>::min(self, b)
                }
                fn max(self, b: $t) -> $t {
                    <$t>::max(self, b)
                }
                fn is_nan(self) -> bool {
                    <$t>::is_nan(self)
                }
                fn is_finite(self) -> bool {
                    <$t>::is_finite(self)
                }
            }
        };
    }
    imp!(f32, u32);
    imp!(f64, u64);
}

/// Ulps allowed per function: 0 where the result is exactly defined (sqrt, rounding, min/max,
/// bits), a few for libdevice's transcendental functions (CUDA's documented bounds, doubled
/// for compositions).
const TOLERANCE_F32: [u64; F] = [
    0, 4, 4, 2, 2, 4, 16, 2, 4, 4, 8, 8, 8, 12, 8, 0, 2, 2, 4, 0, 0, 1, 8, 4,
];
const TOLERANCE_F64: [u64; F] = [
    0, 2, 2, 2, 2, 2, 4, 2, 2, 2, 4, 4, 4, 8, 4, 0, 2, 2, 2, 0, 0, 1, 4, 4,
];

macro_rules! check_float {
    ($test:ident, $kernel:ident, $t:ty, $ulps:ident, $tol:ident) => {
        #[test]
        fn $test() -> cuprum::Result<()> {
            // On the GPU host: the GPU and the simulator, each against the CPU.
            for dev in cuprum_testkit::backends()? {
            let stream = dev.default_stream();
            let n = 1000;
            let mut r = fastrand::Rng::new();
            let x: Vec<$t> = (0..n).map(|_| (r.f64() * 20.0 + 0.01) as $t).collect();
            let y: Vec<$t> = (0..n).map(|_| (r.f64() * 12.0 - 6.0) as $t).map(|v| if v == 0.0 { 0.5 } else { v }).collect();
            let (dx, dy) = (stream.to_device(&x)?, stream.to_device(&y)?);
            let mut out = stream.to_device(&vec![<$t>::NAN; F * n])?;
            launch!($kernel<<<8, 128, stream>>>(&mut out, &dx, &dy))?;
            let got = stream.to_host(&out)?;
            let mut worst = [0u64; F];
            for i in 0..n {
                let want = reference(x[i], y[i], |a: $t| 1.0 / a.sqrt());
                for k in 0..F {
                    let d = $ulps(got[F * i + k], want[k]);
                    // Near zero a few ulps of the inputs' scale is the right yardstick.
                    let close = (got[F * i + k] - want[k]).abs() <= 4.0 * <$t>::EPSILON;
                    if !close {
                        worst[k] = worst[k].max(d);
                    }
                }
            }
            for k in 0..F {
                // The simulator computes with the CPU's own functions: it must match exactly.
                let allowed = if dev.is_simulator() { 0 } else { $tol[k] };
                assert!(worst[k] <= allowed, "function {k}: {} ulps > {allowed}", worst[k]);
            }
            }
            Ok(())
        }
    };
}

check_float!(math_matches_cpu_f32, math_f32, f32, ulps_f32, TOLERANCE_F32);
check_float!(math_matches_cpu_f64, math_f64, f64, ulps_f64, TOLERANCE_F64);

macro_rules! check_int {
    ($test:ident, $kernel:ident, $t:ty) => {
        #[test]
        fn $test() -> cuprum::Result<()> {
            // On the GPU host: the GPU and the simulator, each against the CPU.
            for dev in cuprum_testkit::backends()? {
            let stream = dev.default_stream();
            let n = 700;
            let mut r = fastrand::Rng::new();
            let x: Vec<$t> = (0..n).map(|_| r.u64(..) as $t).collect();
            let y: Vec<$t> = (0..n).map(|_| r.u64(..) as $t).collect();
            let (dx, dy) = (stream.to_device(&x)?, stream.to_device(&y)?);
            let mut out = stream.alloc_zeros::<$t>(10 * n)?;
            launch!($kernel<<<7, 128, stream>>>(&mut out, &dx, &dy))?;
            let got = stream.to_host(&out)?;
            for i in 0..n {
                let (a, b) = (x[i], y[i]);
                let want: [$t; 10] = [
                    a.min(b).wrapping_add(a.max(b)),
                    a.wrapping_pow(3).wrapping_mul(b.wrapping_pow(0)),
                    (a.count_ones() + b.leading_zeros() * 100 + a.trailing_zeros() * 10000) as $t,
                    a.reverse_bits(),
                    a.rotate_left(b as u32 % 70).wrapping_sub(b.rotate_right(7)),
                    a.wrapping_neg() ^ b.wrapping_shl(35),
                    a.wrapping_shr(b as u32),
                    b.clamp(a.min(3), a.max(3)),
                    a.wrapping_add(b).wrapping_sub(7).wrapping_mul(b),
                    a.wrapping_pow(b as u32 % 5),
                ];
                assert_eq!(&got[10 * i..10 * i + 10], &want, "element {i}: a = {a}, b = {b}");
            }
            }
            Ok(())
        }
    };
}

check_int!(integer_methods_u32, imath_u32, u32);
check_int!(integer_methods_i64, imath_i64, i64);
check_int!(integer_methods_u8, imath_u8, u8);

/// Floats where a cast to an integer type can go wrong: NaNs (either sign, a payload), both
/// infinities and zeros, the smallest subnormals and normals, values around ±1, every integer
/// type's bounds as floats with the floats next to them and a half and a one either side, the
/// float type's extremes, and random values of every magnitude from 2^-8 to 2^70.
macro_rules! cast_inputs {
    ($t:ty, $r:expr) => {{
        let r: &mut fastrand::Rng = $r;
        let mut x: Vec<$t> = vec![
            <$t>::NAN,
            -<$t>::NAN,
            <$t>::from_bits(<$t>::NAN.to_bits() | 1),
            <$t>::INFINITY,
            <$t>::NEG_INFINITY,
            0.0,
            -0.0,
            <$t>::from_bits(1),
            -<$t>::from_bits(1),
            <$t>::MIN_POSITIVE,
            -<$t>::MIN_POSITIVE,
            0.5,
            -0.5,
            0.999,
            -0.999,
            1.0,
            -1.0,
            1.5,
            -1.5,
            <$t>::MAX,
            <$t>::MIN,
            1e30 as $t,
            -1e30 as $t,
        ];
        let bounds: [f64; 16] = [
            i8::MIN as f64,
            i8::MAX as f64,
            u8::MAX as f64,
            i16::MIN as f64,
            i16::MAX as f64,
            u16::MAX as f64,
            i32::MIN as f64,
            i32::MAX as f64,
            u32::MAX as f64,
            i64::MIN as f64,
            i64::MAX as f64,
            u64::MAX as f64,
            isize::MIN as f64,
            usize::MAX as f64,
            -(u32::MAX as f64),
            -(u64::MAX as f64),
        ];
        for b in bounds {
            let b = b as $t;
            x.extend([
                b,
                b.next_up(),
                b.next_down(),
                b - 0.5,
                b + 0.5,
                b - 1.0,
                b + 1.0,
            ]);
        }
        for _ in 0..4000 {
            let m = r.f64() * 2.0 - 1.0;
            x.push((m * (2f64).powi(r.i32(-8..=70))) as $t);
        }
        x
    }};
}

macro_rules! check_casts {
    ($test:ident, $kernel:ident, $t:ty) => {
        #[test]
        fn $test() -> cuprum::Result<()> {
            // On the GPU host: the GPU and the simulator, each against Rust's `as` on the CPU.
            for dev in cuprum_testkit::backends()? {
                let stream = dev.default_stream();
                let x = cast_inputs!($t, &mut fastrand::Rng::new());
                let n = x.len();
                let dx = stream.to_device(&x)?;
                let mut signed = stream.to_device(&vec![0x5a5a_5a5a_i64; 5 * n])?;
                let mut unsigned = stream.to_device(&vec![0x5a5a_5a5a_u64; 5 * n])?;
                let blocks = n.div_ceil(128) as u32;
                launch!($kernel<<<blocks, 128, stream>>>(&mut signed, &mut unsigned, &dx))?;
                let (s, u) = (stream.to_host(&signed)?, stream.to_host(&unsigned)?);
                for (i, &v) in x.iter().enumerate() {
                    let want_s = [
                        v as i8 as i64,
                        v as i16 as i64,
                        v as i32 as i64,
                        v as i64,
                        v as isize as i64,
                    ];
                    let want_u = [
                        v as u8 as u64,
                        v as u16 as u64,
                        v as u32 as u64,
                        v as u64,
                        v as usize as u64,
                    ];
                    let what = format!("{}: {v:e} ({:#x})", dev.name(), v.to_bits());
                    assert_eq!(s[5 * i..5 * i + 5], want_s, "{what} as i8, i16, i32, i64, isize");
                    assert_eq!(u[5 * i..5 * i + 5], want_u, "{what} as u8, u16, u32, u64, usize");
                }
            }
            Ok(())
        }
    };
}

check_casts!(float_to_int_casts_match_rust_f32, float_to_int_f32, f32);
check_casts!(float_to_int_casts_match_rust_f64, float_to_int_f64, f64);

#[test]
fn clock64_advances() -> cuprum::Result<()> {
    // On the GPU host: the GPU and the simulator, each against the CPU.
    for dev in cuprum_testkit::backends()? {
        let stream = dev.default_stream();
        let mut out = stream.alloc_zeros::<u64>(64)?;
        launch!(clocks<<<1, 32, stream>>>(&mut out))?;
        let got = stream.to_host(&out)?;
        assert!(got.chunks(2).all(|c| c[0] > 0), "{got:?}");
    }
    Ok(())
}
