use cuprum::prelude::*;

// Each array fits; together they pass the 48 KiB of static shared memory a kernel may declare.
#[kernel]
pub fn tiles(out: &mut [f32]) {
    let a = gpu::shared_array_2d::<f32, 64, 64>();
    let b = gpu::shared_array_2d::<f32, 64, 64>();
    let c = gpu::shared_array_2d::<f32, 64, 64>();
    let d = gpu::shared_array::<f32, 64>();
    let i = gpu::thread_idx().x as usize;
    out[i] = a[i][0] + b[i][0] + c[i][0] + d[i];
}

fn main() {}
