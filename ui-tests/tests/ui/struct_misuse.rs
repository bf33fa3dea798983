use cuprum::prelude::*;

// No `#[repr(C)]`: Rust may reorder the fields.
#[derive(Clone, Copy, DeviceCopy)]
pub struct NoRepr {
    pub x: f32,
}

// Fields that are not plain device data.
#[derive(Clone, Copy, DeviceCopy)]
#[repr(C)]
pub struct Refs<'a> {
    pub data: &'a [f32],
}

#[derive(Clone, DeviceCopy)]
#[repr(C)]
pub struct Heap {
    pub items: Vec<f32>,
    pub name: String,
}

// Padding between `a` and `b`.
#[derive(Clone, Copy, DeviceCopy)]
#[repr(C)]
pub struct Padded {
    pub a: u8,
    pub b: f32,
}

// A struct that does not derive `DeviceCopy`, used in a kernel.
#[derive(Clone, Copy)]
#[repr(C)]
pub struct Plain {
    pub x: f32,
}

#[kernel]
pub fn uses_plain(out: &mut [f32], p: Plain) {
    out[0] = p.x;
}

fn main() {}
