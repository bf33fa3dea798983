use cuprum::prelude::*;

#[kernel]
pub fn scale(y: &mut [f32], a: f32) {
    let i = gpu::global_id_x();
    if i < y.len() {
        y[i] *= a;
    }
}

fn run() -> cuprum::Result<()> {
    let dev = Device::default()?;
    let stream = dev.default_stream();
    let mut y = stream.alloc_zeros::<f32>(64)?;
    let n: usize = y.len();
    launch!(scale<<<n / 64, 64, stream>>>(&mut y, 2.0))?;
    launch!(scale<<<1, 64, dev>>>(&mut y, 2.0))?;
    stream.synchronize()
}

fn main() {
    let _ = run;
}
