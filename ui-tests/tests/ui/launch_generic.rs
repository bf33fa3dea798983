// A generic kernel is launched by instance; the launch takes that instance's parameters.
use cuprum::prelude::*;

#[kernel(instances(f32, f64))]
pub fn scale<T: gpu::Float>(out: &mut [T], k: T) {
    let i = gpu::global_id_x();
    if i < out.len() {
        out[i] = out[i] * k;
    }
}

fn run() -> cuprum::Result<()> {
    let dev = Device::default()?;
    let stream = dev.default_stream();
    let mut y = stream.alloc_zeros::<f32>(64)?;
    launch!(scale::<f32><<<1, 64, stream>>>(&mut y))?;
    launch!(scale::<f64><<<1, 64, stream>>>(&mut y, 2.0))?;
    launch!(scale::<u32><<<1, 64, stream>>>(&mut y, 2))?;
    stream.synchronize()
}

fn main() {
    let _ = run;
}
