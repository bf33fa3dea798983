//! Warp-wide collectives: every one of the 32 lanes of a warp calls them, with the same `op`,
//! and every lane gets the result (CUB's `WarpReduce`/`WarpScan`, with the result in every lane
//! instead of lane 0). The warp must be whole: blocks whose size is a multiple of 32, all
//! lanes active (the simulator reports a missing lane).
//!
//! `op` is a closure or `#[device]` function `Fn(T, T) -> T` that is associative; it need not
//! be commutative: values are always combined in lane order, `op(lower lanes, higher lanes)`.
//! Values are the types warp shuffles move (`i32 u32 i64 u64 isize usize f32 f64`).

use crate::prelude::*;

/// `op` over the values of all 32 lanes, in lane order, in every lane.
///
/// Combines neighbours first (lanes 2k and 2k + 1, then pairs of pairs): every lane computes
/// the same operations on the same values, so float results are identical in all lanes.
#[device]
pub fn reduce<T: gpu::WarpValue>(v: T, op: impl Fn(T, T) -> T) -> T {
    let lane = gpu::lane_id();
    let mut x = v;
    let mut d = 1u32;
    while d < 32 {
        let y = gpu::shfl_xor_sync(gpu::FULL_MASK, x, d);
        x = if lane & d == 0 { op(x, y) } else { op(y, x) };
        d *= 2;
    }
    x
}

/// The sum of the 32 lanes' values (integers wrap), in every lane.
///
/// `i32` and `u32` on sm_80 and newer (the default target): one `redux.sync` instruction
/// (CUDA's `__reduce_add_sync`); other types: five shuffles, as [`reduce`].
#[device]
pub fn sum<T: gpu::Num + gpu::WarpValue>(v: T) -> T {
    if gpu::__redux_supported::<T>() {
        gpu::__redux_add_sync(gpu::FULL_MASK, v)
    } else {
        reduce(v, |a, b| a + b)
    }
}

/// The smallest of the 32 lanes' values (by `<`, so a NaN is kept only where it is first),
/// in every lane. One `redux.sync` for `i32` and `u32` on sm_80 and newer, as [`sum`].
#[device]
pub fn min<T: gpu::Num + gpu::WarpValue>(v: T) -> T {
    if gpu::__redux_supported::<T>() {
        gpu::__redux_min_sync(gpu::FULL_MASK, v)
    } else {
        reduce(v, |a, b| if b < a { b } else { a })
    }
}

/// The largest of the 32 lanes' values (by `>`), in every lane. One `redux.sync` for `i32`
/// and `u32` on sm_80 and newer, as [`sum`].
#[device]
pub fn max<T: gpu::Num + gpu::WarpValue>(v: T) -> T {
    if gpu::__redux_supported::<T>() {
        gpu::__redux_max_sync(gpu::FULL_MASK, v)
    } else {
        reduce(v, |a, b| if b > a { b } else { a })
    }
}

/// Lane `i` gets `op` over the values of lanes `0..=i`, in lane order.
#[device]
pub fn inclusive_scan<T: gpu::WarpValue>(v: T, op: impl Fn(T, T) -> T) -> T {
    let lane = gpu::lane_id();
    let mut x = v;
    let mut d = 1u32;
    while d < 32 {
        let y = gpu::shfl_up_sync(gpu::FULL_MASK, x, d);
        if lane >= d {
            x = op(y, x);
        }
        d *= 2;
    }
    x
}

/// Lane `i` gets `init` combined with the values of lanes `0..i`: lane 0 gets `init`, lane 1
/// `op(init, v₀)`, lane 2 `op(op(init, v₀), v₁)` (up to associativity), and so on.
#[device]
pub fn exclusive_scan<T: gpu::WarpValue>(v: T, init: T, op: impl Fn(T, T) -> T) -> T {
    let lane = gpu::lane_id();
    let x = inclusive_scan(v, &op);
    let before = gpu::shfl_up_sync(gpu::FULL_MASK, x, 1);
    if lane == 0 {
        init
    } else {
        op(init, before)
    }
}

/// Lane `lane`'s value `v`, in every lane (`lane` is taken modulo 32, as CUDA's `__shfl_sync`).
#[device]
pub fn broadcast<T: gpu::WarpValue>(v: T, lane: u32) -> T {
    gpu::shfl_sync(gpu::FULL_MASK, v, lane)
}
