//! The device halves of the radix sort: one pass over the data per 8-bit digit, each tile
//! placed by an exclusive sum of every tile's digit counts (`tile_counts`), or by onesweep's
//! look-back (each tile's digit counts published and looked back per digit, as in Adinets
//! and Merrill's "Onesweep"; the benchmark's other strategy). `digit(key, shift)` is the
//! key's 8-bit digit at `shift` in the order-preserving unsigned image of the key (sign bit
//! flipped for signed integers; for floats, all bits flipped when negative, else the sign bit
//! set: IEEE total order).

use crate::prelude::*;

/// Adds the digit counts of `keys` for every pass to `hist` (`passes × 256`, zeroed first).
/// Block `b` counts `keys[b·per_block ..][..per_block]` into shared memory, eight keys in
/// flight per thread (their loads first, then their atomics), then adds its counts with one
/// atomic per bin.
#[device]
pub fn digit_counts<K: gpu::Num>(
    hist: &mut [u32],
    keys: &[K],
    per_block: usize,
    passes: u32,
    digit: impl Fn(K, u32) -> u32,
) {
    const PER_TURN: usize = 8;
    let counts = gpu::shared_array::<u32, 2048>();
    let t = gpu::thread_idx().x as usize;
    let threads = gpu::block_dim().x as usize;
    let bins = 256 * passes as usize;
    for b in (t..bins).step_by(threads) {
        counts[b] = 0;
    }
    gpu::sync_threads();
    let n = keys.len();
    let start = gpu::block_idx().x as usize * per_block;
    if start < n {
        let end = if n - start < per_block {
            n
        } else {
            start + per_block
        };
        let mut i = start + t;
        while i + (PER_TURN - 1) * threads < end {
            let mut ks = [K::ZERO; PER_TURN];
            for j in 0..PER_TURN {
                ks[j] = keys[i + j * threads];
            }
            for j in 0..PER_TURN {
                for p in 0..passes {
                    let b = 256 * p + digit(ks[j], 8 * p);
                    gpu::atomic_add_block(&mut counts[b as usize], 1u32);
                }
            }
            i += PER_TURN * threads;
        }
        while i < end {
            let k = keys[i];
            for p in 0..passes {
                gpu::atomic_add_block(&mut counts[(256 * p + digit(k, 8 * p)) as usize], 1u32);
            }
            i += threads;
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

/// One tile (`threads·items` keys, `threads` threads: 256, or 384 for the keys-alone kernels
/// of 1- to 4-byte keys; `items` even, at most 16) of one pass, staged in the shared arrays
/// `staged` and `staged_pay` (`threads·items` elements each; `staged_pay` may be shorter
/// without `payload`); `warp_counts` holds 256 counts per warp, and with `rank_or`,
/// `warp_masks` 256 digit masks per warp (otherwise it is not read). Warp `w` loads keys
/// `w·32·ITEMS ..` of the tile, row by row (row `j`: 32 consecutive keys; all loads issued
/// before any is used), and counts them per digit in its own counts in shared memory ("early
/// counts"). Thread `d` (of the first 256) then sums digit `d`
/// over the warps (each warp's count becomes the place of its first key of digit `d` in the
/// staged tile) and, with look-back, publishes the tile's count in `status[tile·256 + d]` (a
/// count with a 2-bit state on top: 1 the tile's own count, 2 the count of every tile up to
/// it). Each warp then ranks its rows in order (the keys of a row's digit found by eight
/// ballots, or with `rank_or` by one shared atomic-or per key into the warp's masks; the row's
/// places taken from the warp's place of the digit by the lowest such lane, then a shuffle:
/// index order, so the sort is stable) and stores each key
/// (and its `u32` payload when `payload`; with `first`, the payload is the key's index) at its
/// place, in digit order. With look-back, thread `d` then looks back for the keys of digit `d`
/// in the tiles before, `lookback` statuses at once (onesweep's order: the walk after the
/// ranking), and publishes the count of every tile up to this one. The staged tile is written
/// from there in runs of equal digits, key `s` of the staged tile (of digit `d`) to `offsets[d]
/// + (keys of digit d in earlier tiles) + s - (keys of smaller digits in this tile)`. The tile
/// number comes from the counter `status[tiles·256]`, so a tile waits only for tiles of blocks
/// already running. With look-back, block `b` also clears `next[b·256 ..][..256]` (and block 0
/// the counter `next[tiles·256]`) where `next` is that long: the statuses of the next pass,
/// which the pass before this one used (the host alternates two status buffers, so no launch
/// clears them between passes; `next` is empty in the last pass). `walk_after_barrier` puts a
/// barrier between the ranking and the walk (for ptxas's register allocation only). Index math
/// is in 32 bits: the host sorts fewer than 2^30 keys.
///
/// Without look-back (`lookback` 0), tile `b` is block `b`, and `status[d·tiles + b]` (`tiles`
/// = `(len - 1) / 256`) is already the number of keys before the tile's first key of digit `d`:
/// of smaller digits, and of digit `d` in earlier tiles (`tile_counts`, then an exclusive sum);
/// `offsets` is not read.
#[device]
// `implicit_saturating_sub`: the look-back's clamp to tile 0 is written as the measured PTX had it.
#[allow(clippy::too_many_arguments, clippy::implicit_saturating_sub)]
pub fn onesweep_tile<K: gpu::Num>(
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
    staged: &mut [K],
    staged_pay: &mut [u32],
    warp_counts: &mut [u32],
    warp_masks: &mut [u32],
    rank_or: bool,
    threads: u32,
    items: usize,
    lookback: u32,
    walk_after_barrier: bool,
    last: K,
    digit: impl Fn(K, u32) -> u32,
) {
    // Body constants: an inlined device function sees its caller's module constants.
    const HALF_MAX: usize = 8;
    const COUNT: u32 = (1 << 30) - 1;
    const OWN: u32 = 1 << 30;
    const UP_TO: u32 = 2 << 30;
    // The most statuses one turn of the look-back reads at once.
    const DEPTH_MAX: usize = 16;
    let global_at = gpu::shared_array::<u32, 256>();
    let tile_number = gpu::shared_array::<u32, 1>();
    let own = gpu::shared_array::<u32, 256>();
    // The kernels are launched with exactly `threads` threads (`block = 256` or `384`); taken
    // `% threads` so that every shared-memory index below is proven in bounds (no check
    // branches between the loads of the staging and scatter loops).
    let t = gpu::thread_idx().x % threads;
    let (warp, lane) = (t / 32, t % 32);
    let warps = (threads / 32) as usize;
    // The first 256 threads each take one digit (every thread with 256 threads).
    let digit_thread = t < 256;
    let d = (t % 256) as usize;
    let n = keys_in.len() as u32;
    let tiles = (status.len() - 1) / 256;
    // Each warp clears its own counts: only the warp waits for them (and, with look-back, the
    // block for the tile number).
    for i in 0..8 {
        let c = (warp * 256 + lane + 32 * i as u32) as usize;
        warp_counts[c] = 0;
        if rank_or {
            warp_masks[c] = 0;
        }
    }
    // The next pass's statuses (see above): plain stores, nothing waits for them.
    if lookback > 0 && digit_thread {
        let b = gpu::block_idx().x as usize * 256 + d;
        if b < next.len() {
            next[b] = 0;
        }
        let c = (status.len() - 1) / 256 * 256;
        if b == 0 && c < next.len() {
            next[c] = 0;
        }
    }
    let tile = if lookback > 0 {
        if t == 0 {
            tile_number[0] = gpu::atomic_add(&mut status[tiles * 256], 1u32);
        }
        gpu::sync_threads();
        tile_number[0]
    } else {
        gpu::sync_warp(gpu::FULL_MASK);
        gpu::block_idx().x
    };
    let tile_len = threads * items as u32;
    let base = tile * tile_len;
    // The tile's keys (below `tile_len` in the last tile).
    let valid = if n - base < tile_len {
        n - base
    } else {
        tile_len
    };
    // Key `j` of this thread: `row + 32·j`.
    let row = base + warp * (32 * items as u32) + lane;
    // Two halves of `items / 2` rows, each array small enough for LLVM to unroll its loops
    // (and keep it in registers). All loads first, then the ranking.
    let half = items / 2;
    let row1 = row + 32 * half as u32;
    // Rows of this thread with a key (`j < rows`), in each half.
    let rows = if n > row {
        (((n - row - 1) / 32 + 1) as usize).min(items)
    } else {
        0
    };
    let rows0 = rows.min(half);
    let rows1 = rows - rows0;
    // Without look-back: the keys of smaller digits, and of digit `t` in earlier tiles, loaded
    // now so that the load's latency passes with the keys'.
    let placed = if lookback > 0 || !digit_thread {
        0
    } else {
        status[d * tiles + tile as usize]
    };
    let mut mine0 = [K::ZERO; HALF_MAX];
    let mut mine1 = [K::ZERO; HALF_MAX];
    load_rows(&mut mine0, keys_in, row, rows0, half, last);
    load_rows(&mut mine1, keys_in, row1, rows1, half, last);
    // Early counts: each key adds one to its warp's count of its digit (nothing returned, so
    // nothing waits), and the places are taken by the ranking after the block's sum.
    let counts = &mut warp_counts[(warp * 256) as usize..];
    count_rows(&mine0, half, counts, shift, &digit);
    count_rows(&mine1, half, counts, shift, &digit);
    // The payloads, loaded now so that their latency passes with the block's sum.
    let mut pays0 = [0u32; HALF_MAX];
    let mut pays1 = [0u32; HALF_MAX];
    if payload {
        load_pays(&mut pays0, pay_in, row, n, half, first);
        load_pays(&mut pays1, pay_in, row1, n, half, first);
    }
    gpu::sync_threads();
    // Thread d: the keys of digit d before each warp, and the tile's count of digit d, which
    // it publishes at once (threads past 256: no digit, a count of 0 in the block's sum).
    let mut count = 0u32;
    if digit_thread {
        for w in 0..warps {
            count += warp_counts[w * 256 + d];
        }
    }
    let at = tile as usize * 256 + d;
    if lookback > 0 && digit_thread {
        let state = if tile == 0 { UP_TO } else { OWN };
        gpu::atomic_exch(&mut status[at], state | count);
    }
    let start = gpu::block::exclusive_sum(count);
    // Read again rather than kept in registers across the sum, where the keys are. Each
    // warp's count of digit d becomes the place of its first key of digit d in the tile.
    if digit_thread {
        let mut slot = start;
        for w in 0..warps {
            let c = warp_counts[w * 256 + d];
            warp_counts[w * 256 + d] = slot;
            slot += c;
        }
    }
    // The tile's digit places: without look-back final now (the keys before the tile from
    // the exclusive sum); with it, the look-back below adds the earlier tiles' keys once the
    // keys are staged, as onesweep does (so that the tiles before have had the ranking's time
    // to finish their own look-back), and `own[d]` keeps the count it publishes then.
    // Position of the tile's staged key `s` (of digit d): global_at[d] + s.
    if digit_thread {
        global_at[d] = if lookback > 0 { offsets[d] } else { placed } - start;
        if lookback > 0 {
            own[d] = count;
        }
    }
    // Rank and stage the keys (and payloads) in digit order (the places of every warp: a
    // barrier).
    gpu::sync_threads();
    let slots = &mut warp_counts[(warp * 256) as usize..];
    if rank_or {
        let masks = &mut warp_masks[(warp * 256) as usize..];
        rank_rows_or(
            staged, staged_pay, &mine0, &pays0, half, slots, masks, shift, payload, &digit,
        );
        rank_rows_or(
            staged, staged_pay, &mine1, &pays1, half, slots, masks, shift, payload, &digit,
        );
    } else {
        rank_rows(
            staged, staged_pay, &mine0, &pays0, half, slots, shift, payload, &digit,
        );
        rank_rows(
            staged, staged_pay, &mine1, &pays1, half, slots, shift, payload, &digit,
        );
    }
    // Look back, per digit, for the keys of this digit in the tiles before: `lookback`
    // statuses read at once (tiles `k, k - 1, ..`), summed in order up to the first count of
    // every tile up to it; an unpublished status (0) is read again in the next turn.
    if walk_after_barrier && lookback > 0 {
        // A barrier first, so that nothing of the look-back is scheduled into the ranking,
        // where the keys take the registers (the float kernels with payloads: without it
        // ptxas spills at 128 registers; the others spill with it, at 80).
        gpu::sync_threads();
    }
    if lookback > 0 && tile > 0 && digit_thread {
        // (The tile number again from shared memory: not kept in a register across the
        // ranking.)
        let tile = tile_number[0];
        let mut before_tile = 0u32;
        let mut k = tile - 1;
        loop {
            let mut seen = [0u32; DEPTH_MAX];
            for j in 0..DEPTH_MAX {
                // Tiles below 0 are never summed (tile 0's status is inclusive): read tile 0.
                let from = if k >= j as u32 { k - j as u32 } else { 0 };
                if (j as u32) < lookback {
                    seen[j] = gpu::atomic_load(&mut status[from as usize * 256 + d]);
                }
            }
            let mut open = true;
            let mut found = false;
            for j in 0..DEPTH_MAX {
                let s = seen[j];
                if open {
                    if s == 0 {
                        open = false;
                    } else {
                        before_tile += s & COUNT;
                        k = k.wrapping_sub(1);
                        if s & UP_TO != 0 {
                            found = true;
                            open = false;
                        }
                    }
                }
            }
            if found {
                break;
            }
        }
        gpu::atomic_exch(
            &mut status[tile as usize * 256 + d],
            UP_TO | (before_tile + own[d]),
        );
        global_at[d] += before_tile;
    }
    gpu::sync_threads();
    // Two halves again, so that LLVM unrolls them (each key's two shared loads in flight
    // with the others').
    let place = &global_at[..];
    write_rows(
        keys_out, pay_out, staged, staged_pay, place, t, threads, valid, half, shift, payload,
        &digit,
    );
    write_rows(
        keys_out,
        pay_out,
        staged,
        staged_pay,
        place,
        t + threads * half as u32,
        threads,
        valid,
        half,
        shift,
        payload,
        &digit,
    );
}

/// Writes staged keys `first + threads·j` (`j < count`, below `valid`) and, with `payload`, their
/// payloads to their places: key `s` (of digit `d`) to `place[d] + s`. The staged keys are read
/// first, all of them, then their places, then the stores: the shared loads are in flight
/// together (`first + threads·j` is below the tile's length: `first` is the thread number, taken
/// `% threads`, plus `threads·count` at most, so no check branches between them).
#[device]
#[allow(clippy::too_many_arguments)]
fn write_rows<K: gpu::Num>(
    keys_out: &mut [K],
    pay_out: &mut [u32],
    staged: &[K],
    staged_pay: &[u32],
    place: &[u32],
    first: u32,
    threads: u32,
    valid: u32,
    count: usize,
    shift: u32,
    payload: bool,
    digit: impl Fn(K, u32) -> u32,
) {
    const HALF_MAX: usize = 8;
    let mut ks = [K::ZERO; HALF_MAX];
    for j in 0..count {
        ks[j] = staged[(first + threads * j as u32) as usize];
    }
    let mut to = [0u32; HALF_MAX];
    for j in 0..count {
        to[j] = place[(digit(ks[j], shift) & 255) as usize] + first + threads * j as u32;
    }
    for j in 0..count {
        if first + threads * (j as u32) < valid {
            keys_out[to[j] as usize] = ks[j];
        }
    }
    if payload {
        let mut pays = [0u32; HALF_MAX];
        for j in 0..count {
            pays[j] = staged_pay[(first + threads * j as u32) as usize];
        }
        for j in 0..count {
            if first + threads * (j as u32) < valid {
                pay_out[to[j] as usize] = pays[j];
            }
        }
    }
}

/// Loads the keys of a thread's rows `j < rows` (of `count`) into `mine`, key `j` from
/// `keys[first + 32·j]`; rows past the end get `last`.
#[device]
fn load_rows<K: gpu::Num>(
    mine: &mut [K],
    keys: &[K],
    first: u32,
    rows: usize,
    count: usize,
    last: K,
) {
    for j in 0..count {
        mine[j] = if j < rows {
            keys[(first + 32 * (j as u32)) as usize]
        } else {
            last
        };
    }
}

/// Loads the payloads of a thread's rows into `pays`: row `j`'s from `pay_in[first + 32·j]`
/// below `n` (its index when `index`, or past the end).
#[device]
fn load_pays(pays: &mut [u32], pay_in: &[u32], first: u32, n: u32, count: usize, index: bool) {
    for j in 0..count {
        let i = first + 32 * (j as u32);
        pays[j] = if index || i >= n {
            i
        } else {
            pay_in[i as usize]
        };
    }
}

/// Adds one to `counts[d]` for each of a thread's keys (of digit `d`): the warp's counts.
#[device]
fn count_rows<K: gpu::Num>(
    mine: &[K],
    count: usize,
    counts: &mut [u32],
    shift: u32,
    digit: impl Fn(K, u32) -> u32,
) {
    for j in 0..count {
        gpu::atomic_add_block(&mut counts[(digit(mine[j], shift) & 255) as usize], 1u32);
    }
}

/// Ranks a warp's rows of keys (lane `l` of row `j`: the key after those of lane `l - 1`, its
/// value `mine[j]`) and stores each (and, with `payload`, its payload `pays[j]`) at its place
/// in the staged tile: `slots[d]` (the warp's) is the place of the warp's next key of digit
/// `d`. In each row the lowest lane of each digit takes the places of the row's keys of that
/// digit and hands the first to its peers, which count the peers before them: rows in order,
/// lanes in order within a row, so the sort is stable. (Its atomic has returned before the
/// shuffle, and the next row's atomics come after it.) Every key's place is in the tile; the
/// index is clamped to the tile so that it is proven in bounds without a check.
#[device]
#[allow(clippy::too_many_arguments)]
fn rank_rows<K: gpu::Num>(
    staged: &mut [K],
    staged_pay: &mut [u32],
    mine: &[K],
    pays: &[u32],
    count: usize,
    slots: &mut [u32],
    shift: u32,
    payload: bool,
    digit: impl Fn(K, u32) -> u32,
) {
    const HALF_MAX: usize = 8;
    // Every row's peers first (they do not wait for one another; each row's chain below is
    // then its atomic and its shuffle only), from eight ballots per row, one per bit of the
    // digit: each bit's ballot, or its complement where this lane's bit is clear, keeps the
    // lanes that agree on that bit (`match_any_sync` of the digit, which measured slower).
    // Rows inside bits, so that LLVM unrolls the rows and keeps the keys in registers.
    let mut peers = [gpu::FULL_MASK; HALF_MAX];
    for b in 0..8 {
        for j in 0..count {
            let set = (digit(mine[j], shift) >> b) & 1 != 0;
            let votes = gpu::ballot_sync(gpu::FULL_MASK, set);
            peers[j] &= if set { votes } else { !votes };
        }
    }
    let lt = gpu::lanemask_lt();
    let last = staged.len() - 1;
    let last_pay = staged_pay.len() - 1;
    for j in 0..count {
        let before = (peers[j] & lt).count_ones();
        let mut first = 0u32;
        if before == 0 {
            let d = digit(mine[j], shift) & 255;
            first = gpu::atomic_add_block(&mut slots[d as usize], peers[j].count_ones());
        }
        let s = gpu::shfl_sync(gpu::FULL_MASK, first, peers[j].trailing_zeros()) + before;
        staged[(s as usize).min(last)] = mine[j];
        if payload {
            staged_pay[(s as usize).min(last_pay)] = pays[j];
        }
    }
}

/// `rank_rows` with the peers of each row found by one shared atomic per key instead of eight
/// ballots per row (the keys-alone passes of 1- to 4-byte keys use it): each lane sets its bit
/// in the warp's mask of its digit (`masks`, 256 per warp, zero between rows), reads the mask
/// back (its digit's peers), and the lowest lane of each digit takes the row's places from
/// `slots` and clears the mask. The places are handed over and stored as in `rank_rows`.
#[device]
#[allow(clippy::too_many_arguments)]
fn rank_rows_or<K: gpu::Num>(
    staged: &mut [K],
    staged_pay: &mut [u32],
    mine: &[K],
    pays: &[u32],
    count: usize,
    slots: &mut [u32],
    masks: &mut [u32],
    shift: u32,
    payload: bool,
    digit: impl Fn(K, u32) -> u32,
) {
    let lt = gpu::lanemask_lt();
    let bit = lt + 1;
    let last = staged.len() - 1;
    let last_pay = staged_pay.len() - 1;
    for j in 0..count {
        let d = (digit(mine[j], shift) & 255) as usize;
        gpu::atomic_or_block(&mut masks[d], bit);
        gpu::sync_warp(gpu::FULL_MASK);
        let peers = masks[d];
        gpu::sync_warp(gpu::FULL_MASK);
        let before = (peers & lt).count_ones();
        let mut first = 0u32;
        if before == 0 {
            first = slots[d];
            slots[d] = first + peers.count_ones();
            masks[d] = 0;
        }
        gpu::sync_warp(gpu::FULL_MASK);
        let s = gpu::shfl_sync(gpu::FULL_MASK, first, peers.trailing_zeros()) + before;
        staged[(s as usize).min(last)] = mine[j];
        if payload {
            staged_pay[(s as usize).min(last_pay)] = pays[j];
        }
    }
}

/// Counts the digits of tile `b` = this block (`256·items` keys) into `table[d·tiles + b]`
/// (`tiles` = `table.len() / 256`): the table whose exclusive sum places every tile's keys.
#[device]
pub fn tile_counts<K: gpu::Num>(
    table: &mut [u32],
    keys: &[K],
    shift: u32,
    items: usize,
    digit: impl Fn(K, u32) -> u32,
) {
    const HALF_MAX: usize = 8;
    let counts = gpu::shared_array::<u32, 256>();
    // Launched with 256 threads: `% 256` proves the shared indices.
    let t = gpu::thread_idx().x % 256;
    counts[t as usize] = 0;
    gpu::sync_threads();
    let tile = gpu::block_idx().x;
    let n = keys.len() as u32;
    let first = tile * (256 * items as u32) + t;
    let half = items / 2;
    let rows = if n > first {
        (((n - first - 1) / 256 + 1) as usize).min(items)
    } else {
        0
    };
    // Every load first (both halves), then the counts: one load latency per tile.
    let mut ks0 = [K::ZERO; HALF_MAX];
    let mut ks1 = [K::ZERO; HALF_MAX];
    let first1 = first + (256 * half) as u32;
    for j in 0..half {
        if j < rows {
            ks0[j] = keys[(first + 256 * (j as u32)) as usize];
        }
        if half + j < rows {
            ks1[j] = keys[(first1 + 256 * (j as u32)) as usize];
        }
    }
    for j in 0..half {
        if j < rows {
            gpu::atomic_add_block(&mut counts[(digit(ks0[j], shift) & 255) as usize], 1u32);
        }
    }
    for j in 0..half {
        if half + j < rows {
            gpu::atomic_add_block(&mut counts[(digit(ks1[j], shift) & 255) as usize], 1u32);
        }
    }
    gpu::sync_threads();
    let tiles = table.len() / 256;
    table[t as usize * tiles + tile as usize] = counts[t as usize];
}
