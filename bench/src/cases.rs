//! The suite's kernels beyond saxpy (bench/SPEC.md): each builds its data, checks every
//! contender's output against a CPU reference, hands Cuprum's output to Numba as the expected
//! one, and returns the [`Case`] that [`measure`] times.
//!
//! Buffers that the kernels write are held in `RefCell`s: the launch, restore and read
//! closures of one case all reach them, one at a time.

use std::cell::RefCell;

use cudarc::driver::{CudaSlice, LaunchArgs, PushKernelArg};
use cuprum::prelude::*;
use cuprum::Element;

use crate::kernels::*;
use crate::numba::{DataDir, Numba};
use crate::suite::{
    check_contenders, launch_nvcc, measure, random_f32, random_u32, Case, Ctx, Who,
};
use crate::Row;

/// Writes the Numba driver's inputs for a case, given Cuprum's output.
pub(crate) type NumbaDir<'a, R> = &'a dyn Fn(&R) -> Result<DataDir, String>;

/// A case of the suite: builds, checks and times one kernel.
pub(crate) type CaseFn = fn(&Ctx, Option<&mut Numba>) -> Result<Vec<Row>, String>;

pub(crate) fn err(e: cuprum::Error) -> String {
    e.to_string()
}

pub(crate) fn gpu<T: Element>(b: &DeviceBuffer<T>) -> &CudaSlice<T> {
    b.cuda_slice().expect("the bench runs on a GPU")
}

pub(crate) fn gpu_mut<T: Element>(b: &mut DeviceBuffer<T>) -> &mut CudaSlice<T> {
    b.cuda_slice_mut().expect("the bench runs on a GPU")
}

/// Pushes a read-only slice as the references take it: pointer, then `u64` length.
pub(crate) fn push_in<'a, T>(b: &mut LaunchArgs<'a>, s: &'a CudaSlice<T>, len: &'a u64) {
    b.arg(s).arg(len);
}

/// Pushes a written slice: pointer, then `u64` length.
pub(crate) fn push_out<'a, T>(b: &mut LaunchArgs<'a>, s: &'a mut CudaSlice<T>, len: &'a u64) {
    b.arg(s).arg(len);
}

/// Copies `src` over `dst` on the device (not timed).
pub(crate) fn copy<T: Element>(
    ctx: &Ctx,
    src: &DeviceBuffer<T>,
    dst: &RefCell<DeviceBuffer<T>>,
) -> Result<(), String> {
    ctx.cuda()
        .memcpy_dtod(gpu(src), gpu_mut(&mut dst.borrow_mut()))
        .map_err(|e| format!("restoring a buffer: {e}"))
}

pub(crate) fn read<T: Element>(ctx: &Ctx, b: &RefCell<DeviceBuffer<T>>) -> Result<Vec<T>, String> {
    ctx.stream.to_host(&*b.borrow()).map_err(err)
}

/// `|got - want| <= atol + rtol * |want|` at each of `indices` (NaN fails).
pub(crate) fn close(
    got: &[f32],
    want: impl Fn(usize) -> f64,
    indices: impl Iterator<Item = usize>,
    rtol: f64,
    atol: f64,
) -> Result<(), String> {
    for i in indices {
        let (g, w) = (got[i] as f64, want(i));
        if g.is_nan() || (g - w).abs() > atol + rtol * w.abs() {
            return Err(format!(
                "element {i} is {g}, expected {w} (rtol {rtol:e}, atol {atol:e})"
            ));
        }
    }
    Ok(())
}

/// Equal element for element.
pub(crate) fn exact<T: PartialEq + std::fmt::Debug>(got: &[T], want: &[T]) -> Result<(), String> {
    if got.len() != want.len() {
        return Err(format!("{} elements, expected {}", got.len(), want.len()));
    }
    match got.iter().zip(want).position(|(g, w)| g != w) {
        Some(i) => Err(format!(
            "element {i} is {:?}, expected {:?}",
            got[i], want[i]
        )),
        None => Ok(()),
    }
}

/// Checks the contenders, sets Numba up, and times the case.
pub(crate) fn finish<R>(
    ctx: &Ctx,
    mut case: Case,
    reset: &mut dyn FnMut() -> Result<(), String>,
    read: &mut dyn FnMut() -> Result<R, String>,
    check: &dyn Fn(&R) -> Result<(), String>,
    numba: Option<(&mut Numba, NumbaDir<R>)>,
) -> Result<Vec<Row>, String> {
    let cuprum_out = check_contenders(ctx, case.name, &mut *case.launch, reset, read, check)?;
    // A Numba failure empties only its column: the other contenders are still timed.
    let numba = match numba {
        Some((nb, dir)) => match nb.setup(case.name, &dir(&cuprum_out)?) {
            Ok(()) => Some(nb),
            Err(e) => {
                eprintln!(
                    "bench {}: Numba FAILED, its column stays empty: {e}",
                    case.name
                );
                None
            }
        },
        None => None,
    };
    measure(ctx, &mut case, numba)
}

/// The Numba half of `finish`'s arguments, when Numba runs.
pub(crate) fn with<'a, R>(
    numba: Option<&'a mut Numba>,
    dir: &'a dyn Fn(&R) -> Result<DataDir, String>,
) -> Option<(&'a mut Numba, NumbaDir<'a, R>)> {
    numba.map(|nb| (nb, dir))
}

/// reduce_sum: 2^26 f32 in [0, 1), one atomic per block into `out[0]`.
pub fn reduce_sum_case(ctx: &Ctx, numba: Option<&mut Numba>) -> Result<Vec<Row>, String> {
    let n = 1usize << 26;
    let mut rng = fastrand::Rng::new();
    let x = random_f32(n, 0.0, 1.0, &mut rng);
    let dx = ctx.stream.to_device(&x).map_err(err)?;
    let zero = ctx.stream.alloc_zeros::<f32>(1).map_err(err)?;
    let out = RefCell::new(ctx.stream.alloc_zeros::<f32>(1).map_err(err)?);
    let f = ctx.nvcc(
        "reduce_sum",
        include_str!("../cuda/reduce_sum.cu"),
        "reduce_sum",
    )?;
    let (cfg, n64, one) = (LaunchConfig::new(1024, 256), n as u64, 1u64);
    let want: f64 = x.iter().map(|&v| v as f64).sum();
    let case = Case {
        name: "reduce_sum",
        unit: "GB/s",
        amount: 4.0 * n as f64,
        bytes: 4.0 * n as f64,
        launch: Box::new(|who| {
            let o = &mut *out.borrow_mut();
            match who {
                Who::Cuprum => reduce_sum::launch(ctx.stream, cfg, o, &dx),
                // SAFETY: `reduce_sum`'s body (one macro, `kernels.rs`) with the arguments and
                // configuration its checked twin runs with, in bounds for them.
                Who::Unchecked => unsafe { reduce_sum_unchecked::launch(ctx.stream, cfg, o, &dx) },
                Who::Nvcc => launch_nvcc(ctx.cuda(), &f, cfg, |b| {
                    push_out(b, gpu_mut(o), &one);
                    push_in(b, gpu(&dx), &n64);
                }),
            }
        }),
        restore: Box::new(|| copy(ctx, &zero, &out)),
    };
    let dir = |got: &Vec<f32>| {
        let mut d = DataDir::new("reduce_sum")?;
        d.launch(cfg)
            .array("out", &[0.0f32])?
            .array("x", &x)?
            .restore("out")
            .expected("out", got, 1e-4, 0.0)?;
        Ok(d)
    };
    finish(
        ctx,
        case,
        &mut || copy(ctx, &zero, &out),
        &mut || read(ctx, &out),
        &|got| close(got, |_| want, 0..1, 1e-4, 0.0),
        with(numba, &dir),
    )
}

/// histogram: 256 bins of 2^26 random u32 (low byte), shared-memory atomics then global.
pub fn histogram_case(ctx: &Ctx, numba: Option<&mut Numba>) -> Result<Vec<Row>, String> {
    let n = 1usize << 26;
    let mut rng = fastrand::Rng::new();
    let data = random_u32(n, &mut rng);
    let mut want = vec![0u32; 256];
    for &v in &data {
        want[(v & 255) as usize] += 1;
    }
    let dd = ctx.stream.to_device(&data).map_err(err)?;
    let zero = ctx.stream.alloc_zeros::<u32>(256).map_err(err)?;
    let bins = RefCell::new(ctx.stream.alloc_zeros::<u32>(256).map_err(err)?);
    let f = ctx.nvcc(
        "histogram",
        include_str!("../cuda/histogram.cu"),
        "histogram",
    )?;
    let (cfg, n64, nb64) = (LaunchConfig::new(1024, 256), n as u64, 256u64);
    let case = Case {
        name: "histogram",
        unit: "GB/s",
        amount: 4.0 * n as f64,
        bytes: 4.0 * n as f64,
        launch: Box::new(|who| {
            let o = &mut *bins.borrow_mut();
            match who {
                Who::Cuprum => histogram::launch(ctx.stream, cfg, o, &dd),
                // SAFETY: `histogram`'s body (one macro, `kernels.rs`) with the arguments and
                // configuration its checked twin runs with, in bounds for them.
                Who::Unchecked => unsafe { histogram_unchecked::launch(ctx.stream, cfg, o, &dd) },
                Who::Nvcc => launch_nvcc(ctx.cuda(), &f, cfg, |b| {
                    push_out(b, gpu_mut(o), &nb64);
                    push_in(b, gpu(&dd), &n64);
                }),
            }
        }),
        restore: Box::new(|| copy(ctx, &zero, &bins)),
    };
    let dir = |got: &Vec<u32>| {
        let mut d = DataDir::new("histogram")?;
        d.launch(cfg)
            .array("bins", &[0u32; 256])?
            .array("data", &data)?
            .restore("bins")
            .expected("bins", got, 0.0, 0.0)?;
        Ok(d)
    };
    finish(
        ctx,
        case,
        &mut || copy(ctx, &zero, &bins),
        &mut || read(ctx, &bins),
        &|got| exact(got, &want),
        with(numba, &dir),
    )
}

/// transpose: 8192 x 8192 f32 through a padded 32 x 33 shared tile.
pub fn transpose_case(ctx: &Ctx, numba: Option<&mut Numba>) -> Result<Vec<Row>, String> {
    let (rows, cols) = (8192u32, 8192u32);
    let n = rows as usize * cols as usize;
    let mut rng = fastrand::Rng::new();
    let inp = random_f32(n, -1.0, 1.0, &mut rng);
    let din = ctx.stream.to_device(&inp).map_err(err)?;
    let poison = ctx.stream.to_device(&vec![f32::NAN; n]).map_err(err)?;
    let out = RefCell::new(ctx.stream.to_device(&vec![f32::NAN; n]).map_err(err)?);
    let f = ctx.nvcc(
        "transpose",
        include_str!("../cuda/transpose.cu"),
        "transpose",
    )?;
    let (cfg, n64) = (LaunchConfig::new((cols / 32, rows / 32), (32, 8)), n as u64);
    let case = Case {
        name: "transpose",
        unit: "GB/s",
        amount: 8.0 * n as f64,
        bytes: 8.0 * n as f64,
        launch: Box::new(|who| {
            let o = &mut *out.borrow_mut();
            match who {
                Who::Cuprum => transpose::launch(ctx.stream, cfg, o, &din, rows, cols),
                // SAFETY: `transpose`'s body (one macro, `kernels.rs`) with the arguments and
                // configuration its checked twin runs with, in bounds for them.
                Who::Unchecked => unsafe {
                    transpose_unchecked::launch(ctx.stream, cfg, o, &din, rows, cols)
                },
                Who::Nvcc => launch_nvcc(ctx.cuda(), &f, cfg, |b| {
                    push_out(b, gpu_mut(o), &n64);
                    push_in(b, gpu(&din), &n64);
                    b.arg(&rows).arg(&cols);
                }),
            }
        }),
        restore: Box::new(|| Ok(())),
    };
    let mut want = vec![0.0f32; n];
    for r in 0..rows as usize {
        for c in 0..cols as usize {
            want[c * rows as usize + r] = inp[r * cols as usize + c];
        }
    }
    let dir = |got: &Vec<f32>| {
        let mut d = DataDir::new("transpose")?;
        d.launch(cfg)
            .array("out", &vec![f32::NAN; n])?
            .array("in", &inp)?
            .scalar("rows", rows)
            .scalar("cols", cols)
            .expected("out", got, 0.0, 0.0)?;
        Ok(d)
    };
    finish(
        ctx,
        case,
        &mut || copy(ctx, &poison, &out),
        &mut || read(ctx, &out),
        &|got| exact(got, &want),
        with(numba, &dir),
    )
}

/// sgemm_tiled: 4096^3, 32 x 32 shared tiles, one output per thread.
pub fn sgemm_case(ctx: &Ctx, numba: Option<&mut Numba>) -> Result<Vec<Row>, String> {
    let (m, n, k) = (4096u32, 4096u32, 4096u32);
    let (mu, nu, ku) = (m as usize, n as usize, k as usize);
    let mut rng = fastrand::Rng::new();
    let a = random_f32(mu * ku, 0.0, 1.0, &mut rng);
    let b = random_f32(ku * nu, 0.0, 1.0, &mut rng);
    let (da, db) = (
        ctx.stream.to_device(&a).map_err(err)?,
        ctx.stream.to_device(&b).map_err(err)?,
    );
    let poison = ctx
        .stream
        .to_device(&vec![f32::NAN; mu * nu])
        .map_err(err)?;
    let c = RefCell::new(
        ctx.stream
            .to_device(&vec![f32::NAN; mu * nu])
            .map_err(err)?,
    );
    let f = ctx.nvcc(
        "sgemm_tiled",
        include_str!("../cuda/sgemm_tiled.cu"),
        "sgemm",
    )?;
    let cfg = LaunchConfig::new((n / 32, m / 32), (32, 32));
    let (a64, b64, c64) = ((mu * ku) as u64, (ku * nu) as u64, (mu * nu) as u64);
    let case = Case {
        name: "sgemm_tiled",
        unit: "GFLOP/s",
        amount: 2.0 * mu as f64 * nu as f64 * ku as f64,
        bytes: 4.0 * (mu * ku + ku * nu + mu * nu) as f64,
        launch: Box::new(|who| {
            let o = &mut *c.borrow_mut();
            match who {
                Who::Cuprum => sgemm::launch(ctx.stream, cfg, o, &da, &db, m, n, k),
                // SAFETY: `sgemm`'s body (one macro, `kernels.rs`) with the arguments and
                // configuration its checked twin runs with, in bounds for them.
                Who::Unchecked => unsafe {
                    sgemm_unchecked::launch(ctx.stream, cfg, o, &da, &db, m, n, k)
                },
                Who::Nvcc => launch_nvcc(ctx.cuda(), &f, cfg, |bld| {
                    push_out(bld, gpu_mut(o), &c64);
                    push_in(bld, gpu(&da), &a64);
                    push_in(bld, gpu(&db), &b64);
                    bld.arg(&m).arg(&n).arg(&k);
                }),
            }
        }),
        restore: Box::new(|| Ok(())),
    };
    let sample: Vec<usize> = (0..4096).map(|_| rng.usize(0..mu * nu)).collect();
    let want = |i: usize| {
        let (r, col) = (i / nu, i % nu);
        (0..ku)
            .map(|t| a[r * ku + t] as f64 * b[t * nu + col] as f64)
            .sum::<f64>()
    };
    let dir = |got: &Vec<f32>| {
        let mut d = DataDir::new("sgemm_tiled")?;
        d.launch(cfg)
            .array("c", &vec![f32::NAN; mu * nu])?
            .array("a", &a)?
            .array("b", &b)?;
        d.scalar("m", m)
            .scalar("n", n)
            .scalar("k", k)
            .expected("c", got, 1e-3, 0.0)?;
        Ok(d)
    };
    finish(
        ctx,
        case,
        &mut || copy(ctx, &poison, &c),
        &mut || read(ctx, &c),
        &|got| close(got, want, sample.iter().copied(), 1e-3, 0.0),
        with(numba, &dir),
    )
}

/// block_scan: inclusive scans of 1024-element blocks of 2^26 u32 (wrapping), Blelloch in
/// dynamic shared memory.
pub fn block_scan_case(ctx: &Ctx, numba: Option<&mut Numba>) -> Result<Vec<Row>, String> {
    let n = 1usize << 26;
    let mut rng = fastrand::Rng::new();
    let inp = random_u32(n, &mut rng);
    let mut want = inp.clone();
    for block in want.chunks_mut(1024) {
        for i in 1..block.len() {
            block[i] = block[i].wrapping_add(block[i - 1]);
        }
    }
    let din = ctx.stream.to_device(&inp).map_err(err)?;
    let poison = ctx
        .stream
        .to_device(&vec![0xDEAD_BEEFu32; n])
        .map_err(err)?;
    let out = RefCell::new(
        ctx.stream
            .to_device(&vec![0xDEAD_BEEFu32; n])
            .map_err(err)?,
    );
    let f = ctx.nvcc(
        "block_scan",
        include_str!("../cuda/block_scan.cu"),
        "block_scan",
    )?;
    let (cfg, n64) = (
        LaunchConfig::new((n / 1024) as u32, 512).with_shared_bytes(4096),
        n as u64,
    );
    let case = Case {
        name: "block_scan",
        unit: "GB/s",
        amount: 8.0 * n as f64,
        bytes: 8.0 * n as f64,
        launch: Box::new(|who| {
            let o = &mut *out.borrow_mut();
            match who {
                Who::Cuprum => block_scan::launch(ctx.stream, cfg, o, &din),
                // SAFETY: `block_scan`'s body (one macro, `kernels.rs`) with the arguments and
                // configuration its checked twin runs with, in bounds for them.
                Who::Unchecked => unsafe { block_scan_unchecked::launch(ctx.stream, cfg, o, &din) },
                Who::Nvcc => launch_nvcc(ctx.cuda(), &f, cfg, |b| {
                    push_out(b, gpu_mut(o), &n64);
                    push_in(b, gpu(&din), &n64);
                }),
            }
        }),
        restore: Box::new(|| Ok(())),
    };
    let dir = |got: &Vec<u32>| {
        let mut d = DataDir::new("block_scan")?;
        d.launch(cfg)
            .array("out", &vec![0xDEAD_BEEFu32; n])?
            .array("in", &inp)?
            .expected("out", got, 0.0, 0.0)?;
        Ok(d)
    };
    finish(
        ctx,
        case,
        &mut || copy(ctx, &poison, &out),
        &mut || read(ctx, &out),
        &|got| exact(got, &want),
        with(numba, &dir),
    )
}

/// softmax_rows: 65536 rows of 1024 f32, one block per row.
pub fn softmax_case(ctx: &Ctx, numba: Option<&mut Numba>) -> Result<Vec<Row>, String> {
    let (rows, cols) = (65536usize, 1024u32);
    let n = rows * cols as usize;
    let mut rng = fastrand::Rng::new();
    let x = random_f32(n, -4.0, 4.0, &mut rng);
    let mut want = vec![0.0f64; n];
    for (w, r) in want.chunks_mut(cols as usize).zip(x.chunks(cols as usize)) {
        let m = r.iter().fold(f64::NEG_INFINITY, |m, &v| m.max(v as f64));
        let s: f64 = r.iter().map(|&v| (v as f64 - m).exp()).sum();
        for (w, &v) in w.iter_mut().zip(r) {
            *w = (v as f64 - m).exp() / s;
        }
    }
    let dx = ctx.stream.to_device(&x).map_err(err)?;
    let poison = ctx.stream.to_device(&vec![f32::NAN; n]).map_err(err)?;
    let out = RefCell::new(ctx.stream.to_device(&vec![f32::NAN; n]).map_err(err)?);
    let f = ctx.nvcc(
        "softmax_rows",
        include_str!("../cuda/softmax_rows.cu"),
        "softmax",
    )?;
    let (cfg, n64) = (LaunchConfig::new(rows as u32, 256), n as u64);
    let case = Case {
        name: "softmax_rows",
        unit: "GB/s",
        amount: 8.0 * n as f64,
        bytes: 8.0 * n as f64,
        launch: Box::new(|who| {
            let o = &mut *out.borrow_mut();
            match who {
                Who::Cuprum => softmax::launch(ctx.stream, cfg, o, &dx, cols),
                // SAFETY: `softmax`'s body (one macro, `kernels.rs`) with the arguments and
                // configuration its checked twin runs with, in bounds for them.
                Who::Unchecked => unsafe {
                    softmax_unchecked::launch(ctx.stream, cfg, o, &dx, cols)
                },
                Who::Nvcc => launch_nvcc(ctx.cuda(), &f, cfg, |b| {
                    push_out(b, gpu_mut(o), &n64);
                    push_in(b, gpu(&dx), &n64);
                    b.arg(&cols);
                }),
            }
        }),
        restore: Box::new(|| Ok(())),
    };
    let dir = |got: &Vec<f32>| {
        let mut d = DataDir::new("softmax_rows")?;
        d.launch(cfg)
            .array("out", &vec![f32::NAN; n])?
            .array("x", &x)?
            .scalar("cols", cols)
            .expected("out", got, 1e-5, 1e-9)?;
        Ok(d)
    };
    finish(
        ctx,
        case,
        &mut || copy(ctx, &poison, &out),
        &mut || read(ctx, &out),
        &|got| close(got, |i| want[i], 0..n, 1e-5, 1e-9),
        with(numba, &dir),
    )
}

/// jacobi_2d: one 5-point step on an 8192 x 8192 grid.
pub fn jacobi_case(ctx: &Ctx, numba: Option<&mut Numba>) -> Result<Vec<Row>, String> {
    let nn = 8192u32;
    let (g, n) = (nn as usize, nn as usize * nn as usize);
    let mut rng = fastrand::Rng::new();
    let inp = random_f32(n, -1.0, 1.0, &mut rng);
    let mut want = inp.clone();
    for i in 1..g - 1 {
        for j in 1..g - 1 {
            let idx = i * g + j;
            want[idx] = 0.25 * ((inp[idx - g] + inp[idx + g]) + (inp[idx - 1] + inp[idx + 1]));
        }
    }
    let din = ctx.stream.to_device(&inp).map_err(err)?;
    let poison = ctx.stream.to_device(&vec![f32::NAN; n]).map_err(err)?;
    let out = RefCell::new(ctx.stream.to_device(&vec![f32::NAN; n]).map_err(err)?);
    let f = ctx.nvcc("jacobi_2d", include_str!("../cuda/jacobi_2d.cu"), "jacobi")?;
    let (cfg, n64) = (LaunchConfig::new((nn / 32, nn / 8), (32, 8)), n as u64);
    let case = Case {
        name: "jacobi_2d",
        unit: "GB/s",
        amount: 8.0 * n as f64,
        bytes: 8.0 * n as f64,
        launch: Box::new(|who| {
            let o = &mut *out.borrow_mut();
            match who {
                Who::Cuprum => jacobi::launch(ctx.stream, cfg, o, &din, nn),
                // SAFETY: `jacobi`'s body (one macro, `kernels.rs`) with the arguments and
                // configuration its checked twin runs with, in bounds for them.
                Who::Unchecked => unsafe { jacobi_unchecked::launch(ctx.stream, cfg, o, &din, nn) },
                Who::Nvcc => launch_nvcc(ctx.cuda(), &f, cfg, |b| {
                    push_out(b, gpu_mut(o), &n64);
                    push_in(b, gpu(&din), &n64);
                    b.arg(&nn);
                }),
            }
        }),
        restore: Box::new(|| Ok(())),
    };
    let dir = |got: &Vec<f32>| {
        let mut d = DataDir::new("jacobi_2d")?;
        d.launch(cfg)
            .array("out", &vec![f32::NAN; n])?
            .array("in", &inp)?
            .scalar("n", nn)
            .expected("out", got, 0.0, 0.0)?;
        Ok(d)
    };
    finish(
        ctx,
        case,
        &mut || copy(ctx, &poison, &out),
        &mut || read(ctx, &out),
        &|got| exact(got, &want),
        with(numba, &dir),
    )
}

/// The cumulative normal of SPEC.md's Black-Scholes, in f64 (the CPU reference).
fn cnd64(d: f64) -> f64 {
    let k = 1.0 / (1.0 + 0.2316419 * d.abs());
    let poly = k
        * (0.31938153
            + k * (-0.356563782 + k * (1.781477937 + k * (-1.821255978 + k * 1.330274429))));
    let c = 0.3989422804 * (-0.5 * d * d).exp() * poly;
    if d > 0.0 {
        1.0 - c
    } else {
        c
    }
}

/// black_scholes: 2^24 options, call and put prices.
pub fn black_scholes_case(ctx: &Ctx, numba: Option<&mut Numba>) -> Result<Vec<Row>, String> {
    let n = 1usize << 24;
    let (r, v) = (0.02f32, 0.30f32);
    let mut rng = fastrand::Rng::new();
    let s = random_f32(n, 5.0, 30.0, &mut rng);
    let x = random_f32(n, 1.0, 100.0, &mut rng);
    let t = random_f32(n, 0.25, 10.0, &mut rng);
    let want = |i: usize| {
        let (sp, k, tt, r, v) = (s[i] as f64, x[i] as f64, t[i] as f64, r as f64, v as f64);
        let d1 = ((sp / k).ln() + (r + 0.5 * v * v) * tt) / (v * tt.sqrt());
        let d2 = d1 - v * tt.sqrt();
        let e = (-r * tt).exp();
        (
            sp * cnd64(d1) - k * e * cnd64(d2),
            k * e * (1.0 - cnd64(d2)) - sp * (1.0 - cnd64(d1)),
        )
    };
    let want: Vec<(f64, f64)> = (0..n).map(want).collect();
    let (ds, dx, dt) = (
        ctx.stream.to_device(&s).map_err(err)?,
        ctx.stream.to_device(&x).map_err(err)?,
        ctx.stream.to_device(&t).map_err(err)?,
    );
    let poison = ctx.stream.to_device(&vec![f32::NAN; n]).map_err(err)?;
    let call = RefCell::new(ctx.stream.to_device(&vec![f32::NAN; n]).map_err(err)?);
    let put = RefCell::new(ctx.stream.to_device(&vec![f32::NAN; n]).map_err(err)?);
    let f = ctx.nvcc(
        "black_scholes",
        include_str!("../cuda/black_scholes.cu"),
        "black_scholes",
    )?;
    let (cfg, n64) = (LaunchConfig::new((n / 256) as u32, 256), n as u64);
    let case = Case {
        name: "black_scholes",
        unit: "GB/s",
        amount: 20.0 * n as f64,
        bytes: 20.0 * n as f64,
        launch: Box::new(|who| {
            let (c, p) = (&mut *call.borrow_mut(), &mut *put.borrow_mut());
            match who {
                Who::Cuprum => black_scholes::launch(ctx.stream, cfg, c, p, &ds, &dx, &dt, r, v),
                // SAFETY: `black_scholes`'s body (one macro, `kernels.rs`) with the arguments and
                // configuration its checked twin runs with, in bounds for them.
                Who::Unchecked => unsafe {
                    black_scholes_unchecked::launch(ctx.stream, cfg, c, p, &ds, &dx, &dt, r, v)
                },
                Who::Nvcc => launch_nvcc(ctx.cuda(), &f, cfg, |b| {
                    push_out(b, gpu_mut(c), &n64);
                    push_out(b, gpu_mut(p), &n64);
                    push_in(b, gpu(&ds), &n64);
                    push_in(b, gpu(&dx), &n64);
                    push_in(b, gpu(&dt), &n64);
                    b.arg(&r).arg(&v);
                }),
            }
        }),
        restore: Box::new(|| Ok(())),
    };
    let dir = |got: &(Vec<f32>, Vec<f32>)| {
        let mut d = DataDir::new("black_scholes")?;
        let poisoned = vec![f32::NAN; n];
        d.launch(cfg)
            .array("call", &poisoned)?
            .array("put", &poisoned)?
            .array("s", &s)?
            .array("x", &x)?
            .array("t", &t)?;
        d.scalar("r", r)
            .scalar("v", v)
            .expected("call", &got.0, 1e-4, 1e-4)?
            .expected("put", &got.1, 1e-4, 1e-4)?;
        Ok(d)
    };
    finish(
        ctx,
        case,
        &mut || copy(ctx, &poison, &call).and_then(|()| copy(ctx, &poison, &put)),
        &mut || Ok((read(ctx, &call)?, read(ctx, &put)?)),
        &|(c, p)| {
            close(c, |i| want[i].0, 0..n, 1e-4, 1e-4).map_err(|e| format!("call: {e}"))?;
            close(p, |i| want[i].1, 0..n, 1e-4, 1e-4).map_err(|e| format!("put: {e}"))
        },
        with(numba, &dir),
    )
}

/// Every case of the suite after saxpy, in SPEC.md's order.
pub const CASES: [(&str, CaseFn); 8] = [
    ("reduce_sum", reduce_sum_case),
    ("histogram", histogram_case),
    ("transpose", transpose_case),
    ("sgemm_tiled", sgemm_case),
    ("block_scan", block_scan_case),
    ("softmax_rows", softmax_case),
    ("jacobi_2d", jacobi_case),
    ("black_scholes", black_scholes_case),
];
