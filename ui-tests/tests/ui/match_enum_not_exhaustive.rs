use cuprum::prelude::*;

#[derive(Clone, Copy, PartialEq, DeviceCopy)]
#[repr(u8)]
pub enum Op {
    Add,
    Mul = 5,
    Sub,
    Max,
}

#[kernel]
pub fn one_missing(out: &mut [f32], op: Op) {
    out[0] = match op {
        Op::Add => 1.0,
        Op::Mul | Op::Sub => 2.0,
    };
}

#[kernel]
pub fn two_missing(out: &mut [f32], op: Op, x: f32) {
    out[0] = match op {
        Op::Add => 1.0,
        Op::Sub if x > 0.0 => 2.0,
    };
}

fn main() {}
