//! saxpy: Cuprum (checked and unchecked) against nvcc and Numba; the host cost of a launch
//! against raw cudarc launching the same PTX and against Numba; the time from process start
//! to the first kernel finished, Cuprum against Numba.

use std::process::Command;
use std::time::Instant;

use cudarc::driver::{LaunchConfig as CudaConfig, PushKernelArg};
use cuprum::prelude::*;

use crate::kernels::{saxpy, saxpy_unchecked};
use crate::numba::{self, DataDir, Numba};
use crate::timing::{device_ms, median, Guard};
use crate::{nvcc, Row};

const BLOCK: u32 = 256;

fn random(n: usize, rng: &mut fastrand::Rng) -> Vec<f32> {
    (0..n)
        .map(|_| rng.f32() * 2.0 - 1.0)
        .map(|v| if v == 0.0 { 0.5 } else { v })
        .collect()
}

/// Throughput rows: Cuprum, Cuprum unchecked, nvcc, and Numba where `numba` is given.
pub fn throughput(
    dev: &Device,
    arch: &str,
    rounds: usize,
    mut numba: Option<&mut Numba>,
) -> Result<Vec<Row>, String> {
    let n: usize = 1 << 26; // 64 Mi floats: 768 MB moved per launch, far beyond the 60 MB L2
    let stream = dev.default_stream();
    let mut rng = fastrand::Rng::new();
    let x = random(n, &mut rng);
    let y = random(n, &mut rng);
    let a = 0.5 + rng.f32();
    let err = |e: cuprum::Error| e.to_string();
    let dx = stream.to_device(&x).map_err(err)?;
    let dy0 = stream.to_device(&y).map_err(err)?;
    let mut dy = stream.to_device(&y).map_err(err)?;
    let funcs = nvcc::compile(
        stream
            .device()
            .cuda_context()
            .expect("the bench runs on a GPU"),
        "saxpy",
        include_str!("../cuda/saxpy.cu"),
        arch,
        &["saxpy"],
    )?;
    let reference = &funcs[0];
    let guard = Guard::new(&stream, arch)?;
    let cfg = LaunchConfig::for_elements(n, BLOCK);
    let cuda_cfg = CudaConfig {
        grid_dim: (cfg.grid.x, 1, 1),
        block_dim: (BLOCK, 1, 1),
        shared_mem_bytes: 0,
    };
    let cuda = stream
        .cuda_stream()
        .expect("the bench runs on a GPU")
        .clone();
    let n64 = n as u64;

    let run_nvcc = |dy: &mut DeviceBuffer<f32>| -> cuprum::Result<()> {
        let mut b = cuda.launch_builder(reference);
        b.arg(dy.cuda_slice_mut().expect("GPU buffer"))
            .arg(&n64)
            .arg(dx.cuda_slice().expect("GPU buffer"))
            .arg(&n64)
            .arg(&a);
        unsafe { b.launch(cuda_cfg) }.map_err(|source| Error::Driver {
            op: "launching nvcc's saxpy",
            source,
        })?;
        Ok(())
    };
    // y is updated in place: every contender starts each run from the same y (SPEC.md).
    let restore = |dy: &mut DeviceBuffer<f32>| -> Result<(), String> {
        cuda.memcpy_dtod(
            dy0.cuda_slice().expect("GPU buffer"),
            dy.cuda_slice_mut().expect("GPU buffer"),
        )
        .map_err(|e| format!("restoring y: {e}"))
    };

    // Correctness first: all three on the same input, compared with each other and the CPU.
    let mut outputs = Vec::new();
    for which in 0..3 {
        let mut d = stream.to_device(&y).map_err(err)?;
        match which {
            0 => saxpy::launch(&stream, cfg, &mut d, &dx, a).map_err(err)?,
            // SAFETY: saxpy's body with the arguments the checked `saxpy` runs with.
            1 => unsafe { saxpy_unchecked::launch(&stream, cfg, &mut d, &dx, a) }.map_err(err)?,
            _ => run_nvcc(&mut d).map_err(err)?,
        }
        outputs.push(stream.to_host(&d).map_err(err)?);
    }
    for i in (0..n).step_by(997) {
        let want = a.mul_add(x[i], y[i]);
        for (k, out) in outputs.iter().enumerate() {
            if (out[i] - want).abs() > 1e-6 * (want.abs() + 1.0) {
                return Err(format!(
                    "saxpy variant {k} wrong at {i}: {} vs {want}",
                    out[i]
                ));
            }
        }
    }
    if outputs[0] != outputs[2] || outputs[1] != outputs[2] {
        return Err("saxpy: Cuprum's and nvcc's results differ bit for bit".into());
    }
    if let Some(numba) = numba.as_deref_mut() {
        let mut dir = DataDir::new("saxpy")?;
        dir.launch(cfg)
            .array("y", &y)?
            .array("x", &x)?
            .scalar("a", a)
            .restore("y")
            .expected("y", &outputs[0], 1e-6, 1e-6)?;
        numba.setup("saxpy", &dir)?;
    }

    // Warm up, then interleave the contenders, one launch each per round.
    let mut t: [Vec<f64>; 4] = Default::default();
    for round in 0..rounds + 5 {
        restore(&mut dy)?;
        let a0 = device_ms(&stream, &guard, || {
            saxpy::launch(&stream, cfg, &mut dy, &dx, a)
        })
        .map_err(err)?;
        restore(&mut dy)?;
        let a1 = device_ms(&stream, &guard, || {
            // SAFETY: as in the correctness pass above.
            unsafe { saxpy_unchecked::launch(&stream, cfg, &mut dy, &dx, a) }
        })
        .map_err(err)?;
        restore(&mut dy)?;
        let a2 = device_ms(&stream, &guard, || run_nvcc(&mut dy)).map_err(err)?;
        let a3 = match numba.as_deref_mut() {
            Some(numba) => {
                stream.synchronize().map_err(err)?;
                Some(numba.time_ms("saxpy")?)
            }
            None => None,
        };
        if round >= 5 {
            t[0].push(a0);
            t[1].push(a1);
            t[2].push(a2);
            t[3].extend(a3);
        }
    }
    stream.synchronize().map_err(err)?;
    let bytes = 12.0 * n as f64;
    let gbs = |ms: f64| bytes / (ms * 1e-3) / 1e9;
    let [c, u, r, nb] = t.map(|mut v| median(&mut v));
    let (r, nb) = (gbs(r), numba.is_some().then(|| gbs(nb)));
    let mut rows = vec![
        Row::new("saxpy", "Cuprum", gbs(c), "GB/s", Some(r), nb),
        Row::new("saxpy", "Cuprum unchecked", gbs(u), "GB/s", Some(r), nb),
        Row::new("saxpy", "nvcc -O3", r, "GB/s", Some(r), nb),
    ];
    rows.extend(nb.map(|nb| Row::new("saxpy", "Numba", nb, "GB/s", Some(r), Some(nb))));
    Ok(rows)
}

/// Host microseconds per launch: Cuprum's typed launch against raw cudarc, same PTX and
/// arguments, and against Numba's launch of its saxpy; tiny problem so that the host side is
/// what is measured.
pub fn launch_cost(
    dev: &Device,
    batches: usize,
    per_batch: usize,
    mut numba: Option<&mut Numba>,
) -> Result<Vec<Row>, String> {
    let err = |e: cuprum::Error| e.to_string();
    let stream = dev.default_stream();
    let n = 1024;
    let mut rng = fastrand::Rng::new();
    let dx = stream.to_device(&random(n, &mut rng)).map_err(err)?;
    let mut dy = stream.to_device(&random(n, &mut rng)).map_err(err)?;
    let a = 1.0001f32;
    let cfg = LaunchConfig::new(4, 256);
    let ctx = stream
        .device()
        .cuda_context()
        .expect("the bench runs on a GPU")
        .clone();
    let module = ctx
        .load_module(cudarc::nvrtc::Ptx::from_src(saxpy_unchecked::PTX))
        .map_err(|e| e.to_string())?;
    let f = module
        .load_function(saxpy_unchecked::NAME)
        .map_err(|e| e.to_string())?;
    let cuda = stream
        .cuda_stream()
        .expect("the bench runs on a GPU")
        .clone();
    let cuda_cfg = CudaConfig {
        grid_dim: (4, 1, 1),
        block_dim: (256, 1, 1),
        shared_mem_bytes: 0,
    };
    let n64 = n as u64;

    let mut samples = [Vec::new(), Vec::new(), Vec::new()];
    let mut numba_samples = Vec::new();
    for batch in 0..batches + 2 {
        for (which, sample) in samples.iter_mut().enumerate() {
            stream.synchronize().map_err(err)?;
            let t0;
            if which == 2 {
                // cudarc's own slices, taken before the clock starts: handing a buffer to
                // cudarc orders Cuprum's work before it, which is not raw cudarc's cost.
                let ys = dy.cuda_slice_mut().expect("GPU buffer");
                let xs = dx.cuda_slice().expect("GPU buffer");
                t0 = Instant::now();
                for _ in 0..per_batch {
                    let mut b = cuda.launch_builder(&f);
                    b.arg(&mut *ys).arg(&n64).arg(xs).arg(&n64).arg(&a);
                    unsafe { b.launch(cuda_cfg) }.map_err(|e| e.to_string())?;
                }
            } else {
                t0 = Instant::now();
                for _ in 0..per_batch {
                    match which {
                        // SAFETY: as in the correctness pass.
                        0 => unsafe { saxpy_unchecked::launch(&stream, cfg, &mut dy, &dx, a) }
                            .map_err(err)?,
                        _ => saxpy::launch(&stream, cfg, &mut dy, &dx, a).map_err(err)?,
                    }
                }
            }
            let us = t0.elapsed().as_secs_f64() * 1e6 / per_batch as f64;
            if batch >= 2 {
                sample.push(us);
            }
        }
        if let Some(numba) = numba.as_deref_mut() {
            let us = numba.launch_cost_us("saxpy", per_batch)?;
            if batch >= 2 {
                numba_samples.push(us);
            }
        }
    }
    stream.synchronize().map_err(err)?;
    let [u, c, r] = samples.map(|mut v| median(&mut v));
    let nb = numba.is_some().then(|| median(&mut numba_samples));
    let mut rows = vec![
        Row::new(
            "launch cost (saxpy, unchecked)",
            "Cuprum",
            u,
            "us/launch",
            Some(r),
            nb,
        ),
        Row::new(
            "launch cost (saxpy, checked)",
            "Cuprum",
            c,
            "us/launch",
            Some(r),
            nb,
        ),
        Row::new(
            "launch cost (saxpy)",
            "raw cudarc",
            r,
            "us/launch",
            Some(r),
            nb,
        ),
    ];
    rows.extend(nb.map(|nb| {
        Row::new(
            "launch cost (saxpy)",
            "Numba",
            nb,
            "us/launch",
            Some(r),
            Some(nb),
        )
    }));
    Ok(rows)
}

/// `bench --cold`: what a fresh process does before its first kernel has finished (device,
/// context, module load, one launch, synchronize); prints `first-kernel-done`.
pub fn cold() -> Result<(), String> {
    let err = |e: cuprum::Error| e.to_string();
    let dev = Device::gpu(0).map_err(err)?;
    let stream = dev.default_stream();
    let mut rng = fastrand::Rng::new();
    let x = stream.to_device(&random(1024, &mut rng)).map_err(err)?;
    let mut y = stream.to_device(&random(1024, &mut rng)).map_err(err)?;
    saxpy::launch(&stream, LaunchConfig::new(4, 256), &mut y, &x, 1.0001).map_err(err)?;
    stream.synchronize().map_err(err)?;
    println!("first-kernel-done");
    Ok(())
}

/// Milliseconds from process spawn to the first kernel finished: this binary with `--cold`
/// against Numba's `driver.py --cold`, interleaved `runs` times, medians.
pub fn cold_start(runs: usize, with_numba: bool) -> Result<Vec<Row>, String> {
    let exe = std::env::current_exe().map_err(|e| format!("finding this binary: {e}"))?;
    let (mut ours, mut theirs) = (Vec::new(), Vec::new());
    for _ in 0..runs {
        let mut cmd = Command::new(&exe);
        cmd.arg("--cold");
        ours.push(numba::spawn_to_first_kernel_ms(cmd)?);
        if with_numba {
            theirs.push(numba::cold_start_ms()?);
        }
    }
    let what = "cold start (spawn to first kernel done)";
    let nb = with_numba.then(|| median(&mut theirs));
    let mut rows = vec![Row::new(what, "Cuprum", median(&mut ours), "ms", None, nb)];
    rows.extend(nb.map(|nb| Row::new(what, "Numba", nb, "ms", None, Some(nb))));
    Ok(rows)
}
