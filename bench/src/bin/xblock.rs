//! Exploration (branch blockprim, not kept): bench_cub's block-primitive kernels against
//! variants that each change one thing (bench/cuda/cub/xblock.cu and the Cuprum kernels
//! here), all timed round-robin in one process on the same input. `xblock [ROUNDS] [LOG2_N]`.

#[path = "../nvcc.rs"]
mod nvcc;
#[allow(dead_code)]
#[path = "../timing.rs"]
mod timing;

use std::process::{Command, ExitCode};

use cudarc::driver::sys::CUstream;
use cuprum::prelude::*;

type XFn = unsafe extern "C" fn(i32, u64, u64, usize, u32, CUstream) -> i32;

/// The library's `gpu::block::sum`, as bench_cub's kernel.
#[kernel(max_threads = 256)]
pub fn c_reduce_lib(out: &mut [i32], x: &[i32]) {
    let t = gpu::thread_idx().x as usize;
    for tile in (gpu::block_idx().x as usize..out.len()).step_by(gpu::grid_dim().x as usize) {
        let s = gpu::block::sum(x[tile * 256 + t]);
        if t == 0 {
            out[tile] = s;
        }
    }
}

/// The same with `x` writable (written only for an empty `out`), so its loads are plain
/// `ld.global`, not `ld.global.nc`.
#[kernel(max_threads = 256)]
pub fn c_reduce_plain(out: &mut [i32], x: &mut [i32]) {
    let t = gpu::thread_idx().x as usize;
    if out.is_empty() && !x.is_empty() {
        x[0] = 0;
    }
    for tile in (gpu::block_idx().x as usize..out.len()).step_by(gpu::grid_dim().x as usize) {
        let s = gpu::block::sum(x[tile * 256 + t]);
        if t == 0 {
            out[tile] = s;
        }
    }
}

/// CUB's structure in Cuprum: the sum in thread 0 only (no broadcast through shared
/// memory), a barrier at the end of each tile.
#[device]
fn sum_first(v: i32) -> i32 {
    let partial = gpu::shared_array::<i32, 32>();
    let t = gpu::thread_idx().x;
    let w = gpu::warp::sum(v);
    if t % 32 == 0 {
        partial[(t / 32) as usize] = w;
    }
    gpu::sync_threads();
    let mut s = w;
    if t == 0 {
        for i in 1..8usize {
            s += partial[i];
        }
    }
    s
}

#[kernel(max_threads = 256)]
pub fn c_reduce_first(out: &mut [i32], x: &[i32]) {
    let t = gpu::thread_idx().x as usize;
    for tile in (gpu::block_idx().x as usize..out.len()).step_by(gpu::grid_dim().x as usize) {
        let s = sum_first(x[tile * 256 + t]);
        if t == 0 {
            out[tile] = s;
        }
        gpu::sync_threads();
    }
}

/// The library's code before this branch (main b052a80), copied: `combine_first`,
/// `reduce` (warp 0 combines, every thread reads the total), `inclusive_scan`.
#[device]
fn old_rank() -> (u32, u32) {
    let d = gpu::block_dim();
    let t = gpu::thread_idx();
    (t.x + d.x * (t.y + d.y * t.z), d.x * d.y * d.z)
}

#[device]
fn old_combine_first(partial: &[i32], count: u32) -> i32 {
    let mut r = partial[0];
    let mut first = 0u32;
    while first < count {
        for k in 0..8u32 {
            let i = first + k;
            let v = partial[(i % 32) as usize];
            if i > 0 && i < count {
                r += v;
            }
        }
        first += 8;
    }
    r
}

#[device]
fn old_sum(v: i32) -> i32 {
    let partial = gpu::shared_array::<i32, 33>();
    let (t, n) = old_rank();
    let w = gpu::warp::sum(v);
    if t % 32 == 0 {
        partial[(t / 32) as usize] = w;
    }
    gpu::sync_threads();
    if t < 32 {
        let r = old_combine_first(partial, n / 32);
        if t == 0 {
            partial[32] = r;
        }
    }
    gpu::sync_threads();
    partial[32]
}

#[device]
fn old_inclusive_sum(v: i32) -> i32 {
    let partial = gpu::shared_array::<i32, 32>();
    let (t, _) = old_rank();
    let (warp, lane) = ((t / 32) as usize, t % 32);
    let x = gpu::warp::inclusive_scan(v, |a, b| a + b);
    if lane == 31 {
        partial[warp] = x;
    }
    gpu::sync_threads();
    let mut r = x;
    if warp > 0 {
        r = old_combine_first(partial, warp as u32) + x;
    }
    gpu::sync_threads();
    r
}

#[kernel(max_threads = 256)]
pub fn c_reduce_old(out: &mut [i32], x: &[i32]) {
    let t = gpu::thread_idx().x as usize;
    for tile in (gpu::block_idx().x as usize..out.len()).step_by(gpu::grid_dim().x as usize) {
        let s = old_sum(x[tile * 256 + t]);
        if t == 0 {
            out[tile] = s;
        }
    }
}

#[kernel(max_threads = 256)]
pub fn c_scan_old(y: &mut [i32], x: &[i32]) {
    let t = gpu::thread_idx().x as usize;
    let tiles = x.len() / 256;
    for tile in (gpu::block_idx().x as usize..tiles).step_by(gpu::grid_dim().x as usize) {
        y[tile * 256 + t] = old_inclusive_sum(x[tile * 256 + t]);
    }
}

/// This branch's reduce with the block's eight warps known (no selects): the bound on what
/// knowing the warp count would save.
#[device]
fn sum_all8(v: i32) -> i32 {
    let partial = gpu::shared_array::<i32, 32>();
    let t = gpu::thread_idx().x;
    let w = gpu::warp::sum(v);
    if t % 32 == 0 {
        partial[((t / 32) % 32) as usize] = w;
    }
    gpu::sync_threads();
    let mut r = partial[0];
    for k in 1..8usize {
        r += partial[k];
    }
    gpu::sync_threads();
    r
}

#[kernel(max_threads = 256)]
pub fn c_reduce_all8(out: &mut [i32], x: &[i32]) {
    let t = gpu::thread_idx().x as usize;
    for tile in (gpu::block_idx().x as usize..out.len()).step_by(gpu::grid_dim().x as usize) {
        let s = sum_all8(x[tile * 256 + t]);
        if t == 0 {
            out[tile] = s;
        }
    }
}

/// Commit fd8f627's reduce (reverted: not measured), copied: blocks of 8+ warps combine the
/// first eight warp values without selects, behind one block-uniform test.
#[device]
fn sum_sel(v: i32) -> i32 {
    let partial = gpu::shared_array::<i32, 32>();
    let (t, n) = old_rank();
    let (warp, lane, warps) = ((t / 32) % 32, t % 32, n / 32);
    let w = gpu::warp::sum(v);
    if lane == 0 {
        partial[warp as usize] = w;
    }
    gpu::sync_threads();
    let mut r = partial[0];
    if warps >= 8 {
        for k in 1..8usize {
            r += partial[k];
        }
    } else {
        for k in 1..8u32 {
            let v = partial[k as usize];
            if k < warps {
                r += v;
            }
        }
    }
    if warps > 8 {
        for k in 8..32u32 {
            let v = partial[k as usize];
            if k < warps {
                r += v;
            }
        }
    }
    gpu::sync_threads();
    r
}

#[kernel(max_threads = 256)]
pub fn c_reduce_sel(out: &mut [i32], x: &[i32]) {
    let t = gpu::thread_idx().x as usize;
    for tile in (gpu::block_idx().x as usize..out.len()).step_by(gpu::grid_dim().x as usize) {
        let s = sum_sel(x[tile * 256 + t]);
        if t == 0 {
            out[tile] = s;
        }
    }
}

/// A two-phase scan (CUB's raking, with warp scans first): warp 0 alone scans the warps'
/// totals and publishes each warp's prefix in a second array; every other warp stores,
/// waits, reads one value and combines. Two arrays, so two barriers suffice.
#[device]
fn scan_two_phase(v: i32) -> i32 {
    let totals = gpu::shared_array::<i32, 32>();
    let prefix = gpu::shared_array::<i32, 32>();
    let t = gpu::thread_idx().x;
    let (warp, lane, warps) = ((t / 32) % 32, t % 32, gpu::block_dim().x / 32);
    let x = gpu::warp::inclusive_scan(v, |a, b| a + b);
    if lane == 31 {
        totals[warp as usize] = x;
    }
    gpu::sync_threads();
    if warp == 0 {
        let a = totals[lane as usize];
        let s = gpu::warp::inclusive_scan(if lane < warps { a } else { 0 }, |a, b| a + b);
        prefix[lane as usize] = gpu::shfl_up_sync(gpu::FULL_MASK, s, 1);
    }
    gpu::sync_threads();
    let p = prefix[warp as usize];
    if warp > 0 {
        p + x
    } else {
        x
    }
}

#[kernel(max_threads = 256)]
pub fn c_scan_two_phase(y: &mut [i32], x: &[i32]) {
    let t = gpu::thread_idx().x as usize;
    let tiles = x.len() / 256;
    for tile in (gpu::block_idx().x as usize..tiles).step_by(gpu::grid_dim().x as usize) {
        y[tile * 256 + t] = scan_two_phase(x[tile * 256 + t]);
    }
}

/// The library's `gpu::block::inclusive_sum`, as bench_cub's kernel.
#[kernel(max_threads = 256)]
pub fn c_scan_lib(y: &mut [i32], x: &[i32]) {
    let t = gpu::thread_idx().x as usize;
    let tiles = x.len() / 256;
    for tile in (gpu::block_idx().x as usize..tiles).step_by(gpu::grid_dim().x as usize) {
        y[tile * 256 + t] = gpu::block::inclusive_sum(x[tile * 256 + t]);
    }
}

#[kernel(max_threads = 256)]
pub fn c_scan_plain(y: &mut [i32], x: &mut [i32]) {
    let t = gpu::thread_idx().x as usize;
    if y.is_empty() && !x.is_empty() {
        x[0] = 0;
    }
    let tiles = x.len() / 256;
    for tile in (gpu::block_idx().x as usize..tiles).step_by(gpu::grid_dim().x as usize) {
        y[tile * 256 + t] = gpu::block::inclusive_sum(x[tile * 256 + t]);
    }
}

fn build(arch: &str) -> Result<(libloading::Library, XFn, XFn), String> {
    let dir = std::env::temp_dir().join(format!("cuprum-xblock-{}", std::process::id()));
    std::fs::create_dir_all(&dir).map_err(|e| e.to_string())?;
    let cu = dir.join("xblock.cu");
    let so = dir.join("libxblock.so");
    std::fs::write(&cu, include_str!("../../cuda/cub/xblock.cu")).map_err(|e| e.to_string())?;
    let out = Command::new(nvcc::nvcc()?)
        .args(["-O3", &format!("-arch={arch}"), "-shared", "-Xcompiler", "-fPIC", "-o"])
        .arg(&so)
        .arg(&cu)
        .output()
        .map_err(|e| format!("running nvcc: {e}"))?;
    if !out.status.success() {
        return Err(format!("nvcc failed:\n{}", String::from_utf8_lossy(&out.stderr)));
    }
    unsafe {
        let lib = libloading::Library::new(&so).map_err(|e| e.to_string())?;
        let r: XFn = *lib.get(b"xb_reduce").map_err(|e| e.to_string())?;
        let s: XFn = *lib.get(b"xb_scan").map_err(|e| e.to_string())?;
        Ok((lib, r, s))
    }
}

type Run<'a> = Box<dyn FnMut() -> cuprum::Result<()> + 'a>;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().collect();
    if args.get(1).map(String::as_str) == Some("ptx") {
        for (name, ptx) in [
            ("c_reduce_lib", c_reduce_lib::INFO.ptx),
            ("c_reduce_plain", c_reduce_plain::INFO.ptx),
            ("c_reduce_first", c_reduce_first::INFO.ptx),
            ("c_reduce_old", c_reduce_old::INFO.ptx),
            ("c_scan_old", c_scan_old::INFO.ptx),
            ("c_reduce_all8", c_reduce_all8::INFO.ptx),
            ("c_reduce_sel", c_reduce_sel::INFO.ptx),
            ("c_scan_two_phase", c_scan_two_phase::INFO.ptx),
            ("c_scan_lib", c_scan_lib::INFO.ptx),
            ("c_scan_plain", c_scan_plain::INFO.ptx),
        ] {
            std::fs::write(format!("{}/{name}.ptx", args[2]), ptx).unwrap();
        }
        return ExitCode::SUCCESS;
    }
    let rounds: usize = args.get(1).and_then(|a| a.parse().ok()).unwrap_or(30);
    let log2_n: u32 = args.get(2).and_then(|a| a.parse().ok()).unwrap_or(28);
    match run(rounds, log2_n) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("xblock: {e}");
            ExitCode::FAILURE
        }
    }
}

fn run(rounds: usize, log2_n: u32) -> cuprum::Result<()> {
    let dev = Device::gpu(0)?;
    let (major, minor) = dev.compute_capability();
    let arch = format!("sm_{major}{minor}");
    let stream = dev.new_stream()?;
    let raw: CUstream = stream.cuda_stream().expect("a GPU stream").cu_stream();
    let guard = timing::Guard::new(&stream, &arch).map_err(Error::Tool)?;
    let (_lib, xr, xs) = build(&arch).map_err(Error::Tool)?;
    let n = 1usize << log2_n;
    let tiles = n / 256;
    let blocks = 8 * dev.multiprocessor_count();
    let mut rng = fastrand::Rng::new();
    let xi: Vec<i32> = (0..n).map(|_| rng.i32(-1000..1000)).collect();
    let mut dx = stream.to_device(&xi)?;
    let px = unsafe { dx.device_ptr()? };
    let mut r_outs: Vec<DeviceBuffer<i32>> = Vec::new();
    let mut s_outs: Vec<DeviceBuffer<i32>> = Vec::new();
        let reduce_names = [
        "cub BlockReduce",
        "cub BlockReduce, ld.nc",
        "cub structure, 5 shfl",
        "cub structure, 5 shfl, ld.nc",
        "cuprum structure (cuda)",
        "cuprum structure (cuda), ld.nc",
        "cuprum structure (cuda), redux",
        "cuprum structure (cuda), redux, ld.nc",
        "every thread combines (cuda), 5 shfl",
        "every thread combines (cuda), redux",
    ];
    let scan_names = [
        "cub BlockScan raking",
        "cub BlockScan raking, ld.nc",
        "cub BlockScan warp scans",
        "cub BlockScan warp scans, ld.nc",
        "cuprum structure (cuda)",
        "cuprum structure (cuda), ld.nc",
    ];
    for _ in 0..reduce_names.len() {
        r_outs.push(stream.alloc_zeros::<i32>(tiles)?);
    }
    for _ in 0..scan_names.len() {
        s_outs.push(stream.alloc_zeros::<i32>(n)?);
    }
    let rp: Vec<u64> = r_outs.iter().map(|b| unsafe { b.device_ptr() }).collect::<cuprum::Result<_>>()?;
    let sp: Vec<u64> = s_outs.iter().map(|b| unsafe { b.device_ptr() }).collect::<cuprum::Result<_>>()?;
    let mut o_rl = stream.alloc_zeros::<i32>(tiles)?;
    let mut o_rp = stream.alloc_zeros::<i32>(tiles)?;
    let mut o_rf = stream.alloc_zeros::<i32>(tiles)?;
    let mut o_rfp = stream.alloc_zeros::<i32>(tiles)?;
    let mut o_sl = stream.alloc_zeros::<i32>(n)?;
    let mut o_sp = stream.alloc_zeros::<i32>(n)?;
    let mut o_so = stream.alloc_zeros::<i32>(n)?;
    let mut o_r8 = stream.alloc_zeros::<i32>(tiles)?;
    let mut o_rs = stream.alloc_zeros::<i32>(tiles)?;
    let mut o_s2 = stream.alloc_zeros::<i32>(n)?;
    let dxr: *mut DeviceBuffer<i32> = &mut dx;
    let mut names: Vec<String> = Vec::new();
    let mut runs: Vec<Run> = Vec::new();
    for (i, name) in reduce_names.iter().enumerate() {
        let o = rp[i];
        names.push(format!("R{i} {name}"));
        runs.push(Box::new(move || {
            let c = unsafe { xr(i as i32, px, o, tiles, blocks, raw) };
            if c == 0 { Ok(()) } else { Err(Error::Tool(format!("xb_reduce {i}: {c}"))) }
        }));
    }
    names.push("RC0 cuprum gpu::block::sum (this branch)".into());
    runs.push(Box::new(|| launch!(c_reduce_lib<<<blocks, 256, stream>>>(&mut o_rl, unsafe { &*dxr }))));
    names.push("RC1 cuprum gpu::block::sum, plain ld".into());
    runs.push(Box::new(|| launch!(c_reduce_plain<<<blocks, 256, stream>>>(&mut o_rp, unsafe { &mut *dxr }))));
    names.push("RC2 cuprum old gpu::block::sum (main b052a80)".into());
    runs.push(Box::new(|| launch!(c_reduce_old<<<blocks, 256, stream>>>(&mut o_rfp, unsafe { &*dxr }))));
    names.push("RC3 cuprum cub structure (thread 0)".into());
    runs.push(Box::new(|| launch!(c_reduce_first<<<blocks, 256, stream>>>(&mut o_rf, unsafe { &*dxr }))));
    names.push("RC4 cuprum every thread combines, 8 warps known".into());
    runs.push(Box::new(|| launch!(c_reduce_all8<<<blocks, 256, stream>>>(&mut o_r8, unsafe { &*dxr }))));
    names.push("RC5 cuprum every thread combines, 8-slot fast path (fd8f627)".into());
    runs.push(Box::new(|| launch!(c_reduce_sel<<<blocks, 256, stream>>>(&mut o_rs, unsafe { &*dxr }))));
    let n_reduce = runs.len();
    for (i, name) in scan_names.iter().enumerate() {
        let o = sp[i];
        names.push(format!("S{i} {name}"));
        runs.push(Box::new(move || {
            let c = unsafe { xs(i as i32, px, o, tiles, blocks, raw) };
            if c == 0 { Ok(()) } else { Err(Error::Tool(format!("xb_scan {i}: {c}"))) }
        }));
    }
    names.push("SC0 cuprum gpu::block::inclusive_sum (this branch)".into());
    runs.push(Box::new(|| launch!(c_scan_lib<<<blocks, 256, stream>>>(&mut o_sl, unsafe { &*dxr }))));
    names.push("SC2 cuprum old gpu::block::inclusive_sum (main b052a80)".into());
    runs.push(Box::new(|| launch!(c_scan_old<<<blocks, 256, stream>>>(&mut o_so, unsafe { &*dxr }))));
    names.push("SC3 cuprum two-phase scan (warp 0 scans the totals)".into());
    runs.push(Box::new(|| launch!(c_scan_two_phase<<<blocks, 256, stream>>>(&mut o_s2, unsafe { &*dxr }))));
    names.push("SC1 cuprum gpu::block::inclusive_sum, plain ld".into());
    runs.push(Box::new(|| launch!(c_scan_plain<<<blocks, 256, stream>>>(&mut o_sp, unsafe { &mut *dxr }))));

    for r in runs.iter_mut() {
        r()?;
    }
    stream.synchronize()?;
    // Round-robin timing, the order rotating each round.
    let k = runs.len();
    let mut ms: Vec<Vec<f64>> = vec![Vec::new(); k];
    for r in 0..rounds + 1 {
        for j in 0..k {
            let i = (j + r * 5) % k;
            stream.synchronize()?;
            let t = timing::device_ms(&stream, &guard, &mut runs[i])?;
            stream.synchronize()?;
            if r > 0 {
                ms[i].push(t);
            }
        }
    }
    drop(runs);
    // Check: every reduce output equals the host's tile sums, every scan output the host's.
    let want_r: Vec<i32> = xi.chunks(256).map(|c| c.iter().fold(0i32, |a, &b| a.wrapping_add(b))).collect();
    let mut want_s = Vec::with_capacity(n);
    for c in xi.chunks(256) {
        let mut a = 0i32;
        for &v in c {
            a = a.wrapping_add(v);
            want_s.push(a);
        }
    }
    let check = |b: &DeviceBuffer<i32>, want: &[i32], what: &str| -> cuprum::Result<()> {
        if stream.to_host(b)? != want {
            return Err(Error::Tool(format!("{what}: wrong result")));
        }
        Ok(())
    };
    for (i, b) in r_outs.iter().enumerate() {
        check(b, &want_r, &format!("R{i}"))?;
    }
    for (i, b) in s_outs.iter().enumerate() {
        check(b, &want_s, &format!("S{i}"))?;
    }
    for (b, w) in [(&o_rl, "RC0"), (&o_rp, "RC1"), (&o_rf, "RC3"), (&o_rfp, "RC2"), (&o_r8, "RC4"), (&o_rs, "RC5")] {
        check(b, &want_r, w)?;
    }
    for (b, w) in [(&o_sl, "SC0"), (&o_sp, "SC1"), (&o_so, "SC2"), (&o_s2, "SC3")] {
        check(b, &want_s, w)?;
    }
    println!("xblock: all {} kernels checked against the host", k);

    let med: Vec<f64> = ms.iter_mut().map(|m| timing::median(m)).collect();
    let spread: Vec<(f64, f64)> = ms
        .iter()
        .map(|m| (m[m.len() / 10], m[m.len() - 1 - m.len() / 10]))
        .collect();
    println!(
        "xblock: n = 2^{log2_n}, {tiles} tiles, {blocks} blocks of 256, {rounds} rounds round-robin, medians (p10..p90); {}",
        nvcc::version()
    );
    let clock_ghz = 1.98;
    for i in 0..k {
        let base = if i < n_reduce { med[0] } else { med[n_reduce] };
        let cycles = med[i] * 1e-3 * clock_ghz * 1e9 / (tiles as f64 / blocks as f64);
        println!(
            "{:<48} {:>8.4} ms ({:.4}..{:.4})  {:>5.3} of CUB  ~{:>5.0} cycles/tile",
            names[i], med[i], spread[i].0, spread[i].1, base / med[i], cycles
        );
    }
    Ok(())
}
