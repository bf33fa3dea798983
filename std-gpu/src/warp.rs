//! Warp operations: the 32 lanes of a warp exchange values and vote. `mask` names the lanes
//! taking part (`FULL_MASK` for all); every lane it names must make the same call. Outside a
//! kernel these functions panic.

mod sealed {
    pub trait Sealed {}
}

/// The types warp shuffles move: `i32 u32 i64 u64 f32 f64` (and `isize usize`).
pub trait WarpValue: sealed::Sealed + Copy + 'static {}

macro_rules! warp_values {
    ($($t:ty),*) => {$( impl sealed::Sealed for $t {} impl WarpValue for $t {} )*};
}
warp_values!(i32, u32, i64, u64, isize, usize, f32, f64);

fn outside(name: &str) -> ! {
    panic!("cuprum::gpu::{name} can only be called inside a kernel")
}

/// The value of `v` in lane `src_lane` (`__shfl_sync`).
pub fn shfl_sync<T: WarpValue>(_mask: u32, _v: T, _src_lane: u32) -> T {
    outside("shfl_sync")
}

/// The value of `v` in lane `lane_id - delta`, or this lane's own below `delta`
/// (`__shfl_up_sync`).
pub fn shfl_up_sync<T: WarpValue>(_mask: u32, _v: T, _delta: u32) -> T {
    outside("shfl_up_sync")
}

/// The value of `v` in lane `lane_id + delta`, or this lane's own past the end
/// (`__shfl_down_sync`).
pub fn shfl_down_sync<T: WarpValue>(_mask: u32, _v: T, _delta: u32) -> T {
    outside("shfl_down_sync")
}

/// The value of `v` in lane `lane_id ^ lane_mask` (`__shfl_xor_sync`).
pub fn shfl_xor_sync<T: WarpValue>(_mask: u32, _v: T, _lane_mask: u32) -> T {
    outside("shfl_xor_sync")
}

/// Bit `k` set for every lane `k` of `mask` whose `p` is true (`__ballot_sync`).
pub fn ballot_sync(_mask: u32, _p: bool) -> u32 {
    outside("ballot_sync")
}

/// Whether `p` is true in every lane of `mask` (`__all_sync`).
pub fn all_sync(_mask: u32, _p: bool) -> bool {
    outside("all_sync")
}

/// Whether `p` is true in any lane of `mask` (`__any_sync`).
pub fn any_sync(_mask: u32, _p: bool) -> bool {
    outside("any_sync")
}

/// The lanes of this warp executing this call together (`__activemask`).
pub fn activemask() -> u32 {
    outside("activemask")
}

/// `(mask, true)` when every lane of `mask` has the same `v`, else `(0, false)`
/// (`__match_all_sync`).
pub fn match_all_sync<T: WarpValue>(_mask: u32, _v: T) -> (u32, bool) {
    outside("match_all_sync")
}

/// The lanes of `mask` whose `v` equals this lane's (`__match_any_sync`).
pub fn match_any_sync<T: WarpValue>(_mask: u32, _v: T) -> u32 {
    outside("match_any_sync")
}

// Hidden: the library's `gpu::warp::sum`/`min`/`max` use these for 32-bit integers (one
// `redux.sync` instead of five shuffles). They are not part of the public API (DESIGN.md).

/// Whether the kernel's target has `redux.sync` for `T` (sm_80 and newer, `i32` and `u32`),
/// as a constant. In `if gpu::__redux_supported::<T>() { a } else { b }` the compiler
/// checks and compiles only the branch taken, so `a` may use `__redux_*_sync` on `T`.
#[doc(hidden)]
pub fn __redux_supported<T: WarpValue>() -> bool {
    outside("__redux_supported")
}

/// The wrapping sum of `v` over the lanes of `mask` (`__reduce_add_sync`; `i32`/`u32`, sm_80+).
#[doc(hidden)]
pub fn __redux_add_sync<T: WarpValue>(_mask: u32, _v: T) -> T {
    outside("__redux_add_sync")
}

/// The smallest `v` of the lanes of `mask` (`__reduce_min_sync`; `i32`/`u32`, sm_80+).
#[doc(hidden)]
pub fn __redux_min_sync<T: WarpValue>(_mask: u32, _v: T) -> T {
    outside("__redux_min_sync")
}

/// The largest `v` of the lanes of `mask` (`__reduce_max_sync`; `i32`/`u32`, sm_80+).
#[doc(hidden)]
pub fn __redux_max_sync<T: WarpValue>(_mask: u32, _v: T) -> T {
    outside("__redux_max_sync")
}
