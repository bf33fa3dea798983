//! What only the simulator reports: a barrier that not every thread reaches, threads waiting
//! at different barriers. (Out-of-bounds indexing is reported on both; see gpu_checks.rs.)

use cuprum::prelude::*;

// saxpy is the example's (one home per kernel).
#[allow(dead_code)]
#[path = "../examples/saxpy.rs"]
mod saxpy_example;

/// Threads past `limit` return before the barrier the others wait at.
#[kernel]
pub fn early_exit_before_barrier(out: &mut [u32], limit: u32) {
    let t = gpu::thread_idx().x;
    if t >= limit {
        return;
    }
    gpu::sync_threads(); // the barrier some threads never reach
    out[t as usize] = t;
}

/// Even and odd threads wait at different barriers.
#[kernel]
pub fn split_barriers(out: &mut [u32]) {
    let t = gpu::thread_idx().x;
    if t % 2 == 0 {
        gpu::sync_threads();
    } else {
        gpu::sync_threads();
    }
    out[t as usize] = t;
}

/// One lane of each warp fails its index check before a full-warp shuffle the others wait
/// at (on a GPU the shuffle then names an exited lane, which is undefined).
#[kernel]
pub fn failed_lane_then_shuffle(out: &mut [u32], x: &[u32], bad: u32) {
    let t = gpu::thread_idx().x;
    let v = if t % 32 == bad {
        x[x.len()] // the failing read
    } else {
        x[t as usize]
    };
    let w = gpu::shfl_xor_sync(gpu::FULL_MASK, v, 1);
    out[t as usize] = w;
}

fn line_of(needle: &str) -> u32 {
    include_str!("simulator.rs")
        .lines()
        .position(|l| l.contains(needle))
        .expect("line present") as u32
        + 1
}

#[test]
fn divergent_barrier_is_an_error_naming_block_and_thread() -> cuprum::Result<()> {
    let dev = Device::simulator();
    let stream = dev.default_stream();
    let mut out = stream.alloc_zeros::<u32>(64)?;
    launch!(early_exit_before_barrier<<<(2, 3), 64, stream>>>(&mut out, 40))?;
    match stream.synchronize() {
        Err(Error::KernelPanic(p)) => {
            assert_eq!(p.kernel, "early_exit_before_barrier");
            assert!(
                p.message.contains("barrier divergence")
                    && p.message.contains("returned without reaching the barrier"),
                "{p}"
            );
            assert_eq!(
                p.line,
                line_of("// the barrier some threads never reach"),
                "{p}"
            );
            assert!(
                p.thread.x >= 40,
                "the reported thread is one that left: {p}"
            );
            assert_eq!(
                p.block,
                Dim3::new(0, 0, 0),
                "the first block fails first: {p}"
            );
        }
        other => panic!("expected a barrier divergence, got {other:?}"),
    }
    // The threads below the limit never got past the barrier: nothing was written.
    assert!(stream.to_host(&out)?.iter().all(|&v| v == 0));
    // The same kernel with every thread reaching the barrier is fine.
    launch!(early_exit_before_barrier<<<1, 64, stream>>>(&mut out, 64))?;
    assert_eq!(stream.to_host(&out)?, (0..64).collect::<Vec<u32>>());
    Ok(())
}

#[test]
fn threads_at_different_barriers_are_an_error() -> cuprum::Result<()> {
    let stream = Device::simulator().default_stream();
    let mut out = stream.alloc_zeros::<u32>(32)?;
    launch!(split_barriers<<<1, 32, stream>>>(&mut out))?;
    match stream.synchronize() {
        Err(Error::KernelPanic(p)) => {
            assert!(
                p.message.contains("waits at the barrier at") && p.message.contains("while thread"),
                "{p}"
            );
            assert_eq!(p.kernel, "split_barriers");
        }
        other => panic!("expected a barrier divergence, got {other:?}"),
    }
    Ok(())
}

#[test]
fn million_element_saxpy_runs_on_the_simulator() -> cuprum::Result<()> {
    use saxpy_example::saxpy;
    let stream = Device::simulator().default_stream();
    let n = 1 << 20;
    let x = cuprum_testkit::random_f32(n, -1.0, 1.0);
    let y = cuprum_testkit::random_f32(n, -1.0, 1.0);
    let (dx, mut dy) = (stream.to_device(&x)?, stream.to_device(&y)?);
    let t0 = std::time::Instant::now();
    launch!(saxpy<<<LaunchConfig::for_elements(n, 256).grid, 256, stream>>>(&mut dy, &dx, 1.5))?;
    let got = stream.to_host(&dy)?;
    eprintln!("simulated saxpy of {n} elements in {:?}", t0.elapsed());
    for i in 0..n {
        assert_eq!(got[i], 1.5 * x[i] + y[i], "element {i}");
    }
    Ok(())
}

/// A warp operation that names a lane which stopped at a failed check cannot complete: the
/// simulator reports the failed check (the first failure), not the shuffle, and does not hang.
#[test]
fn a_warp_operation_naming_a_failed_lane_reports_the_failed_check() -> cuprum::Result<()> {
    let dev = Device::simulator();
    let stream = dev.default_stream();
    let bad = fastrand::u32(0..32);
    let x = stream.to_device(&cuprum_testkit::random_u32(64))?;
    let mut out = stream.alloc_zeros::<u32>(64)?;
    launch!(failed_lane_then_shuffle<<<2, 64, stream>>>(&mut out, &x, bad))?;
    match stream.synchronize() {
        Err(Error::KernelPanic(p)) => {
            assert!(p.message.starts_with("index out of bounds"), "{p}");
            assert_eq!(p.line, line_of("// the failing read"), "{p}");
            assert_eq!(p.thread.x % 32, bad, "{p}");
        }
        other => panic!("expected the failed check, got {other:?}"),
    }
    Ok(())
}
