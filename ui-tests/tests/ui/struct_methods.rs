use cuprum::prelude::*;

#[derive(Clone, Copy, DeviceCopy)]
#[repr(C)]
pub struct Point {
    pub x: f32,
    pub y: f32,
}

#[device]
impl Point {
    pub fn origin() -> Self {
        Self { x: 0.0, y: 0.0 }
    }

    pub fn norm2(&self) -> f32 {
        self.x * self.x + self.y * self.y
    }
}

#[kernel]
pub fn unknown_method(out: &mut [f32], p: Point) {
    out[0] = p.length();
}

#[kernel]
pub fn associated_as_method(out: &mut [f32], p: Point) {
    out[0] = p.origin().x;
}

#[kernel]
pub fn wrong_argument(out: &mut [f32], p: Point) {
    out[0] = p.norm2(1.0);
}

fn main() {}
