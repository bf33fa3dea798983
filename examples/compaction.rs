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
//! Run: `cargo run --release --example compaction`. Exits non-zero when a result is wrong.

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

/// Runs the example on `dev`.
pub fn run(dev: &Device) -> Result<std::result::Result<String, String>> {
    let stream = dev.default_stream();
    let n = if cuprum_testkit::small_inputs(dev) {
        300_001
    } else {
        50_000_017
    };
    let energy = cuprum_testkit::random_f32(n, 0.0, 10.0);
    let threshold = 7.5;
    let blocks = n.div_ceil(BLOCK as usize);
    let de = stream.to_device(&energy)?;
    let mut counts = stream.alloc_zeros::<u32>(blocks)?;
    launch!(count_kept<<<blocks as u32, BLOCK, stream>>>(&mut counts, &de, threshold))?;
    let mut first = stream.alloc_zeros::<u32>(blocks)?;
    algorithms::exclusive_sum(&stream, &counts, &mut first)?;
    let total = algorithms::sum(&stream, &counts)? as usize;
    if total > n {
        return Ok(Err(format!(
            "the block counts add up to {total}, more than the {n} inputs"
        )));
    }
    let mut kept_energy = stream.to_device(&vec![f32::NAN; total])?;
    let mut kept_index = stream.to_device(&vec![u32::MAX; total])?;
    launch!(write_kept<<<blocks as u32, BLOCK, stream>>>(
        &mut kept_energy, &mut kept_index, &de, &first, threshold
    ))?;
    let largest = algorithms::max(&stream, &kept_energy)?;
    let (got_e, got_i) = (stream.to_host(&kept_energy)?, stream.to_host(&kept_index)?);
    algorithms::sort_pairs(&stream, &mut kept_energy, &mut kept_index)?;
    let (sorted_e, sorted_i) = (stream.to_host(&kept_energy)?, stream.to_host(&kept_index)?);

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
