//! A cooperative kernel with a large frame: 40 local arrays of 1024 `f64` (320 KiB per
//! thread), for `tests/gpu_faults.rs`. Generated text. The simulator runs cooperative
//! kernels' threads as coroutines, whose stacks must hold this frame.

use cuprum::prelude::*;

/// The number of local arrays.
pub const ARRAYS: usize = 40;

/// `out[t]`: a chain of 40 arrays, each read from the one before at a shuffled index.
#[kernel]
pub fn big_frame(out: &mut [f64], x: &[f64], s: usize) {
    let t = gpu::thread_idx().x as usize;
    let mut a0 = [0.0f64; 1024];
    let mut a1 = [0.0f64; 1024];
    let mut a2 = [0.0f64; 1024];
    let mut a3 = [0.0f64; 1024];
    let mut a4 = [0.0f64; 1024];
    let mut a5 = [0.0f64; 1024];
    let mut a6 = [0.0f64; 1024];
    let mut a7 = [0.0f64; 1024];
    let mut a8 = [0.0f64; 1024];
    let mut a9 = [0.0f64; 1024];
    let mut a10 = [0.0f64; 1024];
    let mut a11 = [0.0f64; 1024];
    let mut a12 = [0.0f64; 1024];
    let mut a13 = [0.0f64; 1024];
    let mut a14 = [0.0f64; 1024];
    let mut a15 = [0.0f64; 1024];
    let mut a16 = [0.0f64; 1024];
    let mut a17 = [0.0f64; 1024];
    let mut a18 = [0.0f64; 1024];
    let mut a19 = [0.0f64; 1024];
    let mut a20 = [0.0f64; 1024];
    let mut a21 = [0.0f64; 1024];
    let mut a22 = [0.0f64; 1024];
    let mut a23 = [0.0f64; 1024];
    let mut a24 = [0.0f64; 1024];
    let mut a25 = [0.0f64; 1024];
    let mut a26 = [0.0f64; 1024];
    let mut a27 = [0.0f64; 1024];
    let mut a28 = [0.0f64; 1024];
    let mut a29 = [0.0f64; 1024];
    let mut a30 = [0.0f64; 1024];
    let mut a31 = [0.0f64; 1024];
    let mut a32 = [0.0f64; 1024];
    let mut a33 = [0.0f64; 1024];
    let mut a34 = [0.0f64; 1024];
    let mut a35 = [0.0f64; 1024];
    let mut a36 = [0.0f64; 1024];
    let mut a37 = [0.0f64; 1024];
    let mut a38 = [0.0f64; 1024];
    let mut a39 = [0.0f64; 1024];
    for j in 0..1024 {
        a0[j] = x[t] + j as f64;
    }
    for j in 0..1024 {
        a1[j] = a0[(j * 7 + s) % 1024] * 0.5 + 1.0;
    }
    for j in 0..1024 {
        a2[j] = a1[(j * 7 + s) % 1024] * 0.5 + 2.0;
    }
    for j in 0..1024 {
        a3[j] = a2[(j * 7 + s) % 1024] * 0.5 + 3.0;
    }
    for j in 0..1024 {
        a4[j] = a3[(j * 7 + s) % 1024] * 0.5 + 4.0;
    }
    for j in 0..1024 {
        a5[j] = a4[(j * 7 + s) % 1024] * 0.5 + 5.0;
    }
    for j in 0..1024 {
        a6[j] = a5[(j * 7 + s) % 1024] * 0.5 + 6.0;
    }
    for j in 0..1024 {
        a7[j] = a6[(j * 7 + s) % 1024] * 0.5 + 7.0;
    }
    for j in 0..1024 {
        a8[j] = a7[(j * 7 + s) % 1024] * 0.5 + 8.0;
    }
    for j in 0..1024 {
        a9[j] = a8[(j * 7 + s) % 1024] * 0.5 + 9.0;
    }
    for j in 0..1024 {
        a10[j] = a9[(j * 7 + s) % 1024] * 0.5 + 10.0;
    }
    for j in 0..1024 {
        a11[j] = a10[(j * 7 + s) % 1024] * 0.5 + 11.0;
    }
    for j in 0..1024 {
        a12[j] = a11[(j * 7 + s) % 1024] * 0.5 + 12.0;
    }
    for j in 0..1024 {
        a13[j] = a12[(j * 7 + s) % 1024] * 0.5 + 13.0;
    }
    for j in 0..1024 {
        a14[j] = a13[(j * 7 + s) % 1024] * 0.5 + 14.0;
    }
    for j in 0..1024 {
        a15[j] = a14[(j * 7 + s) % 1024] * 0.5 + 15.0;
    }
    for j in 0..1024 {
        a16[j] = a15[(j * 7 + s) % 1024] * 0.5 + 16.0;
    }
    for j in 0..1024 {
        a17[j] = a16[(j * 7 + s) % 1024] * 0.5 + 17.0;
    }
    for j in 0..1024 {
        a18[j] = a17[(j * 7 + s) % 1024] * 0.5 + 18.0;
    }
    for j in 0..1024 {
        a19[j] = a18[(j * 7 + s) % 1024] * 0.5 + 19.0;
    }
    for j in 0..1024 {
        a20[j] = a19[(j * 7 + s) % 1024] * 0.5 + 20.0;
    }
    for j in 0..1024 {
        a21[j] = a20[(j * 7 + s) % 1024] * 0.5 + 21.0;
    }
    for j in 0..1024 {
        a22[j] = a21[(j * 7 + s) % 1024] * 0.5 + 22.0;
    }
    for j in 0..1024 {
        a23[j] = a22[(j * 7 + s) % 1024] * 0.5 + 23.0;
    }
    for j in 0..1024 {
        a24[j] = a23[(j * 7 + s) % 1024] * 0.5 + 24.0;
    }
    for j in 0..1024 {
        a25[j] = a24[(j * 7 + s) % 1024] * 0.5 + 25.0;
    }
    for j in 0..1024 {
        a26[j] = a25[(j * 7 + s) % 1024] * 0.5 + 26.0;
    }
    for j in 0..1024 {
        a27[j] = a26[(j * 7 + s) % 1024] * 0.5 + 27.0;
    }
    for j in 0..1024 {
        a28[j] = a27[(j * 7 + s) % 1024] * 0.5 + 28.0;
    }
    for j in 0..1024 {
        a29[j] = a28[(j * 7 + s) % 1024] * 0.5 + 29.0;
    }
    for j in 0..1024 {
        a30[j] = a29[(j * 7 + s) % 1024] * 0.5 + 30.0;
    }
    for j in 0..1024 {
        a31[j] = a30[(j * 7 + s) % 1024] * 0.5 + 31.0;
    }
    for j in 0..1024 {
        a32[j] = a31[(j * 7 + s) % 1024] * 0.5 + 32.0;
    }
    for j in 0..1024 {
        a33[j] = a32[(j * 7 + s) % 1024] * 0.5 + 33.0;
    }
    for j in 0..1024 {
        a34[j] = a33[(j * 7 + s) % 1024] * 0.5 + 34.0;
    }
    for j in 0..1024 {
        a35[j] = a34[(j * 7 + s) % 1024] * 0.5 + 35.0;
    }
    for j in 0..1024 {
        a36[j] = a35[(j * 7 + s) % 1024] * 0.5 + 36.0;
    }
    for j in 0..1024 {
        a37[j] = a36[(j * 7 + s) % 1024] * 0.5 + 37.0;
    }
    for j in 0..1024 {
        a38[j] = a37[(j * 7 + s) % 1024] * 0.5 + 38.0;
    }
    for j in 0..1024 {
        a39[j] = a38[(j * 7 + s) % 1024] * 0.5 + 39.0;
    }
    gpu::sync_threads();
    out[t] = a39[(t * 13 + s) % 1024];
}

/// `big_frame` for thread `t` in ordinary Rust.
pub fn big_frame_ref(x: &[f64], s: usize, t: usize) -> f64 {
    let mut prev: Vec<f64> = (0..1024).map(|j| x[t] + j as f64).collect();
    for k in 1..ARRAYS {
        prev = (0..1024)
            .map(|j| prev[(j * 7 + s) % 1024] * 0.5 + k as f64)
            .collect();
    }
    prev[(t * 13 + s) % 1024]
}
