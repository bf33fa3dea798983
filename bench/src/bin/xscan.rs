//! `xscan` (branch `scantile`, issue 17; exploration for one H200 run, not merged): the
//! single-pass exclusive sum of `u32` against CUB's `DeviceScan::ExclusiveSum`, one process,
//! one stream, the same random input, round-robin over the contenders (order rotating each
//! round), CUDA events after the harness's guard kernel, medians. Contenders: the library's
//! `algorithms::exclusive_sum`; `x_tile`, a copy of the library's tile (u32, packed states)
//! with switches, to isolate each change; the library's `device::scan_tile_with` at other
//! tile shapes. Every contender's result is checked against the CPU at several lengths
//! (1 to 2^28) before timing.
//!
//! `xscan [ROUNDS] [LOG2_N]` (defaults 30 and 28). `XSCAN_DIR` keeps CUB's library there.

#[path = "../nvcc.rs"]
mod nvcc;
#[allow(dead_code)]
#[path = "../timing.rs"]
mod timing;

use std::process::{Command, ExitCode};

use cudarc::driver::sys::CUstream;
use cuprum::algorithms::{self, device};
use cuprum::prelude::*;

/// A copy of the library's tile (`device::scan_tile_with` of b052a80) for `u32` sums with
/// packed states, with switches (`MODE` bits): 1, the thread number taken `% BLOCK` (proves
/// the shared-memory indices, which removes the checks that serialised the loads); 2, the
/// results read from shared memory all before the stores; 4, the tile number from
/// `block_idx` instead of the counter (no atomic, no first barrier; CUB's way, which assumes
/// that blocks start in order).
#[device]
fn x_tile<const BLOCK: usize, const ITEMS: usize, const PADDED: usize, const MODE: usize>(
    y: &mut [u32],
    x: &[u32],
    words: &mut [u64],
) {
    const PENDING: u64 = 0;
    const AGGREGATE: u64 = 1;
    const PREFIX: u64 = 2;
    let tile_size = BLOCK * ITEMS;
    let sh = gpu::shared_array::<u32, PADDED>();
    let warp_totals = gpu::shared_array::<u32, 32>();
    let tile_prefix = gpu::shared_array::<u32, 1>();
    let tile_number = gpu::shared_array::<u32, 1>();
    if MODE & 8 != 0 {
        let shape = gpu::block_dim();
        assert!(
            shape.x as usize == BLOCK && shape.y == 1 && shape.z == 1,
            "x_tile must be launched with exactly BLOCK threads per block"
        );
    }
    let t = if MODE & 1 != 0 {
        gpu::thread_idx().x as usize % BLOCK
    } else {
        gpu::thread_idx().x as usize
    };
    let (warp, lane) = (t / 32, (t % 32) as u32);
    let tiles = words.len() - 1;
    let mut tile = gpu::block_idx().x as usize;
    if MODE & 4 == 0 {
        if t == 0 {
            tile_number[0] = gpu::atomic_add(&mut words[tiles], 1u64) as u32;
        }
        gpu::sync_threads();
        tile = tile_number[0] as usize;
    }
    let base = tile * tile_size;
    let n = x.len();
    let part = warp * 32 * ITEMS + lane as usize;
    let mut items = [0u32; ITEMS];
    for j in 0..ITEMS {
        let i = part + j * 32;
        let g = if base + i < n { base + i } else { n - 1 };
        items[j] = x[g];
    }
    for j in 0..ITEMS {
        let i = part + j * 32;
        sh[i + i / 32] = items[j];
    }
    gpu::sync_warp(gpu::FULL_MASK);
    let mut run = 0u32;
    for j in 0..ITEMS {
        let i = t * ITEMS + j;
        run += sh[i + i / 32];
        items[j] = run;
    }
    let inclusive = gpu::warp::inclusive_scan(run, |a, b| a + b);
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
            warp_prefix += v;
        }
        aggregate += v;
    }
    if warp == 0 {
        if tile == 0 {
            if lane == 0 {
                gpu::atomic_exch(&mut words[0], (PREFIX << 32) | aggregate as u64);
            }
        } else {
            if lane == 0 {
                gpu::atomic_exch(&mut words[tile], (AGGREGATE << 32) | aggregate as u64);
            }
            let mut prefix = 0u32;
            let mut have = false;
            let mut end = tile as i64;
            loop {
                let k = end - 32 + lane as i64;
                let mut f = PENDING;
                let mut v = 0u32;
                if k >= 0 {
                    let mut word = 0u64;
                    while word >> 32 == PENDING {
                        word = gpu::atomic_load(&mut words[k as usize]);
                    }
                    f = word >> 32;
                    v = word as u32;
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
                    let yv = gpu::shfl_up_sync(gpu::FULL_MASK, v, d);
                    let y_valid = gpu::shfl_up_sync(gpu::FULL_MASK, valid as u32, d) != 0;
                    if lane >= d && y_valid {
                        v = if valid { yv + v } else { yv };
                        valid = true;
                    }
                    d *= 2;
                }
                let window = gpu::shfl_sync(gpu::FULL_MASK, v, 31);
                prefix = if have { window + prefix } else { window };
                have = true;
                if prefixes != 0 {
                    break;
                }
                end -= 32;
            }
            if lane == 0 {
                gpu::atomic_exch(
                    &mut words[tile],
                    (PREFIX << 32) | (prefix + aggregate) as u64,
                );
                tile_prefix[0] = prefix;
            }
        }
    }
    gpu::sync_threads();
    let mut carry = 0u32;
    if tile > 0 {
        carry += tile_prefix[0];
    }
    if warp > 0 {
        carry += warp_prefix;
    }
    if lane > 0 {
        carry += within;
    }
    for j in 0..ITEMS {
        let i = t * ITEMS + j;
        sh[i + i / 32] = if j == 0 { carry } else { carry + items[j - 1] };
    }
    gpu::sync_warp(gpu::FULL_MASK);
    if MODE & 2 != 0 {
        for j in 0..ITEMS {
            let i = part + j * 32;
            items[j] = sh[i + i / 32];
        }
        for j in 0..ITEMS {
            let i = part + j * 32;
            if base + i < n {
                y[base + i] = items[j];
            }
        }
    } else {
        for j in 0..ITEMS {
            let i = part + j * 32;
            if base + i < n {
                y[base + i] = sh[i + i / 32];
            }
        }
    }
}

/// `x_tile` at a shape and switches; `words`: the tile states and the counter, zeroed.
#[kernel(instances((128, 16, 2112, 1), (128, 16, 2112, 9)))]
pub fn x_scan<const BLOCK: usize, const ITEMS: usize, const PADDED: usize, const MODE: usize>(
    y: &mut [u32],
    x: &[u32],
    words: &mut [u64],
) {
    x_tile::<BLOCK, ITEMS, PADDED, MODE>(y, x, words);
}

/// The library's tile (`device::scan_tile_with`, as `exclusive_sum` of `u32` runs it) at
/// another shape.
#[kernel(instances((128, 16, 2112)))]
pub fn lib_shape<const BLOCK: usize, const ITEMS: usize, const PADDED: usize>(
    y: &mut [u32],
    x: &[u32],
    words: &mut [u64],
    values: &mut [u32],
) {
    device::scan_tile_with::<u32, u32, BLOCK, ITEMS, PADDED>(
        y,
        x,
        words,
        values,
        true,
        true,
        0u32,
        |v| v,
        |v| v,
        |a, b| a + b,
        |v| v,
        |b| b,
    );
}

// The library's tile before this branch (main 3fbe72b `device::scan_tile_with`), verbatim but
// for names, for the A/B in one process.

#[device]
fn old_then<W: gpu::Num>(have: bool, carry: W, v: W, op: impl Fn(W, W) -> W) -> W {
    if have {
        op(carry, v)
    } else {
        v
    }
}

#[device]
#[allow(clippy::too_many_arguments)]
fn old_publish<W: gpu::Num>(
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

#[device]
#[allow(clippy::too_many_arguments)]
fn old_tile_with<
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
        run = old_then(j > 0, run, sh[i + i / 32], &op);
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
                old_publish(words, values, packed, 0, PREFIX, aggregate, &to_bits);
            }
        } else {
            if lane == 0 {
                old_publish(words, values, packed, tile, AGGREGATE, aggregate, &to_bits);
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
                old_publish(
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
        carry = old_then(have, carry, tile_prefix[0], &op);
        have = true;
    }
    if warp > 0 {
        carry = old_then(have, carry, warp_prefix, &op);
        have = true;
    }
    if lane > 0 {
        carry = old_then(have, carry, within, &op);
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
            old_then(have, carry, items[j], &op)
        };
    }
    gpu::sync_warp(gpu::FULL_MASK);
    for j in 0..ITEMS {
        let i = part + j * 32;
        if base + i < n {
            y[base + i] = narrow(sh[i + i / 32]);
        }
    }
}

/// The old library tile (`old_tile_with`) as `scan_sum<u32, u32>` runs it: runtime flags.
#[kernel]
pub fn old_rt(
    y: &mut [u32],
    x: &[u32],
    words: &mut [u64],
    values: &mut [u32],
    packed: bool,
    exclusive: bool,
) {
    old_tile_with::<u32, u32, 128, 16, 2112>(
        y,
        x,
        words,
        values,
        packed,
        exclusive,
        0u32,
        |v| v as u32,
        |v| v as u32,
        |a, b| a + b,
        |v| v as u32,
        |b| b as u32,
    );
}

/// The library's `scan_sum<u32, u32>` kernel body, verbatim (runtime `packed` and
/// `exclusive`), as a bench kernel: launched like the copies (zeroed states, no temporary
/// storage), it separates the library's kernel from its launch path.
#[kernel]
pub fn lib_rt(
    y: &mut [u32],
    x: &[u32],
    words: &mut [u64],
    values: &mut [u32],
    packed: bool,
    exclusive: bool,
) {
    device::scan_tile(
        y,
        x,
        words,
        values,
        packed,
        exclusive,
        0u32,
        |v| v as u32,
        |v| v as u32,
        |a, b| a + b,
        |v| v as u32,
        |b| b as u32,
    );
}

/// The library's tile with `packed` (`P`) and `exclusive` (`E`) as constants, for their
/// register cost (ptxas -v; not timed).
#[kernel(instances((0, 0), (0, 1), (1, 0), (1, 1), (2, 1), (2, 0), (1, 2), (0, 2)))]
pub fn lib_const<const P: usize, const E: usize>(
    y: &mut [u32],
    x: &[u32],
    words: &mut [u64],
    values: &mut [u32],
    packed: bool,
    exclusive: bool,
) {
    device::scan_tile(
        y,
        x,
        words,
        values,
        if P == 2 { packed } else { P == 1 },
        if E == 2 { exclusive } else { E == 1 },
        0u32,
        |v| v as u32,
        |v| v as u32,
        |a, b| a + b,
        |v| v as u32,
        |b| b as u32,
    );
}

/// Sets every element of `y` to `v` (a poison before each check).
#[kernel]
pub fn fill_u32(y: &mut [u32], v: u32) {
    let i = gpu::global_id_x();
    if i < y.len() {
        y[i] = v;
    }
}

/// Zeroes the tile states and the counter.
#[kernel]
pub fn zero_words(words: &mut [u64]) {
    let i = gpu::global_id_x();
    if i < words.len() {
        words[i] = 0;
    }
}

const CUB_SRC: &str = r#"
#include <cub/cub.cuh>
#include <cstddef>
static void* g_temp = nullptr;
static size_t g_bytes = 0;
extern "C" int cub_exclusive_sum_u32(const unsigned* in, unsigned* out, size_t n, cudaStream_t s) {
    size_t bytes = 0;
    cudaError_t e = cub::DeviceScan::ExclusiveSum(nullptr, bytes, in, out, (int64_t)n, s);
    if (e != cudaSuccess) return e;
    if (bytes > g_bytes) {
        if (g_temp) cudaFree(g_temp);
        e = cudaMalloc(&g_temp, bytes);
        if (e != cudaSuccess) { g_temp = nullptr; g_bytes = 0; return e; }
        g_bytes = bytes;
    }
    e = cub::DeviceScan::ExclusiveSum(g_temp, bytes, in, out, (int64_t)n, s);
    if (e != cudaSuccess) return e;
    return cudaGetLastError();
}
"#;

type ScanFn = unsafe extern "C" fn(u64, u64, usize, CUstream) -> i32;

fn build_cub(arch: &str) -> Result<(libloading::Library, ScanFn), String> {
    // `bench_cub`'s CUB library (`bench/cuda/cub/cub_bench.cu`, built before): the same
    // `cub_exclusive_sum_u32` as `bench_cub` times.
    if let Some(so) = std::env::var_os("CUPRUM_CUB_LIB") {
        // SAFETY: `cub_bench.cu`'s function, of the type above.
        unsafe {
            let lib = libloading::Library::new(&so).map_err(|e| e.to_string())?;
            let f: ScanFn = *lib
                .get(b"cub_exclusive_sum_u32")
                .map_err(|e| e.to_string())?;
            return Ok((lib, f));
        }
    }
    let dir = std::env::var_os("XSCAN_DIR")
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|| std::env::temp_dir().join(format!("xscan-{}", std::process::id())));
    std::fs::create_dir_all(&dir).map_err(|e| e.to_string())?;
    let cu = dir.join("xcub.cu");
    let so = dir.join("libxcub.so");
    std::fs::write(&cu, CUB_SRC).map_err(|e| e.to_string())?;
    let out = Command::new(nvcc::nvcc()?)
        .args([
            "-O3",
            &format!("-arch={arch}"),
            "-shared",
            "-Xcompiler",
            "-fPIC",
            "-o",
        ])
        .arg(&so)
        .arg(&cu)
        .output()
        .map_err(|e| format!("running nvcc: {e}"))?;
    if !out.status.success() {
        return Err(format!("nvcc: {}", String::from_utf8_lossy(&out.stderr)));
    }
    // SAFETY: our library, built just now, with the function's type above.
    unsafe {
        let lib = libloading::Library::new(&so).map_err(|e| e.to_string())?;
        let f: ScanFn = *lib
            .get(b"cub_exclusive_sum_u32")
            .map_err(|e| e.to_string())?;
        Ok((lib, f))
    }
}

fn ptr<T: cuprum::Element>(b: &DeviceBuffer<T>) -> cuprum::Result<u64> {
    unsafe { b.device_ptr() }
}

type Runner<'a> = Box<dyn FnMut(usize) -> cuprum::Result<()> + 'a>;

fn run(rounds: usize, log2_n: u32) -> cuprum::Result<()> {
    let dev = Device::gpu(0)?;
    let (major, minor) = dev.compute_capability();
    let arch = format!("sm_{major}{minor}");
    let stream = dev.new_stream()?;
    let raw: CUstream = stream.cuda_stream().expect("a GPU stream").cu_stream();
    let guard = timing::Guard::new(&stream, &arch).map_err(Error::Tool)?;
    let (_lib, cub) = build_cub(&arch).map_err(Error::Tool)?;
    let n = 1usize << log2_n;
    let mut rng = fastrand::Rng::new();
    let xu: Vec<u32> = (0..n).map(|_| rng.u32(..)).collect();
    let mut want = vec![0u32; n];
    let mut want_inclusive = vec![0u32; n];
    let mut acc = 0u32;
    for ((w, wi), &v) in want.iter_mut().zip(&mut want_inclusive).zip(&xu) {
        *w = acc;
        acc = acc.wrapping_add(v);
        *wi = acc;
    }
    let dx = stream.to_device(&xu)?;
    let y = std::cell::RefCell::new(stream.alloc_zeros::<u32>(n)?);
    let words = std::cell::RefCell::new(stream.alloc_zeros::<u64>(n.div_ceil(64) + 2)?);
    let values = std::cell::RefCell::new(stream.alloc_zeros::<u32>(1)?);
    let px = ptr(&dx)?;
    let (dx, stream) = (&dx, &stream);

    // Each contender runs on the first `m` elements of the input, into `y[..m]`.
    let mut names: Vec<String> = Vec::new();
    let mut runs: Vec<Runner> = Vec::new();
    {
        let y = &y;
        names.push("CUB DeviceScan::ExclusiveSum".into());
        runs.push(Box::new(move |m| {
            let py = ptr(&y.borrow())?;
            let code = unsafe { cub(px, py, m, raw) };
            if code != 0 {
                return Err(Error::Tool(format!("CUB scan: error {code}")));
            }
            Ok(())
        }));
        names.push("library exclusive_sum (this branch)".into());
        runs.push(Box::new(move |m| {
            let y = &mut *y.borrow_mut();
            algorithms::exclusive_sum(stream, &dx.slice(..m), &mut y.slice_mut(..m))
        }));
    }
    macro_rules! xs {
        ($name:literal, $b:literal, $i:literal, $p:literal, $mode:literal) => {{
            let (y, words) = (&y, &words);
            names.push($name.into());
            runs.push(Box::new(move |m| {
                let tiles = m.div_ceil($b * $i);
                let w = &mut *words.borrow_mut();
                let mut w = w.slice_mut(..tiles + 1);
                launch!(zero_words<<<(tiles + 1).div_ceil(256) as u32, 256, stream>>>(&mut w))?;
                let y = &mut *y.borrow_mut();
                x_scan::<$b, $i, $p, $mode>::launch(
                    stream,
                    LaunchConfig::new(tiles as u32, $b as u32),
                    &mut y.slice_mut(..m),
                    &dx.slice(..m),
                    &mut w,
                )
            }));
        }};
    }
    xs!("x 128x16 t % BLOCK (the copy)", 128, 16, 2112, 1);
    {
        let (y, words, values) = (&y, &words, &values);
        names.push("lib tile 128x16, constant flags (= this branch's kernel)".into());
        runs.push(Box::new(move |m| {
            let tiles = m.div_ceil(2048);
            let w = &mut *words.borrow_mut();
            let mut w = w.slice_mut(..tiles + 1);
            launch!(zero_words<<<(tiles + 1).div_ceil(256) as u32, 256, stream>>>(&mut w))?;
            let y = &mut *y.borrow_mut();
            let v = &mut *values.borrow_mut();
            lib_shape::<128, 16, 2112>::launch(
                stream,
                LaunchConfig::new(tiles as u32, 128),
                &mut y.slice_mut(..m),
                &dx.slice(..m),
                &mut w,
                &mut v.slice_mut(..1),
            )
        }));
        names.push("old lib kernel (main), runtime flags, bench launch".into());
        runs.push(Box::new(move |m| {
            let tiles = m.div_ceil(2048);
            let w = &mut *words.borrow_mut();
            let mut w = w.slice_mut(..tiles + 1);
            launch!(zero_words<<<(tiles + 1).div_ceil(256) as u32, 256, stream>>>(&mut w))?;
            let y = &mut *y.borrow_mut();
            let v = &mut *values.borrow_mut();
            old_rt::launch(
                stream,
                LaunchConfig::new(tiles as u32, 128),
                &mut y.slice_mut(..m),
                &dx.slice(..m),
                &mut w,
                &mut v.slice_mut(..1),
                true,
                true,
            )
        }));
        names.push("lib tile, runtime flags (run 1's library kernel)".into());
        runs.push(Box::new(move |m| {
            let tiles = m.div_ceil(2048);
            let w = &mut *words.borrow_mut();
            let mut w = w.slice_mut(..tiles + 1);
            launch!(zero_words<<<(tiles + 1).div_ceil(256) as u32, 256, stream>>>(&mut w))?;
            let y = &mut *y.borrow_mut();
            let v = &mut *values.borrow_mut();
            lib_rt::launch(
                stream,
                LaunchConfig::new(tiles as u32, 128),
                &mut y.slice_mut(..m),
                &dx.slice(..m),
                &mut w,
                &mut v.slice_mut(..1),
                true,
                true,
            )
        }));
    }
    // Inclusive: checked against the inclusive sums (its `vs CUB` is against CUB's
    // exclusive sum, the same traffic).
    let inclusive_from = names.len();
    {
        let y = &y;
        names.push("library inclusive_sum (this branch)".into());
        runs.push(Box::new(move |m| {
            let y = &mut *y.borrow_mut();
            algorithms::inclusive_sum(stream, &dx.slice(..m), &mut y.slice_mut(..m))
        }));
    }

    for (name, info) in [
        (
            "x_scan<128, 16, 2112, 1>",
            &x_scan::<128, 16, 2112, 1>::INFO,
        ),
        (
            "lib_shape<128, 16, 2112>",
            &lib_shape::<128, 16, 2112>::INFO,
        ),
        ("old_rt", &old_rt::INFO),
        ("lib_rt", &lib_rt::INFO),
    ] {
        let b = cuprum::occupancy::max_active_blocks(stream.device(), info, 128, 0)?;
        eprintln!("occupancy: {name}: {b} blocks of 128 threads per multiprocessor");
    }

    // Correctness of every contender at several lengths (the prefix of the input).
    let mut lengths = vec![
        1usize, 2, 2047, 2048, 2049, 3073, 5000, 70_001, 4_000_037, n,
    ];
    lengths.retain(|&m| m <= n);
    for (c, (name, r)) in names.iter().zip(runs.iter_mut()).enumerate() {
        let want: &[u32] = if c >= inclusive_from {
            &want_inclusive
        } else {
            &want
        };
        for &m in &lengths {
            {
                let y = &mut *y.borrow_mut();
                launch!(fill_u32<<<n.div_ceil(256) as u32, 256, stream>>>(y, 0xdead_beef))?;
            }
            r(m)?;
            let got = stream.to_host(&y.borrow().slice(..m))?;
            if got != want[..m] {
                let bad = got.iter().zip(want).position(|(a, b)| a != b).unwrap_or(0);
                return Err(Error::Tool(format!(
                    "{name}: wrong sum at n = {m}, first at {bad}"
                )));
            }
        }
        eprintln!("checked: {name} at {lengths:?}");
    }

    // Round-robin, the order rotating each round; the first round is a warm-up.
    let k = runs.len();
    let mut ms: Vec<Vec<f64>> = vec![Vec::new(); k];
    for round in 0..rounds + 1 {
        for s in 0..k {
            let c = (s + round) % k;
            stream.synchronize()?;
            let t = timing::device_ms(stream, &guard, || runs[c](n))?;
            stream.synchronize()?;
            if round > 0 {
                ms[c].push(t);
            }
        }
    }
    let med: Vec<f64> = ms.iter_mut().map(|v| timing::median(v)).collect();
    println!(
        "xscan: exclusive sum of 2^{log2_n} u32, {rounds} round-robin rounds, medians; {}",
        nvcc::version()
    );
    println!(
        "{:<48} {:>9} {:>9} {:>8}",
        "contender", "ms", "GB/s", "vs CUB"
    );
    for (name, &t) in names.iter().zip(&med) {
        println!(
            "{:<48} {:>9.4} {:>9.1} {:>8.3}",
            name,
            t,
            8.0 * n as f64 / t * 1e-6,
            med[0] / t
        );
    }
    Ok(())
}

/// `xscan ptx DIR`: each contender kernel's PTX into `DIR/<entry>.ptx`.
fn dump_ptx(dir: &str) {
    macro_rules! dump {
        ($($k:ty),* $(,)?) => {$(
            std::fs::write(format!("{dir}/{}.ptx", <$k>::NAME), <$k>::PTX).expect("writing PTX");
        )*};
    }
    dump!(
        x_scan<128, 16, 2112, 1>, x_scan<128, 16, 2112, 9>, lib_shape<128, 16, 2112>, lib_rt,
        old_rt, zero_words, lib_const<0, 0>, lib_const<0, 1>, lib_const<1, 0>, lib_const<1, 1>, lib_const<2, 1>, lib_const<2, 0>, lib_const<1, 2>, lib_const<0, 2>,
    );
    for (name, entry, ptx) in algorithms::__kernels() {
        if name.starts_with("scan_sum") || name.starts_with("clear_words") {
            std::fs::write(format!("{dir}/lib_{entry}.ptx"), ptx).expect("writing PTX");
        }
    }
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().collect();
    if args.get(1).map(String::as_str) == Some("ptx") {
        dump_ptx(args.get(2).map(String::as_str).unwrap_or("."));
        return ExitCode::SUCCESS;
    }
    let rounds = args.get(1).and_then(|a| a.parse().ok()).unwrap_or(30);
    let log2_n = args.get(2).and_then(|a| a.parse().ok()).unwrap_or(28);
    match run(rounds, log2_n) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("xscan: {e}");
            ExitCode::FAILURE
        }
    }
}
