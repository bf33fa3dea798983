use cuprum::prelude::*;

// A variant with fields: kernels hold an enum as its discriminant.
#[derive(Clone, Copy, DeviceCopy)]
#[repr(u8)]
pub enum WithFields {
    Plain,
    Point(f32, f32),
}

// No integer `repr`: its size would be the compiler's choice.
#[derive(Clone, Copy, DeviceCopy)]
pub enum NoRepr {
    A,
    B,
}

// A generic enum.
#[derive(Clone, Copy, DeviceCopy)]
#[repr(u32)]
pub enum Generic<T: Copy> {
    A,
    B(T),
}

// `repr(u128)` is wider than kernels' integers.
#[derive(Clone, Copy, DeviceCopy)]
#[repr(u128)]
pub enum Wide {
    A,
}

fn main() {}
