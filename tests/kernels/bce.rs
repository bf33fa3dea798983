//! Kernels written the way CUDA's samples and Numba's documentation write them (issue 15),
//! whose checks the IR passes (`codegen/src/passes`) prove redundant or keep. Their PTX is
//! snapshotted in `tests/bce_ptx.rs`; `tests/gpu_bce.rs` runs them against the CPU.

use cuprum::prelude::*;

/// Tile edge of `transpose_coalesced` (CUDA samples' `TILE_DIM`).
pub const TILE_DIM: usize = 32;
/// Rows of threads per tile (CUDA samples' `BLOCK_ROWS`).
pub const BLOCK_ROWS: usize = 8;

/// CUDA samples' `transposeCoalesced`: `odata = idata^T` for a `h × w` matrix, 32×8 threads
/// per 32×32 tile, `tile[32][33]` in shared memory.
#[kernel(block = (32, 8))]
pub fn transpose_coalesced(odata: &mut [f32], idata: &[f32], w: usize, h: usize) {
    let tile = gpu::shared_array_2d::<f32, 32, 33>();
    let tx = gpu::thread_idx().x as usize;
    let ty = gpu::thread_idx().y as usize;
    let mut x = gpu::block_idx().x as usize * TILE_DIM + tx;
    let mut y = gpu::block_idx().y as usize * TILE_DIM + ty;
    for j in (0..TILE_DIM).step_by(BLOCK_ROWS) {
        if x < w && y + j < h {
            tile[ty + j][tx] = idata[(y + j) * w + x];
        }
    }
    gpu::sync_threads();
    x = gpu::block_idx().y as usize * TILE_DIM + tx;
    y = gpu::block_idx().x as usize * TILE_DIM + ty;
    for j in (0..TILE_DIM).step_by(BLOCK_ROWS) {
        if x < h && y + j < w {
            odata[(y + j) * h + x] = tile[tx][ty + j];
        }
    }
}

/// One Jacobi sweep of the 2-D Laplace equation on an `nx × ny` grid (row-major, `x` along
/// rows), guarded the way stencil codes guard their interior.
#[kernel]
pub fn jacobi_2d(out: &mut [f32], a: &[f32], nx: usize, ny: usize) {
    let i = gpu::global_id_x();
    let j = gpu::global_id_y();
    if i >= 1 && j >= 1 && i + 1 < nx && j + 1 < ny {
        let c = j * nx + i;
        out[c] = 0.25 * (a[c - 1] + a[c + 1] + a[c - nx] + a[c + nx]);
    }
}

/// Edge of `fast_matmul`'s shared tiles (Numba's `TPB`).
pub const TPB: usize = 16;

/// Numba's documented `fast_matmul`: `c = a × b` for `n × n` matrices, 16×16 threads per
/// block, both operands staged through 16×16 shared tiles.
#[kernel(block = (16, 16))]
pub fn fast_matmul(c: &mut [f32], a: &[f32], b: &[f32], n: usize) {
    let sa = gpu::shared_array_2d::<f32, 16, 16>();
    let sb = gpu::shared_array_2d::<f32, 16, 16>();
    let x = gpu::global_id_x();
    let y = gpu::global_id_y();
    let tx = gpu::thread_idx().x as usize;
    let ty = gpu::thread_idx().y as usize;
    let mut tmp = 0.0f32;
    for i in 0..(n + TPB - 1) / TPB {
        sa[ty][tx] = 0.0;
        sb[ty][tx] = 0.0;
        if y < n && tx + i * TPB < n {
            sa[ty][tx] = a[y * n + tx + i * TPB];
        }
        if x < n && ty + i * TPB < n {
            sb[ty][tx] = b[(ty + i * TPB) * n + x];
        }
        gpu::sync_threads();
        for j in 0..TPB {
            tmp += sa[ty][j] * sb[j][tx];
        }
        gpu::sync_threads();
    }
    if y < n && x < n {
        c[y * n + x] = tmp;
    }
}

/// `c = a + b`, one element per thread.
#[kernel]
pub fn vector_add(c: &mut [f32], a: &[f32], b: &[f32]) {
    let i = gpu::global_id_x();
    if i < c.len() {
        c[i] = a[i] + b[i];
    }
}

/// `out[i] = a[i - 1] + a[i] + a[i + 1]` inside `1 <= i < n - 1` for `n = a.len()`, with the
/// guard written as stencil codes write it (its `+ 1` wraps for a huge `i`, which a launch
/// cannot make, but `shift` can): the proofs must keep every check the guard does not
/// cover.
#[kernel]
pub fn guarded_stencil(out: &mut [f32], a: &[f32], shift: usize) {
    let n = a.len();
    let i = gpu::global_id_x().wrapping_add(shift);
    if i >= 1 && i + 1 < n {
        out[i] = a[i - 1] + a[i] + a[i + 1];
    }
}

/// Early exit, a loop to a slice's length with a step, a `while` counter and a shared slot
/// per thread of a fixed block: each index is proved or checked.
#[kernel(block = (64, 1, 1))]
pub fn guard_forms(out: &mut [u32], a: &[u32], stride: usize, limit: usize) {
    let slot = gpu::shared_array::<u32, 64>();
    let t = gpu::thread_idx().x as usize;
    let i = gpu::global_id_x();
    slot[t] = 0;
    if i >= out.len() {
        return;
    }
    let mut s = 0u32;
    for k in (t..a.len()).step_by(stride) {
        s = s.wrapping_add(a[k]);
    }
    let mut j = i;
    while j < limit {
        s = s.wrapping_add(a[j]);
        j += 64;
    }
    slot[t] = s;
    out[i] = slot[t];
}

/// Guards whose arithmetic can wrap, subtractions below zero, `!=` bounds, a counter assigned
/// in branches and a polynomial index: the passes must keep every check that these do not
/// prove (`tests/gpu_bce.rs` runs it with extreme parameters).
#[kernel]
pub fn tricky(out: &mut [u32], a: &[u32], n: u32, m: usize, k: usize, rows: u32) {
    let i = gpu::global_id_x();
    if i >= out.len() {
        return;
    }
    let mut acc = 0u32;
    let w = (gpu::thread_idx().x.wrapping_add(n)) as usize;
    if w < a.len() {
        acc = acc.wrapping_add(a[w]);
    }
    if i >= k && i - k < a.len() {
        acc = acc.wrapping_add(a[i - k]);
    }
    if i.wrapping_add(m) < a.len() {
        acc = acc.wrapping_add(a[i.wrapping_add(m)]);
        acc = acc.wrapping_add(a[i]);
    }
    if m != 0 && i < m && i != m - 1 {
        acc = acc.wrapping_add(a[i + 1]);
    }
    let mut j = i;
    while j < a.len() {
        acc = acc.wrapping_add(a[j]);
        if j % 2 == 0 {
            j += 3;
        } else {
            j = j * 2 + 1;
        }
    }
    for r in 0..rows as usize {
        let idx = r.wrapping_mul(m).wrapping_add(k);
        if idx < a.len() {
            acc ^= a[idx];
        }
        acc ^= a[r * 4 % (a.len() + 1)];
    }
    out[i] = acc;
}

/// Laplace's indexing (`j * nx + i ± 1`, `(j ± 1) * nx + i`, `nx` a `usize`) over bytes, from
/// row `row0` on: a grid of a few rows reaches indices past 2³¹ (`passes::narrow` computes
/// them in 32 bits only when the launch has tested the lengths below 2³¹).
#[cuprum_testkit::unchecked_twin]
#[kernel]
pub fn rows_from(out: &mut [u8], inp: &[u8], nx: usize, ny: usize, row0: usize) {
    let i = gpu::global_id_x();
    let j = gpu::global_id_y() + row0;
    if i >= 1 && j >= 1 && i + 1 < nx && j + 1 < ny {
        out[j * nx + i] = inp[j * nx + i - 1]
            .wrapping_add(inp[j * nx + i + 1].wrapping_mul(3))
            .wrapping_add(inp[(j - 1) * nx + i].wrapping_mul(5))
            .wrapping_add(inp[(j + 1) * nx + i].wrapping_mul(7));
    }
}

/// A global index compared with a `usize` bound that may lie past 2³²: the launch-selected
/// copy (`inp[i]` versioned on `len(out) <= len(inp)`) compares in 32 bits only when the
/// launch has tested `bound` and the grid's width below 2³¹ (`passes::compare32`); past them
/// the checked body compares in 64 bits.
#[kernel]
pub fn below_bound(out: &mut [u32], inp: &[u32], bound: usize) {
    let i = gpu::global_id_x();
    if i < out.len() {
        let step: u32 = if i + 1 < bound { 1 } else { 0 };
        out[i] = inp[i] + step;
    }
}

/// Edge of `sgemm_tiles`' shared tiles (small, for the simulator).
pub const GEMM_TILE: usize = 8;

/// `examples/matmul.rs`' `sgemm` with 8×8 tiles and no declared block: the launch selects
/// the copy without checks when `block_dim() <= (8, 8)` (the shared tiles' extents) and the
/// operands hold every tile the grid reaches at the last turn of `t` (`8·t <= k − 8`).
#[kernel]
pub fn sgemm_tiles(c: &mut [f32], a: &[f32], b: &[f32], n: u32, k: u32) {
    let a_tile = gpu::shared_array_2d::<f32, GEMM_TILE, GEMM_TILE>();
    let b_tile = gpu::shared_array_2d::<f32, GEMM_TILE, GEMM_TILE>();
    let (tx, ty) = (gpu::thread_idx().x as usize, gpu::thread_idx().y as usize);
    let row = gpu::block_idx().y as usize * GEMM_TILE + ty;
    let col = gpu::block_idx().x as usize * GEMM_TILE + tx;
    let (n, k) = (n as usize, k as usize);
    let mut acc = 0.0f32;
    for t in 0..k / GEMM_TILE {
        a_tile[ty][tx] = a[row * k + t * GEMM_TILE + tx];
        b_tile[ty][tx] = b[(t * GEMM_TILE + ty) * n + col];
        gpu::sync_threads();
        for kk in 0..GEMM_TILE {
            acc += a_tile[ty][kk] * b_tile[kk][tx];
        }
        gpu::sync_threads();
    }
    c[row * n + col] = acc;
}
