//! Helpers the emitted simulator code calls for atomics, warp operations and clocks.

use std::sync::OnceLock;
use std::time::Instant;

use super::memory::SimScalar;

use super::thread::Thread;
use super::warp::WarpOpKind;
use super::{Loc, Stop};

/// A warp operation on a value of any scalar type.
#[inline]
pub fn warp_value<T: SimScalar>(
    t: &Thread,
    kind: WarpOpKind,
    mask: u32,
    v: T,
    loc: &'static Loc,
) -> Result<T, Stop> {
    t.warp(kind, mask, v.to_u64(), loc).map(T::from_u64)
}

/// A warp operation whose result is a lane mask (`ballot`, `match_any`, `activemask`).
#[inline]
pub fn warp_mask<T: SimScalar>(
    t: &Thread,
    kind: WarpOpKind,
    mask: u32,
    v: T,
    loc: &'static Loc,
) -> Result<u32, Stop> {
    t.warp(kind, mask, v.to_u64(), loc).map(|m| m as u32)
}

/// `gpu::clock64()` in the simulator: nanoseconds since the simulator first read its clock.
pub fn clock64() -> u64 {
    static START: OnceLock<Instant> = OnceLock::new();
    START.get_or_init(Instant::now).elapsed().as_nanos() as u64
}
