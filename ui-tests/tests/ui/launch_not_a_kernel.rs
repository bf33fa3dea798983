use cuprum::prelude::*;

fn scale(y: &mut [f32], a: f32) {
    for v in y.iter_mut() {
        *v *= a;
    }
}

fn run() -> cuprum::Result<()> {
    let dev = Device::default()?;
    let stream = dev.default_stream();
    let mut y = stream.alloc_zeros::<f32>(64)?;
    launch!(scale<<<1, 64, stream>>>(&mut y, 2.0))?;
    stream.synchronize()
}

fn main() {
    let _ = run;
}
