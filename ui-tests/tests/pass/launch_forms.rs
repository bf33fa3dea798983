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

// A generic kernel: `launch!` takes an instance.
#[kernel(instances(f32, f64))]
pub fn scale<T: gpu::Float>(out: &mut [T], k: T) {
    let i = gpu::global_id_x();
    if i < out.len() {
        out[i] = out[i] * k;
    }
}

#[device]
fn twice(v: u32) -> u32 {
    v * 2
}

// An unchecked kernel (generic too): launching it is `unsafe`, the caller's promise that every
// index is in bounds.
#[kernel(unchecked, instances(u32))]
pub fn copy_unchecked<T: gpu::Int>(out: &mut [T], x: &[T]) {
    let i = gpu::global_id_x();
    if i < out.len() && i < x.len() {
        out[i] = x[i];
    }
}

// A kernel that calls a `#[device]` function is emitted after a second expansion step.
#[kernel]
pub fn doubled(out: &mut [u32]) {
    let i = gpu::global_id_x();
    if i < out.len() {
        out[i] = twice(i as u32);
    }
}

// A raw identifier names the PTX entry without its `r#`.
#[kernel]
pub fn r#type(out: &mut [u32]) {
    out[0] = 1;
}

// `cfg` applies to everything a kernel expands to.
#[kernel]
#[cfg(not(any()))]
pub fn kept(out: &mut [u32]) {
    out[0] = 2;
}

#[kernel]
#[cfg(any())]
pub fn dropped(out: &mut [u32]) {
    out[0] = 3;
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
    let mut w = stream.alloc_zeros::<f64>(64)?;
    launch!(scale::<f32><<<1, 64, stream>>>(&mut y, 2.0))?;
    launch!(scale::<f64><<<1, 64, 0, stream>>>(&mut w.slice_mut(..), 0.5))?;
    scale::<f64>::launch(&stream, LaunchConfig::for_elements(64, 64), &mut w, 0.5)?;
    launch!(doubled<<<1, 64, stream>>>(&mut z))?;
    launch!(r#type<<<1, 1, stream>>>(&mut z))?;
    launch!(kept<<<1, 1, stream>>>(&mut z))?;
    let v = stream.alloc_zeros::<u32>(64)?;
    // SAFETY: the kernel guards its index by both lengths.
    unsafe {
        launch!(copy_unchecked::<u32><<<1, 64, stream>>>(&mut z, &v))?;
        copy_unchecked::<u32>::launch(&stream, LaunchConfig::new(1, 32), &mut z.slice_mut(..32), &v)?;
    }
    stream.synchronize()
}

fn main() {
    assert!(saxpy::PTX.contains(".entry saxpy("));
    assert!(kernels::fill::PTX.contains(".target sm_90"));
    assert_eq!(scale::<f32>::NAME, "scale_f32");
    assert!(scale::<f64>::PTX.contains(".entry scale_f64("));
    assert_eq!(r#type::NAME, "type");
    assert!(r#type::PTX.contains(".entry type("));
    assert_eq!(twice(3), 6);
}
