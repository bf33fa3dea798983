//! The device halves of the algorithms: `#[device]` functions generic over the element type
//! `T`, the type `W` the block works in (`T` itself, or `i32`/`u32`/`i64`/`u64` for the types
//! warp shuffles do not move) and the operation, inlined into the library's kernels and into
//! the kernels that `reduce!`, `inclusive_scan!` and `exclusive_scan!` write in the user's
//! crate. `widen`/`narrow` convert between `T` and `W` (`|v| v as W`, written in the kernel,
//! where the types are known). Blocks are one-dimensional, [`BLOCK`] threads.

use crate::prelude::*;

/// Threads per block of the reduction and histogram kernels.
pub const BLOCK: usize = 256;
/// Threads per block of the scan kernels.
pub const SCAN_BLOCK: usize = 128;
/// Items per thread of a scan tile.
pub const ITEMS: usize = 16;
/// Elements per scan tile.
pub const TILE: usize = SCAN_BLOCK * ITEMS;

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
        // Sixteen loads in flight per thread (their checks come first, then the loads: 64
        // bytes of `i32` per thread, as CUB's four 16-byte loads), then the rest one at a time.
        let mut i = first + threads;
        while i + 15 * threads < end {
            let mut v = [W::ZERO; 16];
            for k in 0..16 {
                v[k] = widen(x[i + k * threads]);
            }
            // A tree, so that the sums do not wait for each other.
            for k in 0..8 {
                v[k] = op(v[k], v[k + 8]);
            }
            for k in 0..4 {
                v[k] = op(v[k], v[k + 4]);
            }
            acc = op(acc, op(op(v[0], v[2]), op(v[1], v[3])));
            i += 16 * threads;
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

/// The combination of a vector's `N` lanes, in lane order.
#[device]
fn fold_lanes<W: gpu::Num, const N: usize>(x: [W; N], op: impl Fn(W, W) -> W) -> W {
    let mut r = x[0];
    for k in 1..N {
        r = op(r, x[k]);
    }
    r
}

/// [`reduce_range`] over 16-byte vectors (`cuprum::DeviceBuffer::as_vectors`'s middle part):
/// block `b` combines the lanes of `v[b·per_block ..][..per_block]`, block 0 also the
/// elements of `head` and `tail` (fewer than `N` each: the input's elements outside the
/// vectors), and writes the result to `out[b]`. `op` is commutative: the lanes are not
/// combined in the elements' order.
#[device]
pub fn reduce_vectors<W: gpu::Num + gpu::WarpValue, const N: usize>(
    out: &mut [W],
    v: &[[W; N]],
    head: &[W],
    tail: &[W],
    per_block: usize,
    op: impl Fn(W, W) -> W,
) {
    let b = gpu::block_idx().x as usize;
    let t = gpu::thread_idx().x as usize;
    let threads = gpu::block_dim().x as usize;
    let n = v.len();
    let start = b * per_block;
    if start < n {
        let end = if n - start < per_block {
            n
        } else {
            start + per_block
        };
        // Threads past a short range read the first vector; their values are not used.
        let first = if start + t < end { start + t } else { start };
        let mut acc = fold_lanes::<W, N>(v[first], &op);
        if b == 0 && t == 0 {
            for k in 0..head.len() {
                acc = op(acc, head[k]);
            }
            for k in 0..tail.len() {
                acc = op(acc, tail[k]);
            }
        }
        // Four 16-byte loads in flight per thread (their checks first), lane by lane a tree.
        let mut i = first + threads;
        while i + 3 * threads < end {
            let a = v[i];
            let c = v[i + threads];
            let d = v[i + 2 * threads];
            let e = v[i + 3 * threads];
            let mut s = a;
            for k in 0..N {
                s[k] = op(op(a[k], c[k]), op(d[k], e[k]));
            }
            acc = op(acc, fold_lanes::<W, N>(s, &op));
            i += 4 * threads;
        }
        while i < end {
            acc = op(acc, fold_lanes::<W, N>(v[i], &op));
            i += threads;
        }
        let r = gpu::block::inclusive_scan::<W>(acc, &op);
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

/// `op(carry, v)` when `have` (a value is carried), else `v`: the scans' way to start a
/// combination without an identity element.
#[device]
fn then<W: gpu::Num>(have: bool, carry: W, v: W, op: impl Fn(W, W) -> W) -> W {
    if have {
        op(carry, v)
    } else {
        v
    }
}

/// Publishes tile `tile`'s `status` (1: its aggregate, 2: its inclusive prefix) with value
/// `v`, in the tile's state word (`packed`: status in the high half, `to_bits(v)` in the low
/// half, one atomic exchange) or in `values` and then the word (ordered by a fence).
#[device]
#[allow(clippy::too_many_arguments)]
fn publish<W: gpu::Num>(
    words: &mut [u64],
    values: &mut [W],
    packed: bool,
    tile: usize,
    status: u64,
    v: W,
    to_bits: impl Fn(W) -> u32,
) {
    if packed {
        gpu::atomic_exch(&mut words[tile], (status << 32) | to_bits(v) as u64);
    } else {
        values[2 * tile + status as usize - 1] = v;
        gpu::thread_fence();
        gpu::atomic_exch(&mut words[tile], status);
    }
}

/// One tile of a single-pass scan with decoupled look-back (Merrill and Garland), in blocks
/// of [`SCAN_BLOCK`] threads with [`ITEMS`] consecutive elements each: [`scan_tile_with`] at
/// the library's tile shape.
#[device]
#[allow(clippy::too_many_arguments)]
pub fn scan_tile<T: gpu::Num, W: gpu::Num + gpu::WarpValue>(
    y: &mut [T],
    x: &[T],
    words: &mut [u64],
    values: &mut [W],
    packed: bool,
    exclusive: bool,
    init: W,
    widen: impl Fn(T) -> W,
    narrow: impl Fn(W) -> T,
    op: impl Fn(W, W) -> W,
    to_bits: impl Fn(W) -> u32,
    from_bits: impl Fn(u32) -> W,
) {
    // `SCAN_BLOCK`, `ITEMS` and `TILE + TILE / 32` (an inlined device function is checked
    // where it is called, which sees the caller's module constants, not these).
    const BLOCK: usize = 128;
    const PER_THREAD: usize = 16;
    const PADDED: usize = 2112;
    scan_tile_with::<T, W, BLOCK, PER_THREAD, PADDED>(
        y, x, words, values, packed, exclusive, init, widen, narrow, op, to_bits, from_bits,
    );
}

/// One tile of a single-pass scan with decoupled look-back (Merrill and Garland), in blocks
/// of `BLOCK` threads (a multiple of 32, at most 1024; the kernel must be launched with
/// exactly `BLOCK` threads per block, one-dimensional, as the library's are: another shape
/// is a failed assertion, `KernelPanic`) with `ITEMS` consecutive elements
/// each; `PADDED` is `BLOCK · ITEMS · 33 / 32` (the tile in shared memory, one slot of
/// padding per 32). The block takes the next tile number from the counter `words[tiles]` (so
/// a block waits only for tiles taken by blocks that are already running: no deadlock,
/// whatever the residency). Each warp loads its part of the tile (coalesced) and hands it
/// through shared memory to its threads, with no block barrier; each thread scans its
/// elements, the block scans the threads' totals (one barrier); warp 0 publishes the tile's
/// aggregate, adds the prefix of the tiles before it (reading their states 32 tiles at a
/// time until one has its inclusive prefix) and publishes the tile's inclusive prefix, which
/// a second barrier hands to the block; each warp writes its part of `y` back through shared
/// memory.
///
/// Tile states: `words[..tiles]` start at zero (nothing published). With `packed` (for `W`
/// of 32 bits, whose bits `to_bits`/`from_bits` move unchanged) a tile's word holds its
/// status and its value: one atomic exchange publishes both and one relaxed load
/// (`gpu::atomic_load`, `ld.relaxed.gpu`) polls them, with no fence. Otherwise the word holds the status and `values` (two per tile) the tile's
/// aggregate and inclusive prefix, ordered by fences. With `exclusive`, `y[i]` is `init`
/// combined with `x[..i]`; otherwise with `x[..=i]` (and `init` is not used).
#[device]
// The result stores are the same loop twice on purpose (see there).
#[allow(clippy::too_many_arguments, clippy::if_same_then_else)]
pub fn scan_tile_with<
    T: gpu::Num,
    W: gpu::Num + gpu::WarpValue,
    const BLOCK: usize,
    const ITEMS: usize,
    const PADDED: usize,
>(
    y: &mut [T],
    x: &[T],
    words: &mut [u64],
    values: &mut [W],
    packed: bool,
    exclusive: bool,
    init: W,
    widen: impl Fn(T) -> W,
    narrow: impl Fn(W) -> T,
    op: impl Fn(W, W) -> W,
    to_bits: impl Fn(W) -> u32,
    from_bits: impl Fn(u32) -> W,
) {
    // Tile statuses: nothing published yet, the tile's aggregate, its inclusive prefix.
    const PENDING: u64 = 0;
    const AGGREGATE: u64 = 1;
    const PREFIX: u64 = 2;
    let tile_size = BLOCK * ITEMS;
    let sh = gpu::shared_array::<W, PADDED>();
    let warp_totals = gpu::shared_array::<W, 32>();
    let tile_prefix = gpu::shared_array::<W, 1>();
    let tile_number = gpu::shared_array::<u32, 1>();
    // The block has `BLOCK` threads (the library launches it so); `% BLOCK` tells the
    // compiler so, which proves every shared-memory index below in bounds. With those checks
    // in place, each sat between one load of the tile and the next (SASS: load, its store to
    // shared memory, which waits for it, the next index's check, the next load): one load in
    // flight per warp. Without them the 16 loads issue back to back (H200: 1.33 -> 0.71 ms
    // for 2^28 `u32`; bench/NOTES.md, branch `scantile`).
    // A block of another shape would alias threads (two taking tile numbers, one of them
    // never published: every later tile would wait for it), so it is refused.
    let shape = gpu::block_dim();
    assert!(
        shape.x as usize == BLOCK && shape.y == 1 && shape.z == 1,
        "algorithms::device::scan_tile_with must be launched with exactly BLOCK threads per block"
    );
    let t = gpu::thread_idx().x as usize % BLOCK;
    let (warp, lane) = (t / 32, (t % 32) as u32);
    let tiles = words.len() - 1;
    if t == 0 {
        tile_number[0] = gpu::atomic_add(&mut words[tiles], 1u64) as u32;
    }
    gpu::sync_threads();
    let tile = tile_number[0] as usize;
    let base = tile * tile_size;
    let n = x.len();
    // The warp's part of the tile, loaded striped (coalesced; past the end, copies of the
    // last element, which come after every valid one and so change no valid prefix), all
    // loads first, then through shared memory to each thread's consecutive elements.
    let part = warp * 32 * ITEMS + lane as usize;
    let mut items = [W::ZERO; ITEMS];
    for j in 0..ITEMS {
        let i = part + j * 32;
        let g = if base + i < n { base + i } else { n - 1 };
        items[j] = widen(x[g]);
    }
    for j in 0..ITEMS {
        let i = part + j * 32;
        sh[i + i / 32] = items[j];
    }
    gpu::sync_warp(gpu::FULL_MASK);
    let mut run = init;
    for j in 0..ITEMS {
        let i = t * ITEMS + j;
        run = then(j > 0, run, sh[i + i / 32], &op);
        items[j] = run;
    }
    // The block's scan of the threads' totals: in each warp, then over the warps' totals.
    let inclusive = gpu::warp::inclusive_scan(run, &op);
    let within = gpu::shfl_up_sync(gpu::FULL_MASK, inclusive, 1);
    if lane == 31 {
        warp_totals[warp] = inclusive;
    }
    gpu::sync_threads();
    let mut warp_prefix = warp_totals[0];
    let mut aggregate = warp_totals[0];
    for w in 1..BLOCK / 32 {
        let v = warp_totals[w];
        if w < warp {
            warp_prefix = op(warp_prefix, v);
        }
        aggregate = op(aggregate, v);
    }
    if warp == 0 {
        if tile == 0 {
            if lane == 0 {
                publish(words, values, packed, 0, PREFIX, aggregate, &to_bits);
            }
        } else {
            if lane == 0 {
                publish(words, values, packed, tile, AGGREGATE, aggregate, &to_bits);
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
                    let ku = k as usize;
                    if packed {
                        let mut word = 0u64;
                        while word >> 32 == PENDING {
                            word = gpu::atomic_load(&mut words[ku]);
                        }
                        f = word >> 32;
                        v = from_bits(word as u32);
                    } else {
                        while f == PENDING {
                            f = gpu::atomic_load(&mut words[ku]);
                        }
                        gpu::thread_fence();
                        v = values[2 * ku + f as usize - 1];
                    }
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
            if lane == 0 {
                let inclusive_prefix = op(prefix, aggregate);
                publish(
                    words,
                    values,
                    packed,
                    tile,
                    PREFIX,
                    inclusive_prefix,
                    &to_bits,
                );
                tile_prefix[0] = prefix;
            }
        }
    }
    gpu::sync_threads();
    // What comes before this thread's first element.
    let mut carry = init;
    let mut have = exclusive;
    if tile > 0 {
        carry = then(have, carry, tile_prefix[0], &op);
        have = true;
    }
    if warp > 0 {
        carry = then(have, carry, warp_prefix, &op);
        have = true;
    }
    if lane > 0 {
        carry = then(have, carry, within, &op);
        have = true;
    }
    // Back through the warp's part of shared memory (only this warp read it), then stored
    // striped.
    for j in 0..ITEMS {
        let i = t * ITEMS + j;
        sh[i + i / 32] = if exclusive {
            if j == 0 {
                carry
            } else {
                op(carry, items[j - 1])
            }
        } else {
            then(have, carry, items[j], &op)
        };
    }
    gpu::sync_warp(gpu::FULL_MASK);
    // The same loop twice. Where `y` holds the tile's elements (the library's calls) the
    // guard `base + i < n` proves each store in bounds, and with no check between them the
    // stores issue together; else each store is checked. (The checks-first pass cannot
    // hoist the checks here: the `narrow` call makes the loop a run it does not take. With
    // each check between a shared-memory read and the next, the 16 stores were a chain:
    // H200, 2^28 `u32`, 0.777 ms against 0.699 with this copy; bench/NOTES.md, branch `scan`.)
    if y.len() >= n {
        for j in 0..ITEMS {
            let i = part + j * 32;
            if base + i < n {
                y[base + i] = narrow(sh[i + i / 32]);
            }
        }
    } else {
        for j in 0..ITEMS {
            let i = part + j * 32;
            if base + i < n {
                y[base + i] = narrow(sh[i + i / 32]);
            }
        }
    }
}

/// Counts `bin` (a bin number below `nb`, or `nb` for none) in the block's shared counters
/// (`private`: `nb < 4096`) or in `bins`. Shared counter `nb` takes the elements counted in
/// no bin, so that the shared count has no branch; it is never added to `bins`.
#[device]
fn count_one(bins: &mut [u32], counts: &mut [u32], private: bool, nb: u32, bin: u32) {
    if private {
        // `bin <= nb < 4096`: the mask only says so to the bounds check.
        gpu::atomic_add_block(&mut counts[bin as usize & 4095], 1u32);
    } else if bin < nb {
        gpu::atomic_add(&mut bins[bin as usize], 1u32);
    }
}

/// Zeroes the block's shared counters of a histogram of `nb` bins (with the counter of no
/// bin, `nb`), when they are used (`nb < 4096`); returns whether they are.
#[device]
fn clear_counts(counts: &mut [u32], nb: u32) -> bool {
    let t = gpu::thread_idx().x as usize;
    let threads = gpu::block_dim().x as usize;
    let private = nb < 4096;
    if private {
        for b in (t..nb as usize + 1).step_by(threads) {
            counts[b] = 0;
        }
    }
    private
}

/// One block's share of a histogram: block `b` counts `x[b·per_block..][..per_block]` into
/// `bins` (added to what they hold) by `bin_of` (a bin below `bins.len()`, which the host
/// keeps at most `u32::MAX`, or `bins.len()` for none): in shared memory first when there
/// are fewer than 4096 bins, each thread with eight loads in flight.
#[device]
pub fn count_bins<T: gpu::Num>(
    bins: &mut [u32],
    x: &[T],
    per_block: usize,
    bin_of: impl Fn(T) -> u32,
) {
    const PER_TURN: usize = 8;
    let counts = gpu::shared_array::<u32, 4096>();
    let nb = bins.len() as u32;
    let t = gpu::thread_idx().x as usize;
    let threads = gpu::block_dim().x as usize;
    let private = clear_counts(counts, nb);
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
                count_one(bins, counts, private, nb, bin_of(vs[j]));
            }
            i += PER_TURN * threads;
        }
        while i < end {
            count_one(bins, counts, private, nb, bin_of(x[i]));
            i += threads;
        }
    }
    gpu::sync_threads();
    flush_counts(bins, counts, private, nb);
}

/// Adds the block's shared counters to `bins` (after a barrier).
#[device]
fn flush_counts(bins: &mut [u32], counts: &mut [u32], private: bool, nb: u32) {
    if private {
        let t = gpu::thread_idx().x as usize;
        let threads = gpu::block_dim().x as usize;
        for b in (t..nb as usize).step_by(threads) {
            let c = counts[b];
            if c > 0 {
                gpu::atomic_add(&mut bins[b], c);
            }
        }
    }
}

/// The lanes of `v[start..end]` counted by one block (see [`count_vectors`]): thread `t`
/// takes vectors `start + t`, `start + t + threads`, .., `TURN` loads in flight.
#[device]
#[allow(clippy::too_many_arguments)]
fn count_vector_range<T: gpu::Num, const N: usize, const TURN: usize>(
    bins: &mut [u32],
    counts: &mut [u32],
    private: bool,
    nb: u32,
    v: &[[T; N]],
    start: usize,
    end: usize,
    bin_of: impl Fn(T) -> u32,
) {
    let t = gpu::thread_idx().x as usize;
    let threads = gpu::block_dim().x as usize;
    let mut i = start + t;
    while i + (TURN - 1) * threads < end {
        let mut vs = [[T::ZERO; N]; TURN];
        for j in 0..TURN {
            vs[j] = v[i + j * threads];
        }
        for j in 0..TURN {
            for k in 0..N {
                count_one(bins, counts, private, nb, bin_of(vs[j][k]));
            }
        }
        i += TURN * threads;
    }
    while i < end {
        let x = v[i];
        for k in 0..N {
            count_one(bins, counts, private, nb, bin_of(x[k]));
        }
        i += threads;
    }
}

/// [`count_bins`] over 16-byte vectors (`cuprum::DeviceBuffer::as_vectors`'s middle part):
/// block `b` counts the lanes of `v[b·per_block..][..per_block]`, each thread with `TURN`
/// vectors in flight, and block 0 also the elements of `head` and `tail`.
#[device]
pub fn count_vectors<T: gpu::Num, const N: usize, const TURN: usize>(
    bins: &mut [u32],
    v: &[[T; N]],
    head: &[T],
    tail: &[T],
    per_block: usize,
    bin_of: impl Fn(T) -> u32,
) {
    let counts = gpu::shared_array::<u32, 4096>();
    let nb = bins.len() as u32;
    let b = gpu::block_idx().x as usize;
    let t = gpu::thread_idx().x as usize;
    let private = clear_counts(counts, nb);
    gpu::sync_threads();
    if b == 0 {
        if t < head.len() {
            count_one(bins, counts, private, nb, bin_of(head[t]));
        }
        if t < tail.len() {
            count_one(bins, counts, private, nb, bin_of(tail[t]));
        }
    }
    let n = v.len();
    let start = b * per_block;
    if start < n {
        let end = if n - start < per_block {
            n
        } else {
            start + per_block
        };
        // The same loop twice, `private` a constant in each (no branch per element).
        if private {
            count_vector_range::<T, N, TURN>(bins, counts, true, nb, v, start, end, &bin_of);
        } else {
            count_vector_range::<T, N, TURN>(bins, counts, false, nb, v, start, end, &bin_of);
        }
    }
    gpu::sync_threads();
    flush_counts(bins, counts, private, nb);
}

/// Sets `flags[..]` to zero: the tile states (and counter) of the next scan, or counts.
#[device]
pub fn clear<U: gpu::Num>(flags: &mut [U]) {
    let i = gpu::global_id_x();
    if i < flags.len() {
        flags[i] = U::ZERO;
    }
}
