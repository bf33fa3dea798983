//! The radix sort's kernels, one instance per key type: `(K, U)` is the key type and the
//! unsigned type of its bits, in which `digit` is taken (see `sort_device.rs`).

use super::sort_device;
use crate::prelude::*;

/// The digit counts of every pass, integer keys.
#[kernel(instances((i8, u8), (i16, u16), (i32, u32), (i64, u64), (isize, u64), (u8, u8),
    (u16, u16), (u32, u32), (u64, u64), (usize, u64)))]
pub fn counts_int<K: gpu::Int, U: gpu::Int>(
    hist: &mut [u32],
    keys: &[K],
    per_block: usize,
    passes: u32,
) {
    let flip = if K::MIN < K::ZERO {
        U::ONE << (U::MAX.count_ones() - 1)
    } else {
        U::ZERO
    };
    sort_device::digit_counts(hist, keys, per_block, passes, |k: K, s: u32| {
        ((((k as U) ^ flip) >> s) & (255 as U)) as u32
    });
}

/// The digit counts of every pass, float keys.
#[kernel(instances((f32, u32), (f64, u64)))]
pub fn counts_float<K: gpu::Float, U: gpu::Int>(
    hist: &mut [u32],
    keys: &[K],
    per_block: usize,
    passes: u32,
) {
    let sign = U::ONE << (U::MAX.count_ones() - 1);
    sort_device::digit_counts(hist, keys, per_block, passes, |k: K, s: u32| {
        let b: U = k.to_bits();
        let m = if b & sign != U::ZERO { !b } else { b | sign };
        ((m >> s) & (255 as U)) as u32
    });
}

/// The first position of each digit of each pass, from its counts (block `p`: pass `p`).
#[kernel]
pub fn digit_starts(hist: &mut [u32]) {
    sort_device::digit_offsets(hist);
}

// `pass_int32` and `pass_int`: one body, two kernels that differ only in blocks per
// multiprocessor (a generic `#[device]` function cannot hold the body: it is also compiled as
// host Rust, where `k as U` between generic integers does not type-check).
macro_rules! int_pass {
    ($(#[$attr:meta])* $name:ident) => {
        $(#[$attr])*
        #[allow(clippy::too_many_arguments)]
        pub fn $name<K: gpu::Int, U: gpu::Int, const ITEMS: usize, const TILE: usize>(
            keys_out: &mut [K],
            keys_in: &[K],
            pay_out: &mut [u32],
            pay_in: &[u32],
            status: &mut [u32],
            next: &mut [u32],
            offsets: &[u32],
            shift: u32,
            payload: bool,
            first: bool,
            lookback: u32,
            last: K,
        ) {
            let flip = if K::MIN < K::ZERO {
                U::ONE << (U::MAX.count_ones() - 1)
            } else {
                U::ZERO
            };
            let staged = gpu::shared_array::<K, TILE>();
            let staged_pay = gpu::shared_array::<u32, TILE>();
            let warp_counts = gpu::shared_array::<u32, 2048>();
            let no_masks = gpu::shared_array::<u32, 1>();
            // Launched only for passes that move a payload (`payload` is true).
            let _ = payload;
            sort_device::onesweep_tile(
                keys_out,
                keys_in,
                pay_out,
                pay_in,
                status,
                next,
                offsets,
                shift,
                true,
                first,
                staged,
                staged_pay,
                warp_counts,
                no_masks,
                false,
                256,
                ITEMS,
                lookback,
                false,
                last,
                |k: K, s: u32| ((((k as U) ^ flip) >> s) & (255 as U)) as u32,
            );
        }
    };
}

int_pass! {
    /// One pass of the sort, 4-byte integer keys, tiles of `TILE = 256·ITEMS` keys, at three
    /// blocks per multiprocessor (80 registers, no spills; `pass_int` takes the other integer
    /// keys, which would spill at 80). `last` is a key whose every digit is 255 (`K::MAX`): the
    /// last tile's places past the end hold it.
    #[kernel(block = 256, min_blocks = 3, instances((i32, u32, 16, 4096), (u32, u32, 16, 4096)))]
    pass_int32
}

int_pass! {
    /// One pass of the sort, integer keys other than 4-byte ones (two blocks per
    /// multiprocessor), tiles as `pass_int32`'s (3072 keys for 8-byte keys, whose staged tile
    /// and payloads must fit in 48 KiB of shared memory). `last` is a key whose every digit is
    /// 255 (`K::MAX`): the last tile's places past the end hold it.
    #[kernel(block = 256, instances((i8, u8, 16, 4096), (i16, u16, 16, 4096),
        (i64, u64, 12, 3072), (isize, u64, 12, 3072), (u8, u8, 16, 4096), (u16, u16, 16, 4096),
        (u64, u64, 12, 3072), (usize, u64, 12, 3072)))]
    pass_int
}

/// One pass of the sort, float keys (IEEE total order), tiles as `pass_int`'s; `last` is the
/// positive NaN with every payload bit set (every digit 255).
#[kernel(block = 256, instances((f32, u32, 16, 4096), (f64, u64, 12, 3072)))]
#[allow(clippy::too_many_arguments)]
pub fn pass_float<K: gpu::Float, U: gpu::Int, const ITEMS: usize, const TILE: usize>(
    keys_out: &mut [K],
    keys_in: &[K],
    pay_out: &mut [u32],
    pay_in: &[u32],
    status: &mut [u32],
    next: &mut [u32],
    offsets: &[u32],
    shift: u32,
    payload: bool,
    first: bool,
    lookback: u32,
    last: K,
) {
    let sign = U::ONE << (U::MAX.count_ones() - 1);
    let staged = gpu::shared_array::<K, TILE>();
    let staged_pay = gpu::shared_array::<u32, TILE>();
    let warp_counts = gpu::shared_array::<u32, 2048>();
    let no_masks = gpu::shared_array::<u32, 1>();
    // Launched only for passes that move a payload (`payload` is true).
    let _ = payload;
    sort_device::onesweep_tile(
        keys_out,
        keys_in,
        pay_out,
        pay_in,
        status,
        next,
        offsets,
        shift,
        true,
        first,
        staged,
        staged_pay,
        warp_counts,
        no_masks,
        false,
        256,
        ITEMS,
        lookback,
        true,
        last,
        |k: K, s: u32| {
            let b: U = k.to_bits();
            let m = if b & sign != U::ZERO { !b } else { b | sign };
            ((m >> s) & (255 as U)) as u32
        },
    );
}

/// `pass_int` for keys without payloads (`payload` and `first` are ignored: false), at three
/// blocks per multiprocessor (80 registers; `pass_int` needs more for the payloads). Rows of 1-
/// to 4-byte keys are ranked by digit masks (`rank_rows_or`: one shared atomic-or per key, not
/// eight ballots per row); 8-byte keys, sorted by tile counts by default, keep the ballots
/// (masks measured no faster on that path: bench/NOTES.md, 2026-12-07).
///
/// One pass of the sort, integer keys, tiles of `TILE = 256·ITEMS` keys (fewer for 8-byte
/// keys, whose staged tile and payloads must fit in 48 KiB of shared memory). `last` is a key
/// whose every digit is 255 (`K::MAX`): the last tile's places past the end hold it.
#[kernel(block = 256, min_blocks = 3, instances((i8, u8, 16, 4096), (i16, u16, 16, 4096),
    (i32, u32, 16, 4096), (i64, u64, 12, 3072), (isize, u64, 12, 3072), (u8, u8, 16, 4096),
    (u16, u16, 16, 4096), (u32, u32, 16, 4096), (u64, u64, 12, 3072), (usize, u64, 12, 3072)))]
#[allow(clippy::too_many_arguments)]
pub fn pass_keys_int<K: gpu::Int, U: gpu::Int, const ITEMS: usize, const TILE: usize>(
    keys_out: &mut [K],
    keys_in: &[K],
    pay_out: &mut [u32],
    pay_in: &[u32],
    status: &mut [u32],
    next: &mut [u32],
    offsets: &[u32],
    shift: u32,
    payload: bool,
    first: bool,
    lookback: u32,
    last: K,
) {
    let flip = if K::MIN < K::ZERO {
        U::ONE << (U::MAX.count_ones() - 1)
    } else {
        U::ZERO
    };
    let staged = gpu::shared_array::<K, TILE>();
    let _ = (payload, first);
    let staged_pay = gpu::shared_array::<u32, 1>();
    let warp_counts = gpu::shared_array::<u32, 2048>();
    let masks = gpu::shared_array::<u32, 2048>();
    // Masks for keys of up to 4 bytes; 8-byte keys (tile counts by default) keep ballots.
    let rank_or = U::MAX.count_ones() < 64;
    sort_device::onesweep_tile(
        keys_out,
        keys_in,
        pay_out,
        pay_in,
        status,
        next,
        offsets,
        shift,
        false,
        false,
        staged,
        staged_pay,
        warp_counts,
        masks,
        rank_or,
        256,
        ITEMS,
        lookback,
        false,
        last,
        |k: K, s: u32| ((((k as U) ^ flip) >> s) & (255 as U)) as u32,
    );
}

/// `pass_float` for keys without payloads, as `pass_keys_int`.
///
/// One pass of the sort, float keys (IEEE total order), tiles as `pass_int`'s; `last` is the
/// positive NaN with every payload bit set (every digit 255).
#[kernel(block = 256, min_blocks = 3, instances((f32, u32, 16, 4096), (f64, u64, 12, 3072)))]
#[allow(clippy::too_many_arguments)]
pub fn pass_keys_float<K: gpu::Float, U: gpu::Int, const ITEMS: usize, const TILE: usize>(
    keys_out: &mut [K],
    keys_in: &[K],
    pay_out: &mut [u32],
    pay_in: &[u32],
    status: &mut [u32],
    next: &mut [u32],
    offsets: &[u32],
    shift: u32,
    payload: bool,
    first: bool,
    lookback: u32,
    last: K,
) {
    let sign = U::ONE << (U::MAX.count_ones() - 1);
    let staged = gpu::shared_array::<K, TILE>();
    let _ = (payload, first);
    let staged_pay = gpu::shared_array::<u32, 1>();
    let warp_counts = gpu::shared_array::<u32, 2048>();
    let masks = gpu::shared_array::<u32, 2048>();
    // Masks for keys of up to 4 bytes; 8-byte keys (tile counts by default) keep ballots.
    let rank_or = U::MAX.count_ones() < 64;
    sort_device::onesweep_tile(
        keys_out,
        keys_in,
        pay_out,
        pay_in,
        status,
        next,
        offsets,
        shift,
        false,
        false,
        staged,
        staged_pay,
        warp_counts,
        masks,
        rank_or,
        256,
        ITEMS,
        lookback,
        false,
        last,
        |k: K, s: u32| {
            let b: U = k.to_bits();
            let m = if b & sign != U::ZERO { !b } else { b | sign };
            ((m >> s) & (255 as U)) as u32
        },
    );
}

/// `pass_keys_int` on wider tiles, for keys alone of 1- to 4-byte integers: 384 threads (twelve
/// warps, two blocks per multiprocessor: 768 threads, as `pass_keys_int`'s three blocks of 256)
/// and `TILE = 384·ITEMS` keys (14 per thread: the tile, the counts and the digit masks in 48
/// KiB), always with look-back (`lookback` 0 is taken as 1): a longer tile than
/// `pass_keys_int`'s makes fewer tiles, started further apart, so each tile's look-back walks
/// back over fewer of them, for more keys. Rows are ranked by digit masks (`rank_rows_or`).
#[kernel(block = 384, min_blocks = 2, instances((i8, u8, 14, 5376), (i16, u16, 14, 5376),
    (i32, u32, 14, 5376), (u8, u8, 14, 5376), (u16, u16, 14, 5376), (u32, u32, 14, 5376)))]
#[allow(clippy::too_many_arguments)]
pub fn pass_keys_wide_int<K: gpu::Int, U: gpu::Int, const ITEMS: usize, const TILE: usize>(
    keys_out: &mut [K],
    keys_in: &[K],
    pay_out: &mut [u32],
    pay_in: &[u32],
    status: &mut [u32],
    next: &mut [u32],
    offsets: &[u32],
    shift: u32,
    lookback: u32,
    last: K,
) {
    let flip = if K::MIN < K::ZERO {
        U::ONE << (U::MAX.count_ones() - 1)
    } else {
        U::ZERO
    };
    let staged = gpu::shared_array::<K, TILE>();
    let staged_pay = gpu::shared_array::<u32, 1>();
    let warp_counts = gpu::shared_array::<u32, 3072>();
    let masks = gpu::shared_array::<u32, 3072>();
    sort_device::onesweep_tile(
        keys_out,
        keys_in,
        pay_out,
        pay_in,
        status,
        next,
        offsets,
        shift,
        false,
        false,
        staged,
        staged_pay,
        warp_counts,
        masks,
        true,
        384,
        ITEMS,
        lookback.max(1),
        false,
        last,
        |k: K, s: u32| ((((k as U) ^ flip) >> s) & (255 as U)) as u32,
    );
}

/// `pass_keys_wide_int` for `f32` keys (IEEE total order, as `pass_keys_float`).
#[kernel(block = 384, min_blocks = 2, instances((f32, u32, 14, 5376)))]
#[allow(clippy::too_many_arguments)]
pub fn pass_keys_wide_float<K: gpu::Float, U: gpu::Int, const ITEMS: usize, const TILE: usize>(
    keys_out: &mut [K],
    keys_in: &[K],
    pay_out: &mut [u32],
    pay_in: &[u32],
    status: &mut [u32],
    next: &mut [u32],
    offsets: &[u32],
    shift: u32,
    lookback: u32,
    last: K,
) {
    let sign = U::ONE << (U::MAX.count_ones() - 1);
    let staged = gpu::shared_array::<K, TILE>();
    let staged_pay = gpu::shared_array::<u32, 1>();
    let warp_counts = gpu::shared_array::<u32, 3072>();
    let masks = gpu::shared_array::<u32, 3072>();
    sort_device::onesweep_tile(
        keys_out,
        keys_in,
        pay_out,
        pay_in,
        status,
        next,
        offsets,
        shift,
        false,
        false,
        staged,
        staged_pay,
        warp_counts,
        masks,
        true,
        384,
        ITEMS,
        lookback.max(1),
        false,
        last,
        |k: K, s: u32| {
            let b: U = k.to_bits();
            let m = if b & sign != U::ZERO { !b } else { b | sign };
            ((m >> s) & (255 as U)) as u32
        },
    );
}

/// `out[i] = values[order[i]]`: the values of a pair sort, moved as their keys were.
#[kernel(instances(i8, i16, i32, i64, isize, u8, u16, u32, u64, usize, f32, f64))]
pub fn gather<V: gpu::Num>(out: &mut [V], values: &[V], order: &[u32]) {
    for i in (gpu::global_id_x()..out.len()).step_by(gpu::grid_stride_x()) {
        out[i] = values[order[i] as usize];
    }
}

/// One tile's digit counts for a pass without look-back (`sort_device::tile_counts`), integer
/// keys; tiles as `pass_int`'s.
#[kernel(block = 256, instances((i8, u8, 16), (i16, u16, 16), (i32, u32, 16),
    (i64, u64, 12), (isize, u64, 12), (u8, u8, 16), (u16, u16, 16), (u32, u32, 16),
    (u64, u64, 12), (usize, u64, 12)))]
pub fn tile_counts_int<K: gpu::Int, U: gpu::Int, const ITEMS: usize>(
    table: &mut [u32],
    keys: &[K],
    shift: u32,
) {
    let flip = if K::MIN < K::ZERO {
        U::ONE << (U::MAX.count_ones() - 1)
    } else {
        U::ZERO
    };
    sort_device::tile_counts(table, keys, shift, ITEMS, |k: K, s: u32| {
        ((((k as U) ^ flip) >> s) & (255 as U)) as u32
    });
}

/// One tile's digit counts for a pass without look-back, float keys.
#[kernel(block = 256, instances((f32, u32, 16), (f64, u64, 12)))]
pub fn tile_counts_float<K: gpu::Float, U: gpu::Int, const ITEMS: usize>(
    table: &mut [u32],
    keys: &[K],
    shift: u32,
) {
    let sign = U::ONE << (U::MAX.count_ones() - 1);
    sort_device::tile_counts(table, keys, shift, ITEMS, |k: K, s: u32| {
        let b: U = k.to_bits();
        let m = if b & sign != U::ZERO { !b } else { b | sign };
        ((m >> s) & (255 as U)) as u32
    });
}
