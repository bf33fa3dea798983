// Every way of writing a launch compiles; the program only type-checks them (it does not run
// kernels).
use cuprum::prelude::*;

#[kernel]
pub fn saxpy(y: &mut [f32], x: &[f32], a: f32) {
    let i = gpu::global_id_x();
    if i < y.len() {
        y[i] = a * x[i] + y[i];
    }
}

mod kernels {
    use cuprum::prelude::*;

    #[kernel(max_threads = 256, target = "sm_90")]
    pub fn fill(out: &mut [u32], v: u32) {
        let i = gpu::global_id_x();
        if i < out.len() {
            out[i] = v;
        }
    }
}

#[allow(dead_code)]
fn run() -> cuprum::Result<()> {
    let dev = Device::default()?;
    let stream = dev.default_stream();
    let x = stream.to_device(&[1.0f32; 64])?;
    let mut y = stream.alloc_zeros::<f32>(64)?;
    let mut z = stream.alloc_zeros::<u32>(64)?;
    launch!(saxpy<<<1, 64, stream>>>(&mut y, &x, 2.0))?;
    launch!(saxpy<<<(1, 1), (64, 1, 1), 0, &stream>>>(&mut y.slice_mut(0..32), &x.slice(..32), 2.0))?;
    launch!(kernels::fill<<<Dim3::new(1, 1, 1), 64u32, dev.default_stream()>>>(&mut z, 7))?;
    saxpy::launch(&stream, LaunchConfig::for_elements(64, 64), &mut y, &x, 2.0)?;
    stream.synchronize()
}

fn main() {
    assert!(saxpy::PTX.contains(".entry saxpy("));
    assert!(kernels::fill::PTX.contains(".target sm_90"));
}
