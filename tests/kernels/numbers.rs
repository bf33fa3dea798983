//! A kernel generic over `gpu::Num`: `T::ZERO`, `T::ONE`, `T::MIN`, `T::MAX`, `T::default()`.

use cuprum::prelude::*;

/// The spread of a window of four elements plus the element itself.
#[kernel(instances(f32, i32, u64, u8))]
pub fn spread<T: gpu::Num>(out: &mut [T], x: &[T]) {
    let k = gpu::global_id_x();
    if k < out.len() {
        let mut lo = T::MAX;
        let mut hi = T::MIN;
        for j in 0..4 {
            let v = x[(k + j) % x.len()];
            if v < lo {
                lo = v;
            }
            if v > hi {
                hi = v;
            }
        }
        let acc = T::default() + x[k] * T::ONE + T::ZERO;
        out[k] = hi - lo + acc;
    }
}
