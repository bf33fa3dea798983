//! The library's algorithm kernels, one instance per element type: `(T, W)` is the element
//! type and the type its blocks work in (see `device.rs`).

use super::device;
use crate::prelude::*;

/// `op` of the built-in reductions: 0 sum (integers wrap), 1 min, 2 max (by `<`/`>`).
#[device]
pub fn combine<W: gpu::Num>(op: u32, a: W, b: W) -> W {
    if op == 0 {
        a + b
    } else if op == 1 {
        if b < a {
            b
        } else {
            a
        }
    } else if b > a {
        b
    } else {
        a
    }
}

/// Block `b` reduces `x[b·per_block..][..per_block]` into `out[b]` (sum, min or max).
#[kernel(instances((i8, i32), (i16, i32), (i32, i32), (i64, i64), (isize, i64), (u8, u32),
    (u16, u32), (u32, u32), (u64, u64), (usize, u64), (f32, f32), (f64, f64)))]
pub fn reduce_blocks<T: gpu::Num, W: gpu::Num + gpu::WarpValue>(
    out: &mut [W],
    x: &[T],
    per_block: usize,
    op: u32,
) {
    device::reduce_range(out, x, per_block, |v| v as W, |a, b| combine(op, a, b));
}

/// One tile of an inclusive or exclusive prefix sum (`device::scan_tile`).
#[kernel(instances((i8, i32), (i16, i32), (i32, i32), (i64, i64), (isize, i64), (u8, u32),
    (u16, u32), (u32, u32), (u64, u64), (usize, u64), (f32, f32), (f64, f64)))]
pub fn scan_sum<T: gpu::Num, W: gpu::Num + gpu::WarpValue>(
    y: &mut [T],
    x: &[T],
    state: &mut [W],
    flags: &mut [u32],
    exclusive: bool,
) {
    device::scan_tile(
        y,
        x,
        state,
        flags,
        exclusive,
        W::ZERO,
        |v| v as W,
        |v| v as T,
        |a, b| a + b,
    );
}

/// Zeroes the tile states and the tile counter of a scan.
#[kernel]
pub fn clear_flags(flags: &mut [u32]) {
    device::clear(flags);
}
