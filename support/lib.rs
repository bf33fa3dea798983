//! Helpers shared by Cuprum's examples and workspace tests: fresh random inputs, comparisons
//! against CPU references, and picking the device a test runs on.

use cuprum::{Device, Error};

/// Builds a kernel also as `#[kernel(unchecked)]`, from the same body, in the module
/// `<name>_unchecked` beside it: the examples' kernels are the bench's (one home per kernel),
/// and the bench measures the checks' cost on them. Place it directly above `#[kernel]`.
pub use cuprum_twin::unchecked_twin;

/// `n` random `f32`s in `[lo, hi)`, never exactly zero, from a fresh seed each run.
pub fn random_f32(n: usize, lo: f32, hi: f32) -> Vec<f32> {
    let mut rng = fastrand::Rng::new();
    (0..n)
        .map(|_| loop {
            let v = lo + (hi - lo) * rng.f32();
            if v != 0.0 {
                break v;
            }
        })
        .collect()
}

/// A random non-zero `f32` in `[lo, hi)`.
pub fn random_scalar(lo: f32, hi: f32) -> f32 {
    random_f32(1, lo, hi)[0]
}

/// The CPU reference of a matrix product: `a` is `m × k` and `b` is `k × n`, both row-major,
/// summed over the first `used` (at most `k`) columns of `a` and rows of `b`. Returns the
/// product (`m × n`) and, per element, the sum of its terms' magnitudes: the `scale` that
/// [`compare_f32`] takes.
pub fn gemm_f32(
    a: &[f32],
    b: &[f32],
    (m, n, k): (usize, usize, usize),
    used: usize,
) -> (Vec<f32>, Vec<f32>) {
    assert!(
        used <= k && a.len() >= m * k && b.len() >= k * n,
        "gemm_f32: shapes"
    );
    let mut want = vec![0.0f32; m * n];
    let mut scale = vec![0.0f32; m * n];
    for i in 0..m {
        for j in 0..n {
            for p in 0..used {
                let term = a[i * k + p] * b[p * n + j];
                want[i * n + j] += term;
                scale[i * n + j] += term.abs();
            }
        }
    }
    (want, scale)
}

/// Checks `got` against `want` element by element: `|g - w| <= tol * (scale + |w|)` where
/// `scale` is the magnitude of the operands that produced `w`. Returns the largest error
/// relative to that bound's scale, or a description of the first mismatch.
pub fn compare_f32(got: &[f32], want: &[f32], scale: &[f32], tol: f32) -> Result<f32, String> {
    if got.len() != want.len() {
        return Err(format!("length {} but expected {}", got.len(), want.len()));
    }
    let mut worst = 0.0f32;
    for (i, ((&g, &w), &s)) in got.iter().zip(want).zip(scale).enumerate() {
        let bound = s.abs() + w.abs();
        let err = (g - w).abs();
        // Written so that NaN fails too.
        if err.is_nan() || err > tol * bound {
            return Err(format!(
                "element {i}: got {g}, expected {w} (error {err}, allowed {})",
                tol * bound
            ));
        }
        if bound > 0.0 {
            worst = worst.max(err / bound);
        }
    }
    Ok(worst)
}

/// The device a test or example runs on: `Device::default()`, which is the CPU simulator on a
/// machine without a GPU, and the GPU when `CUPRUM_DEVICE=gpu` (then a missing GPU is an
/// error).
pub fn device() -> Result<Device, Error> {
    Device::default()
}

/// Whether an example uses its small problem size (the one it uses on the simulator): on the
/// simulator, and on a GPU when `CUPRUM_SMALL_INPUTS=1` (as `scripts/sanitize` sets, since
/// compute-sanitizer's tools run kernels tens to thousands of times slower).
pub fn small_inputs(dev: &Device) -> bool {
    dev.is_simulator() || std::env::var("CUPRUM_SMALL_INPUTS").is_ok_and(|v| v == "1")
}

/// Every backend a differential test runs its kernels on: the device under test
/// (`Device::default()`) and, when that is a GPU, the simulator too. A test that loops over
/// them and compares each result with its CPU reference compares the GPU with the simulator
/// on the GPU host, and the simulator with the CPU here.
pub fn backends() -> Result<Vec<Device>, Error> {
    let main = Device::default()?;
    Ok(if main.is_simulator() {
        vec![main]
    } else {
        vec![main, Device::simulator()]
    })
}

/// Runs `test` on every backend of [`backends`] (the device under test, then, when that is a
/// GPU, the simulator: one process runs the kernels on both) and asserts that every backend's
/// output equals the first one's, which it returns. `test` checks each backend's results
/// against its CPU reference as usual and returns what the backends must agree on exactly (a
/// report's message and position, integer results; `()` when a float result only has to be
/// within tolerance of the reference). Without a GPU it runs `test` once, on the simulator.
pub fn on_backends<T: PartialEq + std::fmt::Debug>(
    mut test: impl FnMut(Device) -> Result<T, Error>,
) -> Result<T, Error> {
    let mut first: Option<(String, T)> = None;
    for dev in backends()? {
        let name = dev.name().to_string();
        // Shown with a failing test's output: which backend it was on.
        eprintln!("on_backends: running on {name}");
        let out = test(dev).inspect_err(|e| eprintln!("on_backends: {name} failed: {e}"))?;
        match &first {
            None => first = Some((name, out)),
            Some((a, want)) => assert_eq!(
                &out, want,
                "the backends disagree: {name} (left) and {a} (right)"
            ),
        }
    }
    Ok(first.expect("at least one backend").1)
}

/// Distance in units in the last place between two `f64`s (0 when equal, including both
/// NaN; `u64::MAX` when one is NaN and the other not).
pub fn ulps_f64(a: f64, b: f64) -> u64 {
    if a == b || (a.is_nan() && b.is_nan()) {
        return 0;
    }
    if a.is_nan() || b.is_nan() {
        return u64::MAX;
    }
    let key = |x: f64| {
        let bits = x.to_bits() as i64;
        if bits < 0 {
            i64::MIN - bits
        } else {
            bits
        }
    };
    key(a).abs_diff(key(b))
}

/// Distance in units in the last place between two `f32`s.
pub fn ulps_f32(a: f32, b: f32) -> u64 {
    if a == b || (a.is_nan() && b.is_nan()) {
        return 0;
    }
    if a.is_nan() || b.is_nan() {
        return u64::MAX;
    }
    let key = |x: f32| {
        let bits = x.to_bits() as i32 as i64;
        if bits < 0 {
            i32::MIN as i64 - bits
        } else {
            bits
        }
    };
    key(a).abs_diff(key(b))
}

/// `main` of an example: runs `run` on `Device::default()` (the simulator without a GPU) and
/// turns its verdict into the exit code (non-zero when the result is wrong or an error occurs).
pub fn example_main(
    name: &str,
    run: impl FnOnce(&Device) -> Result<Result<String, String>, Error>,
) -> std::process::ExitCode {
    let outcome = device().and_then(|dev| run(&dev).map(|r| (dev, r)));
    match outcome {
        Ok((dev, Ok(summary))) => {
            println!("{name}: OK on {}: {summary}", dev.name());
            std::process::ExitCode::SUCCESS
        }
        Ok((dev, Err(wrong))) => {
            eprintln!("{name}: WRONG RESULT on {}: {wrong}", dev.name());
            std::process::ExitCode::FAILURE
        }
        Err(e) => {
            eprintln!("{name}: error: {e}");
            std::process::ExitCode::FAILURE
        }
    }
}

/// Fresh random `u32`s.
pub fn random_u32(n: usize) -> Vec<u32> {
    let mut rng = fastrand::Rng::new();
    (0..n).map(|_| rng.u32(..)).collect()
}

/// Assembles every `(name, entry, ptx)` with ptxas for sm_90 and asserts that its entry is
/// there and spills nothing. Without ptxas it is skipped, except under CI, where that is a
/// failure (`scripts/setup.sh` installs ptxas).
pub fn assert_ptxas_accepts(kernels: &[(&str, &str, &str)]) {
    if cuprum::inspect::find_ptxas().is_none() {
        assert!(
            std::env::var_os("CI").is_none(),
            "ptxas is required under CI: pip install nvidia-cuda-nvcc-cu12 (scripts/setup.sh does)"
        );
        eprintln!("skipped: ptxas not found");
        return;
    }
    let mut spills = Vec::new();
    for &(name, entry, ptx) in kernels {
        let r = cuprum::inspect::resources(ptx, "sm_90").unwrap_or_else(|e| panic!("{name}: {e}"));
        let k = r
            .iter()
            .find(|r| r.kernel == entry)
            .unwrap_or_else(|| panic!("{name}: no entry {entry} in {r:?}"));
        // Shown with `--nocapture`: registers, shared memory and spills of each kernel.
        eprintln!("{name}: {k:?}");
        if let Some(dir) = std::env::var_os("CUPRUM_PTX_DUMP") {
            let _ = std::fs::write(std::path::Path::new(&dir).join(format!("{entry}.ptx")), ptx);
        }
        if (k.spill_stores, k.spill_loads) != (0, 0) {
            spills.push(format!("{name} spills: {k:?}"));
        }
    }
    assert!(spills.is_empty(), "{}", spills.join("\n"));
}
