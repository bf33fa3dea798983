//! The device halves of the radix sort (onesweep-style: one pass over the data per 8-bit
//! digit, each tile's digit counts published and looked back per digit, as in Adinets and
//! Merrill's "Onesweep"). `digit(key, shift)` is the key's 8-bit digit at `shift` in the
//! order-preserving unsigned image of the key (sign bit flipped for signed integers; for
//! floats, all bits flipped when negative, else the sign bit set: IEEE total order).

use crate::prelude::*;

/// Adds the digit counts of `keys` for every pass to `hist` (`passes × 256`, zeroed first):
/// a grid-stride loop counting into shared memory, then one atomic per block and bin.
#[device]
pub fn digit_counts<K: gpu::Num>(
    hist: &mut [u32],
    keys: &[K],
    passes: u32,
    digit: impl Fn(K, u32) -> u32,
) {
    let counts = gpu::shared_array::<u32, 2048>();
    let t = gpu::thread_idx().x as usize;
    let threads = gpu::block_dim().x as usize;
    let bins = 256 * passes as usize;
    for b in (t..bins).step_by(threads) {
        counts[b] = 0;
    }
    gpu::sync_threads();
    for i in (gpu::global_id_x()..keys.len()).step_by(gpu::grid_stride_x()) {
        let k = keys[i];
        for p in 0..passes {
            gpu::atomic_add_block(&mut counts[(256 * p + digit(k, 8 * p)) as usize], 1u32);
        }
    }
    gpu::sync_threads();
    for b in (t..bins).step_by(threads) {
        let c = counts[b];
        if c > 0 {
            gpu::atomic_add(&mut hist[b], c);
        }
    }
}

/// Block `p` (256 threads) turns the counts of pass `p` into the first position of each
/// digit: an exclusive sum in place.
#[device]
pub fn digit_offsets(hist: &mut [u32]) {
    let i = 256 * gpu::block_idx().x as usize + gpu::thread_idx().x as usize;
    let c = hist[i];
    hist[i] = gpu::block::exclusive_sum(c);
}

/// One tile (2048 keys, 256 threads) of one pass: ranks each key among the keys of its digit
/// in the tile (warp by warp with `match_any_sync`, keeping index order, so the sort is
/// stable), publishes the tile's count per digit in `status[tile·256 + d]` (a count with a
/// 2-bit state on top: 1 the tile's own count, 2 the count of every tile up to it), looks
/// back per digit for the count of the tiles before, and writes the keys (and their `u32`
/// payloads when `payload`; with `first`, the payload is the key's index) to
/// `offsets[d] + (keys of digit d before it)`. The tile number comes from the counter
/// `status[tiles·256]`, so a tile waits only for tiles of blocks already running.
#[device]
#[allow(clippy::too_many_arguments)]
pub fn onesweep_tile<K: gpu::Num>(
    keys_out: &mut [K],
    keys_in: &[K],
    pay_out: &mut [u32],
    pay_in: &[u32],
    status: &mut [u32],
    offsets: &[u32],
    shift: u32,
    payload: bool,
    first: bool,
    digit: impl Fn(K, u32) -> u32,
) {
    // Body constants: an inlined device function sees its caller's module constants.
    const ITEMS: usize = 8;
    const TILE: usize = 2048;
    const COUNT: u32 = (1 << 30) - 1;
    const OWN: u32 = 1 << 30;
    const UP_TO: u32 = 2 << 30;
    let staged = gpu::shared_array::<K, TILE>();
    let staged_pay = gpu::shared_array::<u32, TILE>();
    let warp_counts = gpu::shared_array::<u32, TILE>();
    let tile_start = gpu::shared_array::<u32, 256>();
    let global_at = gpu::shared_array::<u32, 256>();
    let tile_number = gpu::shared_array::<u32, 1>();
    let t = gpu::thread_idx().x as usize;
    let (warp, lane) = (t / 32, t % 32);
    let n = keys_in.len();
    let tiles = (status.len() - 1) / 256;
    if t == 0 {
        tile_number[0] = gpu::atomic_add(&mut status[tiles * 256], 1u32);
    }
    for w in 0..8 {
        warp_counts[w * 256 + t] = 0;
    }
    gpu::sync_threads();
    let tile = tile_number[0] as usize;
    let base = tile * TILE;
    // Warp `w` ranks keys `w·256 ..` of the tile, row by row (row j: 32 consecutive keys).
    let mut digits = [0u32; ITEMS];
    let mut ranks = [0u32; ITEMS];
    let mut mine = [K::ZERO; ITEMS];
    for j in 0..ITEMS {
        let i = base + warp * 256 + j * 32 + lane;
        let valid = i < n;
        if valid {
            mine[j] = keys_in[i];
        }
        // Keys past the end get digit 256: ranked among themselves, never written.
        let d = if valid { digit(mine[j], shift) } else { 256 };
        let peers = gpu::match_any_sync(gpu::FULL_MASK, d);
        let before = (peers & gpu::lanemask_lt()).count_ones();
        let slot = warp * 256 + (d & 255) as usize;
        let pre = if valid { warp_counts[slot] } else { 0 };
        gpu::sync_warp(gpu::FULL_MASK);
        if valid && before == 0 {
            warp_counts[slot] = pre + peers.count_ones();
        }
        gpu::sync_warp(gpu::FULL_MASK);
        digits[j] = d;
        ranks[j] = pre + before;
    }
    gpu::sync_threads();
    // Thread d: the keys of digit d before each warp, and the tile's count of digit d.
    let d = t;
    let mut count = 0u32;
    for w in 0..8 {
        let c = warp_counts[w * 256 + d];
        warp_counts[w * 256 + d] = count;
        count += c;
    }
    let start = gpu::block::exclusive_sum(count);
    tile_start[d] = start;
    // Look back, per digit, for the keys of this digit in the tiles before.
    let at = tile * 256 + d;
    let mut before_tile = 0u32;
    if tile == 0 {
        gpu::atomic_exch(&mut status[at], UP_TO | count);
    } else {
        gpu::atomic_exch(&mut status[at], OWN | count);
        let mut k = tile - 1;
        loop {
            let s = gpu::atomic_add(&mut status[k * 256 + d], 0u32);
            if s != 0 {
                before_tile += s & COUNT;
                if s & UP_TO != 0 {
                    break;
                }
                k -= 1;
            }
        }
        gpu::atomic_exch(&mut status[at], UP_TO | (before_tile + count));
    }
    // Position of the tile's local slot `s` (of digit d): global_at[d] + s.
    global_at[d] = offsets[d] + before_tile - start;
    gpu::sync_threads();
    // Stage the keys in digit order, then write runs of equal digits.
    for j in 0..ITEMS {
        if digits[j] < 256 {
            let dj = digits[j] as usize;
            let s = (tile_start[dj] + warp_counts[warp * 256 + dj] + ranks[j]) as usize;
            staged[s] = mine[j];
            if payload {
                let i = base + warp * 256 + j * 32 + lane;
                staged_pay[s] = if first { i as u32 } else { pay_in[i] };
            }
        }
    }
    gpu::sync_threads();
    let valid = if n - base < TILE { n - base } else { TILE };
    for s in (t..valid).step_by(256) {
        let k = staged[s];
        let to = (global_at[digit(k, shift) as usize] as usize) + s;
        keys_out[to] = k;
        if payload {
            pay_out[to] = staged_pay[s];
        }
    }
}
