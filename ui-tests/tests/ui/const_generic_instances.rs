use cuprum::prelude::*;

#[kernel(instances(f32))]
pub fn wrong_kind<const N: usize>(out: &mut [f32]) {
    out[0] = N as f32;
}

#[kernel(instances(300))]
pub fn too_big<const N: u8>(out: &mut [u32]) {
    out[0] = N as u32;
}

#[kernel(instances(4))]
pub fn length<const N: usize>(out: &mut [f32], n: usize) {
    let a = [0.0f32; N];
    let b = [0.0f32; n];
    out[0] = a[0] + b[0];
}

#[device]
fn first<const N: usize>(a: [f32; N]) -> f32 {
    a[0]
}

#[kernel]
pub fn device_args(out: &mut [f32], n: usize) {
    out[0] = first::<n>([1.0, 2.0]);
}

fn main() {}
