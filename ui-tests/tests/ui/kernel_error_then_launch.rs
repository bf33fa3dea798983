// A kernel that does not compile reports its own error once; launching it reports nothing
// more, whatever the arguments' types.
use cuprum::prelude::*;

#[kernel]
pub fn scale(y: &mut [f32], a: f32, p: Point) {
    let i = gpu::global_id_x();
    y[i] *= a;
}

fn run() -> cuprum::Result<()> {
    let dev = Device::default()?;
    let stream = dev.default_stream();
    let mut y = stream.alloc_zeros::<f32>(64)?;
    launch!(scale<<<1, 64, stream>>>(&mut y, 2.0, 7))?;
    stream.synchronize()
}

fn main() {
    let _ = run;
}
