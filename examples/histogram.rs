//! A 256-bin histogram: per-block counts with atomics on shared memory, merged into the
//! global bins with one atomic per bin and block.
//!
//! Run: `cargo run --release --example histogram`. Exits non-zero when the result is wrong.

use cuprum::prelude::*;

/// `bins[v & 255] += 1` for every `v` in `data`: block 256 (one thread per bin), any grid.
#[cuprum_testkit::unchecked_twin]
#[kernel]
pub fn histogram(bins: &mut [u32], data: &[u32]) {
    let s = gpu::shared_array::<u32, 256>();
    let t = gpu::thread_idx().x as usize;
    s[t] = 0;
    gpu::sync_threads();
    for i in (gpu::global_id_x()..data.len()).step_by(gpu::grid_stride_x()) {
        gpu::atomic_add(&mut s[(data[i] & 255) as usize], 1);
    }
    gpu::sync_threads();
    if s[t] != 0 {
        gpu::atomic_add(&mut bins[t], s[t]);
    }
}

/// The histogram of `data` computed on `stream`'s device.
pub fn compute(stream: &Stream, data: &[u32], blocks: u32) -> Result<Vec<u32>> {
    let d = stream.to_device(data)?;
    let mut bins = stream.alloc_zeros::<u32>(256)?;
    launch!(histogram<<<blocks, 256, stream>>>(&mut bins, &d))?;
    stream.to_host(&bins)
}

/// Random data.
pub fn inputs(dev: &Device) -> Vec<u32> {
    cuprum_testkit::random_u32(if cuprum_testkit::small_inputs(dev) {
        1 << 20
    } else {
        1 << 26
    })
}

/// Checks against a CPU histogram, exactly.
pub fn check(data: &[u32], got: &[u32]) -> std::result::Result<String, String> {
    let mut want = vec![0u32; 256];
    for &v in data {
        want[(v & 255) as usize] += 1;
    }
    match (0..256).find(|&b| got[b] != want[b]) {
        None => Ok(format!("{} values in 256 bins, exact", data.len())),
        Some(b) => Err(format!("bin {b}: {} counted, {} expected", got[b], want[b])),
    }
}

/// Runs the example on `dev`.
pub fn run(dev: &Device) -> Result<std::result::Result<String, String>> {
    let data = inputs(dev);
    let got = compute(
        &dev.default_stream(),
        &data,
        if cuprum_testkit::small_inputs(dev) {
            64
        } else {
            1024
        },
    )?;
    Ok(check(&data, &got))
}

fn main() -> std::process::ExitCode {
    cuprum_testkit::example_main("histogram", run)
}
