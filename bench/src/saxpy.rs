//! saxpy: Cuprum (checked and unchecked) against nvcc, and the host cost of a launch against
//! raw cudarc launching the same PTX.

use std::time::Instant;

use cudarc::driver::{LaunchConfig as CudaConfig, PushKernelArg};
use cuprum::prelude::*;

use crate::timing::{device_ms, median};
use crate::{nvcc, Row};

#[kernel]
pub fn saxpy(y: &mut [f32], x: &[f32], a: f32) {
    let i = gpu::global_id_x();
    if i < y.len() {
        y[i] = a * x[i] + y[i];
    }
}

#[kernel(unchecked)]
pub fn saxpy_unchecked(y: &mut [f32], x: &[f32], a: f32) {
    let i = gpu::global_id_x();
    if i < y.len() {
        y[i] = a * x[i] + y[i];
    }
}

const BLOCK: u32 = 256;

fn random(n: usize, rng: &mut fastrand::Rng) -> Vec<f32> {
    (0..n)
        .map(|_| rng.f32() * 2.0 - 1.0)
        .map(|v| if v == 0.0 { 0.5 } else { v })
        .collect()
}

/// Throughput rows: Cuprum, Cuprum unchecked, nvcc.
pub fn throughput(dev: &Device, arch: &str, rounds: usize) -> Result<Vec<Row>, String> {
    let n: usize = 1 << 26; // 64 Mi floats: 768 MB moved per launch, far beyond the 60 MB L2
    let stream = dev.default_stream();
    let mut rng = fastrand::Rng::new();
    let x = random(n, &mut rng);
    let y = random(n, &mut rng);
    let a = 0.5 + rng.f32();
    let err = |e: cuprum::Error| e.to_string();
    let dx = stream.to_device(&x).map_err(err)?;
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
            .arg(dx.cuda_slice().expect("GPU buffer"))
            .arg(&a)
            .arg(&n64);
        unsafe { b.launch(cuda_cfg) }.map_err(|source| Error::Driver {
            op: "launching nvcc's saxpy",
            source,
        })?;
        Ok(())
    };

    // Correctness first: all three on the same input, compared with each other and the CPU.
    let mut outputs = Vec::new();
    for which in 0..3 {
        let mut d = stream.to_device(&y).map_err(err)?;
        match which {
            0 => saxpy::launch(&stream, cfg, &mut d, &dx, a).map_err(err)?,
            1 => saxpy_unchecked::launch(&stream, cfg, &mut d, &dx, a).map_err(err)?,
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

    // Warm up, then interleave the three, one launch each per round.
    let mut t = [Vec::new(), Vec::new(), Vec::new()];
    for round in 0..rounds + 5 {
        let a0 =
            device_ms(&stream, || saxpy::launch(&stream, cfg, &mut dy, &dx, a)).map_err(err)?;
        let a1 = device_ms(&stream, || {
            saxpy_unchecked::launch(&stream, cfg, &mut dy, &dx, a)
        })
        .map_err(err)?;
        let a2 = device_ms(&stream, || run_nvcc(&mut dy)).map_err(err)?;
        if round >= 5 {
            t[0].push(a0);
            t[1].push(a1);
            t[2].push(a2);
        }
    }
    stream.synchronize().map_err(err)?;
    let bytes = 12.0 * n as f64;
    let gbs = |ms: f64| bytes / (ms * 1e-3) / 1e9;
    let (c, u, r) = (median(&mut t[0]), median(&mut t[1]), median(&mut t[2]));
    Ok(vec![
        Row::throughput("saxpy", "Cuprum", gbs(c), "GB/s", gbs(r)),
        Row::throughput("saxpy", "Cuprum unchecked", gbs(u), "GB/s", gbs(r)),
        Row::throughput("saxpy", "nvcc -O3", gbs(r), "GB/s", gbs(r)),
    ])
}

/// Host microseconds per launch: Cuprum's typed launch against raw cudarc, same PTX and
/// arguments, tiny problem so that the host side is what is measured.
pub fn launch_cost(dev: &Device, batches: usize, per_batch: usize) -> Result<Vec<Row>, String> {
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
    for batch in 0..batches + 2 {
        for (which, sample) in samples.iter_mut().enumerate() {
            stream.synchronize().map_err(err)?;
            let t0 = Instant::now();
            for _ in 0..per_batch {
                match which {
                    0 => saxpy_unchecked::launch(&stream, cfg, &mut dy, &dx, a).map_err(err)?,
                    1 => saxpy::launch(&stream, cfg, &mut dy, &dx, a).map_err(err)?,
                    _ => {
                        let mut b = cuda.launch_builder(&f);
                        b.arg(dy.cuda_slice_mut().expect("GPU buffer"))
                            .arg(&n64)
                            .arg(dx.cuda_slice().expect("GPU buffer"))
                            .arg(&n64)
                            .arg(&a);
                        unsafe { b.launch(cuda_cfg) }.map_err(|e| e.to_string())?;
                    }
                }
            }
            let us = t0.elapsed().as_secs_f64() * 1e6 / per_batch as f64;
            if batch >= 2 {
                sample.push(us);
            }
        }
    }
    stream.synchronize().map_err(err)?;
    let (u, c, r) = (
        median(&mut samples[0]),
        median(&mut samples[1]),
        median(&mut samples[2]),
    );
    Ok(vec![
        Row::cost("launch cost (saxpy, unchecked)", "Cuprum", u, r),
        Row::cost("launch cost (saxpy, checked)", "Cuprum", c, r),
        Row::cost("launch cost (saxpy)", "raw cudarc", r, r),
    ])
}
