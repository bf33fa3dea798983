use cuprum::prelude::*;

#[derive(Clone, Copy, PartialEq, DeviceCopy)]
#[repr(u8)]
pub enum Op {
    Add,
    Mul,
}

// No `PartialEq`: `==` is not defined, as in Rust.
#[derive(Clone, Copy, DeviceCopy)]
#[repr(u8)]
pub enum Mode {
    Fast,
    Exact,
}

#[kernel]
pub fn integer_to_enum(out: &mut [u32], x: u8) {
    let op = x as Op;
    out[0] = 0;
}

#[kernel]
pub fn ordered(out: &mut [u32], a: Op, b: Op) {
    if a < b {
        out[0] = 1;
    }
}

#[kernel]
pub fn enum_to_float(out: &mut [f32], a: Op) {
    out[0] = a as f32;
}

#[kernel]
pub fn unknown_variant(out: &mut [u32], a: Op) {
    if a == Op::Sub {
        out[0] = 1;
    }
}

#[kernel]
pub fn without_partial_eq(out: &mut [u32], m: Mode) {
    if m == Mode::Fast {
        out[0] = 1;
    }
}

#[kernel]
pub fn range_of_variants(out: &mut [u32], a: Op) {
    out[0] = match a {
        Op::Add..=Op::Mul => 1,
    };
}

fn main() {}
