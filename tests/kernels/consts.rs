//! Kernels that use `const` and `static` items: module constants (scalars, arrays, arrays of
//! arrays, constant expressions), constants as array and shared-array lengths, body
//! constants, and `static` tables in constant memory.

use cuprum::prelude::*;

pub const TILE: usize = 16;
pub const PAD: usize = TILE + 1;
pub const SCALE: f32 = 1.5 * 2.0;
pub const OFFSET: i32 = -(1 << 4) + 3;
const MASK: u32 = !0u32 >> 28;
pub const HALF_PI: f64 = core::f64::consts::PI / 2.0;
pub const SQUARES: [u32; 6] = [0, 1, 4, 9, 16, 25];
pub const STEPS: [[i32; 3]; 2] = [[1, -1, 2], [0, 5, -3]];
pub static WEIGHTS: [f32; 5] = [0.0625, 0.25, 0.375, 0.25, 0.0625];
static LIMIT: u64 = u32::MAX as u64 + 2;

/// Scalar constants and constant expressions as values.
#[kernel]
pub fn const_scalars(f: &mut [f32], i: &mut [i32], u: &mut [u32], d: &mut [f64], l: &mut [u64]) {
    let k = gpu::global_id_x();
    if k < f.len() {
        f[k] = f[k] * SCALE;
        i[k] = i[k] + OFFSET;
        u[k] = u[k] & MASK;
        d[k] = d[k] * HALF_PI;
        l[k] = l[k] % LIMIT;
    }
}

/// Array constants indexed by a value known only at run time, and a 2-D one.
#[kernel]
pub fn const_tables(out: &mut [u32], steps: &mut [i32], x: &[u32]) {
    let k = gpu::global_id_x();
    if k < out.len() {
        out[k] = SQUARES[(x[k] % 6) as usize];
        let r = (x[k] % 2) as usize;
        let c = (x[k] / 2 % 3) as usize;
        steps[k] = STEPS[r][c];
    }
}

/// A 5-point smoothing with its weights in constant memory.
#[kernel]
pub fn smooth(out: &mut [f32], x: &[f32]) {
    let k = gpu::global_id_x();
    if k >= 2 && k + 2 < x.len() {
        let mut acc = 0.0f32;
        for j in 0..5 {
            acc += WEIGHTS[j] * x[k + j - 2];
        }
        out[k] = acc;
    }
}

/// Constants as lengths: a padded shared tile (`{ TILE + 1 }`), a local array of `PAD`
/// elements, and body constants.
#[kernel]
pub fn tile_transpose(out: &mut [f32], x: &[f32], rows: u32, cols: u32) {
    const ROWS_PER_PASS: u32 = 4;
    let tile = gpu::shared_array_2d::<f32, TILE, { TILE + 1 }>();
    let t = gpu::thread_idx();
    let b = gpu::block_idx();
    let c = b.x * TILE as u32 + t.x;
    let mut r = b.y * TILE as u32 + t.y;
    let mut pass = 0;
    while pass < TILE as u32 / ROWS_PER_PASS {
        if r < rows && c < cols {
            tile[(t.y + pass * ROWS_PER_PASS) as usize][t.x as usize] = x[(r * cols + c) as usize];
        }
        r += ROWS_PER_PASS;
        pass += 1;
    }
    gpu::sync_threads();
    let oc = b.y * TILE as u32 + t.x;
    let mut or = b.x * TILE as u32 + t.y;
    let mut lens = [0usize; PAD];
    lens[PAD - 1] = PAD;
    for p in 0..TILE as u32 / ROWS_PER_PASS {
        if or < cols && oc < rows {
            out[(or * rows + oc) as usize] = tile[t.x as usize][(t.y + p * ROWS_PER_PASS) as usize]
                + (lens[PAD - 1] - PAD) as f32;
        }
        or += ROWS_PER_PASS;
    }
}

/// A body constant array and a body constant used in another's definition.
#[kernel]
pub fn body_consts(out: &mut [i64], x: &[i64]) {
    const N: usize = 4;
    const COEF: [i64; N] = [3, -1, 4, -1];
    let k = gpu::global_id_x();
    if k < out.len() {
        let mut acc = 0i64;
        for j in 0..N {
            acc += COEF[j] * x[k].wrapping_shr(j as u32);
        }
        out[k] = acc;
    }
}

/// A `static` table read at an index known only at run time (`ld.const`).
#[kernel]
pub fn weighted(out: &mut [f32], x: &[f32], pick: &[u32]) {
    let k = gpu::global_id_x();
    if k < out.len() {
        out[k] = WEIGHTS[(pick[k] % 5) as usize] * x[k];
    }
}

/// A device function that reads its module's constant and table.
#[device]
pub fn scaled(x: f32, j: usize) -> f32 {
    x * SCALE + WEIGHTS[j % 5]
}

/// Calls `scaled`.
#[kernel]
pub fn via_device(out: &mut [f32], x: &[f32]) {
    let k = gpu::global_id_x();
    if k < out.len() {
        out[k] = scaled(x[k], k);
    }
}

/// A local array of arrays (`[[f32; 2]; ROWS]`), filled from a constant table and read
/// at indices known only at run time.
#[kernel]
pub fn pairs(out: &mut [f32], x: &[f32]) {
    const ROWS: usize = 8;
    const BASE: [[f32; 2]; ROWS] = [
        [1.0, 0.5],
        [2.0, -1.0],
        [0.25, 4.0],
        [-3.0, 1.5],
        [1.0, 1.0],
        [0.0, 2.0],
        [5.0, -0.5],
        [-1.0, -2.0],
    ];
    let k = gpu::global_id_x();
    if k < out.len() {
        let mut m = [[0.0f32; 2]; ROWS];
        for r in 0..ROWS {
            m[r][0] = BASE[r][0] * x[k];
            m[r][1] = BASE[r][1] + x[k];
        }
        let pick = (k * 7 + 3) % ROWS;
        out[k] = m[pick][0] - m[(pick + 1) % ROWS][1];
    }
}

/// A constant table copied into a local array that the kernel then changes.
#[kernel]
pub fn copy_table(out: &mut [u32], x: &[u32]) {
    let k = gpu::global_id_x();
    if k < out.len() {
        let mut t = SQUARES;
        t[(x[k] % 6) as usize] += x[k];
        out[k] = t[(x[k] / 6 % 6) as usize];
    }
}
