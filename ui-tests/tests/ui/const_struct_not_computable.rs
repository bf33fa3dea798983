use cuprum::prelude::*;

#[derive(Clone, Copy, DeviceCopy)]
#[repr(C)]
pub struct Step {
    pub operand: f32,
    pub tag: u32,
}

const fn half(x: f32) -> f32 {
    x * 0.5
}

// A call: rustc computes it, the kernel compiler does not.
const FROM_CALL: Step = Step {
    operand: half(3.0),
    tag: 1,
};

#[kernel]
pub fn module_const(out: &mut [f32]) {
    out[0] = FROM_CALL.operand;
}

#[kernel]
pub fn body_const(out: &mut [f32]) {
    const MISSING: Step = Step { operand: 1.0 };
    out[0] = MISSING.operand;
}

fn main() {}
