//! Exploration (branch redux, issue 17; kept as a patch in bench/experiments): bench_cub's
//! block-primitive kernels with `gpu::block` as it is on this branch, against copies of
//! main's code and variants that each change one thing, and CUB's two kernels (from the
//! library built from `bench/cuda/cub/cub_bench.cu`, path in `CUPRUM_CUB_LIB`), all timed
//! round-robin in one process on the same input. `xredux [ROUNDS] [LOG2_N]`.

#[allow(dead_code)]
#[path = "../nvcc.rs"]
mod nvcc;
#[allow(dead_code)]
#[path = "../timing.rs"]
mod timing;

use std::process::ExitCode;

use cudarc::driver::sys::CUstream;
use cuprum::prelude::*;

type BlockFn = unsafe extern "C" fn(u64, u64, usize, u32, CUstream) -> i32;

/// `tiles` loop of bench_cub's `block_reduce_tiles`, around a block sum `f`.
macro_rules! reduce_kernel {
    ($name:ident, $f:path) => {
        #[kernel(max_threads = 256)]
        pub fn $name(out: &mut [i32], x: &[i32]) {
            let t = gpu::thread_idx().x as usize;
            for tile in
                (gpu::block_idx().x as usize..out.len()).step_by(gpu::grid_dim().x as usize)
            {
                let s = $f(x[tile * 256 + t]);
                if t == 0 {
                    out[tile] = s;
                }
            }
        }
    };
}

/// `tiles` loop of bench_cub's `block_scan_tiles`, around a block inclusive sum `f`.
macro_rules! scan_kernel {
    ($name:ident, $f:path) => {
        #[kernel(max_threads = 256)]
        pub fn $name(y: &mut [i32], x: &[i32]) {
            let t = gpu::thread_idx().x as usize;
            let tiles = x.len() / 256;
            for tile in (gpu::block_idx().x as usize..tiles).step_by(gpu::grid_dim().x as usize) {
                y[tile * 256 + t] = $f(x[tile * 256 + t]);
            }
        }
    };
}

/// main's `warp_rank` (runtime/src/gpu/block.rs at 3fbe72b).
#[device]
fn m_rank() -> (u32, u32, u32) {
    let d = gpu::block_dim();
    let t = gpu::thread_idx();
    let r = t.x + d.x * (t.y + d.y * t.z);
    ((r / 32) % 32, r % 32, d.x * d.y * d.z / 32)
}

/// main's `combine` (selects for the first eight slots, the rest behind a test).
#[device]
fn m_combine(partial: &[i32], count: u32, warps: u32) -> i32 {
    let mut r = partial[0];
    for k in 1..8u32 {
        let v = partial[k as usize];
        if k < count {
            r += v;
        }
    }
    if warps > 8 {
        for k in 8..32u32 {
            let v = partial[k as usize];
            if k < count {
                r += v;
            }
        }
    }
    r
}

/// main's `gpu::block::sum` for `i32`: five shuffles, every thread combines with selects.
#[device]
fn main_sum(v: i32) -> i32 {
    let partial = gpu::shared_array::<i32, 32>();
    let (warp, lane, warps) = m_rank();
    let w = gpu::warp::reduce(v, |a, b| a + b);
    if lane == 0 {
        partial[warp as usize] = w;
    }
    gpu::sync_threads();
    let r = m_combine(partial, warps, warps);
    gpu::sync_threads();
    r
}

/// main's `gpu::block::inclusive_sum` for `i32`: warp scans, then every thread adds the
/// slots of the warps before its own with selects.
#[device]
fn main_scan(v: i32) -> i32 {
    let partial = gpu::shared_array::<i32, 32>();
    let (warp, lane, warps) = m_rank();
    let x = gpu::warp::inclusive_scan(v, |a, b| a + b);
    if lane == 31 {
        partial[warp as usize] = x;
    }
    gpu::sync_threads();
    let before = m_combine(partial, warp, warps);
    gpu::sync_threads();
    if warp > 0 {
        before + x
    } else {
        x
    }
}

/// `redux.sync` twice: lane `k` of every warp reads slot `k` (zero past the warp count), and
/// one more `redux.sync` sums them.
#[device]
fn redux2_sum(v: i32) -> i32 {
    let partial = gpu::shared_array::<i32, 32>();
    let (warp, lane, warps) = m_rank();
    let w = gpu::__redux_add_sync(gpu::FULL_MASK, v);
    if lane == 0 {
        partial[warp as usize] = w;
    }
    gpu::sync_threads();
    let p = partial[lane as usize];
    let r = gpu::__redux_add_sync(gpu::FULL_MASK, if lane < warps { p } else { 0 });
    gpu::sync_threads();
    r
}

/// `redux.sync`, then the eight slots of a 256-thread block without any test: the bound of
/// what knowing the warp count would give (valid for 256 threads only).
#[device]
fn fixed8_sum(v: i32) -> i32 {
    let partial = gpu::shared_array::<i32, 32>();
    let (warp, lane, _) = m_rank();
    let w = gpu::__redux_add_sync(gpu::FULL_MASK, v);
    if lane == 0 {
        partial[warp as usize] = w;
    }
    gpu::sync_threads();
    let mut r = partial[0];
    for k in 1..8usize {
        r += partial[k];
    }
    gpu::sync_threads();
    r
}

/// CUB's raking scan in Cuprum, for 256-thread blocks only (the bound): every thread stores
/// its value (one padding slot per 32), lane `l` of warp 0 sums cells `8l..8l + 8`, scans the
/// 32 sums by shuffles and writes the eight prefixes back; a trailing barrier, as CUB's.
#[device]
fn raking8_scan(v: i32) -> i32 {
    let cells = gpu::shared_array::<i32, 264>();
    let (warp, lane, _) = m_rank();
    let t = warp * 32 + lane;
    cells[(t + t / 32) as usize] = v;
    gpu::sync_threads();
    if warp == 0 {
        let base = (lane * 8 + lane / 4) as usize;
        let mut s = [0i32; 8];
        let mut acc = 0i32;
        for k in 0..8usize {
            acc += cells[base + k];
            s[k] = acc;
        }
        let before = gpu::warp::inclusive_scan(acc, |a, b| a + b) - acc;
        for k in 0..8usize {
            cells[base + k] = before + s[k];
        }
    }
    gpu::sync_threads();
    let r = cells[(t + t / 32) as usize];
    gpu::sync_threads();
    r
}

/// The same for any warp count: segments of `warps` cells, a loop of run-time length.
#[device]
fn raking_scan(v: i32) -> i32 {
    let cells = gpu::shared_array::<i32, 1056>();
    let (warp, lane, warps) = m_rank();
    let t = warp * 32 + lane;
    cells[(t + t / 32) as usize] = v;
    gpu::sync_threads();
    if warp == 0 {
        let first = lane * warps;
        let mut acc = 0i32;
        for k in 0..warps {
            let i = first + k;
            acc += cells[(i + i / 32) as usize];
        }
        let mut run = gpu::warp::inclusive_scan(acc, |a, b| a + b) - acc;
        for k in 0..warps {
            let i = first + k;
            let c = (i + i / 32) as usize;
            run += cells[c];
            cells[c] = run;
        }
    }
    gpu::sync_threads();
    let r = cells[(t + t / 32) as usize];
    gpu::sync_threads();
    r
}

/// The library's reduce before the second redux (redux for the warp, the blockprim fast
/// path: eight slots without selects behind one uniform test).
#[device]
fn fastpath_sum(v: i32) -> i32 {
    let partial = gpu::shared_array::<i32, 32>();
    let (warp, lane, warps) = m_rank();
    let w = gpu::__redux_add_sync(gpu::FULL_MASK, v);
    if lane == 0 {
        partial[warp as usize] = w;
    }
    gpu::sync_threads();
    let r = if warps >= 8 {
        let mut r = partial[0];
        for k in 1..8usize {
            r += partial[k];
        }
        if warps > 8 {
            for k in 8..32u32 {
                let v = partial[k as usize];
                if k < warps {
                    r += v;
                }
            }
        }
        r
    } else {
        m_combine(partial, warps, warps)
    };
    gpu::sync_threads();
    r
}

/// The library's `gpu::block::sum` and `inclusive_sum`, as bench_cub calls them.
#[device]
fn lib_sum(v: i32) -> i32 {
    gpu::block::sum(v)
}
#[device]
fn lib_scan(v: i32) -> i32 {
    gpu::block::inclusive_sum(v)
}

reduce_kernel!(r_lib, lib_sum);
reduce_kernel!(r_main, main_sum);
reduce_kernel!(r_fastpath, fastpath_sum);
reduce_kernel!(r_redux2, redux2_sum);
reduce_kernel!(r_fixed8, fixed8_sum);
scan_kernel!(s_lib, lib_scan);
scan_kernel!(s_main, main_scan);
scan_kernel!(s_raking8, raking8_scan);
scan_kernel!(s_raking, raking_scan);

type Run<'a> = Box<dyn FnMut() -> cuprum::Result<()> + 'a>;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().collect();
    if args.get(1).map(String::as_str) == Some("ptx") {
        let dir = args.get(2).map_or(".", String::as_str);
        for (name, ptx) in [
            ("r_lib", r_lib::INFO.ptx),
            ("r_main", r_main::INFO.ptx),
            ("r_fastpath", r_fastpath::INFO.ptx),
            ("r_redux2", r_redux2::INFO.ptx),
            ("r_fixed8", r_fixed8::INFO.ptx),
            ("s_lib", s_lib::INFO.ptx),
            ("s_main", s_main::INFO.ptx),
            ("s_raking8", s_raking8::INFO.ptx),
            ("s_raking", s_raking::INFO.ptx),
        ] {
            if let Err(e) = std::fs::write(format!("{dir}/{name}.ptx"), ptx) {
                eprintln!("xredux ptx: {e}");
                return ExitCode::FAILURE;
            }
        }
        return ExitCode::SUCCESS;
    }
    let rounds: usize = args.get(1).and_then(|a| a.parse().ok()).unwrap_or(30);
    let log2_n: u32 = args.get(2).and_then(|a| a.parse().ok()).unwrap_or(28);
    match run(rounds, log2_n) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("xredux: {e}");
            ExitCode::FAILURE
        }
    }
}

fn run(rounds: usize, log2_n: u32) -> cuprum::Result<()> {
    let so = std::env::var_os("CUPRUM_CUB_LIB")
        .ok_or_else(|| Error::Tool("set CUPRUM_CUB_LIB to the library built from cub_bench.cu".into()))?;
    // SAFETY: the library is built from cub_bench.cu; the two functions have type `BlockFn`.
    let (_lib, cub_reduce, cub_scan) = unsafe {
        let lib = libloading::Library::new(&so).map_err(|e| Error::Tool(e.to_string()))?;
        let r: BlockFn = *lib
            .get(b"cub_block_reduce")
            .map_err(|e| Error::Tool(e.to_string()))?;
        let s: BlockFn = *lib
            .get(b"cub_block_scan")
            .map_err(|e| Error::Tool(e.to_string()))?;
        (lib, r, s)
    };
    let dev = Device::gpu(0)?;
    let (major, minor) = dev.compute_capability();
    let arch = format!("sm_{major}{minor}");
    let stream = dev.new_stream()?;
    let raw: CUstream = stream.cuda_stream().expect("a GPU stream").cu_stream();
    let guard = timing::Guard::new(&stream, &arch).map_err(Error::Tool)?;
    let n = 1usize << log2_n;
    let tiles = n / 256;
    let blocks = 8 * dev.multiprocessor_count();
    let mut rng = fastrand::Rng::new();
    let xi: Vec<i32> = (0..n).map(|_| rng.i32(..)).collect();
    let dx = stream.to_device(&xi)?;
    // SAFETY (of the raw pointers below): the buffers outlive the runs, which only read `dx`.
    let px = unsafe { dx.device_ptr()? };
    let dxr: &DeviceBuffer<i32> = &dx;

    let n_reduce = 6;
    let names = [
        "R0 CUB BlockReduce (bench_cub's)",
        "R1 gpu::block::sum (this branch: 2 redux)",
        "R2 main's block::sum (5 shfl, selects)",
        "R3 redux + blockprim fast path (run 1's lib)",
        "R4 redux, combine by a second redux (copy)",
        "R5 redux, 8 slots without test (bound)",
        "S0 CUB BlockScan (bench_cub's)",
        "S1 gpu::block::inclusive_sum (this branch)",
        "S2 main's inclusive_sum (selects)",
        "S3 raking, 8 cells per lane (256 threads)",
        "S4 raking, run-time segment length",
    ];
    let (mut o1, mut o2, mut o3, mut o4, mut o5) = (
        stream.alloc_zeros::<i32>(tiles)?,
        stream.alloc_zeros::<i32>(tiles)?,
        stream.alloc_zeros::<i32>(tiles)?,
        stream.alloc_zeros::<i32>(tiles)?,
        stream.alloc_zeros::<i32>(tiles)?,
    );
    let (mut o7, mut o8, mut o9, mut o10) = (
        stream.alloc_zeros::<i32>(n)?,
        stream.alloc_zeros::<i32>(n)?,
        stream.alloc_zeros::<i32>(n)?,
        stream.alloc_zeros::<i32>(n)?,
    );
    let (o0, o6) = (stream.alloc_zeros::<i32>(tiles)?, stream.alloc_zeros::<i32>(n)?);
    // SAFETY: CUB's kernels write `o0`/`o6`, which outlive the runs, and read `dx`.
    let (p0, p6) = unsafe { (o0.device_ptr()?, o6.device_ptr()?) };
    let cuda = |code: i32| -> cuprum::Result<()> {
        if code == 0 {
            Ok(())
        } else {
            Err(Error::Tool(format!("CUB: cudaError {code}")))
        }
    };
    let mut runs: Vec<Run> = vec![
        Box::new(|| cuda(unsafe { cub_reduce(px, p0, tiles, blocks, raw) })),
        Box::new(|| launch!(r_lib<<<blocks, 256, stream>>>(&mut o1, dxr))),
        Box::new(|| launch!(r_main<<<blocks, 256, stream>>>(&mut o2, dxr))),
        Box::new(|| launch!(r_fastpath<<<blocks, 256, stream>>>(&mut o3, dxr))),
        Box::new(|| launch!(r_redux2<<<blocks, 256, stream>>>(&mut o4, dxr))),
        Box::new(|| launch!(r_fixed8<<<blocks, 256, stream>>>(&mut o5, dxr))),
        Box::new(|| cuda(unsafe { cub_scan(px, p6, tiles, blocks, raw) })),
        Box::new(|| launch!(s_lib<<<blocks, 256, stream>>>(&mut o7, dxr))),
        Box::new(|| launch!(s_main<<<blocks, 256, stream>>>(&mut o8, dxr))),
        Box::new(|| launch!(s_raking8<<<blocks, 256, stream>>>(&mut o9, dxr))),
        Box::new(|| launch!(s_raking<<<blocks, 256, stream>>>(&mut o10, dxr))),
    ];
    for r in runs.iter_mut() {
        r()?;
    }
    stream.synchronize()?;
    let k = runs.len();
    let mut ms: Vec<Vec<f64>> = vec![Vec::new(); k];
    for r in 0..rounds + 1 {
        for j in 0..k {
            let i = (j + r * 3) % k;
            stream.synchronize()?;
            let t = timing::device_ms(&stream, &guard, &mut runs[i])?;
            stream.synchronize()?;
            if r > 0 {
                ms[i].push(t);
            }
        }
    }
    drop(runs);
    let want_r: Vec<i32> = xi
        .chunks(256)
        .map(|c| c.iter().fold(0i32, |a, &b| a.wrapping_add(b)))
        .collect();
    let mut want_s = Vec::with_capacity(n);
    for c in xi.chunks(256) {
        let mut a = 0i32;
        for &v in c {
            a = a.wrapping_add(v);
            want_s.push(a);
        }
    }
    let outs = [&o0, &o1, &o2, &o3, &o4, &o5, &o6, &o7, &o8, &o9, &o10];
    for (i, b) in outs.iter().enumerate() {
        let want = if i < n_reduce { &want_r } else { &want_s };
        if stream.to_host(*b)? != *want {
            return Err(Error::Tool(format!("{}: wrong result", names[i])));
        }
    }
    println!("xredux: all {k} kernels checked against the host");
    let med: Vec<f64> = ms.iter_mut().map(|m| timing::median(m)).collect();
    println!(
        "xredux: n = 2^{log2_n}, {tiles} tiles, {blocks} blocks of 256, {rounds} rounds round-robin, medians (p10..p90); {}",
        nvcc::version()
    );
    let clock_ghz = 1.98;
    for i in 0..k {
        let m = &ms[i];
        let (p10, p90) = (m[m.len() / 10], m[m.len() - 1 - m.len() / 10]);
        let base = if i < n_reduce { med[0] } else { med[n_reduce] };
        let cycles = med[i] * 1e-3 * clock_ghz * 1e9 / (tiles as f64 / blocks as f64);
        println!(
            "{:<44} {:>8.4} ms ({:.4}..{:.4})  {:>5.3} of CUB  ~{:>5.0} cycles/tile",
            names[i], med[i], p10, p90, base / med[i], cycles
        );
    }
    Ok(())
}
