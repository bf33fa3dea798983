//! Inclusive prefix sums of 1024-element blocks (Blelloch's work-efficient scan) in dynamic
//! shared memory, sized by the launch.
//!
//! Run: `cargo run --release --example block_scan`. Exits non-zero when the result is wrong.

use cuprum::prelude::*;

/// Inclusive scan (wrapping `u32` sums) of each block's 1024 elements; block 512, grid
/// `len / 1024`, 4096 bytes of dynamic shared memory.
#[cuprum_testkit::unchecked_twin]
#[kernel]
pub fn block_scan(out: &mut [u32], inp: &[u32]) {
    let temp = gpu::dynamic_shared::<u32>();
    let t = gpu::thread_idx().x as usize;
    let base = gpu::block_idx().x as usize * 1024;
    let (v0, v1) = (inp[base + 2 * t], inp[base + 2 * t + 1]);
    temp[2 * t] = v0;
    temp[2 * t + 1] = v1;
    let mut offset = 1;
    let mut d = 512;
    while d > 0 {
        gpu::sync_threads();
        if t < d {
            let (ai, bi) = (offset * (2 * t + 1) - 1, offset * (2 * t + 2) - 1);
            temp[bi] += temp[ai];
        }
        offset *= 2;
        d /= 2;
    }
    if t == 0 {
        temp[1023] = 0;
    }
    let mut d = 1;
    while d < 1024 {
        offset /= 2;
        gpu::sync_threads();
        if t < d {
            let (ai, bi) = (offset * (2 * t + 1) - 1, offset * (2 * t + 2) - 1);
            let x = temp[ai];
            temp[ai] = temp[bi];
            temp[bi] += x;
        }
        d *= 2;
    }
    gpu::sync_threads();
    out[base + 2 * t] = temp[2 * t] + v0;
    out[base + 2 * t + 1] = temp[2 * t + 1] + v1;
}

/// The blockwise inclusive scan of `x` (a multiple of 1024 long), computed on `stream`'s device.
pub fn compute(stream: &Stream, x: &[u32]) -> Result<Vec<u32>> {
    let d = stream.to_device(x)?;
    let mut out = stream.to_device(&vec![0xdead_beef_u32; x.len()])?;
    launch!(block_scan<<<(x.len() / 1024) as u32, 512, 4096, stream>>>(&mut out, &d))?;
    stream.to_host(&out)
}

/// Random data, a multiple of 1024 long.
pub fn inputs(dev: &Device) -> Vec<u32> {
    cuprum_testkit::random_u32(if cuprum_testkit::small_inputs(dev) {
        1 << 16
    } else {
        1 << 26
    })
}

/// Checks every element against a CPU scan, exactly.
pub fn check(x: &[u32], got: &[u32]) -> std::result::Result<String, String> {
    for (b, chunk) in x.chunks(1024).enumerate() {
        let mut acc = 0u32;
        for (t, &v) in chunk.iter().enumerate() {
            acc = acc.wrapping_add(v);
            let i = b * 1024 + t;
            if got[i] != acc {
                return Err(format!("element {i}: {}, expected {acc}", got[i]));
            }
        }
    }
    Ok(format!("{} blocks of 1024 scanned exactly", x.len() / 1024))
}

/// Runs the example on `dev`.
pub fn run(dev: &Device) -> Result<std::result::Result<String, String>> {
    let x = inputs(dev);
    let got = compute(&dev.default_stream(), &x)?;
    Ok(check(&x, &got))
}

fn main() -> std::process::ExitCode {
    cuprum_testkit::example_main("block_scan", run)
}
