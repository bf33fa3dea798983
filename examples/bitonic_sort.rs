//! Bitonic sort of key/value pairs, as NVIDIA's sortingNetworks sample: the comparator is a
//! `#[device]` function taking `&mut` references to shared-memory (and global) elements.
//! Each block sorts 1024 pairs in shared memory; merges of longer runs go through global
//! memory while their stride is at least 1024, then finish in shared memory.
//!
//! Run: `cargo run --release --example bitonic_sort`. Exits non-zero when the result is wrong.

use cuprum::prelude::*;

/// Orders two pairs: ascending when `dir`, descending otherwise.
#[device]
pub fn comparator(key_a: &mut u32, val_a: &mut u32, key_b: &mut u32, val_b: &mut u32, dir: bool) {
    if (*key_a > *key_b) == dir {
        let t = *key_a;
        *key_a = *key_b;
        *key_b = t;
        let t = *val_a;
        *val_a = *val_b;
        *val_b = t;
    }
}

/// Sorts each block's 1024 pairs (512 threads): ascending in even blocks, descending in odd
/// ones, so that neighbours form bitonic runs for the merges.
#[kernel]
pub fn bitonic_sort_shared(keys: &mut [u32], vals: &mut [u32]) {
    let s_key = gpu::shared_array::<u32, 1024>();
    let s_val = gpu::shared_array::<u32, 1024>();
    let t = gpu::thread_idx().x as usize;
    let base = gpu::block_idx().x as usize * 1024;
    s_key[t] = keys[base + t];
    s_val[t] = vals[base + t];
    s_key[t + 512] = keys[base + t + 512];
    s_val[t + 512] = vals[base + t + 512];
    let mut size = 2;
    while size <= 1024 {
        let dir = if size == 1024 {
            gpu::block_idx().x % 2 == 0
        } else {
            (t & (size / 2)) == 0
        };
        let mut stride = size / 2;
        while stride > 0 {
            gpu::sync_threads();
            let pos = 2 * t - (t & (stride - 1));
            comparator(
                &mut s_key[pos],
                &mut s_val[pos],
                &mut s_key[pos + stride],
                &mut s_val[pos + stride],
                dir,
            );
            stride /= 2;
        }
        size *= 2;
    }
    gpu::sync_threads();
    keys[base + t] = s_key[t];
    vals[base + t] = s_val[t];
    keys[base + t + 512] = s_key[t + 512];
    vals[base + t + 512] = s_val[t + 512];
}

/// One merge step of runs of `size` at a `stride` of 1024 or more, in global memory: one
/// comparator per thread.
#[kernel]
pub fn bitonic_merge_global(keys: &mut [u32], vals: &mut [u32], size: usize, stride: usize) {
    let c = gpu::global_id_x();
    if c < keys.len() / 2 {
        let pos = 2 * c - (c & (stride - 1));
        let dir = (c & (size / 2)) == 0;
        comparator(
            &mut keys[pos],
            &mut vals[pos],
            &mut keys[pos + stride],
            &mut vals[pos + stride],
            dir,
        );
    }
}

/// The merge steps of runs of `size` at strides 512 down to 1, in shared memory (1024 pairs
/// per block of 512 threads).
#[kernel]
pub fn bitonic_merge_shared(keys: &mut [u32], vals: &mut [u32], size: usize) {
    let s_key = gpu::shared_array::<u32, 1024>();
    let s_val = gpu::shared_array::<u32, 1024>();
    let t = gpu::thread_idx().x as usize;
    let base = gpu::block_idx().x as usize * 1024;
    s_key[t] = keys[base + t];
    s_val[t] = vals[base + t];
    s_key[t + 512] = keys[base + t + 512];
    s_val[t + 512] = vals[base + t + 512];
    let c = gpu::block_idx().x as usize * 512 + t;
    let dir = (c & (size / 2)) == 0;
    let mut stride = 512;
    while stride > 0 {
        gpu::sync_threads();
        let pos = 2 * t - (t & (stride - 1));
        comparator(
            &mut s_key[pos],
            &mut s_val[pos],
            &mut s_key[pos + stride],
            &mut s_val[pos + stride],
            dir,
        );
        stride /= 2;
    }
    gpu::sync_threads();
    keys[base + t] = s_key[t];
    vals[base + t] = s_val[t];
    keys[base + t + 512] = s_key[t + 512];
    vals[base + t + 512] = s_val[t + 512];
}

/// Sorts `keys` (a power of two, at least 1024 long) with their indices as values, on
/// `stream`'s device: the sorted keys and the values that travelled with them.
pub fn compute(stream: &Stream, keys: &[u32]) -> Result<(Vec<u32>, Vec<u32>)> {
    let n = keys.len();
    let vals: Vec<u32> = (0..n as u32).collect();
    let (mut dk, mut dv) = (stream.to_device(keys)?, stream.to_device(&vals)?);
    let chunks = (n / 1024) as u32;
    launch!(bitonic_sort_shared<<<chunks, 512, stream>>>(&mut dk, &mut dv))?;
    let mut size = 2048;
    while size <= n {
        let mut stride = size / 2;
        while stride >= 1024 {
            let blocks = (n / 2).div_ceil(256) as u32;
            launch!(bitonic_merge_global<<<blocks, 256, stream>>>(&mut dk, &mut dv, size, stride))?;
            stride /= 2;
        }
        launch!(bitonic_merge_shared<<<chunks, 512, stream>>>(&mut dk, &mut dv, size))?;
        size *= 2;
    }
    Ok((stream.to_host(&dk)?, stream.to_host(&dv)?))
}

/// Random keys, a power of two of them.
pub fn inputs(dev: &Device) -> Vec<u32> {
    let n = if cuprum_testkit::small_inputs(dev) {
        1 << 13
    } else {
        1 << 22
    };
    cuprum_testkit::random_u32(n)
}

/// The keys must be the CPU's sort of the input, and each value the index its key came from.
pub fn check(keys: &[u32], got: &(Vec<u32>, Vec<u32>)) -> std::result::Result<String, String> {
    let (gk, gv) = got;
    let mut want = keys.to_vec();
    want.sort_unstable();
    if let Some(i) = (0..keys.len()).find(|&i| gk[i] != want[i]) {
        return Err(format!("key {i}: {}, expected {}", gk[i], want[i]));
    }
    let mut seen = vec![false; keys.len()];
    for (i, &v) in gv.iter().enumerate() {
        let v = v as usize;
        if v >= keys.len() || seen[v] || keys[v] != gk[i] {
            return Err(format!("value {i}: {v} is not the index of key {}", gk[i]));
        }
        seen[v] = true;
    }
    Ok(format!("{} pairs", keys.len()))
}

/// Runs the example on `dev`.
pub fn run(dev: &Device) -> Result<std::result::Result<String, String>> {
    let keys = inputs(dev);
    let got = compute(&dev.default_stream(), &keys)?;
    Ok(check(&keys, &got))
}

fn main() -> std::process::ExitCode {
    cuprum_testkit::example_main("bitonic_sort", run)
}
