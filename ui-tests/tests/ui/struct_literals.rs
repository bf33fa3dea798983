use cuprum::prelude::*;

#[derive(Clone, Copy, DeviceCopy)]
#[repr(C)]
pub struct Point {
    pub x: f32,
    pub y: f32,
}

#[derive(Clone, Copy, DeviceCopy)]
#[repr(C)]
pub struct Pair(pub u32, pub u32);

#[kernel]
pub fn missing(out: &mut [f32]) {
    let p = Point { x: 1.0 };
    out[0] = p.x;
}

#[kernel]
pub fn unknown_field(out: &mut [f32]) {
    let p = Point { x: 1.0, y: 2.0, z: 3.0 };
    out[0] = p.x;
}

#[kernel]
pub fn with_base(out: &mut [f32], q: Point) {
    let p = Point { x: 1.0, ..q };
    out[0] = p.x;
}

#[kernel]
pub fn arity(out: &mut [u32]) {
    let p = Pair(1, 2, 3);
    out[0] = p.0;
}

#[kernel]
pub fn wrong_type(out: &mut [u32]) {
    let p = Pair(1, 2.5);
    out[0] = p.1;
}

fn main() {}
