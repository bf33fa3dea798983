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
    // One copy of the loop per operation, so that none branches on `op` inside it.
    if op == 0 {
        device::reduce_range(out, x, per_block, |v| v as W, |a, b| combine(0, a, b));
    } else if op == 1 {
        device::reduce_range(out, x, per_block, |v| v as W, |a, b| combine(1, a, b));
    } else {
        device::reduce_range(out, x, per_block, |v| v as W, |a, b| combine(2, a, b));
    }
}

/// One tile of an inclusive or exclusive (`EXCLUSIVE` 1) prefix sum (`device::scan_tile`);
/// `packed` only where `W` is `i32` or `u32` (whose `as` conversions to and from `u32` keep
/// the bits). `EXCLUSIVE` is a constant: as a runtime flag the last loop kept both forms'
/// values live (56 registers for `u32` against 48: 9 resident blocks per multiprocessor
/// against 10; H200, 2^28 `u32`: 0.699 against 0.662 ms; bench/NOTES.md, branch `scan`).
#[kernel(instances((i8, i32, 0), (i8, i32, 1), (i16, i32, 0), (i16, i32, 1), (i32, i32, 0),
    (i32, i32, 1), (i64, i64, 0), (i64, i64, 1), (isize, i64, 0), (isize, i64, 1), (u8, u32, 0),
    (u8, u32, 1), (u16, u32, 0), (u16, u32, 1), (u32, u32, 0), (u32, u32, 1), (u64, u64, 0),
    (u64, u64, 1), (usize, u64, 0), (usize, u64, 1), (f32, f32, 0), (f32, f32, 1), (f64, f64, 0),
    (f64, f64, 1)))]
pub fn scan_sum<T: gpu::Num, W: gpu::Num + gpu::WarpValue, const EXCLUSIVE: usize>(
    y: &mut [T],
    x: &[T],
    words: &mut [u64],
    values: &mut [W],
    packed: bool,
) {
    device::scan_tile(
        y,
        x,
        words,
        values,
        packed,
        EXCLUSIVE == 1,
        W::ZERO,
        |v| v as W,
        |v| v as T,
        |a, b| a + b,
        |v| v as u32,
        |b| b as W,
    );
}

/// Counts `x` into `bins` (which start at zero; block `b` counts `x[b·per_block..][..per_block]`), integer elements: the bin of `v` is
/// `(v - lower) · bins / (upper - lower)` in 64 bits (`W` is `i64` or `u64`; the host checked
/// that the product fits).
#[kernel(instances((i8, i64), (i16, i64), (i32, i64), (i64, i64), (isize, i64), (u8, u64),
    (u16, u64), (u32, u64), (u64, u64), (usize, u64)))]
pub fn histogram_int<T: gpu::Int, W: gpu::Int>(
    bins: &mut [u32],
    x: &[T],
    per_block: usize,
    lower: T,
    upper: T,
) {
    let nb = bins.len() as u32;
    let width = (upper as W).wrapping_sub(lower as W) as u64;
    device::count_bins(bins, x, per_block, |v| {
        if v >= lower && v < upper {
            ((v as W).wrapping_sub(lower as W) as u64 * nb as u64 / width) as u32
        } else {
            nb
        }
    });
}

/// Counts `x` into `bins` (which start at zero; blocks as `histogram_int`'s), float elements: the bin of `v` is
/// `(v - lower) · (bins / (upper - lower))`, the last bin for a product rounded up to `bins`.
#[kernel(instances(f32, f64))]
pub fn histogram_float<T: gpu::Float>(
    bins: &mut [u32],
    x: &[T],
    per_block: usize,
    lower: T,
    upper: T,
) {
    let nb = bins.len() as u32;
    let scale = nb as T / (upper - lower);
    device::count_bins(bins, x, per_block, |v| {
        if v >= lower && v < upper {
            (((v - lower) * scale) as u32).min(nb - 1)
        } else {
            nb
        }
    });
}

/// `histogram_float` over 16-byte vectors: `v` is the input's middle part
/// (`DeviceBuffer::as_vectors`), `head` and `tail` the elements around it; each thread has
/// `TURN` vectors in flight.
#[kernel(instances((f32, 2), (f32, 4)))]
pub fn histogram_vectors4<T: gpu::Float, const TURN: usize>(
    bins: &mut [u32],
    v: &[[T; 4]],
    head: &[T],
    tail: &[T],
    per_block: usize,
    lower: T,
    upper: T,
) {
    let nb = bins.len() as u32;
    let scale = nb as T / (upper - lower);
    device::count_vectors::<T, 4, TURN>(bins, v, head, tail, per_block, |x| {
        if x >= lower && x < upper {
            (((x - lower) * scale) as u32).min(nb - 1)
        } else {
            nb
        }
    });
}

/// `histogram_float` over 16-byte vectors: `v` is the input's middle part
/// (`DeviceBuffer::as_vectors`), `head` and `tail` the elements around it; each thread has
/// `TURN` vectors in flight.
#[kernel(instances((f64, 2), (f64, 4)))]
pub fn histogram_vectors2<T: gpu::Float, const TURN: usize>(
    bins: &mut [u32],
    v: &[[T; 2]],
    head: &[T],
    tail: &[T],
    per_block: usize,
    lower: T,
    upper: T,
) {
    let nb = bins.len() as u32;
    let scale = nb as T / (upper - lower);
    device::count_vectors::<T, 2, TURN>(bins, v, head, tail, per_block, |x| {
        if x >= lower && x < upper {
            (((x - lower) * scale) as u32).min(nb - 1)
        } else {
            nb
        }
    });
}

/// `reduce_blocks` over 16-byte vectors: `v` is the input's middle part
/// (`DeviceBuffer::as_vectors`), `head` and `tail` the elements around it.
#[kernel(instances(i32, u32, f32))]
pub fn reduce_vectors4<W: gpu::Num + gpu::WarpValue>(
    out: &mut [W],
    v: &[[W; 4]],
    head: &[W],
    tail: &[W],
    per_block: usize,
    op: u32,
) {
    if op == 0 {
        device::reduce_vectors::<W, 4>(out, v, head, tail, per_block, |a: W, b: W| {
            combine::<W>(0, a, b)
        });
    } else if op == 1 {
        device::reduce_vectors::<W, 4>(out, v, head, tail, per_block, |a: W, b: W| {
            combine::<W>(1, a, b)
        });
    } else {
        device::reduce_vectors::<W, 4>(out, v, head, tail, per_block, |a: W, b: W| {
            combine::<W>(2, a, b)
        });
    }
}

/// `reduce_blocks` over 16-byte vectors: `v` is the input's middle part
/// (`DeviceBuffer::as_vectors`), `head` and `tail` the elements around it.
#[kernel(instances(i64, u64, f64))]
pub fn reduce_vectors2<W: gpu::Num + gpu::WarpValue>(
    out: &mut [W],
    v: &[[W; 2]],
    head: &[W],
    tail: &[W],
    per_block: usize,
    op: u32,
) {
    if op == 0 {
        device::reduce_vectors::<W, 2>(out, v, head, tail, per_block, |a: W, b: W| {
            combine::<W>(0, a, b)
        });
    } else if op == 1 {
        device::reduce_vectors::<W, 2>(out, v, head, tail, per_block, |a: W, b: W| {
            combine::<W>(1, a, b)
        });
    } else {
        device::reduce_vectors::<W, 2>(out, v, head, tail, per_block, |a: W, b: W| {
            combine::<W>(2, a, b)
        });
    }
}

/// Zeroes counts (or the tile states and the tile counter of a sort pass).
#[kernel]
pub fn clear_flags(flags: &mut [u32]) {
    device::clear(flags);
}

/// Zeroes the tile states and the tile counter of a scan.
#[kernel]
pub fn clear_words(words: &mut [u64]) {
    device::clear(words);
}
