//! Shared memory (static 1-D and 2-D, dynamic) and atomics on global and shared places.

use cuprum::prelude::*;
use cuprum_testkit::device;

/// Block-level histogram in shared memory, merged into global bins with atomics.
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

fn rng() -> fastrand::Rng {
    fastrand::Rng::new()
}

#[test]
fn shared_histogram_counts_exactly() -> cuprum::Result<()> {
    let dev = device()?;
    let stream = dev.default_stream();
    let n = 100_003;
    let mut r = rng();
    let data: Vec<u32> = (0..n).map(|_| r.u32(..)).collect();
    let mut want = vec![0u32; 256];
    for &d in &data {
        want[(d & 255) as usize] += 1;
    }
    let dd = stream.to_device(&data)?;
    let mut bins = stream.alloc_zeros::<u32>(256)?;
    launch!(histogram<<<40, 256, stream>>>(&mut bins, &dd))?;
    assert_eq!(stream.to_host(&bins)?, want);
    Ok(())
}

/// 32×33 tiled transpose through a 2-D shared array.
#[kernel]
pub fn transpose(out: &mut [f32], inp: &[f32], rows: u32, cols: u32) {
    let tile = gpu::shared_array_2d::<f32, 32, 33>();
    let (bx, by) = (gpu::block_idx().x * 32, gpu::block_idx().y * 32);
    let (tx, ty) = (gpu::thread_idx().x, gpu::thread_idx().y);
    for k in (0..32).step_by(8) {
        let (r, c) = (by + ty + k, bx + tx);
        if r < rows && c < cols {
            tile[(ty + k) as usize][tx as usize] = inp[(r * cols + c) as usize];
        }
    }
    gpu::sync_threads();
    for k in (0..32).step_by(8) {
        let (r, c) = (bx + ty + k, by + tx);
        if r < cols && c < rows {
            out[(r * rows + c) as usize] = tile[tx as usize][(ty + k) as usize];
        }
    }
}

#[test]
fn transpose_through_a_2d_tile() -> cuprum::Result<()> {
    let dev = device()?;
    let stream = dev.default_stream();
    let (rows, cols) = (70u32, 45u32);
    let x = cuprum_testkit::random_f32((rows * cols) as usize, -1.0, 1.0);
    let dx = stream.to_device(&x)?;
    let mut out = stream.to_device(&vec![f32::NAN; x.len()])?;
    launch!(transpose<<<(cols.div_ceil(32), rows.div_ceil(32)), (32, 8), stream>>>(&mut out, &dx, rows, cols))?;
    let got = stream.to_host(&out)?;
    for r in 0..rows as usize {
        for c in 0..cols as usize {
            assert_eq!(
                got[c * rows as usize + r],
                x[r * cols as usize + c],
                "({r}, {c})"
            );
        }
    }
    Ok(())
}

/// Block-wide inclusive scan (Hillis–Steele) in dynamic shared memory sized by the launch.
#[kernel]
pub fn block_scan(out: &mut [i64], x: &[i64]) {
    let s = gpu::dynamic_shared::<i64>();
    let t = gpu::thread_idx().x as usize;
    let n = gpu::block_dim().x as usize;
    let base = gpu::block_idx().x as usize * n;
    let i = base + t;
    s[t] = if i < x.len() { x[i] } else { 0 };
    gpu::sync_threads();
    let mut offset = 1;
    while offset < n {
        let add = if t >= offset { s[t - offset] } else { 0 };
        gpu::sync_threads();
        s[t] += add;
        gpu::sync_threads();
        offset *= 2;
    }
    if i < out.len() {
        out[i] = s[t];
    }
    if t == 0 && s.len() != n {
        out[i] = -1; // the dynamic array's length is the launch's bytes / 8
    }
}

#[test]
fn block_scan_in_dynamic_shared_memory() -> cuprum::Result<()> {
    let dev = device()?;
    let stream = dev.default_stream();
    let (block, blocks) = (256usize, 9usize);
    let n = block * blocks - 17;
    let mut r = rng();
    let x: Vec<i64> = (0..n).map(|_| r.i64(-1000..1000)).collect();
    let dx = stream.to_device(&x)?;
    let mut out = stream.to_device(&vec![i64::MIN; n])?;
    launch!(block_scan<<<blocks as u32, block as u32, (block * 8) as u32, stream>>>(&mut out, &dx))?;
    let got = stream.to_host(&out)?;
    for b in 0..blocks {
        let mut acc = 0;
        for t in 0..block {
            let i = b * block + t;
            if i < n {
                acc += x[i];
                assert_eq!(got[i], acc, "element {i}");
            }
        }
    }
    Ok(())
}
