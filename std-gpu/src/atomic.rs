//! Atomics on device memory: `gpu::atomic_add(&mut counts[i], 1)` returns the old value.
//!
//! In a kernel the place is an element of a `&mut [T]` parameter or of a shared array; the
//! operation is one indivisible read-modify-write at device scope (`_block` and `_system`
//! variants for the other scopes), or, for `atomic_load`, one indivisible read (a relaxed
//! load: a loop that polls a flag another block sets sees the new value, no read-modify-write
//! needed). On the host (a `#[device]` function called as ordinary
//! Rust) they are plain read-modify-writes of the `&mut` place.

use std::ops::{Add, BitAnd, BitOr, BitXor, Sub};

mod sealed {
    pub trait Sealed {}
}

/// The types atomics work on: `i32 u32 i64 u64` (and `isize usize`) for every operation,
/// `f32 f64` for add, sub, min, max and exchange.
pub trait Atomic:
    sealed::Sealed + Copy + PartialOrd + Add<Output = Self> + Sub<Output = Self>
{
    /// `a + b`, wrapping for integers.
    fn atomic_add(a: Self, b: Self) -> Self;
    /// `a - b`, wrapping for integers.
    fn atomic_sub(a: Self, b: Self) -> Self;
}

/// The integer types atomics work on (for the bitwise, increment and compare-and-swap ones).
pub trait AtomicInt:
    Atomic + Eq + BitAnd<Output = Self> + BitOr<Output = Self> + BitXor<Output = Self>
{
    /// Zero.
    const ZERO: Self;
    /// One.
    const ONE: Self;
    /// Unsigned comparison `a >= b` (as `atomicInc` compares).
    fn unsigned_ge(a: Self, b: Self) -> bool;
}

macro_rules! ints {
    ($($t:ty => $u:ty),*) => {$(
        impl sealed::Sealed for $t {}
        impl Atomic for $t {
            fn atomic_add(a: $t, b: $t) -> $t { a.wrapping_add(b) }
            fn atomic_sub(a: $t, b: $t) -> $t { a.wrapping_sub(b) }
        }
        impl AtomicInt for $t {
            const ZERO: $t = 0;
            const ONE: $t = 1;
            fn unsigned_ge(a: $t, b: $t) -> bool { (a as $u) >= (b as $u) }
        }
    )*};
}
ints!(i32 => u32, u32 => u32, i64 => u64, u64 => u64, isize => usize, usize => usize);

macro_rules! floats {
    ($($t:ty),*) => {$(
        impl sealed::Sealed for $t {}
        impl Atomic for $t {
            fn atomic_add(a: $t, b: $t) -> $t { a + b }
            fn atomic_sub(a: $t, b: $t) -> $t { a - b }
        }
    )*};
}
floats!(f32, f64);

fn update<T: Copy>(place: &mut T, f: impl FnOnce(T) -> T) -> T {
    let old = *place;
    *place = f(old);
    old
}

fn min<T: PartialOrd>(a: T, b: T) -> T {
    if b < a {
        b
    } else {
        a
    }
}

fn max<T: PartialOrd>(a: T, b: T) -> T {
    if b > a {
        b
    } else {
        a
    }
}

macro_rules! scoped {
    ($($(#[$doc:meta])* $name:ident $block:ident $system:ident <$T:ident: $bound:ident>($($arg:ident: $ty:ty),*) => $f:expr;)*) => {$(
        $(#[$doc])*
        pub fn $name<$T: $bound>(place: &mut $T, $($arg: $ty),*) -> $T {
            update(place, $f)
        }
        $(#[$doc])*
        ///
        /// Block scope: atomic with respect to the threads of this block.
        pub fn $block<$T: $bound>(place: &mut $T, $($arg: $ty),*) -> $T {
            $name(place, $($arg),*)
        }
        $(#[$doc])*
        ///
        /// System scope: atomic with respect to the host and peer GPUs too.
        pub fn $system<$T: $bound>(place: &mut $T, $($arg: $ty),*) -> $T {
            $name(place, $($arg),*)
        }
    )*};
}

scoped! {
    /// `*place += v`; returns the old value.
    atomic_add atomic_add_block atomic_add_system <T: Atomic>(v: T) => |o| T::atomic_add(o, v);
    /// `*place -= v`; returns the old value.
    atomic_sub atomic_sub_block atomic_sub_system <T: Atomic>(v: T) => |o| T::atomic_sub(o, v);
    /// `*place = min(*place, v)`; returns the old value.
    atomic_min atomic_min_block atomic_min_system <T: Atomic>(v: T) => |o| min(o, v);
    /// `*place = max(*place, v)`; returns the old value.
    atomic_max atomic_max_block atomic_max_system <T: Atomic>(v: T) => |o| max(o, v);
    /// `*place = v`; returns the old value.
    atomic_exch atomic_exch_block atomic_exch_system <T: Atomic>(v: T) => |_| v;
    /// `if *place == expected { *place = new }`; returns the old value.
    atomic_cas atomic_cas_block atomic_cas_system <T: AtomicInt>(expected: T, new: T) => |o| if o == expected { new } else { o };
    /// `*place &= v`; returns the old value.
    atomic_and atomic_and_block atomic_and_system <T: AtomicInt>(v: T) => |o| o & v;
    /// `*place |= v`; returns the old value.
    atomic_or atomic_or_block atomic_or_system <T: AtomicInt>(v: T) => |o| o | v;
    /// `*place ^= v`; returns the old value.
    atomic_xor atomic_xor_block atomic_xor_system <T: AtomicInt>(v: T) => |o| o ^ v;
    /// `*place = if *place >= limit { 0 } else { *place + 1 }` (unsigned comparison, CUDA's
    /// `atomicInc`); returns the old value.
    atomic_inc atomic_inc_block atomic_inc_system <T: AtomicInt>(limit: T) => |o| if T::unsigned_ge(o, limit) { T::ZERO } else { T::atomic_add(o, T::ONE) };
    /// `*place`, read as one indivisible access (a relaxed atomic load: never merged with
    /// another read nor moved out of a loop, so a loop can wait for another thread's write).
    atomic_load atomic_load_block atomic_load_system <T: Atomic>() => |o| o;
    /// `*place = if *place == 0 || *place > limit { limit } else { *place - 1 }` (unsigned,
    /// CUDA's `atomicDec`); returns the old value.
    atomic_dec atomic_dec_block atomic_dec_system <T: AtomicInt>(limit: T) => |o| if o == T::ZERO || (T::unsigned_ge(o, limit) && o != limit) { limit } else { T::atomic_sub(o, T::ONE) };
}
