//! The device halves of the algorithms: `#[device]` functions generic over the element type
//! `T`, the type `W` the block works in (`T` itself, or `i32`/`u32`/`i64`/`u64` for the types
//! warp shuffles do not move) and the operation, inlined into the library's kernels and into
//! the kernels that `reduce!`, `inclusive_scan!` and `exclusive_scan!` write in the user's
//! crate. `widen`/`narrow` convert between `T` and `W` (`|v| v as W`, written in the kernel,
//! where the types are known). Blocks are one-dimensional, [`BLOCK`] threads.

use crate::prelude::*;

/// Threads per block of every algorithm kernel.
pub const BLOCK: usize = 256;
/// Items per thread of a scan tile.
pub const ITEMS: usize = 8;
/// Elements per scan tile.
pub const TILE: usize = BLOCK * ITEMS;

/// One block's share of a reduction: block `b` combines `x[b·per_block ..][..per_block]` in
/// the order of the elements when `op` is commutative (each thread strides through the range,
/// then the threads' values are combined in thread order) and writes the result to `out[b]`.
/// Blocks past the end write nothing.
#[device]
pub fn reduce_range<T: gpu::Num, W: gpu::Num + gpu::WarpValue>(
    out: &mut [W],
    x: &[T],
    per_block: usize,
    widen: impl Fn(T) -> W,
    op: impl Fn(W, W) -> W,
) {
    let b = gpu::block_idx().x as usize;
    let t = gpu::thread_idx().x as usize;
    let threads = gpu::block_dim().x as usize;
    let n = x.len();
    let start = b * per_block;
    if start < n {
        let end = if n - start < per_block {
            n
        } else {
            start + per_block
        };
        // Threads past a short range read the first element; their values are not used.
        let first = if start + t < end { start + t } else { start };
        let mut acc = widen(x[first]);
        // Eight loads in flight per thread (their checks come first, then the loads), then
        // the rest one at a time.
        let mut i = first + threads;
        while i + 7 * threads < end {
            let v0 = widen(x[i]);
            let v1 = widen(x[i + threads]);
            let v2 = widen(x[i + 2 * threads]);
            let v3 = widen(x[i + 3 * threads]);
            let v4 = widen(x[i + 4 * threads]);
            let v5 = widen(x[i + 5 * threads]);
            let v6 = widen(x[i + 6 * threads]);
            let v7 = widen(x[i + 7 * threads]);
            acc = op(
                op(op(op(acc, v0), v1), op(v2, v3)),
                op(op(v4, v5), op(v6, v7)),
            );
            i += 8 * threads;
        }
        while i < end {
            acc = op(acc, widen(x[i]));
            i += threads;
        }
        // The threads with values are a prefix of the block: the inclusive scan at the last
        // of them is their reduction.
        let r = gpu::block::inclusive_scan(acc, &op);
        let valid = if end - start < threads {
            end - start
        } else {
            threads
        };
        if t == valid - 1 {
            out[b] = r;
        }
    }
}

/// One tile of a single-pass scan with decoupled look-back (Merrill and Garland): the block
/// takes the next tile number from the counter `flags[tiles]` (so a block waits only for
/// tiles taken by blocks that are already running: no deadlock, whatever the residency),
/// scans its `TILE` elements, publishes its aggregate, adds the prefix of the tiles before
/// it (its last warp reads their aggregates back, 32 tiles at a time, until one has its
/// inclusive prefix), publishes its own
/// inclusive prefix and writes `y`. `flags[..tiles]` start at zero; `state` holds two values
/// per tile. With `exclusive`, `y[i]` is `init` combined with `x[..i]`; otherwise with
/// `x[..=i]` (and `init` is not used).
#[device]
#[allow(clippy::too_many_arguments)]
pub fn scan_tile<T: gpu::Num, W: gpu::Num + gpu::WarpValue>(
    y: &mut [T],
    x: &[T],
    state: &mut [W],
    flags: &mut [u32],
    exclusive: bool,
    init: W,
    widen: impl Fn(T) -> W,
    narrow: impl Fn(W) -> T,
    op: impl Fn(W, W) -> W,
) {
    // Body constants: an inlined device function is checked where it is called, which sees
    // the caller's module constants, not these (equal to the module's, which the host uses).
    const BLOCK: usize = 256;
    const ITEMS: usize = 8;
    const TILE: usize = BLOCK * ITEMS;
    const TILE_PADDED: usize = TILE + TILE / 32;
    // Tile status words: nothing published yet, the tile's aggregate (in `state[2·tile]`),
    // its inclusive prefix (in `state[2·tile + 1]`).
    const PENDING: u32 = 0;
    const AGGREGATE: u32 = 1;
    const PREFIX: u32 = 2;
    let sh = gpu::shared_array::<W, TILE_PADDED>();
    let thread_totals = gpu::shared_array::<W, BLOCK>();
    let tile_prefix = gpu::shared_array::<W, 1>();
    let tile_number = gpu::shared_array::<u32, 1>();
    let t = gpu::thread_idx().x as usize;
    let tiles = flags.len() - 1;
    if t == 0 {
        tile_number[0] = gpu::atomic_add(&mut flags[tiles], 1u32);
    }
    gpu::sync_threads();
    let tile = tile_number[0] as usize;
    let base = tile * TILE;
    let n = x.len();
    // Striped loads (coalesced) into shared memory; past the end, copies of the last
    // element, which come after every valid one and so change no valid prefix.
    // (All loads first, then the stores: a store waits for its load.)
    let mut loaded = [W::ZERO; ITEMS];
    for j in 0..ITEMS {
        let i = j * BLOCK + t;
        let g = if base + i < n { base + i } else { n - 1 };
        loaded[j] = widen(x[g]);
    }
    for j in 0..ITEMS {
        let i = j * BLOCK + t;
        sh[i + i / 32] = loaded[j];
    }
    gpu::sync_threads();
    // Each thread scans its consecutive items.
    let mut items = [W::ZERO; ITEMS];
    let mut run = sh[t * ITEMS + t * ITEMS / 32];
    items[0] = run;
    for j in 1..ITEMS {
        let i = t * ITEMS + j;
        run = op(run, sh[i + i / 32]);
        items[j] = run;
    }
    let inclusive = gpu::block::inclusive_scan(run, &op);
    thread_totals[t] = inclusive;
    // The last warp publishes and looks back; its lane 31 (thread BLOCK - 1) holds the
    // tile's aggregate.
    if t / 32 == BLOCK / 32 - 1 {
        let lane = (t % 32) as u32;
        let aggregate = gpu::warp::broadcast(inclusive, 31);
        if tile == 0 {
            if lane == 31 {
                state[1] = aggregate;
                gpu::thread_fence();
                gpu::atomic_exch(&mut flags[0], PREFIX);
            }
        } else {
            if lane == 31 {
                state[2 * tile] = aggregate;
                gpu::thread_fence();
                gpu::atomic_exch(&mut flags[tile], AGGREGATE);
            }
            // Look back 32 tiles at a time, lane l reading tile `end - 32 + l`: wait until
            // each has published, then combine the window from its newest tile with an
            // inclusive prefix on (lanes below it, or before tile 0, take no part).
            let mut prefix = aggregate;
            let mut have = false;
            let mut end = tile as i64;
            loop {
                let k = end - 32 + lane as i64;
                let mut f = PENDING;
                let mut v = aggregate;
                if k >= 0 {
                    while f == PENDING {
                        f = gpu::atomic_add(&mut flags[k as usize], 0u32);
                    }
                    gpu::thread_fence();
                    let ku = k as usize;
                    v = if f == PREFIX {
                        state[2 * ku + 1]
                    } else {
                        state[2 * ku]
                    };
                }
                let prefixes = gpu::ballot_sync(gpu::FULL_MASK, f == PREFIX);
                let newest = if prefixes != 0 {
                    31 - prefixes.leading_zeros()
                } else {
                    0
                };
                let mut valid = k >= 0 && lane >= newest;
                let mut d = 1u32;
                while d < 32 {
                    let y = gpu::shfl_up_sync(gpu::FULL_MASK, v, d);
                    let y_valid = gpu::shfl_up_sync(gpu::FULL_MASK, valid as u32, d) != 0;
                    if lane >= d && y_valid {
                        v = if valid { op(y, v) } else { y };
                        valid = true;
                    }
                    d *= 2;
                }
                let window = gpu::shfl_sync(gpu::FULL_MASK, v, 31);
                prefix = if have { op(window, prefix) } else { window };
                have = true;
                if prefixes != 0 {
                    break;
                }
                end -= 32;
            }
            if lane == 31 {
                state[2 * tile + 1] = op(prefix, aggregate);
                gpu::thread_fence();
                gpu::atomic_exch(&mut flags[tile], PREFIX);
                tile_prefix[0] = prefix;
            }
        }
    }
    gpu::sync_threads();
    // What comes before this thread's first item.
    let mut carry = init;
    let mut have = exclusive;
    if tile > 0 {
        carry = if have {
            op(carry, tile_prefix[0])
        } else {
            tile_prefix[0]
        };
        have = true;
    }
    if t > 0 {
        carry = if have {
            op(carry, thread_totals[t - 1])
        } else {
            thread_totals[t - 1]
        };
        have = true;
    }
    for j in 0..ITEMS {
        let i = t * ITEMS + j;
        sh[i + i / 32] = if exclusive {
            if j == 0 {
                carry
            } else {
                op(carry, items[j - 1])
            }
        } else if have {
            op(carry, items[j])
        } else {
            items[j]
        };
    }
    gpu::sync_threads();
    for j in 0..ITEMS {
        let i = j * BLOCK + t;
        if base + i < n {
            y[base + i] = narrow(sh[i + i / 32]);
        }
    }
}

/// Counts the elements of `x` into `bins` by `bin_of`, which gives `bins.len()` or more for
/// an element not counted: block `b` counts `x[b·per_block ..][..per_block]`, eight elements
/// in flight per thread (their loads first, then their atomics). Blocks count into shared
/// memory first when the bins fit there (4096), then add their counts to `bins`.
#[device]
pub fn count_bins<T: gpu::Num>(
    bins: &mut [u32],
    x: &[T],
    per_block: usize,
    bin_of: impl Fn(T) -> usize,
) {
    const PER_TURN: usize = 8;
    let counts = gpu::shared_array::<u32, 4096>();
    let nb = bins.len();
    let t = gpu::thread_idx().x as usize;
    let threads = gpu::block_dim().x as usize;
    let private = nb <= 4096;
    if private {
        for b in (t..nb).step_by(threads) {
            counts[b] = 0;
        }
    }
    gpu::sync_threads();
    let n = x.len();
    let start = gpu::block_idx().x as usize * per_block;
    if start < n {
        let end = if n - start < per_block {
            n
        } else {
            start + per_block
        };
        let mut i = start + t;
        while i + (PER_TURN - 1) * threads < end {
            let mut vs = [T::ZERO; PER_TURN];
            for j in 0..PER_TURN {
                vs[j] = x[i + j * threads];
            }
            for j in 0..PER_TURN {
                let bin = bin_of(vs[j]);
                if bin < nb {
                    if private {
                        gpu::atomic_add_block(&mut counts[bin], 1u32);
                    } else {
                        gpu::atomic_add(&mut bins[bin], 1u32);
                    }
                }
            }
            i += PER_TURN * threads;
        }
        while i < end {
            let bin = bin_of(x[i]);
            if bin < nb {
                if private {
                    gpu::atomic_add_block(&mut counts[bin], 1u32);
                } else {
                    gpu::atomic_add(&mut bins[bin], 1u32);
                }
            }
            i += threads;
        }
    }
    gpu::sync_threads();
    if private {
        for b in (t..nb).step_by(threads) {
            let c = counts[b];
            if c > 0 {
                gpu::atomic_add(&mut bins[b], c);
            }
        }
    }
}

/// Sets `flags[..]` to zero: the tile states (and counter) of the next scan.
#[device]
pub fn clear(flags: &mut [u32]) {
    let i = gpu::global_id_x();
    if i < flags.len() {
        flags[i] = 0;
    }
}
