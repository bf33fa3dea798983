use cuprum::prelude::*;

#[device]
pub fn step(out: &mut [f32]) {
    out[gpu::global_id_x()] += 1.0;
    gpu::grid_sync();
}

#[kernel]
pub fn steps(out: &mut [f32]) {
    step(out);
}

fn main() {}
