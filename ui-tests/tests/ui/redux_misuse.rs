// `gpu::__redux_*_sync` (hidden, for the library's warp reductions) is `redux.sync`: 32-bit
// integers on sm_80 and newer. Other types and older targets are compile errors; inside
// `if gpu::__redux_supported::<T>()` the call is compiled only where it applies.
use cuprum::prelude::*;

#[kernel]
pub fn float_sum(out: &mut [f32], x: &[f32]) {
    let i = gpu::global_id_x();
    out[i] = gpu::__redux_add_sync(gpu::FULL_MASK, x[i]);
}

#[kernel(target = "sm_75")]
pub fn before_ampere(out: &mut [i32], x: &[i32]) {
    let i = gpu::global_id_x();
    out[i] = gpu::__redux_max_sync(gpu::FULL_MASK, x[i]);
}

#[kernel(target = "sm_75")]
pub fn guarded_is_fine(out: &mut [i32], x: &[i32]) {
    let i = gpu::global_id_x();
    out[i] = if gpu::__redux_supported::<i32>() {
        gpu::__redux_max_sync(gpu::FULL_MASK, x[i])
    } else {
        gpu::warp::max(x[i])
    };
}

fn main() {}
