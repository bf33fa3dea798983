//! `bench_cub`: Cuprum's device-wide algorithms (`cuprum::algorithms`) and block primitives
//! (`gpu::block`) against NVIDIA's CUB, compiled by the GPU host's nvcc
//! (`bench/cuda/cub/cub_bench.cu`) into a shared library loaded into this process: one
//! context, one stream, the same random input buffers for both, interleaved rounds (the order
//! alternating), CUDA events after the harness's guard kernel, medians. Each pair of results
//! is compared before timing. Prints a table; `vs CUB` is Cuprum's throughput over CUB's.
//!
//! `bench_cub [ROUNDS] [LOG2_N] [ONLY]` (defaults 20, 28 and every algorithm; `ONLY` is a
//! comma-separated list of `sum`, `scan`, `sort`, `histogram`, `block`). Run on a GPU host from
//! the repository root. `bench_cub parts [LOG2_N]` runs the sorts and the histogram once each,
//! for a profiler; `bench_cub ptx DIR` writes the block-primitive kernels' PTX into `DIR`.
//! `CUPRUM_CUB_LIB=path` loads CUB's side from a library built before
//! (`nvcc -O3 -arch=sm_90 -shared -Xcompiler -fPIC -o path bench/cuda/cub/cub_bench.cu`, with
//! `-DCUB_BENCH_SUM_HISTOGRAM_ONLY` for `sum,histogram` alone, in seconds) instead of building it.

#[path = "../nvcc.rs"]
mod nvcc;
// The suite's timing helpers; this binary uses only some of them (not the copy bandwidth).
#[allow(dead_code)]
#[path = "../timing.rs"]
mod timing;

use std::process::{Command, ExitCode};

use cudarc::driver::sys::CUstream;
use cuprum::algorithms;
use cuprum::prelude::*;

/// One block reduce per 256-value tile (one value per thread), the sum stored by thread 0.
#[kernel(max_threads = 256)]
pub fn block_reduce_tiles(out: &mut [i32], x: &[i32]) {
    let t = gpu::thread_idx().x as usize;
    for tile in (gpu::block_idx().x as usize..out.len()).step_by(gpu::grid_dim().x as usize) {
        let s = gpu::block::sum(x[tile * 256 + t]);
        if t == 0 {
            out[tile] = s;
        }
    }
}

/// One block inclusive sum per 256-value tile.
#[kernel(max_threads = 256)]
pub fn block_scan_tiles(y: &mut [i32], x: &[i32]) {
    let t = gpu::thread_idx().x as usize;
    let tiles = x.len() / 256;
    for tile in (gpu::block_idx().x as usize..tiles).step_by(gpu::grid_dim().x as usize) {
        y[tile * 256 + t] = gpu::block::inclusive_sum(x[tile * 256 + t]);
    }
}

type SumFn = unsafe extern "C" fn(u64, u64, usize, *mut i32, CUstream) -> i32;
type ScanFn = unsafe extern "C" fn(u64, u64, usize, CUstream) -> i32;
type PairsFn = unsafe extern "C" fn(u64, u64, u64, u64, usize, CUstream) -> i32;
type HistFn = unsafe extern "C" fn(u64, u64, i32, f32, f32, usize, CUstream) -> i32;
type BlockFn = unsafe extern "C" fn(u64, u64, usize, u32, CUstream) -> i32;

/// CUB's functions, from the library nvcc built.
struct Cub {
    _lib: libloading::Library,
    sum: SumFn,
    exclusive_sum: ScanFn,
    sort_keys: ScanFn,
    sort_pairs: PairsFn,
    histogram: HistFn,
    block_reduce: BlockFn,
    block_scan: BlockFn,
}

fn build_cub(arch: &str) -> Result<Cub, String> {
    if let Some(so) = std::env::var_os("CUPRUM_CUB_LIB") {
        return load_cub(std::path::Path::new(&so));
    }
    let dir = std::env::temp_dir().join(format!("cuprum-bench-cub-{}", std::process::id()));
    std::fs::create_dir_all(&dir).map_err(|e| e.to_string())?;
    let cu = dir.join("cub_bench.cu");
    let so = dir.join("libcub_bench.so");
    std::fs::write(&cu, include_str!("../../cuda/cub/cub_bench.cu")).map_err(|e| e.to_string())?;
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
        return Err(format!(
            "nvcc failed:\n{}",
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    load_cub(&so)
}

/// Loads CUB's side from the library `so`, built from `cub_bench.cu`.
fn load_cub(so: &std::path::Path) -> Result<Cub, String> {
    // SAFETY: the library is ours, built from `cub_bench.cu`; its functions have the types below.
    unsafe {
        let lib = libloading::Library::new(so).map_err(|e| e.to_string())?;
        macro_rules! get {
            ($name:literal) => {
                *lib.get($name).map_err(|e| e.to_string())?
            };
        }
        Ok(Cub {
            sum: get!(b"cub_sum_i32"),
            exclusive_sum: get!(b"cub_exclusive_sum_u32"),
            sort_keys: get!(b"cub_sort_keys_u32"),
            sort_pairs: get!(b"cub_sort_pairs_u32"),
            histogram: get!(b"cub_histogram_f32"),
            block_reduce: get!(b"cub_block_reduce"),
            block_scan: get!(b"cub_block_scan"),
            _lib: lib,
        })
    }
}

fn cuda(code: i32, what: &str) -> cuprum::Result<()> {
    if code == 0 {
        Ok(())
    } else {
        Err(Error::Tool(format!("CUB {what}: cudaError {code}")))
    }
}

/// The address of a buffer for CUB. Everything runs on one stream, synchronised after each
/// round, and the buffers outlive the library's use (`device_ptr`'s promise).
fn ptr<T: cuprum::Element>(b: &DeviceBuffer<T>) -> cuprum::Result<u64> {
    unsafe { b.device_ptr() }
}

/// Times `cuprum` and `cub` alternately, `rounds` each after one warm-up each; `prepare`
/// runs before each timed call, untimed. Returns the two medians in ms.
fn race(
    stream: &Stream,
    guard: &timing::Guard,
    rounds: usize,
    prepare: &mut dyn FnMut() -> cuprum::Result<()>,
    cuprum: &mut dyn FnMut() -> cuprum::Result<()>,
    cub: &mut dyn FnMut() -> cuprum::Result<()>,
) -> cuprum::Result<(f64, f64)> {
    let (mut a, mut b) = (Vec::new(), Vec::new());
    for r in 0..rounds + 1 {
        for turn in 0..2 {
            prepare()?;
            stream.synchronize()?;
            let ours = (r + turn) % 2 == 0;
            let ms = if ours {
                timing::device_ms(stream, guard, &mut *cuprum)?
            } else {
                timing::device_ms(stream, guard, &mut *cub)?
            };
            stream.synchronize()?;
            if r > 0 {
                if ours {
                    a.push(ms)
                } else {
                    b.push(ms)
                }
            }
        }
    }
    Ok((timing::median(&mut a), timing::median(&mut b)))
}

struct Line {
    name: &'static str,
    unit: &'static str,
    /// Units (bytes or keys) per run.
    work: f64,
    ours: f64,
    theirs: f64,
}

/// A block-primitive kernel of each side over the same input (`x`, CUB's address).
struct BlockCase<'a> {
    stream: &'a Stream,
    guard: &'a timing::Guard,
    rounds: usize,
    raw: CUstream,
    x: u64,
    tiles: usize,
    blocks: u32,
}

impl BlockCase<'_> {
    /// Checks that both kernels write the same `out_len` results, then races them.
    fn run(
        &self,
        name: &'static str,
        out_len: usize,
        work: f64,
        cub: BlockFn,
        ours: &mut dyn FnMut(&mut DeviceBuffer<i32>) -> cuprum::Result<()>,
    ) -> cuprum::Result<Line> {
        let mut mine = self.stream.alloc_zeros::<i32>(out_len)?;
        let theirs = self.stream.alloc_zeros::<i32>(out_len)?;
        let out = ptr(&theirs)?;
        let mut cub_run = || {
            cuda(
                unsafe { cub(self.x, out, self.tiles, self.blocks, self.raw) },
                name,
            )
        };
        cub_run()?;
        ours(&mut mine)?;
        if self.stream.to_host(&mine)? != self.stream.to_host(&theirs)? {
            return Err(Error::Tool(format!("{name}: Cuprum and CUB disagree")));
        }
        let mut ours_run = || ours(&mut mine);
        let (a, b) = race(
            self.stream,
            self.guard,
            self.rounds,
            &mut || Ok(()),
            &mut ours_run,
            &mut cub_run,
        )?;
        Ok(Line {
            name,
            unit: "GB/s",
            work,
            ours: a,
            theirs: b,
        })
    }
}

fn run(rounds: usize, log2_n: u32, only: &str) -> cuprum::Result<Vec<Line>> {
    let wanted = |what: &str| only.is_empty() || only.split(',').any(|w| w == what);
    let dev = Device::gpu(0)?;
    let (major, minor) = dev.compute_capability();
    let arch = format!("sm_{major}{minor}");
    let stream = dev.new_stream()?;
    let raw: CUstream = stream.cuda_stream().expect("a GPU stream").cu_stream();
    let guard = timing::Guard::new(&stream, &arch).map_err(Error::Tool)?;
    let cub = build_cub(&arch).map_err(Error::Tool)?;
    let n = 1usize << log2_n;
    let mut lines = Vec::new();
    let mut rng = fastrand::Rng::new();
    let mismatch = |what: &str| Error::Tool(format!("{what}: Cuprum and CUB disagree"));

    // Sum of i32.
    let xi: Vec<i32> = (0..n).map(|_| rng.i32(-1000..1000)).collect();
    let dxi = stream.to_device(&xi)?;
    let cub_out = stream.alloc_zeros::<i32>(1)?;
    let (px, po) = (ptr(&dxi)?, ptr(&cub_out)?);
    let host = std::cell::Cell::new(0i32);
    let want = xi.iter().fold(0i32, |a, &b| a.wrapping_add(b));
    let mut cub_sum = || cuda(unsafe { (cub.sum)(px, po, n, host.as_ptr(), raw) }, "sum");
    if wanted("sum") {
        cub_sum()?;
        // 16-byte vectors in one wave, one launch and one wait for the result (the default),
        // then (`x` rows) the result read by `to_host` (two waits), in two launches and
        // `to_host` (the form before 2026-12-02-cvtsum), in 8 blocks per multiprocessor and
        // element by element. `CUPRUM_SUM_ROWS=reversed` measures the first three in the
        // opposite order.
        let mut forms = vec![(true, true, 0), (true, true, 1), (true, true, 2)];
        if std::env::var("CUPRUM_SUM_ROWS").as_deref() == Ok("reversed") {
            forms.reverse();
        }
        forms.extend([(true, false, 0), (false, true, 0)]);
        for (vectors, one_wave, form) in forms {
            algorithms::__reduce_with_vectors(vectors);
            algorithms::__reduce_one_wave(one_wave);
            algorithms::__reduce_form(form);
            if algorithms::sum(&stream, &dxi)? != want || host.get() != want {
                return Err(mismatch("sum"));
            }
            let mut ours = || algorithms::sum(&stream, &dxi).map(|_| ());
            let (a, b) = race(
                &stream,
                &guard,
                rounds,
                &mut || Ok(()),
                &mut ours,
                &mut cub_sum,
            )?;
            lines.push(Line {
                name: match (vectors, one_wave, form) {
                    (true, true, 0) => "sum i32 (result on the host)",
                    (true, true, 1) => "x sum i32, one launch, to_host",
                    (true, true, _) => "x sum i32, two launches, to_host",
                    (true, false, _) => "x sum i32, 8 blocks per SM",
                    _ => "x sum i32, element by element",
                },
                unit: "GB/s",
                work: 4.0 * n as f64,
                ours: a,
                theirs: b,
            });
        }
        algorithms::__reduce_with_vectors(true);
        algorithms::__reduce_one_wave(true);
        algorithms::__reduce_form(0);
        // A view one element past a 16-byte boundary: a head of three elements, a tail of
        // one (CUB reads the same elements, from the same address).
        let view = dxi.slice(1..n);
        let want1 = xi[1..].iter().fold(0i32, |a, &b| a.wrapping_add(b));
        let pv = unsafe { view.device_ptr()? };
        let mut cub_view = || {
            cuda(
                unsafe { (cub.sum)(pv, po, n - 1, host.as_ptr(), raw) },
                "sum",
            )
        };
        cub_view()?;
        if algorithms::sum(&stream, &view)? != want1 || host.get() != want1 {
            return Err(mismatch("sum of a view"));
        }
        let mut ours = || algorithms::sum(&stream, &view).map(|_| ());
        let (a, b) = race(
            &stream,
            &guard,
            rounds,
            &mut || Ok(()),
            &mut ours,
            &mut cub_view,
        )?;
        lines.push(Line {
            name: "x sum i32, view at element 1",
            unit: "GB/s",
            work: 4.0 * (n - 1) as f64,
            ours: a,
            theirs: b,
        });
    }
    drop(cub_out);

    if wanted("scan") || wanted("sort") {
        // Exclusive sum of u32.
        let xu: Vec<u32> = (0..n).map(|_| rng.u32(..)).collect();
        let dxu = stream.to_device(&xu)?;
        let pxu = ptr(&dxu)?;
        let mut ours_y = stream.alloc_zeros::<u32>(n)?;
        let cub_y = stream.alloc_zeros::<u32>(n)?;
        let py = ptr(&cub_y)?;
        if wanted("scan") {
            let mut cub_scan = || {
                cuda(
                    unsafe { (cub.exclusive_sum)(pxu, py, n, raw) },
                    "exclusive sum",
                )
            };
            cub_scan()?;
            algorithms::exclusive_sum(&stream, &dxu, &mut ours_y)?;
            if stream.to_host(&ours_y)? != stream.to_host(&cub_y)? {
                return Err(mismatch("exclusive sum"));
            }
            let mut ours = || algorithms::exclusive_sum(&stream, &dxu, &mut ours_y);
            let (a, b) = race(
                &stream,
                &guard,
                rounds,
                &mut || Ok(()),
                &mut ours,
                &mut cub_scan,
            )?;
            lines.push(Line {
                name: "exclusive sum u32",
                unit: "GB/s",
                work: 8.0 * n as f64,
                ours: a,
                theirs: b,
            });
        }
        if wanted("sort") {
            // Sort of u32 keys (Cuprum sorts in place: a fresh copy of the input before each run).
            let mut work = stream.alloc_zeros::<u32>(n)?;
            let cub_keys = stream.alloc_zeros::<u32>(n)?;
            let pk = ptr(&cub_keys)?;
            let mut cub_sort = || cuda(unsafe { (cub.sort_keys)(pxu, pk, n, raw) }, "sort keys");
            cub_sort()?;
            // Sort of (u32, u32) pairs: values are random too.
            let vu: Vec<u32> = (0..n).map(|_| rng.u32(..)).collect();
            let dvu = stream.to_device(&vu)?;
            let mut wvals = stream.alloc_zeros::<u32>(n)?;
            let cub_vals = stream.alloc_zeros::<u32>(n)?;
            let (pv, pcv) = (ptr(&dvu)?, ptr(&cub_vals)?);
            let mut cub_pairs = || {
                cuda(
                    unsafe { (cub.sort_pairs)(pxu, pk, pv, pcv, n, raw) },
                    "sort pairs",
                )
            };
            // The sort passes' strategies: keys alone of `u32` by default on the wide passes
            // (384 threads, tiles of 6144 keys, look-back), pairs by look-back on 256 threads,
            // look-back passes alternating two status buffers (no `clear_flags` between
            // passes). The `x` rows force one factor each: the previous defaults (keys on tile
            // counts, a `clear_flags` launch before each look-back pass), each strategy of the
            // 256-thread passes, and how many earlier tiles' statuses each turn of the
            // look-back reads at once (`None`: 16 on the wide passes, 8 on the others).
            struct Config {
                lookback: Option<bool>,
                depth: Option<u32>,
                wide: Option<bool>,
                alternate: Option<bool>,
                keys: Option<&'static str>,
                pairs: Option<&'static str>,
            }
            let c = |lookback, depth, wide, alternate, keys, pairs| Config {
                lookback,
                depth,
                wide,
                alternate,
                keys,
                pairs,
            };
            let configs = [
                c(
                    None,
                    None,
                    None,
                    None,
                    Some("sort u32 keys"),
                    Some("sort (u32, u32) pairs"),
                ),
                c(
                    None,
                    None,
                    Some(false),
                    Some(false),
                    Some("x sort u32 keys, old default (tile counts)"),
                    Some("x sort pairs, old default (clear_flags)"),
                ),
                c(
                    None,
                    Some(4),
                    Some(true),
                    None,
                    Some("x sort u32 keys, wide, look-back 4 at once"),
                    None,
                ),
                c(
                    None,
                    Some(8),
                    Some(true),
                    None,
                    Some("x sort u32 keys, wide, look-back 8 at once"),
                    None,
                ),
                c(
                    None,
                    None,
                    Some(true),
                    Some(false),
                    Some("x sort u32 keys, wide, clear_flags"),
                    None,
                ),
                c(
                    Some(true),
                    None,
                    None,
                    None,
                    Some("x sort u32 keys, 256 threads, look-back 8"),
                    None,
                ),
                c(
                    Some(false),
                    None,
                    None,
                    None,
                    None,
                    Some("x sort pairs, tile counts"),
                ),
            ];
            for config in &configs {
                algorithms::__sort_with_lookback(config.lookback);
                algorithms::__sort_lookback_depth(config.depth);
                algorithms::__sort_keys_wide(config.wide);
                algorithms::__sort_alternate_statuses(config.alternate);
                if let Some(keys_name) = config.keys {
                    stream.copy(&dxu, &mut work)?;
                    algorithms::sort(&stream, &mut work)?;
                    // CUB's result is the reference (a CPU sort of 2^28 keys would cost the lease 20 s).
                    let sorted = stream.to_host(&work)?;
                    if !sorted.windows(2).all(|w| w[0] <= w[1])
                        || sorted != stream.to_host(&cub_keys)?
                    {
                        return Err(mismatch("sort"));
                    }
                    {
                        let work = std::cell::RefCell::new(&mut work);
                        let mut prepare = || stream.copy(&dxu, &mut **work.borrow_mut());
                        let mut ours = || algorithms::sort(&stream, &mut **work.borrow_mut());
                        let (a, b) = race(
                            &stream,
                            &guard,
                            rounds,
                            &mut prepare,
                            &mut ours,
                            &mut cub_sort,
                        )?;
                        lines.push(Line {
                            name: keys_name,
                            unit: "Gkeys/s",
                            work: n as f64,
                            ours: a,
                            theirs: b,
                        });
                    }
                }
                let Some(pairs_name) = config.pairs else {
                    continue;
                };

                cub_pairs()?;
                stream.copy(&dxu, &mut work)?;
                stream.copy(&dvu, &mut wvals)?;
                algorithms::sort_pairs(&stream, &mut work, &mut wvals)?;
                if stream.to_host(&work)? != stream.to_host(&cub_keys)?
                    || stream.to_host(&wvals)? != stream.to_host(&cub_vals)?
                {
                    return Err(mismatch("sort pairs"));
                }
                {
                    let bufs = std::cell::RefCell::new((&mut work, &mut wvals));
                    let mut prepare = || {
                        let mut b = bufs.borrow_mut();
                        stream.copy(&dxu, &mut *b.0)?;
                        stream.copy(&dvu, &mut *b.1)
                    };
                    let mut ours = || {
                        let mut b = bufs.borrow_mut();
                        let (k, v) = &mut *b;
                        algorithms::sort_pairs(&stream, &mut **k, &mut **v)
                    };
                    let (a, b) = race(
                        &stream,
                        &guard,
                        rounds,
                        &mut prepare,
                        &mut ours,
                        &mut cub_pairs,
                    )?;
                    lines.push(Line {
                        name: pairs_name,
                        unit: "Gpairs/s",
                        work: n as f64,
                        ours: a,
                        theirs: b,
                    });
                }
            }
            algorithms::__sort_with_lookback(None);
            algorithms::__sort_lookback_depth(None);
            algorithms::__sort_keys_wide(None);
            algorithms::__sort_alternate_statuses(None);
        }
    }

    // Histogram: 256 even bins of f32 in [0, 1) (a few values outside).
    if wanted("histogram") {
        let xf: Vec<f32> = (0..n).map(|_| rng.f32() * 1.02 - 0.01).collect();
        let dxf = stream.to_device(&xf)?;
        let mut ours_h = stream.alloc_zeros::<u32>(256)?;
        let cub_h = stream.alloc_zeros::<i32>(256)?;
        let ph = ptr(&cub_h)?;
        // The whole input, then (`x` rows) the library's other kernel shapes and a view one
        // element past a 16-byte boundary (CUB reads the same elements, from the same address).
        // (Run 1 of 2026-12-02-histvec also measured shapes 1 to 3: 4 vectors per turn,
        // element by element, element by element in 1024 blocks; all slower.)
        let shapes: [(&'static str, u32, usize); 3] = [
            ("histogram f32, 256 bins", 0, 0),
            ("x histogram, one wave by occupancy", 4, 0),
            ("x histogram, view at element 1", 0, 1),
        ];
        for (kernel, blocks) in algorithms::__vector_occupancy(&stream)? {
            println!("occupancy: {kernel}: {blocks} blocks of 256 threads per multiprocessor");
        }
        for (name, shape, skip) in shapes {
            algorithms::__histogram_shape(shape);
            let view = dxf.slice(skip..);
            let pf = unsafe { view.device_ptr()? };
            let mut cub_hist = || {
                cuda(
                    unsafe { (cub.histogram)(pf, ph, 256, 0.0, 1.0, n - skip, raw) },
                    "histogram",
                )
            };
            cub_hist()?;
            algorithms::histogram(&stream, &view, 0.0f32, 1.0, &mut ours_h)?;
            let (ho, hc) = (stream.to_host(&ours_h)?, stream.to_host(&cub_h)?);
            if ho.iter().zip(&hc).any(|(&a, &b)| a as i64 != b as i64) {
                return Err(mismatch("histogram"));
            }
            let mut ours = || algorithms::histogram(&stream, &view, 0.0f32, 1.0, &mut ours_h);
            let (a, b) = race(
                &stream,
                &guard,
                rounds,
                &mut || Ok(()),
                &mut ours,
                &mut cub_hist,
            )?;
            lines.push(Line {
                name,
                unit: "GB/s",
                work: 4.0 * (n - skip) as f64,
                ours: a,
                theirs: b,
            });
        }
        algorithms::__histogram_shape(0);
    }

    // Block primitives inside one kernel, 8 blocks of 256 per SM.
    if !wanted("block") {
        return Ok(lines);
    }
    let tiles = n / 256;
    let blocks = 8 * dev.multiprocessor_count();
    let block = BlockCase {
        stream: &stream,
        guard: &guard,
        rounds,
        raw,
        x: px,
        tiles,
        blocks,
    };
    lines.push(block.run(
        "block reduce (sum, 256 threads)",
        tiles,
        4.0 * n as f64,
        cub.block_reduce,
        &mut |out| launch!(block_reduce_tiles<<<blocks, 256, stream>>>(out, &dxi)),
    )?);
    lines.push(block.run(
        "block inclusive sum (256 threads)",
        n,
        8.0 * n as f64,
        cub.block_scan,
        &mut |out| launch!(block_scan_tiles<<<blocks, 256, stream>>>(out, &dxi)),
    )?);
    Ok(lines)
}

/// `bench_cub parts [LOG2_N]`: one `sort` of u32 keys, one `sort_pairs` of (u32, u32) and one
/// `histogram` of f32 (after one warm-up call each), for a profiler to time their kernels.
fn parts(log2_n: u32) -> cuprum::Result<()> {
    let stream = Device::gpu(0)?.new_stream()?;
    let n = 1usize << log2_n;
    let mut rng = fastrand::Rng::new();
    let keys: Vec<u32> = (0..n).map(|_| rng.u32(..)).collect();
    let xf: Vec<f32> = (0..n).map(|_| rng.f32() * 1.02 - 0.01).collect();
    let (dk, dx) = (stream.to_device(&keys)?, stream.to_device(&xf)?);
    let (mut k, mut v) = (stream.alloc_zeros::<u32>(n)?, stream.alloc_zeros::<u32>(n)?);
    let mut bins = stream.alloc_zeros::<u32>(256)?;
    for _ in 0..2 {
        stream.copy(&dk, &mut k)?;
        algorithms::sort(&stream, &mut k)?;
        stream.copy(&dk, &mut k)?;
        stream.copy(&dk, &mut v)?;
        algorithms::sort_pairs(&stream, &mut k, &mut v)?;
        algorithms::histogram(&stream, &dx, 0.0f32, 1.0, &mut bins)?;
    }
    stream.synchronize()
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().collect();
    if args.get(1).map(String::as_str) == Some("parts") {
        let log2_n = args.get(2).and_then(|a| a.parse().ok()).unwrap_or(28);
        return match parts(log2_n) {
            Ok(()) => ExitCode::SUCCESS,
            Err(e) => {
                eprintln!("bench_cub parts: {e}");
                ExitCode::FAILURE
            }
        };
    }
    if args.get(1).map(String::as_str) == Some("ptx") {
        // `bench_cub ptx DIR`: the block-primitive kernels' PTX, for ptxas and nvdisasm.
        let dir = std::path::PathBuf::from(args.get(2).map_or(".", String::as_str));
        for (name, ptx) in [
            ("block_reduce_tiles", block_reduce_tiles::INFO.ptx),
            ("block_scan_tiles", block_scan_tiles::INFO.ptx),
        ] {
            if let Err(e) = std::fs::write(dir.join(format!("{name}.ptx")), ptx) {
                eprintln!("bench_cub ptx: {e}");
                return ExitCode::FAILURE;
            }
        }
        return ExitCode::SUCCESS;
    }
    let rounds = args.get(1).and_then(|a| a.parse().ok()).unwrap_or(20);
    let log2_n = args.get(2).and_then(|a| a.parse().ok()).unwrap_or(28);
    let only = args.get(3).map_or("", String::as_str);
    match run(rounds, log2_n, only) {
        Ok(lines) => {
            println!(
                "bench_cub: n = 2^{log2_n}, {rounds} interleaved rounds, medians; {}",
                nvcc::version()
            );
            println!(
                "{:<36} {:>10} {:>12} {:>12} {:>8}",
                "algorithm", "unit", "Cuprum", "CUB", "vs CUB"
            );
            for l in lines {
                let (ours, theirs) = (l.work / l.ours * 1e-6, l.work / l.theirs * 1e-6);
                println!(
                    "{:<36} {:>10} {:>12.1} {:>12.1} {:>8.2}   ({:.3} ms vs {:.3} ms)",
                    l.name,
                    l.unit,
                    ours,
                    theirs,
                    ours / theirs,
                    l.ours,
                    l.theirs
                );
            }
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("bench_cub: {e}");
            ExitCode::FAILURE
        }
    }
}
