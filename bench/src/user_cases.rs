//! The suite's kernels written the way users write them, from public sources (bench/SPEC.md,
//! "Kernels as users write them"): CUDA's vectorAdd, transposeCoalesced and
//! convolutionSeparable samples, Numba's documented fast_matmul and Laplace stencil, reduction
//! #6 with shuffles, the n-body tile step of GPU Gems 3. The Cuprum kernels and their CPU
//! references are the examples' (`crate::kernels`); each case builds the data, checks every
//! contender, and returns the [`Case`] that `measure` times, as `crate::cases` does.

use std::cell::RefCell;

use cudarc::driver::PushKernelArg;
use cuprum::prelude::*;

use crate::cases::{
    copy, err, exact, finish, gpu, gpu_mut, push_in, push_out, read, with, CaseFn, NumbaDir,
};
use crate::kernels::*;
use crate::numba::{DataDir, Numba};
use crate::suite::{launch_nvcc, random_f32, Case, Ctx, Who};
use crate::Row;

/// A device copy of `init` to restore from, and the output buffer (also `init`).
type Output = (DeviceBuffer<f32>, RefCell<DeviceBuffer<f32>>);

fn output(ctx: &Ctx, init: &[f32]) -> Result<Output, String> {
    Ok((
        ctx.stream.to_device(init).map_err(err)?,
        RefCell::new(ctx.stream.to_device(init).map_err(err)?),
    ))
}

/// A case's launch closure, for kernels whose first argument is the output `$out` (a
/// `RefCell`): the example's kernel `$k`, its unchecked twin `$twin`, each with `$out` then
/// `$args`; and the nvcc reference `$f`, with `$out` and its length `$len` pushed, then what
/// `$push` pushes on the launch builder `$b`.
macro_rules! launches {
    ($ctx:ident, $cfg:ident, $out:ident, $k:ty, $twin:ty, ($($arg:expr),*),
     $f:ident, $len:expr, |$b:ident| $push:block) => {
        Box::new(|who| {
            let o = &mut *$out.borrow_mut();
            match who {
                Who::Cuprum => <$k>::launch($ctx.stream, $cfg, o, $($arg),*),
                // SAFETY: the example's body, with the arguments and configuration its checked
                // twin runs with, in bounds for them.
                Who::Unchecked => unsafe { <$twin>::launch($ctx.stream, $cfg, o, $($arg),*) },
                Who::Nvcc => launch_nvcc($ctx.cuda(), &$f, $cfg, |$b| {
                    push_out($b, gpu_mut(o), $len);
                    $push
                }),
            }
        })
    };
}

/// `finish` for a case with one output, reset from `init` before each contender's
/// correctness run.
fn finish_output(
    ctx: &Ctx,
    case: Case,
    (init, out): (&DeviceBuffer<f32>, &RefCell<DeviceBuffer<f32>>),
    check: &dyn Fn(&Vec<f32>) -> Result<(), String>,
    numba: Option<&mut Numba>,
    dir: NumbaDir<Vec<f32>>,
) -> Result<Vec<Row>, String> {
    finish(
        ctx,
        case,
        &mut || copy(ctx, init, out),
        &mut || read(ctx, out),
        check,
        with(numba, dir),
    )
}

/// `testkit::compare_f32`'s verdict as a check.
fn compare(got: &[f32], want: &[f32], scale: &[f32], tol: f32) -> Result<(), String> {
    cuprum_testkit::compare_f32(got, want, scale, tol).map(|_| ())
}

/// vector_add: 2^26 f32, `c = a + b` (CUDA's vectorAdd).
pub fn vector_add_case(ctx: &Ctx, numba: Option<&mut Numba>) -> Result<Vec<Row>, String> {
    let n = 1usize << 26;
    let mut rng = fastrand::Rng::new();
    let (a, b) = (
        random_f32(n, -1.0, 1.0, &mut rng),
        random_f32(n, -1.0, 1.0, &mut rng),
    );
    let want: Vec<f32> = a.iter().zip(&b).map(|(x, y)| x + y).collect();
    let (da, db) = (
        ctx.stream.to_device(&a).map_err(err)?,
        ctx.stream.to_device(&b).map_err(err)?,
    );
    let (poison, out) = output(ctx, &vec![f32::NAN; n])?;
    let f = ctx.nvcc(
        "vector_add",
        include_str!("../cuda/vector_add.cu"),
        "vector_add",
    )?;
    let (cfg, n64, n32) = (LaunchConfig::new((n / 256) as u32, 256), n as u64, n as i32);
    let case = Case {
        name: "vector_add",
        unit: "GB/s",
        amount: 12.0 * n as f64,
        bytes: 12.0 * n as f64,
        launch: launches!(
            ctx,
            cfg,
            out,
            vector_add,
            vector_add_unchecked,
            (&da, &db),
            f,
            &n64,
            |b| {
                push_in(b, gpu(&da), &n64);
                push_in(b, gpu(&db), &n64);
                b.arg(&n32);
            }
        ),
        restore: Box::new(|| Ok(())),
    };
    let dir = |got: &Vec<f32>| {
        let mut d = DataDir::new("vector_add")?;
        d.launch(cfg)
            .array("c", &vec![f32::NAN; n])?
            .array("a", &a)?
            .array("b", &b)?
            .expected("c", got, 0.0, 0.0)?;
        Ok(d)
    };
    finish_output(
        ctx,
        case,
        (&poison, &out),
        &|got| exact(got, &want),
        numba,
        &dir,
    )
}

/// transpose_coalesced: 8192 x 8192 f32, CUDA's transposeCoalesced with bounds guards.
pub fn transpose_coalesced_case(ctx: &Ctx, numba: Option<&mut Numba>) -> Result<Vec<Row>, String> {
    let (w, h) = (8192usize, 8192usize);
    let n = w * h;
    let mut rng = fastrand::Rng::new();
    let inp = random_f32(n, -1.0, 1.0, &mut rng);
    let want = ex_transpose_coalesced::reference(&inp, w, h);
    let din = ctx.stream.to_device(&inp).map_err(err)?;
    let (poison, out) = output(ctx, &vec![f32::NAN; n])?;
    let f = ctx.nvcc(
        "transpose_coalesced",
        include_str!("../cuda/transpose_coalesced.cu"),
        "transpose_coalesced",
    )?;
    let cfg = LaunchConfig::new(((w / 32) as u32, (h / 32) as u32), (32, 8));
    let (n64, w32, h32) = (n as u64, w as i32, h as i32);
    let case = Case {
        name: "transpose_coalesced",
        unit: "GB/s",
        amount: 8.0 * n as f64,
        bytes: 8.0 * n as f64,
        launch: launches!(
            ctx,
            cfg,
            out,
            transpose_coalesced,
            transpose_coalesced_unchecked,
            (&din, w, h),
            f,
            &n64,
            |b| {
                push_in(b, gpu(&din), &n64);
                b.arg(&w32).arg(&h32);
            }
        ),
        restore: Box::new(|| Ok(())),
    };
    let dir = |got: &Vec<f32>| {
        let mut d = DataDir::new("transpose_coalesced")?;
        d.launch(cfg)
            .array("out", &vec![f32::NAN; n])?
            .array("in", &inp)?
            .scalar("width", w as i64)
            .scalar("height", h as i64)
            .expected("out", got, 0.0, 0.0)?;
        Ok(d)
    };
    finish_output(
        ctx,
        case,
        (&poison, &out),
        &|got| exact(got, &want),
        numba,
        &dir,
    )
}

/// The image of both convolution passes: 8192 wide, 4096 high.
const IMAGE: (u32, u32) = (8192, 4096);

/// convolve_rows and convolve_cols: one pass of convolutionSeparable over an 8192 x 4096
/// image (`columns` picks the pass).
fn convolution_case(
    ctx: &Ctx,
    numba: Option<&mut Numba>,
    columns: bool,
) -> Result<Vec<Row>, String> {
    use ex_convolution::{COLS_X, COLS_Y, STEPS, TILE};
    let name = if columns {
        "convolve_cols"
    } else {
        "convolve_rows"
    };
    let (w, h) = IMAGE;
    let n = (w * h) as usize;
    let mut rng = fastrand::Rng::new();
    let img = random_f32(n, -1.0, 1.0, &mut rng);
    let (want, scale) = ex_convolution::reference(&img, w as usize, columns);
    let din = ctx.stream.to_device(&img).map_err(err)?;
    let (poison, out) = output(ctx, &vec![f32::NAN; n])?;
    let f = ctx.nvcc("convolution", include_str!("../cuda/convolution.cu"), name)?;
    let cfg = if columns {
        LaunchConfig::new(
            (w / COLS_X as u32, h / (STEPS * COLS_Y) as u32),
            (COLS_X as u32, COLS_Y as u32),
        )
    } else {
        LaunchConfig::new((w / TILE as u32, h), TILE as u32)
    };
    let n64 = n as u64;
    let case = Case {
        name,
        unit: "GB/s",
        amount: 8.0 * n as f64,
        bytes: 8.0 * n as f64,
        launch: if columns {
            launches!(
                ctx,
                cfg,
                out,
                convolve_cols,
                convolve_cols_unchecked,
                (&din, w, h),
                f,
                &n64,
                |b| {
                    push_in(b, gpu(&din), &n64);
                    b.arg(&w).arg(&h);
                }
            )
        } else {
            launches!(
                ctx,
                cfg,
                out,
                convolve_rows,
                convolve_rows_unchecked,
                (&din, w),
                f,
                &n64,
                |b| {
                    push_in(b, gpu(&din), &n64);
                    b.arg(&w);
                }
            )
        },
        restore: Box::new(|| Ok(())),
    };
    let dir = |got: &Vec<f32>| {
        let mut d = DataDir::new(name)?;
        d.launch(cfg)
            .array("out", &vec![f32::NAN; n])?
            .array("in", &img)?
            .scalar("width", w)
            .scalar("height", h)
            .expected("out", got, 1e-5, 1e-6)?;
        Ok(d)
    };
    finish_output(
        ctx,
        case,
        (&poison, &out),
        &|got| compare(got, &want, &scale, 1e-5),
        numba,
        &dir,
    )
}

/// convolve_rows: convolutionSeparable's row pass.
pub fn convolve_rows_case(ctx: &Ctx, numba: Option<&mut Numba>) -> Result<Vec<Row>, String> {
    convolution_case(ctx, numba, false)
}

/// convolve_cols: convolutionSeparable's column pass.
pub fn convolve_cols_case(ctx: &Ctx, numba: Option<&mut Numba>) -> Result<Vec<Row>, String> {
    convolution_case(ctx, numba, true)
}

/// fast_matmul: 2048^3 f32 in [0, 1), Numba's documented 16 x 16 shared-tile matmul.
pub fn fast_matmul_case(ctx: &Ctx, numba: Option<&mut Numba>) -> Result<Vec<Row>, String> {
    let (m, n, k) = (2048usize, 2048usize, 2048usize);
    let mut rng = fastrand::Rng::new();
    let a = random_f32(m * k, 0.0, 1.0, &mut rng);
    let b = random_f32(k * n, 0.0, 1.0, &mut rng);
    let (da, db) = (
        ctx.stream.to_device(&a).map_err(err)?,
        ctx.stream.to_device(&b).map_err(err)?,
    );
    let (poison, c) = output(ctx, &vec![f32::NAN; m * n])?;
    let f = ctx.nvcc(
        "fast_matmul",
        include_str!("../cuda/fast_matmul.cu"),
        "fast_matmul",
    )?;
    let cfg = LaunchConfig::new(((n / 16) as u32, (m / 16) as u32), (16, 16));
    let (a64, b64, c64) = ((m * k) as u64, (k * n) as u64, (m * n) as u64);
    let (m32, n32, k32) = (m as i32, n as i32, k as i32);
    let case = Case {
        name: "fast_matmul",
        unit: "GFLOP/s",
        amount: 2.0 * (m * n * k) as f64,
        bytes: 4.0 * (m * k + k * n + m * n) as f64,
        launch: launches!(
            ctx,
            cfg,
            c,
            fast_matmul,
            fast_matmul_unchecked,
            (&da, &db, m, n, k),
            f,
            &c64,
            |b| {
                push_in(b, gpu(&da), &a64);
                push_in(b, gpu(&db), &b64);
                b.arg(&m32).arg(&n32).arg(&k32);
            }
        ),
        restore: Box::new(|| Ok(())),
    };
    let sample: Vec<usize> = (0..4096).map(|_| rng.usize(0..m * n)).collect();
    let dir = |got: &Vec<f32>| {
        let mut d = DataDir::new("fast_matmul")?;
        d.launch(cfg)
            .array("c", &vec![f32::NAN; m * n])?
            .array("a", &a)?
            .array("b", &b)?;
        d.scalar("m", m as i64)
            .scalar("n", n as i64)
            .scalar("k", k as i64)
            .expected("c", got, 1e-4, 0.0)?;
        Ok(d)
    };
    finish_output(
        ctx,
        case,
        (&poison, &c),
        &|got| ex_fast_matmul::check(&a, &b, (n, k), got, sample.iter().copied()).map(|_| ()),
        numba,
        &dir,
    )
}

/// laplace: one sweep on an 8192 x 8192 grid; `out` starts as the input's boundary around a
/// NaN interior (the kernel writes only the interior), so each run leaves the same result.
pub fn laplace_case(ctx: &Ctx, numba: Option<&mut Numba>) -> Result<Vec<Row>, String> {
    let (nx, ny) = (8192usize, 8192usize);
    let n = nx * ny;
    let mut rng = fastrand::Rng::new();
    let inp = random_f32(n, -1.0, 1.0, &mut rng);
    let mut start = inp.clone();
    for j in 1..ny - 1 {
        start[j * nx + 1..(j + 1) * nx - 1].fill(f32::NAN);
    }
    let mut want = inp.clone();
    ex_laplace::sweep(&mut want, &inp, nx, ny);
    let din = ctx.stream.to_device(&inp).map_err(err)?;
    let (pristine, out) = output(ctx, &start)?;
    let f = ctx.nvcc("laplace", include_str!("../cuda/laplace.cu"), "laplace")?;
    let cfg = LaunchConfig::new(((nx / 32) as u32, (ny / 8) as u32), (32, 8));
    let (n64, nx32, ny32) = (n as u64, nx as i32, ny as i32);
    let case = Case {
        name: "laplace",
        unit: "GB/s",
        amount: 8.0 * n as f64,
        bytes: 8.0 * n as f64,
        launch: launches!(
            ctx,
            cfg,
            out,
            laplace,
            laplace_unchecked,
            (&din, nx, ny),
            f,
            &n64,
            |b| {
                push_in(b, gpu(&din), &n64);
                b.arg(&nx32).arg(&ny32);
            }
        ),
        restore: Box::new(|| Ok(())),
    };
    let dir = |got: &Vec<f32>| {
        let mut d = DataDir::new("laplace")?;
        d.launch(cfg)
            .array("out", &start)?
            .array("in", &inp)?
            .scalar("nx", nx as i64)
            .scalar("ny", ny as i64)
            .expected("out", got, 0.0, 0.0)?;
        Ok(d)
    };
    finish_output(
        ctx,
        case,
        (&pristine, &out),
        &|got| exact(got, &want),
        numba,
        &dir,
    )
}

/// reduce6: 2^26 f32 in [0, 1), block 256, grid 1024, one partial sum per block.
pub fn reduce6_case(ctx: &Ctx, numba: Option<&mut Numba>) -> Result<Vec<Row>, String> {
    let (n, blocks) = (1usize << 26, 1024usize);
    let mut rng = fastrand::Rng::new();
    let x = random_f32(n, 0.0, 1.0, &mut rng);
    let want = ex_reduce6::reference(&x, 256, blocks);
    let dx = ctx.stream.to_device(&x).map_err(err)?;
    let (poison, out) = output(ctx, &vec![f32::NAN; blocks])?;
    let f = ctx.nvcc("reduce6", include_str!("../cuda/reduce6.cu"), "reduce6")?;
    let (cfg, n64, b64) = (
        LaunchConfig::new(blocks as u32, 256),
        n as u64,
        blocks as u64,
    );
    let case = Case {
        name: "reduce6",
        unit: "GB/s",
        amount: 4.0 * n as f64,
        bytes: 4.0 * n as f64,
        launch: launches!(
            ctx,
            cfg,
            out,
            reduce6<256>,
            reduce6_unchecked<256>,
            (&dx),
            f,
            &b64,
            |b| {
                push_in(b, gpu(&dx), &n64);
            }
        ),
        restore: Box::new(|| Ok(())),
    };
    let dir = |got: &Vec<f32>| {
        let mut d = DataDir::new("reduce6")?;
        d.launch(cfg)
            .array("out", &vec![f32::NAN; blocks])?
            .array("x", &x)?
            .expected("out", got, 1e-5, 0.0)?;
        Ok(d)
    };
    finish_output(
        ctx,
        case,
        (&poison, &out),
        &|got| ex_reduce6::check(got, &want).map(|_| ()),
        numba,
        &dir,
    )
}

/// nbody: the all-pairs accelerations of 65536 bodies (20 FLOPs per interaction, GPU Gems'
/// count), checked on 256 random bodies against f64.
pub fn nbody_case(ctx: &Ctx, numba: Option<&mut Numba>) -> Result<Vec<Row>, String> {
    let (n, eps2) = (1usize << 16, 0.01f32);
    let body = ex_nbody::inputs(n);
    let mut rng = fastrand::Rng::new();
    let sample: Vec<usize> = (0..256).map(|_| rng.usize(0..n)).collect();
    let db = ctx.stream.to_device(&body).map_err(err)?;
    let (poison, acc) = output(ctx, &vec![f32::NAN; 3 * n])?;
    let f = ctx.nvcc("nbody", include_str!("../cuda/nbody.cu"), "nbody")?;
    let cfg = LaunchConfig::new((n / 256) as u32, 256);
    let (a64, b64) = ((3 * n) as u64, (4 * n) as u64);
    let case = Case {
        name: "nbody",
        unit: "GFLOP/s",
        amount: 20.0 * (n * n) as f64,
        bytes: 28.0 * n as f64,
        launch: launches!(
            ctx,
            cfg,
            acc,
            nbody,
            nbody_unchecked,
            (&db, eps2),
            f,
            &a64,
            |b| {
                push_in(b, gpu(&db), &b64);
                b.arg(&eps2);
            }
        ),
        restore: Box::new(|| Ok(())),
    };
    let dir = |got: &Vec<f32>| {
        let mut d = DataDir::new("nbody")?;
        d.launch(cfg)
            .array("accel", &vec![f32::NAN; 3 * n])?
            .array("body", &body)?
            .scalar("eps2", eps2)
            .expected("accel", got, 1e-3, 1.0)?;
        Ok(d)
    };
    finish(
        ctx,
        case,
        &mut || copy(ctx, &poison, &acc),
        &mut || read(ctx, &acc),
        &|got| {
            if let Some(i) = got.iter().position(|v| v.is_nan()) {
                return Err(format!("accel[{i}] was not written"));
            }
            ex_nbody::check(&body, eps2, got, sample.iter().copied()).map(|_| ())
        },
        with(numba, &dir),
    )
}

/// The cases after `crate::cases::CASES`, in SPEC.md's order.
pub const CASES: [(&str, CaseFn); 8] = [
    ("vector_add", vector_add_case),
    ("transpose_coalesced", transpose_coalesced_case),
    ("convolve_rows", convolve_rows_case),
    ("convolve_cols", convolve_cols_case),
    ("fast_matmul", fast_matmul_case),
    ("laplace", laplace_case),
    ("reduce6", reduce6_case),
    ("nbody", nbody_case),
];
