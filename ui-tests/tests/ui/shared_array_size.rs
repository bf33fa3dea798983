use cuprum::prelude::*;

pub const TILE: usize = 256;

#[kernel]
pub fn tiles(out: &mut [f32], n: usize) {
    let a = gpu::shared_array::<f32, TILE>();
    let b = gpu::shared_array::<f32, { n * 2 }>();
    let c = gpu::shared_array_2d::<f32, 16, 0>();
    let d = gpu::shared_array::<f64, { 1024 * 32 }>();
    let e = gpu::shared_array::<f32, { 32 * 33 }>();
    out[0] = a[0] + b[0] + c[0][0] + d[0] as f32 + e[0];
}

fn main() {}
