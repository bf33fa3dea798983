//! The Cuprum side of the suite (bench/SPEC.md): each kernel checked (the default) and
//! `unchecked`, from one body.

#![allow(clippy::too_many_arguments)]

use cuprum::prelude::*;

/// Defines a kernel twice, bounds-checked and `#[kernel(unchecked)]`, from one body.
macro_rules! pair {
    ($checked:ident, $unchecked:ident ($($p:ident: $t:ty),* $(,)?) { $($body:tt)* }) => {
        #[kernel]
        pub fn $checked($($p: $t),*) { $($body)* }
        #[kernel(unchecked)]
        pub fn $unchecked($($p: $t),*) { $($body)* }
    };
}

pair!(reduce_sum, reduce_sum_unchecked(out: &mut [f32], x: &[f32]) {
    let warp_sums = gpu::shared_array::<f32, 8>();
    let mut v = 0.0f32;
    for i in (gpu::global_id_x()..x.len()).step_by(gpu::grid_stride_x()) {
        v += x[i];
    }
    for o in [16u32, 8, 4, 2, 1] {
        v += gpu::shfl_down_sync(gpu::FULL_MASK, v, o);
    }
    let (lane, warp) = (gpu::lane_id(), gpu::warp_id() as usize);
    if lane == 0 {
        warp_sums[warp] = v;
    }
    gpu::sync_threads();
    if warp == 0 {
        v = if lane < 8 { warp_sums[lane as usize] } else { 0.0 };
        for o in [16u32, 8, 4, 2, 1] {
            v += gpu::shfl_down_sync(gpu::FULL_MASK, v, o);
        }
        if lane == 0 {
            gpu::atomic_add(&mut out[0], v);
        }
    }
});

pair!(histogram, histogram_unchecked(bins: &mut [u32], data: &[u32]) {
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
});

pair!(transpose, transpose_unchecked(out: &mut [f32], inp: &[f32], rows: u32, cols: u32) {
    let tile = gpu::shared_array_2d::<f32, 32, 33>();
    let (bx, by) = (gpu::block_idx().x * 32, gpu::block_idx().y * 32);
    let (tx, ty) = (gpu::thread_idx().x, gpu::thread_idx().y);
    for k in [0u32, 8, 16, 24] {
        let (r, c) = (by + ty + k, bx + tx);
        if r < rows && c < cols {
            tile[(ty + k) as usize][tx as usize] = inp[r as usize * cols as usize + c as usize];
        }
    }
    gpu::sync_threads();
    for k in [0u32, 8, 16, 24] {
        let (orow, ocol) = (bx + ty + k, by + tx);
        if orow < cols && ocol < rows {
            out[orow as usize * rows as usize + ocol as usize] = tile[tx as usize][(ty + k) as usize];
        }
    }
});

pair!(sgemm, sgemm_unchecked(c: &mut [f32], a: &[f32], b: &[f32], m: u32, n: u32, k: u32) {
    let a_tile = gpu::shared_array_2d::<f32, 32, 32>();
    let b_tile = gpu::shared_array_2d::<f32, 32, 32>();
    let (tx, ty) = (gpu::thread_idx().x as usize, gpu::thread_idx().y as usize);
    let row = gpu::block_idx().y as usize * 32 + ty;
    let col = gpu::block_idx().x as usize * 32 + tx;
    let (n, k) = (n as usize, k as usize);
    let mut acc = 0.0f32;
    for t in 0..k / 32 {
        a_tile[ty][tx] = a[row * k + t * 32 + tx];
        b_tile[ty][tx] = b[(t * 32 + ty) * n + col];
        gpu::sync_threads();
        for kk in 0..32 {
            acc += a_tile[ty][kk] * b_tile[kk][tx];
        }
        gpu::sync_threads();
    }
    c[row * n + col] = acc;
});

pair!(block_scan, block_scan_unchecked(out: &mut [u32], inp: &[u32]) {
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
});

pair!(softmax, softmax_unchecked(out: &mut [f32], x: &[f32], cols: u32) {
    let red = gpu::shared_array::<f32, 8>();
    let t = gpu::thread_idx().x as usize;
    let base = gpu::block_idx().x as usize * cols as usize;
    let v = [x[base + t], x[base + t + 256], x[base + t + 512], x[base + t + 768]];
    let (lane, warp) = (gpu::lane_id(), gpu::warp_id() as usize);
    let mut m = v[0].max(v[1]).max(v[2]).max(v[3]);
    for o in [16u32, 8, 4, 2, 1] {
        m = m.max(gpu::shfl_xor_sync(gpu::FULL_MASK, m, o));
    }
    if lane == 0 {
        red[warp] = m;
    }
    gpu::sync_threads();
    m = red[0];
    for w in 1..8 {
        m = m.max(red[w]);
    }
    gpu::sync_threads();
    let e = [(v[0] - m).exp(), (v[1] - m).exp(), (v[2] - m).exp(), (v[3] - m).exp()];
    let mut s = e[0] + e[1] + e[2] + e[3];
    for o in [16u32, 8, 4, 2, 1] {
        s += gpu::shfl_xor_sync(gpu::FULL_MASK, s, o);
    }
    if lane == 0 {
        red[warp] = s;
    }
    gpu::sync_threads();
    s = red[0];
    for w in 1..8 {
        s += red[w];
    }
    for j in 0..4 {
        out[base + t + 256 * j] = e[j] / s;
    }
});

pair!(jacobi, jacobi_unchecked(out: &mut [f32], inp: &[f32], n: u32) {
    let j = (gpu::block_idx().x * 32 + gpu::thread_idx().x) as usize;
    let i = (gpu::block_idx().y * 8 + gpu::thread_idx().y) as usize;
    let n = n as usize;
    if i < n && j < n {
        let idx = i * n + j;
        if i == 0 || j == 0 || i == n - 1 || j == n - 1 {
            out[idx] = inp[idx];
        } else {
            out[idx] = 0.25 * ((inp[idx - n] + inp[idx + n]) + (inp[idx - 1] + inp[idx + 1]));
        }
    }
});

/// The cumulative normal distribution of NVIDIA's Black-Scholes sample.
#[allow(clippy::excessive_precision)]
#[device]
pub fn cnd(d: f32) -> f32 {
    let k = 1.0 / (1.0 + 0.2316419 * d.abs());
    let c = 0.3989422804
        * (-0.5 * d * d).exp()
        * (k * (0.31938153
            + k * (-0.356563782 + k * (1.781477937 + k * (-1.821255978 + k * 1.330274429)))));
    if d > 0.0 {
        1.0 - c
    } else {
        c
    }
}

pair!(black_scholes, black_scholes_unchecked(call: &mut [f32], put: &mut [f32], s: &[f32], x: &[f32], t: &[f32], r: f32, v: f32) {
    let i = gpu::global_id_x();
    if i < call.len() {
        let (sp, k, tt) = (s[i], x[i], t[i]);
        let sqrt_t = tt.sqrt();
        let d1 = ((sp / k).ln() + (r + 0.5 * v * v) * tt) / (v * sqrt_t);
        let d2 = d1 - v * sqrt_t;
        let (cnd1, cnd2) = (cnd(d1), cnd(d2));
        let exp_rt = (-r * tt).exp();
        call[i] = sp * cnd1 - k * exp_rt * cnd2;
        put[i] = k * exp_rt * (1.0 - cnd2) - sp * (1.0 - cnd1);
    }
});

/// Writes the PTX of every kernel above (and saxpy's) to `dir/<kernel>.ptx`.
pub fn write_ptx(dir: &std::path::Path) -> Result<(), String> {
    std::fs::create_dir_all(dir).map_err(|e| format!("creating {}: {e}", dir.display()))?;
    let all = [
        (crate::saxpy::saxpy::NAME, crate::saxpy::saxpy::PTX),
        (
            crate::saxpy::saxpy_unchecked::NAME,
            crate::saxpy::saxpy_unchecked::PTX,
        ),
        (reduce_sum::NAME, reduce_sum::PTX),
        (reduce_sum_unchecked::NAME, reduce_sum_unchecked::PTX),
        (histogram::NAME, histogram::PTX),
        (histogram_unchecked::NAME, histogram_unchecked::PTX),
        (transpose::NAME, transpose::PTX),
        (transpose_unchecked::NAME, transpose_unchecked::PTX),
        (sgemm::NAME, sgemm::PTX),
        (sgemm_unchecked::NAME, sgemm_unchecked::PTX),
        (block_scan::NAME, block_scan::PTX),
        (block_scan_unchecked::NAME, block_scan_unchecked::PTX),
        (softmax::NAME, softmax::PTX),
        (softmax_unchecked::NAME, softmax_unchecked::PTX),
        (jacobi::NAME, jacobi::PTX),
        (jacobi_unchecked::NAME, jacobi_unchecked::PTX),
        (black_scholes::NAME, black_scholes::PTX),
        (black_scholes_unchecked::NAME, black_scholes_unchecked::PTX),
    ];
    for (name, ptx) in all {
        let path = dir.join(format!("{name}.ptx"));
        std::fs::write(&path, ptx).map_err(|e| format!("writing {}: {e}", path.display()))?;
    }
    Ok(())
}
