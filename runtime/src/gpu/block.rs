//! Block-wide collectives: every thread of the block calls them (from the same place, as a
//! barrier), with the same `op`, and each thread gets its result (CUB's `BlockReduce` and
//! `BlockScan`; the reductions give the result to every thread, not only to thread 0).
//!
//! Blocks of any shape up to 1024 threads whose thread count is a multiple of 32; threads are
//! numbered as the hardware forms warps, `x` fastest (`x + y·dim.x + z·dim.x·dim.y`), and
//! scans run in that order. `op` is associative, not necessarily commutative: values are
//! combined in thread order. Values are the types warp shuffles move.
//!
//! Scratch space: each primitive keeps one value per warp in a shared array of 32 (the most
//! warps a block has), one array per primitive and element type in a kernel, shared by its
//! calls. Each call has two barriers: after the first every thread reads the warps' values
//! it needs (no thread waits for another to combine them), and the second keeps them until
//! all have. So calls may follow each other without a barrier between them (CUB asks for a
//! `__syncthreads()` between reuses of its storage): a call writes its array only after the
//! previous call's last barrier, where every thread has done reading it.

use crate::prelude::*;

/// The calling thread's number within its block and the block's thread count.
#[device]
fn thread_rank() -> (u32, u32) {
    let d = gpu::block_dim();
    let t = gpu::thread_idx();
    (t.x + d.x * (t.y + d.y * t.z), d.x * d.y * d.z)
}

/// The calling thread's warp (`0..32`, as the hardware numbers warps), its lane and the
/// block's warp count. The warp is taken modulo 32 (a block has at most 32 warps), so that an
/// index into a 32-slot array needs no check.
#[device]
fn warp_rank() -> (u32, u32, u32) {
    let (t, n) = thread_rank();
    ((t / 32) % 32, t % 32, n / 32)
}

/// `op` over `partial[..count]` in order (`count ≤ warps`, the block's warp count; the
/// first slot when `count` is 0, for the caller to drop). Branch-free for blocks of up to 256
/// threads: the first eight slots are read together and those past `count` dropped by
/// selects (read, not used); larger blocks read the other 24 behind one test of `warps`, the
/// same in the whole block. (The scans' `count`, the warp's number, differs between warps.)
#[device]
fn combine<T: gpu::WarpValue>(partial: &[T], count: u32, warps: u32, op: impl Fn(T, T) -> T) -> T {
    let mut r = partial[0];
    for k in 1..8u32 {
        let v = partial[k as usize];
        if k < count {
            r = op(r, v);
        }
    }
    if warps > 8 {
        r = combine_rest(partial, r, count, &op);
    }
    r
}

/// `r` combined with `partial[8..count]`, in order (the slots past `count` read, not used).
#[device]
fn combine_rest<T: gpu::WarpValue>(partial: &[T], r: T, count: u32, op: impl Fn(T, T) -> T) -> T {
    let mut r = r;
    for k in 8..32u32 {
        let v = partial[k as usize];
        if k < count {
            r = op(r, v);
        }
    }
    r
}

/// `op` over `partial[..warps]` in order, the values of all the block's warps. A block of 8
/// warps or more (256 threads) combines its first eight without selects, behind one test of
/// `warps` (the same in the whole block), as the reductions of the usual block sizes need:
/// the selects of [`combine`] cost every warp two instructions per slot.
#[device]
fn combine_all<T: gpu::WarpValue>(partial: &[T], warps: u32, op: impl Fn(T, T) -> T) -> T {
    if warps >= 8 {
        let mut r = partial[0];
        for k in 1..8usize {
            r = op(r, partial[k]);
        }
        if warps > 8 {
            r = combine_rest(partial, r, warps, &op);
        }
        r
    } else {
        combine(partial, warps, warps, &op)
    }
}

/// `op` over the values of every thread of the block, in thread order, in every thread.
///
/// Each warp's lane 0 stores the warp's value; after a barrier every thread combines them
/// (reads of one shared address, broadcast to the warp), so no thread waits for another to
/// combine and publish the total; a second barrier keeps the slots until all have read them.
#[device]
pub fn reduce<T: gpu::WarpValue>(v: T, op: impl Fn(T, T) -> T) -> T {
    reduce_warps(super::warp::reduce(v, &op), op)
}

/// `op` over the warps' totals `w` (each warp's, in all its lanes), in every thread: the
/// second half of [`reduce`], which [`sum`], [`min`] and [`max`] share for the types that
/// `redux.sync` does not take (their warp step is [`super::warp::sum`] and friends).
#[device]
fn reduce_warps<T: gpu::WarpValue>(w: T, op: impl Fn(T, T) -> T) -> T {
    let partial = gpu::shared_array::<T, 32>();
    let (warp, lane, warps) = warp_rank();
    if lane == 0 {
        partial[warp as usize] = w;
    }
    gpu::sync_threads();
    let r = combine_all(partial, warps, &op);
    gpu::sync_threads();
    r
}

/// `warp_op` (a warp reduction) over the warps' totals `w` (each warp's, in all its lanes),
/// in every thread: lane `k` of every warp reads warp `k`'s total (`identity` past the warp
/// count) and `warp_op` combines the 32 lanes. For `i32`/`u32` on sm_80+, where `warp_op` is
/// one `redux.sync`: one shared load and one instruction instead of [`reduce_warps`]'s eight
/// loads and seven operations (measured faster, bench/NOTES.md, `redux`).
#[device]
fn reduce_warps_by_lanes<T: gpu::WarpValue>(w: T, identity: T, warp_op: impl Fn(T) -> T) -> T {
    let partial = gpu::shared_array::<T, 32>();
    let (warp, lane, warps) = warp_rank();
    if lane == 0 {
        partial[warp as usize] = w;
    }
    gpu::sync_threads();
    let mut p = identity;
    if lane < warps {
        p = partial[lane as usize];
    }
    let r = warp_op(p);
    gpu::sync_threads();
    r
}

/// The sum of the block's values (integers wrap), in every thread. Two `redux.sync` per warp
/// for `i32` and `u32` on sm_80 and newer (the warp's, then the warps' totals).
#[device]
pub fn sum<T: gpu::Num + gpu::WarpValue>(v: T) -> T {
    if gpu::__redux_supported::<T>() {
        reduce_warps_by_lanes(super::warp::sum(v), T::ZERO, |p| super::warp::sum(p))
    } else {
        reduce_warps(super::warp::sum(v), |a, b| a + b)
    }
}

/// The smallest of the block's values (by `<`), in every thread. Two `redux.sync` per warp
/// for `i32` and `u32` on sm_80 and newer, as [`sum`].
#[device]
pub fn min<T: gpu::Num + gpu::WarpValue>(v: T) -> T {
    if gpu::__redux_supported::<T>() {
        reduce_warps_by_lanes(super::warp::min(v), T::MAX, |p| super::warp::min(p))
    } else {
        reduce_warps(super::warp::min(v), |a, b| if b < a { b } else { a })
    }
}

/// The largest of the block's values (by `>`), in every thread. Two `redux.sync` per warp
/// for `i32` and `u32` on sm_80 and newer, as [`sum`].
#[device]
pub fn max<T: gpu::Num + gpu::WarpValue>(v: T) -> T {
    if gpu::__redux_supported::<T>() {
        reduce_warps_by_lanes(super::warp::max(v), T::MIN, |p| super::warp::max(p))
    } else {
        reduce_warps(super::warp::max(v), |a, b| if b > a { b } else { a })
    }
}

/// Thread `i` gets `op` over the values of threads `0..=i`, in thread order.
#[device]
pub fn inclusive_scan<T: gpu::WarpValue>(v: T, op: impl Fn(T, T) -> T) -> T {
    let partial = gpu::shared_array::<T, 32>();
    let (warp, lane, warps) = warp_rank();
    let x = super::warp::inclusive_scan(v, &op);
    if lane == 31 {
        partial[warp as usize] = x;
    }
    gpu::sync_threads();
    let before = combine(partial, warp, warps, &op);
    gpu::sync_threads();
    if warp > 0 {
        op(before, x)
    } else {
        x
    }
}

/// Thread `i` gets `init` combined with the values of threads `0..i`: thread 0 gets `init`.
#[device]
pub fn exclusive_scan<T: gpu::WarpValue>(v: T, init: T, op: impl Fn(T, T) -> T) -> T {
    let partial = gpu::shared_array::<T, 32>();
    let (warp, lane, warps) = warp_rank();
    let x = super::warp::inclusive_scan(v, &op);
    if lane == 31 {
        partial[warp as usize] = x;
    }
    gpu::sync_threads();
    let within = gpu::shfl_up_sync(gpu::FULL_MASK, x, 1);
    let before = combine(partial, warp, warps, &op);
    gpu::sync_threads();
    let mut r = init;
    if warp > 0 {
        r = op(r, before);
    }
    if lane > 0 {
        r = op(r, within);
    }
    r
}

/// Thread `i` gets the sum of the values of threads `0..=i` (integers wrap).
///
/// `i32` and `u32` on sm_80 and newer: after the warps' scans, the sum of the warps before
/// this one is one `redux.sync` over their totals (lane `k` holds warp `k`'s when `k` is
/// below this warp's number, zero otherwise) instead of a select per slot.
#[device]
pub fn inclusive_sum<T: gpu::Num + gpu::WarpValue>(v: T) -> T {
    if gpu::__redux_supported::<T>() {
        let x = super::warp::inclusive_scan(v, |a, b| a + b);
        sum_of_warps_before(x) + x
    } else {
        inclusive_scan(v, |a, b| a + b)
    }
}

/// Thread `i` gets the sum of the values of threads `0..i` (zero in thread 0).
///
/// `i32` and `u32` on sm_80 and newer: as [`inclusive_sum`], less the thread's own value
/// (exact: integers wrap).
#[device]
pub fn exclusive_sum<T: gpu::Num + gpu::WarpValue>(v: T) -> T {
    if gpu::__redux_supported::<T>() {
        let x = super::warp::inclusive_scan(v, |a, b| a + b);
        sum_of_warps_before(x) + x - v
    } else {
        exclusive_scan(v, T::ZERO, |a, b| a + b)
    }
}

/// The sum of the totals of the warps before the calling thread's (zero in warp 0): lane `k`
/// reads warp `k`'s total when `k` is below the warp's number, and [`super::warp::sum`] adds
/// them (one `redux.sync` for `i32`/`u32` on sm_80+, which is what the callers use it for);
/// `x` is the thread's inclusive sum within its warp (lane 31's is the warp's total). Two
/// barriers, as every primitive here.
#[device]
fn sum_of_warps_before<T: gpu::Num + gpu::WarpValue>(x: T) -> T {
    let partial = gpu::shared_array::<T, 32>();
    let (warp, lane, _) = warp_rank();
    if lane == 31 {
        partial[warp as usize] = x;
    }
    gpu::sync_threads();
    let mut p = T::ZERO;
    if lane < warp {
        p = partial[lane as usize];
    }
    let before = super::warp::sum(p);
    gpu::sync_threads();
    before
}

/// Sorts the block's keys, `keys.len()` per thread in a blocked arrangement: afterwards
/// thread `t` holds items `t·ITEMS .. (t + 1)·ITEMS` of the block's keys in ascending order
/// (signed integers as numbers). Stable, so keys that compare equal keep their order.
///
/// Every thread passes the same number of keys (a local array, `&mut keys`), and the block
/// holds at most 4096 keys in all (a 1024-thread block 4 per thread, 256 threads 16): the keys
/// move through a shared array of that size. More is a failed assertion (`KernelPanic`).
/// One stable split per key bit, each a block-wide scan of the threads' counts.
#[device]
#[allow(clippy::manual_memcpy)] // `copy_from_slice` is not kernel code
pub fn radix_sort<K: gpu::Int>(keys: &mut [K]) {
    let scratch = gpu::shared_array::<K, 4096>();
    let (t, n) = thread_rank();
    let items = keys.len();
    assert!(
        n as usize * items <= 4096,
        "gpu::block::radix_sort sorts at most 4096 keys per block"
    );
    let first = t as usize * items;
    let signed = K::MIN < K::ZERO;
    let mut bits = 0u32;
    let mut rest = K::MAX;
    while rest != K::ZERO {
        rest = rest >> 1;
        bits += 1;
    }
    if signed {
        bits += 1;
    }
    for b in 0..bits {
        // Keys whose bit is clear go first; for the sign bit, negative keys do.
        let sign = signed && b == bits - 1;
        let mut zeros = 0u32;
        for j in 0..items {
            if ((keys[j] >> b) & K::ONE == K::ZERO) != sign {
                zeros += 1;
            }
        }
        let before = exclusive_sum(zeros) as usize;
        let total = sum(zeros) as usize;
        let mut zero_at = before;
        let mut one_at = total + (first - before);
        for j in 0..items {
            if ((keys[j] >> b) & K::ONE == K::ZERO) != sign {
                scratch[zero_at] = keys[j];
                zero_at += 1;
            } else {
                scratch[one_at] = keys[j];
                one_at += 1;
            }
        }
        gpu::sync_threads();
        for j in 0..items {
            keys[j] = scratch[first + j];
        }
        gpu::sync_threads();
    }
}
