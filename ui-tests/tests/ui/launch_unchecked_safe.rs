use cuprum::prelude::*;

/// Writes 100 elements past the end of `out`: only an unchecked kernel can, so launching one
/// is the caller's promise, made with `unsafe`.
#[kernel(unchecked)]
pub fn overrun(out: &mut [u32]) {
    let i = gpu::global_id_x();
    out[i + 100] = 7;
}

fn run() -> cuprum::Result<()> {
    let dev = Device::default()?;
    let stream = dev.default_stream();
    let mut a = stream.alloc_zeros::<u32>(256)?;
    launch!(overrun<<<1, 128, stream>>>(&mut a.slice_mut(0..128)))?;
    stream.synchronize()
}

fn main() {
    let _ = run;
}
