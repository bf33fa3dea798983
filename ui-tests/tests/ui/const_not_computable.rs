use cuprum::prelude::*;

const fn compute() -> usize {
    8
}

const FROM_CALL: usize = compute();
static mut COUNTER: u32 = 0;
const NAMES: [&str; 2] = ["a", "b"];

#[kernel]
pub fn body(out: &mut [f32]) {
    const N: usize = compute();
    const M: u32 = 1 << 40;
    let buf = [0.0f32; N];
    out[0] = buf[0] + M as f32;
}

#[kernel]
pub fn module(out: &mut [u32]) {
    let buf = [0u32; FROM_CALL];
    out[0] = buf[1] + FROM_CALL as u32;
}

#[kernel]
pub fn mutable_static(out: &mut [u32]) {
    out[0] = COUNTER;
}

#[kernel]
pub fn text(out: &mut [u32]) {
    out[0] = NAMES.len() as u32;
}

#[kernel]
pub fn assign(out: &mut [u32]) {
    const T: [u32; 2] = [1, 2];
    T[0] = 3;
    out[0] = T[0];
}

fn main() {}
