use cuprum::prelude::*;

// `gpu::atomic_load` takes `&mut place`, like every atomic (the memory must be writable,
// since other threads write it), not `&place` as `AtomicU32::load` does.
#[kernel]
pub fn wait_for(flags: &mut [u32], out: &mut [u32]) {
    out[0] = gpu::atomic_load(&flags[0]);
}

fn main() {}
