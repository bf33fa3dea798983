//! The generic part of a suite kernel's benchmark: the contenders as launch closures, the
//! interleaved timing rounds, and the table rows. Each kernel module builds its data, checks
//! every contender's output against a CPU reference, sets up Numba, and hands a [`Case`] here.

use cudarc::driver::{CudaFunction, CudaStream, LaunchArgs, LaunchConfig as CudaConfig};
use cuprum::{Error, LaunchConfig, Stream};

use crate::numba::Numba;
use crate::timing::{device_ms, median, Guard};
use crate::Row;

/// What every kernel's benchmark needs: the stream, the guard, the architecture, the rounds.
pub struct Ctx<'a> {
    /// The stream everything runs on.
    pub stream: &'a Stream,
    /// The timing guard.
    pub guard: &'a Guard,
    /// `sm_90` on the H200.
    pub arch: &'a str,
    /// Timed rounds after the warm-up.
    pub rounds: usize,
}

impl Ctx<'_> {
    /// The cudarc stream (the bench runs on a GPU).
    pub fn cuda(&self) -> &std::sync::Arc<CudaStream> {
        self.stream.cuda_stream().expect("the bench runs on a GPU")
    }

    /// The nvcc-compiled reference `function` of `bench/cuda/<file>.cu`.
    pub fn nvcc(&self, file: &str, source: &str, function: &str) -> Result<CudaFunction, String> {
        let ctx = self
            .stream
            .device()
            .cuda_context()
            .expect("the bench runs on a GPU");
        Ok(crate::nvcc::compile(ctx, file, source, self.arch, &[function])?.remove(0))
    }
}

/// Launches an nvcc kernel with arguments pushed by `push`.
pub fn launch_nvcc<'a>(
    cuda: &'a CudaStream,
    f: &'a CudaFunction,
    cfg: LaunchConfig,
    push: impl FnOnce(&mut LaunchArgs<'a>),
) -> cuprum::Result<()> {
    let mut b = cuda.launch_builder(f);
    push(&mut b);
    let d = |v: cuprum::Dim3| (v.x, v.y, v.z);
    let cfg = CudaConfig {
        grid_dim: d(cfg.grid),
        block_dim: d(cfg.block),
        shared_mem_bytes: cfg.shared_bytes,
    };
    // SAFETY: each caller pushes the reference kernel's exact parameter list (bench/SPEC.md).
    unsafe { b.launch(cfg) }.map_err(|source| Error::Driver {
        op: "launching an nvcc reference",
        source,
    })?;
    Ok(())
}

/// A contender in the suite.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Who {
    /// Cuprum, bounds-checked (the default).
    Cuprum,
    /// Cuprum, `#[kernel(unchecked)]`.
    Unchecked,
    /// The nvcc reference.
    Nvcc,
}

impl Who {
    /// The three contenders that run in this process, in timing order.
    pub const ALL: [Who; 3] = [Who::Cuprum, Who::Unchecked, Who::Nvcc];

    /// The table's name for the contender.
    pub fn label(self) -> &'static str {
        match self {
            Who::Cuprum => "Cuprum",
            Who::Unchecked => "Cuprum unchecked",
            Who::Nvcc => "nvcc -O3",
        }
    }
}

/// One kernel's contenders.
pub struct Case<'a> {
    /// The suite's name for the kernel (also Numba's).
    pub name: &'static str,
    /// "GB/s" or "GFLOP/s".
    pub unit: &'static str,
    /// Bytes (or floating-point operations) per launch, as SPEC.md counts them.
    pub amount: f64,
    /// Bytes read and written per launch, as SPEC.md counts them (each input read once, each
    /// output written once): the bandwidth column.
    pub bytes: f64,
    /// Launches one contender's kernel on the case's buffers.
    pub launch: Box<dyn FnMut(Who) -> cuprum::Result<()> + 'a>,
    /// Resets what the kernel updates in place, before each timed launch (not timed).
    pub restore: Box<dyn FnMut() -> Result<(), String> + 'a>,
}

/// Runs every contender once from `reset` state and checks its output (`read` fetches it)
/// with `check`; returns Cuprum's output (what Numba's is compared with).
pub fn check_contenders<R>(
    ctx: &Ctx,
    name: &str,
    launch: &mut dyn FnMut(Who) -> cuprum::Result<()>,
    reset: &mut dyn FnMut() -> Result<(), String>,
    read: &mut dyn FnMut() -> Result<R, String>,
    check: &dyn Fn(&R) -> Result<(), String>,
) -> Result<R, String> {
    let mut first = None;
    for who in Who::ALL {
        reset()?;
        launch(who).map_err(|e| format!("{name}, {}: {e}", who.label()))?;
        ctx.stream
            .synchronize()
            .map_err(|e| format!("{name}, {}: {e}", who.label()))?;
        let out = read()?;
        check(&out).map_err(|e| format!("{name}, {} is wrong: {e}", who.label()))?;
        first.get_or_insert(out);
    }
    Ok(first.expect("three contenders ran"))
}

/// Times the case: warm-up, then `ctx.rounds` interleaved rounds (Cuprum, unchecked, nvcc,
/// Numba), medians, rows.
pub fn measure(
    ctx: &Ctx,
    case: &mut Case,
    mut numba: Option<&mut Numba>,
) -> Result<Vec<Row>, String> {
    let err = |e: cuprum::Error| format!("{}: {e}", case.name);
    let mut t: [Vec<f64>; 4] = Default::default();
    for round in 0..ctx.rounds + 5 {
        let mut ms = [0.0; 3];
        for (k, who) in Who::ALL.into_iter().enumerate() {
            (case.restore)()?;
            ms[k] = device_ms(ctx.stream, ctx.guard, || (case.launch)(who)).map_err(err)?;
        }
        let nb = match numba.as_deref_mut() {
            Some(n) => {
                ctx.stream.synchronize().map_err(err)?;
                Some(n.time_ms(case.name)?)
            }
            None => None,
        };
        if round >= 5 {
            for k in 0..3 {
                t[k].push(ms[k]);
            }
            t[3].extend(nb);
        }
    }
    ctx.stream.synchronize().map_err(err)?;
    let rate = |ms: f64| case.amount / (ms * 1e-3) / 1e9;
    let [c, u, r, nb] = t.map(|mut v| median(&mut v));
    let (r, nb) = (rate(r), numba.is_some().then(|| rate(nb)));
    let name = case.name;
    let mut rows: Vec<Row> = Who::ALL
        .into_iter()
        .zip([rate(c), rate(u), r])
        .map(|(who, v)| Row::new(name, who.label(), v, case.unit, Some(r), nb))
        .collect();
    rows.extend(nb.map(|nb| Row::new(name, "Numba", nb, case.unit, Some(r), Some(nb))));
    for row in &mut rows {
        row.gbs = Some(row.value * case.bytes / case.amount);
    }
    Ok(rows)
}

/// Fresh random f32s in `[lo, hi)`, never zero.
pub fn random_f32(n: usize, lo: f32, hi: f32, rng: &mut fastrand::Rng) -> Vec<f32> {
    (0..n)
        .map(|_| lo + (hi - lo) * rng.f32())
        .map(|v| if v == 0.0 { (lo + hi) / 2.0 + 1e-3 } else { v })
        .collect()
}

/// Fresh random u32s, never zero.
pub fn random_u32(n: usize, rng: &mut fastrand::Rng) -> Vec<u32> {
    (0..n).map(|_| rng.u32(1..)).collect()
}
