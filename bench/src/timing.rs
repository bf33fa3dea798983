//! Timing: CUDA events around device work, after a guard kernel; medians of many runs.

use std::sync::Arc;

use cudarc::driver::{CudaFunction, CudaStream, LaunchConfig as CudaConfig, PushKernelArg};
use cuprum::prelude::*;
use cuprum::{Error, Stream};

use crate::nvcc;

/// The guard's length in about-1-µs sleeps: longer than any contender's host-side launch
/// preparation (Numba's is tens of µs). The same number is in bench/numba/driver.py.
const SPIN_ITERS: u32 = 200;

/// A one-thread kernel that sleeps about 200 µs (`bench/cuda/spin.cu`). Launched just before
/// the start event, it keeps the stream busy while the host prepares the timed launch, so
/// the start event is reached only when the timed kernel is already queued behind it: the
/// events then measure the kernel, not the host's launch cost (bench/SPEC.md, "Timing").
pub struct Guard {
    spin: CudaFunction,
    stream: Arc<CudaStream>,
}

impl Guard {
    /// Compiles the guard with the GPU host's nvcc for `arch`, for use on `stream`.
    pub fn new(stream: &Stream, arch: &str) -> Result<Guard, String> {
        let spin = nvcc::compile(
            stream
                .device()
                .cuda_context()
                .expect("the bench runs on a GPU"),
            "spin",
            include_str!("../cuda/spin.cu"),
            arch,
            &["spin"],
        )?
        .remove(0);
        Ok(Guard {
            spin,
            stream: stream
                .cuda_stream()
                .expect("the bench runs on a GPU")
                .clone(),
        })
    }

    fn launch(&self) -> cuprum::Result<()> {
        let cfg = CudaConfig {
            grid_dim: (1, 1, 1),
            block_dim: (1, 1, 1),
            shared_mem_bytes: 0,
        };
        let mut b = self.stream.launch_builder(&self.spin);
        b.arg(&SPIN_ITERS);
        unsafe { b.launch(cfg) }.map_err(|source| Error::Driver {
            op: "launching the timing guard",
            source,
        })?;
        Ok(())
    }
}

/// Milliseconds the device spent on the work `f` enqueues: the guard, then events around `f`.
pub fn device_ms(
    stream: &Stream,
    guard: &Guard,
    mut f: impl FnMut() -> cuprum::Result<()>,
) -> cuprum::Result<f64> {
    guard.launch()?;
    let start = stream.record_event()?;
    f()?;
    let end = stream.record_event()?;
    Ok(start.elapsed_ms(&end)? as f64)
}

/// The median of `samples` (sorted in place).
pub fn median(samples: &mut [f64]) -> f64 {
    samples.sort_by(|a, b| a.total_cmp(b));
    let n = samples.len();
    if n == 0 {
        return f64::NAN;
    }
    if n % 2 == 1 {
        samples[n / 2]
    } else {
        (samples[n / 2 - 1] + samples[n / 2]) / 2.0
    }
}

/// The bandwidth column's reference row.
pub const COPY: &str = "device-to-device copy";

/// GB/s of a 512 MiB device-to-device copy (`cudaMemcpy`, the driver's copy engine path),
/// counting bytes read and written: after a guard, between events, median of `rounds` after 5
/// warm-ups. The ceiling the bandwidth column compares each kernel with.
pub fn copy_gbs(stream: &Stream, guard: &Guard, rounds: usize) -> Result<f64, String> {
    let n = 1usize << 27;
    let mut rng = fastrand::Rng::new();
    let data: Vec<f32> = (0..n).map(|_| 0.5 + rng.f32()).collect();
    let err = |e: cuprum::Error| e.to_string();
    let src = stream.to_device(&data).map_err(err)?;
    let mut dst = stream.alloc_zeros::<f32>(n).map_err(err)?;
    let cuda = stream.cuda_stream().expect("the bench runs on a GPU");
    let mut ms = Vec::new();
    for round in 0..rounds + 5 {
        let t = device_ms(stream, guard, || {
            let (s, d) = (src.cuda_slice(), dst.cuda_slice_mut());
            let (Some(s), Some(d)) = (s, d) else {
                return Err(Error::LaunchConfig("the copy needs GPU buffers".into()));
            };
            cuda.memcpy_dtod(s, d).map_err(|source| Error::Driver {
                op: "a device-to-device copy",
                source,
            })
        })
        .map_err(err)?;
        if round >= 5 {
            ms.push(t);
        }
    }
    let back = stream.to_host(&dst).map_err(err)?;
    if back != data {
        return Err("the device-to-device copy is wrong".into());
    }
    Ok(2.0 * 4.0 * n as f64 / (median(&mut ms) * 1e-3) / 1e9)
}
