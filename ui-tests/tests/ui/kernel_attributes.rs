use cuprum::prelude::*;

/// Attributes other than docs, `cfg` and lints do not apply to a kernel.
#[kernel]
#[inline]
#[kernel]
pub fn twice(out: &mut [f32]) {
    out[0] = 1.0;
}

fn main() {}
