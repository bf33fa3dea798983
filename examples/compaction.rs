//! Stream compaction: keep the particles whose energy passes a threshold, in their order, as
//! a particle filter or a culling pass does. Built on the cooperative primitives and the
//! device-wide algorithms:
//!
//! 1. each block counts its kept elements with `gpu::block::sum`;
//! 2. `algorithms::exclusive_sum` turns the counts into each block's first output slot;
//! 3. each block ranks its kept elements with `gpu::block::exclusive_sum` and writes them to
//!    slot + rank (so the order of the input is kept);
//!
//! then `algorithms::sum` of the counts is the kept total, `algorithms::max` the largest kept
//! energy, and `algorithms::sort_pairs` orders the kept particles by energy with their
//! indices. Everything is checked against the CPU.
//!
//! Run: `cargo run --release --example compaction`. Exits non-zero when a result is wrong,
//! and on a GPU exits (code 3, naming the step) when a step does not finish in
//! [`STEP_LIMIT`]: CUDA cannot stop a running kernel, so waiting for one that never ends
//! would never return.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use cuprum::algorithms;
use cuprum::prelude::*;

/// Threads per block (any multiple of 32 up to 1024 works with the block primitives).
const BLOCK: u32 = 256;

/// `counts[b]` = how many of block `b`'s elements have `energy[i] > threshold`.
#[kernel]
pub fn count_kept(counts: &mut [u32], energy: &[f32], threshold: f32) {
    let i = gpu::global_id_x();
    let kept = i < energy.len() && energy[i] > threshold;
    let n = gpu::block::sum(kept as u32);
    if gpu::thread_idx().x == 0 {
        counts[gpu::block_idx().x as usize] = n;
    }
}

/// Writes the kept elements (energy and index) of block `b` from `first[b]` on, in order.
#[kernel]
pub fn write_kept(
    kept_energy: &mut [f32],
    kept_index: &mut [u32],
    energy: &[f32],
    first: &[u32],
    threshold: f32,
) {
    let i = gpu::global_id_x();
    let kept = i < energy.len() && energy[i] > threshold;
    let rank = gpu::block::exclusive_sum(kept as u32);
    if kept {
        let slot = (first[gpu::block_idx().x as usize] + rank) as usize;
        kept_energy[slot] = energy[i];
        kept_index[slot] = i as u32;
    }
}

/// The longest one step may take on a GPU (each takes milliseconds at 50 M elements).
pub const STEP_LIMIT: Duration = Duration::from_secs(20);

/// The step running now and since when; on a GPU a watchdog thread ends the process when one
/// runs past [`STEP_LIMIT`] (the library's calls that return host values wait for the GPU
/// inside, so only another thread can give up on them). Stopped when dropped.
struct Watchdog {
    step: Arc<Mutex<(&'static str, Instant)>>,
    done: Arc<AtomicBool>,
}

impl Watchdog {
    fn new(dev: &Device) -> Watchdog {
        let step = Arc::new(Mutex::new(("uploading the input", Instant::now())));
        let done = Arc::new(AtomicBool::new(false));
        if !dev.is_simulator() {
            let (step, done) = (step.clone(), done.clone());
            std::thread::spawn(move || {
                while !done.load(Ordering::Relaxed) {
                    std::thread::sleep(Duration::from_millis(50));
                    let (name, since) = *step.lock().unwrap_or_else(|e| e.into_inner());
                    if !done.load(Ordering::Relaxed) && since.elapsed() > STEP_LIMIT {
                        eprintln!("compaction: STUCK: {name} did not finish in {STEP_LIMIT:?}");
                        std::process::exit(3);
                    }
                }
            });
        }
        Watchdog { step, done }
    }

    /// Marks the start of `name`.
    fn step(&self, name: &'static str) {
        *self.step.lock().unwrap_or_else(|e| e.into_inner()) = (name, Instant::now());
    }
}

impl Drop for Watchdog {
    fn drop(&mut self) {
        self.done.store(true, Ordering::Relaxed);
    }
}

/// Runs the example on `dev`.
pub fn run(dev: &Device) -> Result<std::result::Result<String, String>> {
    let n = if cuprum_testkit::small_inputs(dev) {
        300_001
    } else {
        50_000_017
    };
    run_with(dev, n, true)
}

/// The example with `n` particles (`tests/gpu_algorithms.rs` runs it at other sizes). With
/// `each_step_alone`, the host waits for each step before queueing the next (so that a step
/// that does not finish is the one named); without, the work is queued as a program would.
pub fn run_with(
    dev: &Device,
    n: usize,
    each_step_alone: bool,
) -> Result<std::result::Result<String, String>> {
    let stream = dev.default_stream();
    let watchdog = Watchdog::new(dev);
    let wait = || {
        if each_step_alone {
            stream.synchronize()
        } else {
            Ok(())
        }
    };
    let energy = cuprum_testkit::random_f32(n, 0.0, 10.0);
    let threshold = 7.5;
    let blocks = n.div_ceil(BLOCK as usize);
    let de = stream.to_device(&energy)?;
    let mut counts = stream.alloc_zeros::<u32>(blocks)?;
    watchdog.step("count_kept");
    launch!(count_kept<<<blocks as u32, BLOCK, stream>>>(&mut counts, &de, threshold))?;
    wait()?;
    let mut first = stream.alloc_zeros::<u32>(blocks)?;
    watchdog.step("algorithms::exclusive_sum of the block counts");
    algorithms::exclusive_sum(&stream, &counts, &mut first)?;
    wait()?;
    watchdog.step("algorithms::sum of the block counts");
    let total = algorithms::sum(&stream, &counts)? as usize;
    if total > n {
        return Ok(Err(format!(
            "the block counts add up to {total}, more than the {n} inputs"
        )));
    }
    let mut kept_energy = stream.to_device(&vec![f32::NAN; total])?;
    let mut kept_index = stream.to_device(&vec![u32::MAX; total])?;
    watchdog.step("write_kept");
    launch!(write_kept<<<blocks as u32, BLOCK, stream>>>(
        &mut kept_energy, &mut kept_index, &de, &first, threshold
    ))?;
    wait()?;
    watchdog.step("algorithms::max of the kept energies");
    let largest = algorithms::max(&stream, &kept_energy)?;
    let (got_e, got_i) = (stream.to_host(&kept_energy)?, stream.to_host(&kept_index)?);
    watchdog.step("algorithms::sort_pairs of the kept particles");
    algorithms::sort_pairs(&stream, &mut kept_energy, &mut kept_index)?;
    let (sorted_e, sorted_i) = (stream.to_host(&kept_energy)?, stream.to_host(&kept_index)?);
    drop(watchdog);

    // The CPU's answers.
    let want: Vec<(f32, u32)> = (0..n)
        .filter(|&i| energy[i] > threshold)
        .map(|i| (energy[i], i as u32))
        .collect();
    if total != want.len() {
        return Ok(Err(format!("kept {total}, expected {}", want.len())));
    }
    if let Some(k) = (0..total).find(|&k| (got_e[k], got_i[k]) != want[k]) {
        return Ok(Err(format!(
            "kept element {k}: ({}, {}), expected {:?}",
            got_e[k], got_i[k], want[k]
        )));
    }
    let want_max = want.iter().map(|p| p.0).reduce(f32::max);
    if largest != want_max {
        return Ok(Err(format!(
            "largest kept {largest:?}, expected {want_max:?}"
        )));
    }
    let mut by_energy = want.clone();
    by_energy.sort_by(|a, b| a.0.total_cmp(&b.0));
    if let Some(k) = (0..total).find(|&k| (sorted_e[k], sorted_i[k]) != by_energy[k]) {
        return Ok(Err(format!(
            "sorted element {k}: ({}, {}), expected {:?}",
            sorted_e[k], sorted_i[k], by_energy[k]
        )));
    }
    Ok(Ok(format!(
        "kept {total} of {n} particles above {threshold} in order, largest {:.4}, sorted by energy",
        want_max.unwrap_or(f32::NAN)
    )))
}

fn main() -> std::process::ExitCode {
    cuprum_testkit::example_main("compaction", run)
}
