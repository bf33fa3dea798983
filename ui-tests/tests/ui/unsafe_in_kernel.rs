use cuprum::prelude::*;

static mut COUNTER: u32 = 0;

#[kernel]
pub fn reads_static_mut(out: &mut [u32]) {
    // One error, about the `static mut` (not also "remove `unsafe`").
    out[0] = unsafe { COUNTER };
}

#[kernel]
pub fn needless(out: &mut [u32]) {
    unsafe {
        out[0] = 1;
    }
}

fn main() {}
