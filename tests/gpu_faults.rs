//! Failures reported as Rust reports them, on the GPU and the simulator: every kind of
//! runtime check gives Rust's own message, and each kernel's failure is reported with its own
//! name, line and message even when another kernel shares its name.

use cuprum::prelude::*;
use cuprum_testkit::on_backends;

/// Two kernels named `twin`, in two modules: one indexes past the end, one divides by zero.
mod first {
    use cuprum::prelude::*;

    #[kernel]
    pub fn twin(out: &mut [u32]) {
        let i = gpu::global_id_x();
        out[i + 1] = i as u32; // first twin
    }
}

mod second {
    use cuprum::prelude::*;

    #[kernel]
    pub fn twin(out: &mut [u32], d: &[u32]) {
        let i = gpu::global_id_x();
        if i < out.len() {
            out[i] = 7 / d[i]; // second twin
        }
    }
}

#[kernel]
fn index_past(out: &mut [u32], x: &[u32], shift: usize) {
    let i = gpu::global_id_x();
    if i < out.len() {
        out[i] = x[i + shift]; // index check
    }
}

#[kernel]
fn divide_by(out: &mut [i64], d: &[i64]) {
    let i = gpu::global_id_x();
    if i < out.len() {
        out[i] = 1000 / d[i]; // division check
    }
}

#[kernel]
fn remainder_by(out: &mut [u16], d: &[u16]) {
    let i = gpu::global_id_x();
    if i < out.len() {
        out[i] = 1000 % d[i]; // remainder check
    }
}

#[kernel]
fn step_by_zero(out: &mut [u32], step: usize) {
    let i = gpu::global_id_x();
    if i < out.len() {
        let mut n = 0u32;
        for _ in (0..4usize).step_by(step + i) {
            n += 1;
        }
        out[i] = n;
    }
}

/// `out[i] = x[i] / d[i]`: threads whose `d[i]` is zero stop before their store.
#[kernel]
fn quotients(out: &mut [u32], x: &[u32], d: &[u32]) {
    let i = gpu::global_id_x();
    if i < out.len() {
        let q = x[i] / d[i];
        out[i] = q;
    }
}

/// Each thread publishes `x[i]` in shared memory, divides (threads with a zero `d[i]` stop
/// there, before the barrier), waits, and adds its right neighbour's value.
#[kernel]
fn neighbours(out: &mut [u32], x: &[u32], d: &[u32]) {
    let s = gpu::shared_array::<u32, 256>();
    let t = gpu::thread_idx().x as usize;
    let i = gpu::global_id_x();
    s[t] = x[i];
    let q = 1000 / d[i];
    gpu::sync_threads();
    out[i] = s[(t + 1) % 256] + q;
}

/// The line of this file holding `needle`.
fn line_of(needle: &str) -> u32 {
    include_str!("gpu_faults.rs")
        .lines()
        .position(|l| l.contains(needle))
        .unwrap_or_else(|| panic!("{needle} not in gpu_faults.rs")) as u32
        + 1
}

/// The message Rust's own panic prints when `f` fails.
fn rust_panic(f: impl FnOnce() + std::panic::UnwindSafe) -> String {
    let hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(|_| {}));
    let p = std::panic::catch_unwind(f).expect_err("the host reference fails");
    std::panic::set_hook(hook);
    p.downcast_ref::<String>()
        .cloned()
        .or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()))
        .expect("a panic message")
}

/// The kernel panic of `result`, or a test failure.
fn expect_panic(result: cuprum::Result<()>, kernel: &str) -> Box<cuprum::KernelPanic> {
    match result {
        Err(Error::KernelPanic(p)) => {
            assert_eq!(p.kernel, kernel, "{p}");
            assert!(p.file.ends_with("gpu_faults.rs"), "{p}");
            p
        }
        other => panic!("expected a panic of {kernel}, got {other:?}"),
    }
}

#[test]
fn kernels_with_one_name_in_two_modules_report_their_own_failures() -> cuprum::Result<()> {
    on_backends(|dev| {
        let stream = dev.new_stream()?;
        let mut rng = fastrand::Rng::new();
        let n = 64 * rng.usize(1..8);
        let mut out = stream.to_device(&vec![u32::MAX; n])?;
        let mut d: Vec<u32> = (0..n).map(|_| rng.u32(1..100)).collect();
        let zero_at = rng.usize(0..n);
        d[zero_at] = 0;
        let dd = stream.to_device(&d)?;
        // Each twin is launched twice, in both orders, so that whichever registered first, a
        // shared identity would report one twin's failure with the other's site.
        for _ in 0..2 {
            let r = launch!(first::twin<<<n as u32 / 64, 64, stream>>>(&mut out))
                .and_then(|()| stream.synchronize());
            let p = expect_panic(r, "twin");
            assert_eq!(p.line, line_of("// first twin"), "{p}");
            let v = vec![0u32; n];
            let want = rust_panic(move || {
                std::hint::black_box(v[n]);
            });
            assert_eq!(p.message, want, "{p}");
            assert_eq!(p.block.x * 64 + p.thread.x, n as u32 - 1, "{p}");

            let r = launch!(second::twin<<<n as u32 / 64, 64, stream>>>(&mut out, &dd))
                .and_then(|()| stream.synchronize());
            let p = expect_panic(r, "twin");
            assert_eq!(p.line, line_of("// second twin"), "{p}");
            let zero = std::hint::black_box(0u32);
            assert_eq!(
                p.message,
                rust_panic(move || {
                    std::hint::black_box(7 / zero);
                }),
                "{p}"
            );
            assert_eq!(p.block.x * 64 + p.thread.x, zero_at as u32, "{p}");
        }
        Ok(())
    })
}

#[test]
fn every_check_kind_reports_rusts_message() -> cuprum::Result<()> {
    on_backends(|dev| {
        let stream = dev.default_stream();
        let mut rng = fastrand::Rng::new();
        let n = 32 * rng.usize(1..16);
        let bad = rng.usize(0..n);

        // Index: only the last thread reads past the end of `x`.
        let x: Vec<u32> = (0..n).map(|_| rng.u32(..)).collect();
        let dx = stream.to_device(&x)?;
        let mut out = stream.alloc_zeros::<u32>(n)?;
        let r = launch!(index_past<<<n as u32 / 32, 32, stream>>>(&mut out, &dx, 1))
            .and_then(|()| stream.synchronize());
        let p = expect_panic(r, "index_past");
        let host = x.clone();
        assert_eq!(
            p.message,
            rust_panic(move || {
                std::hint::black_box(host[n]);
            }),
            "{p}"
        );
        assert_eq!(p.line, line_of("// index check"), "{p}");
        assert_eq!(p.thread.x + p.block.x * 32, n as u32 - 1, "{p}");

        // Division and remainder by zero, at a random thread.
        let mut d: Vec<i64> = (0..n).map(|_| rng.i64(1..1000)).collect();
        d[bad] = 0;
        let dd = stream.to_device(&d)?;
        let mut out64 = stream.alloc_zeros::<i64>(n)?;
        let r = launch!(divide_by<<<n as u32 / 32, 32, stream>>>(&mut out64, &dd))
            .and_then(|()| stream.synchronize());
        let p = expect_panic(r, "divide_by");
        let zero = std::hint::black_box(0i64);
        assert_eq!(
            p.message,
            rust_panic(move || {
                std::hint::black_box(1000 / zero);
            }),
            "{p}"
        );
        assert_eq!(p.line, line_of("// division check"), "{p}");
        assert_eq!(p.thread.x + p.block.x * 32, bad as u32, "{p}");

        let mut d: Vec<u16> = (0..n).map(|_| rng.u16(1..1000)).collect();
        d[bad] = 0;
        let dd = stream.to_device(&d)?;
        let mut out16 = stream.alloc_zeros::<u16>(n)?;
        let r = launch!(remainder_by<<<n as u32 / 32, 32, stream>>>(&mut out16, &dd))
            .and_then(|()| stream.synchronize());
        let p = expect_panic(r, "remainder_by");
        let zero = std::hint::black_box(0u16);
        assert_eq!(
            p.message,
            rust_panic(move || {
                std::hint::black_box(1000 % zero);
            }),
            "{p}"
        );
        assert_eq!(p.line, line_of("// remainder check"), "{p}");
        assert_eq!(p.thread.x + p.block.x * 32, bad as u32, "{p}");

        // `step_by(0)`: the step is `step + i`, zero for thread 0 only.
        let r = launch!(step_by_zero<<<n as u32 / 32, 32, stream>>>(&mut out, 0))
            .and_then(|()| stream.synchronize());
        let p = expect_panic(r, "step_by_zero");
        let zero = std::hint::black_box(0usize);
        assert_eq!(
            p.message,
            rust_panic(move || {
                let _ = std::hint::black_box((0..4usize).step_by(zero));
            }),
            "{p}"
        );
        assert_eq!(p.line, line_of(".step_by(step + i)"), "{p}");
        assert_eq!((p.block.x, p.thread.x), (0, 0), "{p}");
        Ok(())
    })
}

#[path = "kernels/param_limit.rs"]
mod param_limit;
use param_limit::*;

/// The compiler's parameter-space limit is the one the driver applies: a kernel exactly at it
/// loads and launches, and every parameter arrives.
#[test]
fn a_kernel_at_the_parameter_space_limit_launches() -> cuprum::Result<()> {
    on_backends(|dev| {
        let stream = dev.default_stream();
        let mut rng = fastrand::Rng::new();
        let v: [u64; WIDE_PARAMS] = std::array::from_fn(|_| rng.u64(..));
        let mut out = stream.to_device(&vec![u64::MAX; WIDE_PARAMS])?;
        launch_widest(&stream, &mut out, &v)?;
        assert_eq!(stream.to_host(&out)?, v);
        Ok(())
    })
}

#[path = "kernels/big_frame.rs"]
mod big_frame_kernel;
use big_frame_kernel::*;

/// A kernel that waits at a barrier (coroutines on the simulator) with a 320 KiB frame runs,
/// rather than overflowing a simulated thread's stack.
///
/// On a GPU the driver reserves the frame for every thread an SM can hold: 320 KiB × 2048 ×
/// 132 SMs is 88 GB, more than an 80 GB H100 has, which refuses the launch with
/// `CUDA_ERROR_OUT_OF_MEMORY` (seen 2026-12-06; a 141 GB H200 runs it). There the refusal must
/// be that error, returned, and only where the reservation exceeds the device's memory.
#[test]
fn a_cooperative_kernel_with_large_local_arrays_runs() -> cuprum::Result<()> {
    on_backends(|dev| {
        let stream = dev.default_stream();
        let mut rng = fastrand::Rng::new();
        let threads = 64;
        let x: Vec<f64> = (0..threads).map(|_| rng.f64()).collect();
        let s = rng.usize(0..1024);
        let dx = stream.to_device(&x)?;
        let mut out = stream.to_device(&vec![f64::NAN; threads])?;
        let launched = launch!(big_frame<<<1, threads as u32, stream>>>(&mut out, &dx, s));
        if let Err(Error::Driver { source, .. }) = &launched {
            if !dev.is_simulator()
                && source.0 == cudarc::driver::sys::CUresult::CUDA_ERROR_OUT_OF_MEMORY
            {
                let (_, total) = dev.memory_info()?;
                // Threads per SM: 2048 on sm_80 and sm_90, at least 1024 elsewhere.
                let per_sm = match dev.compute_capability() {
                    (8, 0) | (9, 0) => 2048,
                    _ => 1024,
                };
                let frame = big_frame_kernel::ARRAYS * 1024 * std::mem::size_of::<f64>();
                let reserved = frame * per_sm * dev.multiprocessor_count() as usize;
                assert!(
                    reserved > total,
                    "out of memory, yet {reserved} bytes of frames fit in {total}"
                );
                eprintln!(
                    "{}: the driver refuses a {frame}-byte frame ({reserved} bytes reserved, {total} on the device)",
                    dev.name()
                );
                return Ok(());
            }
        }
        launched?;
        let got = stream.to_host(&out)?;
        for (t, g) in got.iter().enumerate() {
            assert_eq!(*g, big_frame_ref(&x, s, t), "thread {t}");
        }
        Ok(())
    })
}

/// Random distinct indices below `n`, a few of them.
fn some_indices(rng: &mut fastrand::Rng, n: usize, count: usize) -> Vec<usize> {
    let mut v: Vec<usize> = Vec::new();
    while v.len() < count {
        let i = rng.usize(0..n);
        if !v.contains(&i) {
            v.push(i);
        }
    }
    v
}

/// A failed check stops its own thread only, as on a GPU: every other thread's writes land,
/// and the failure of one of the failing threads is reported.
#[test]
fn a_failing_thread_stops_alone() -> cuprum::Result<()> {
    on_backends(|dev| {
        let stream = dev.default_stream();
        let mut rng = fastrand::Rng::new();
        let n = 64 * 256;
        let x: Vec<u32> = (0..n).map(|_| rng.u32(..)).collect();
        let mut d: Vec<u32> = (0..n).map(|_| rng.u32(1..1000)).collect();
        let bad = some_indices(&mut rng, n, 5);
        for &b in &bad {
            d[b] = 0;
        }
        let (dx, dd) = (stream.to_device(&x)?, stream.to_device(&d)?);
        let poison = u32::MAX;
        let mut out = stream.to_device(&vec![poison; n])?;
        let r = launch!(quotients<<<64, 256, stream>>>(&mut out, &dx, &dd))
            .and_then(|()| stream.synchronize());
        let p = expect_panic(r, "quotients");
        let failed = (p.block.x * 256 + p.thread.x) as usize;
        assert!(bad.contains(&failed), "{p}; failing threads {bad:?}");
        let got = stream.to_host(&out)?;
        for i in 0..n {
            let want = if bad.contains(&i) {
                poison
            } else {
                x[i] / d[i]
            };
            assert_eq!(got[i], want, "element {i}");
        }
        Ok(())
    })
}

/// A thread that stops before a barrier does not hold up the others (PTX: a barrier waits
/// for the threads that have not exited): they pass it and write their results.
#[test]
fn a_thread_that_fails_before_a_barrier_does_not_hold_it_up() -> cuprum::Result<()> {
    on_backends(|dev| {
        let stream = dev.default_stream();
        let mut rng = fastrand::Rng::new();
        let blocks = 8;
        let n = blocks * 256;
        let x: Vec<u32> = (0..n).map(|_| rng.u32(0..1 << 20)).collect();
        let mut d: Vec<u32> = (0..n).map(|_| rng.u32(1..1000)).collect();
        let bad = some_indices(&mut rng, n, 3);
        for &b in &bad {
            d[b] = 0;
        }
        let (dx, dd) = (stream.to_device(&x)?, stream.to_device(&d)?);
        let poison = u32::MAX;
        let mut out = stream.to_device(&vec![poison; n])?;
        let r = launch!(neighbours<<<blocks as u32, 256, stream>>>(&mut out, &dx, &dd))
            .and_then(|()| stream.synchronize());
        let p = expect_panic(r, "neighbours");
        let failed = (p.block.x * 256 + p.thread.x) as usize;
        assert!(bad.contains(&failed), "{p}; failing threads {bad:?}");
        let got = stream.to_host(&out)?;
        for i in 0..n {
            let right = i / 256 * 256 + (i % 256 + 1) % 256;
            let want = if bad.contains(&i) {
                poison
            } else {
                x[right] + 1000 / d[i]
            };
            assert_eq!(got[i], want, "element {i}");
        }
        Ok(())
    })
}
