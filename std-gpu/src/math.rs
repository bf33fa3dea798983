//! Math beyond the scalar methods, and the traits generic kernels and device functions are
//! written against.

use std::ops::{
    Add, AddAssign, BitAnd, BitOr, BitXor, Div, DivAssign, Mul, MulAssign, Neg, Not, Rem, Shl, Shr,
    Sub, SubAssign,
};

mod sealed {
    pub trait Sealed {}
}

/// `1 / x.sqrt()` (CUDA's `rsqrtf`, which is approximate on the GPU: within 2 ulps).
pub fn rsqrt<F: Float>(x: F) -> F {
    x.rsqrt_impl()
}

/// A per-multiprocessor cycle counter (`clock64()`); on the simulator, nanoseconds.
pub fn clock64() -> u64 {
    crate::sim::clock64()
}

/// The low 32 bits of the cycle counter (`clock()`); on the simulator, nanoseconds.
pub fn clock() -> u32 {
    crate::sim::clock64() as u32
}

/// The GPU's fast approximations for `f32` (CUDA's `__expf`, `__logf`, `__sinf`, `__cosf`,
/// `__fdividef`): one or two hardware instructions each, with errors that grow away from
/// small arguments (see the CUDA programming guide's tables). On the host and the simulator
/// they are the exact functions.
pub mod fast {
    /// `e^x`, approximately (`__expf`).
    pub fn exp(x: f32) -> f32 {
        x.exp()
    }

    /// The natural logarithm, approximately (`__logf`).
    pub fn ln(x: f32) -> f32 {
        x.ln()
    }

    /// The sine, approximately (`__sinf`; accurate for |x| up to about π).
    pub fn sin(x: f32) -> f32 {
        x.sin()
    }

    /// The cosine, approximately (`__cosf`).
    pub fn cos(x: f32) -> f32 {
        x.cos()
    }

    /// `a / b`, approximately (`__fdividef`: 0 when `b` is beyond 2^126).
    pub fn div(a: f32, b: f32) -> f32 {
        a / b
    }
}
/// Every integer and float type: the bound of kernels and device functions generic over
/// numbers (`fn sum<T: gpu::Num>(..)`), with the constants a generic body needs.
pub trait Num:
    sealed::Sealed
    + Copy
    + 'static
    + Default
    + PartialOrd
    + Add<Output = Self>
    + Sub<Output = Self>
    + Mul<Output = Self>
    + Div<Output = Self>
    + Rem<Output = Self>
    + AddAssign
    + SubAssign
    + MulAssign
    + DivAssign
{
    /// Zero.
    const ZERO: Self;
    /// One.
    const ONE: Self;
    /// The smallest value (for floats the most negative finite one, as `f32::MIN`).
    const MIN: Self;
    /// The largest value (for floats the largest finite one, as `f32::MAX`).
    const MAX: Self;
}

macro_rules! nums {
    ($($t:ty: $zero:expr, $one:expr);*) => {$(
        impl Num for $t {
            const ZERO: $t = $zero;
            const ONE: $t = $one;
            const MIN: $t = <$t>::MIN;
            const MAX: $t = <$t>::MAX;
        }
    )*};
}
nums!(i8: 0, 1; i16: 0, 1; i32: 0, 1; i64: 0, 1; isize: 0, 1; u8: 0, 1; u16: 0, 1; u32: 0, 1;
      u64: 0, 1; usize: 0, 1; f32: 0.0, 1.0; f64: 0.0, 1.0);

/// `f32` or `f64`: the bound of float-generic kernels (`#[kernel(instances(f32, f64))] fn
/// k<T: gpu::Float>(..)`) and device functions.
///
/// Kernels can use every float method (`sqrt`, `exp`, `mul_add`, ...) on `T`. A generic `#[device]` function is also
/// compiled as ordinary generic Rust for the host, where only the operators and the methods
/// below are available (and literals need a conversion such as `T::from_f64(2.0)`).
pub trait Float:
    Num
    + PartialOrd
    + Add<Output = Self>
    + Sub<Output = Self>
    + Mul<Output = Self>
    + Div<Output = Self>
    + Rem<Output = Self>
    + Neg<Output = Self>
    + AddAssign
    + SubAssign
    + MulAssign
    + DivAssign
{
    /// The value of `v` in this type.
    fn from_f64(v: f64) -> Self;
    /// `self.sqrt()`
    fn sqrt(self) -> Self;
    /// `self.exp()`
    fn exp(self) -> Self;
    /// `self.ln()`
    fn ln(self) -> Self;
    /// `self.abs()`
    fn abs(self) -> Self;
    /// `self.min(other)`
    fn min(self, other: Self) -> Self;
    /// `self.max(other)`
    fn max(self, other: Self) -> Self;
    /// `self.mul_add(a, b)`
    fn mul_add(self, a: Self, b: Self) -> Self;
    #[doc(hidden)]
    fn rsqrt_impl(self) -> Self;
}

macro_rules! floats {
    ($($t:ty),*) => {$(
        impl sealed::Sealed for $t {}
        impl Float for $t {
            fn from_f64(v: f64) -> $t { v as $t }
            fn sqrt(self) -> $t { <$t>::sqrt(self) }
            fn exp(self) -> $t { <$t>::exp(self) }
            fn ln(self) -> $t { <$t>::ln(self) }
            fn abs(self) -> $t { <$t>::abs(self) }
            fn min(self, other: $t) -> $t { <$t>::min(self, other) }
            fn max(self, other: $t) -> $t { <$t>::max(self, other) }
            fn mul_add(self, a: $t, b: $t) -> $t { <$t>::mul_add(self, a, b) }
            fn rsqrt_impl(self) -> $t { 1.0 / <$t>::sqrt(self) }
        }
    )*};
}
floats!(f32, f64);

/// The integer types: the bound of integer-generic kernels and device functions (with the
/// bit operators, shifts by a `u32`).
pub trait Int:
    Num
    + Ord
    + Add<Output = Self>
    + Sub<Output = Self>
    + Mul<Output = Self>
    + Div<Output = Self>
    + Rem<Output = Self>
    + AddAssign
    + SubAssign
    + MulAssign
    + BitAnd<Output = Self>
    + BitOr<Output = Self>
    + BitXor<Output = Self>
    + Not<Output = Self>
    + Shl<u32, Output = Self>
    + Shr<u32, Output = Self>
{
}

macro_rules! ints {
    ($($t:ty),*) => {$(
        impl sealed::Sealed for $t {}
        impl Int for $t {}
    )*};
}
ints!(i8, i16, i32, i64, isize, u8, u16, u32, u64, usize);
