use cuprum::prelude::*;

#[kernel]
pub fn saxpy(y: &mut [f32], x: &[f32], a: f32) {
    let i = gpu::global_id_x();
    if i < y.len() {
        y[i] = a * x[i] + y[i];
    }
}

fn run() -> cuprum::Result<()> {
    let dev = Device::default()?;
    let stream = dev.default_stream();
    let x = stream.to_device(&[1.0f32; 64])?;
    let mut y = stream.alloc_zeros::<f32>(64)?;
    launch!(saxpy<<<1, 64, stream>>>(&mut y, &x))?;
    launch!(saxpy<<<1, 64, stream>>>(&mut y, &x, 2.0, 3.0))?;
    stream.synchronize()
}

fn main() {
    let _ = run;
}
