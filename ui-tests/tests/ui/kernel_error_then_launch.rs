// A kernel that does not compile reports its own error once; launching it reports nothing
// more, whatever the arguments' types. The same holds for each instance of a generic kernel,
// and for a generic kernel that does not list its instances.
use cuprum::prelude::*;

#[kernel]
pub fn scale(y: &mut [f32], a: f32, p: Point) {
    let i = gpu::global_id_x();
    y[i] *= a;
}

#[kernel(instances(f32, f64))]
pub fn shift<T: gpu::Float>(y: &mut [T], a: T) {
    y[0] = a + 1;
}

#[kernel]
pub fn fill<T: gpu::Float>(y: &mut [T], a: T) {
    y[0] = a;
}

fn run() -> cuprum::Result<()> {
    let dev = Device::default()?;
    let stream = dev.default_stream();
    let mut y = stream.alloc_zeros::<f32>(64)?;
    launch!(scale<<<1, 64, stream>>>(&mut y, 2.0, 7))?;
    launch!(shift::<f32><<<1, 64, stream>>>(&mut y, 2.0))?;
    launch!(shift::<f64><<<1, 64, stream>>>(&mut y, "x"))?;
    launch!(fill::<f32><<<1, 64, stream>>>(&mut y, 2.0))?;
    stream.synchronize()
}

fn main() {
    let _ = run;
}
