//! Kernels that use field-less `#[derive(DeviceCopy)]` enums: parameters by value, locals,
//! struct fields, device functions and `#[device] impl` methods, `==`/`!=`, `as` casts and
//! `match` (paths, `|`, `_`, bindings, guards).

use cuprum::prelude::*;

/// An operation, with a written discriminant in the middle.
#[derive(Clone, Copy, Debug, PartialEq, DeviceCopy)]
#[repr(u8)]
pub enum Op {
    Add,
    Mul = 5,
    Sub,
    Max,
}

/// A signed 32-bit enum whose discriminants are negative and sparse.
#[derive(Clone, Copy, Debug, PartialEq, DeviceCopy)]
#[repr(i32)]
pub enum Level {
    Low = -7,
    Mid = 0,
    High = 1000,
}

/// An instruction: an enum field inside a struct (4 + 1 + 1 + 2 bytes, no padding).
#[derive(Clone, Copy, Debug, PartialEq, DeviceCopy)]
#[repr(C)]
pub struct Step {
    pub operand: f32,
    pub op: Op,
    pub twice: bool,
    pub tag: u16,
}

#[device]
impl Op {
    /// Applies the operation (a `match` on `self` with `|`-less arms).
    pub fn apply(self, a: f32, b: f32) -> f32 {
        match self {
            Op::Add => a + b,
            Op::Mul => a * b,
            Op::Sub => a - b,
            Op::Max => a.max(b),
        }
    }

    /// The next operation, wrapping: an enum result built from variants.
    pub fn next(&self) -> Op {
        match *self {
            Op::Add => Op::Mul,
            Op::Mul => Op::Sub,
            Op::Sub => Op::Max,
            Op::Max => Op::Add,
        }
    }
}

/// The level of a value: an enum result of a device function (guards and `_`).
#[device]
pub fn level_of(x: f32) -> Level {
    match x {
        v if v < -0.5 => Level::Low,
        v if v > 0.5 => Level::High,
        _ => Level::Mid,
    }
}

/// An enum parameter of a device function, matched with `|` and a binding.
#[device]
pub fn weight(l: Level, op: Op) -> i32 {
    let base = match l {
        Level::Low | Level::Mid => 1,
        other => other as i32 / 100,
    };
    match op {
        Op::Add | Op::Sub => base,
        o @ Op::Mul => base * (o as i32),
        _ => -base,
    }
}

/// Enum parameters by value, a struct holding an enum, locals, comparisons, casts and
/// device functions.
#[kernel]
pub fn enum_ops(
    out: &mut [f32],
    codes: &mut [i32],
    xs: &[f32],
    ys: &[f32],
    op: Op,
    step: Step,
    l: Level,
) {
    let i = gpu::global_id_x();
    if i < out.len() {
        let mut local = op;
        if i % 2 == 1 {
            local = local.next();
        }
        let mut v = local.apply(xs[i], ys[i]);
        let s = step;
        if s.op != Op::Add {
            v = s.op.apply(v, s.operand);
        }
        if s.twice && local == s.op {
            v = v * 2.0;
        }
        out[i] = v;
        let lv = level_of(xs[i]);
        let same = if lv == l { 1 } else { 0 };
        codes[i] = lv as i32 * 10 + weight(lv, local) + same + s.tag as i32 + op as u8 as i32;
    }
}

/// A `match` on a tuple of an enum and an integer, the enum as an array of variants, and
/// a `let` without a value assigned in the arms.
#[kernel]
pub fn enum_match(out: &mut [u32], xs: &[u32]) {
    let i = gpu::global_id_x();
    if i < out.len() {
        let ops = [Op::Add, Op::Mul, Op::Sub, Op::Max];
        let op = ops[(xs[i] % 4) as usize];
        let r: u32;
        match (op, xs[i] % 3) {
            (Op::Add, 0) => r = 1,
            (Op::Add | Op::Mul, k) => r = 10 + k,
            (Op::Sub, k) if k > 0 => r = 100 * k,
            (_, 0) => r = 1000,
            (o, _) => r = o as u32,
        }
        out[i] = r;
    }
}

/// How many steps a program has: a constant used as an array length.
pub const LEN: usize = 3;

/// Constants of user types: a struct, a tuple, an enum, and an array of structs built from
/// literals and another constant.
pub const ORIGIN: Step = Step {
    operand: 1.5,
    op: Op::Mul,
    twice: false,
    tag: 7,
};
pub const PAIR: (f32, u32) = (0.25, 3);
pub const DEFAULT_OP: Op = Op::Sub;
pub const PROGRAM: [Step; LEN] = [
    Step {
        operand: 2.0,
        op: Op::Add,
        twice: true,
        tag: 1,
    },
    ORIGIN,
    Step {
        operand: -1.0,
        op: Op::Max,
        twice: false,
        tag: 2,
    },
];

/// A read-only table of structs (constant memory).
pub static TABLE: [Step; 2] = [
    Step {
        operand: 0.5,
        op: Op::Sub,
        twice: true,
        tag: 11,
    },
    Step {
        operand: 3.0,
        op: DEFAULT_OP,
        twice: false,
        tag: 12,
    },
];

/// Runs the constant program on each value: module and body constants of struct, tuple,
/// enum and array-of-struct types, and a `static` table of structs.
#[kernel]
pub fn run_program(out: &mut [f32], xs: &[f32]) {
    const LOCAL: Step = Step {
        operand: 0.75,
        op: DEFAULT_OP,
        twice: true,
        tag: PAIR.1 as u16,
    };
    const WEIGHTS: (f32, [f32; LEN + 1]) = (2.0, [0.5, 0.25, 0.125, 0.0625]);
    let i = gpu::global_id_x();
    if i < out.len() {
        let mut v = xs[i];
        for k in 0..LEN {
            let s = PROGRAM[k];
            v = s.op.apply(v, s.operand);
            if s.twice {
                v *= WEIGHTS.0;
            }
        }
        let t = TABLE[i % 2];
        v = t.op.apply(v, t.operand) + LOCAL.op.apply(PAIR.0, LOCAL.operand);
        let mut acc = [0.0f32; LEN + 1];
        for k in 0..LEN + 1 {
            acc[k] = v * WEIGHTS.1[k];
        }
        out[i] = acc[i % (LEN + 1)] + (ORIGIN.tag + LOCAL.tag + t.tag) as f32 + PAIR.1 as f32;
    }
}

/// The class of a value. No variant has discriminant 0, so zero bits are no class: a buffer
/// of it cannot be `alloc_zeros`ed.
#[derive(Clone, Copy, Debug, PartialEq, DeviceCopy)]
#[repr(u8)]
pub enum Class {
    Negative = 1,
    Small = 2,
    Large = 3,
}

/// The class of `x` (a host function too).
#[device]
pub fn class_of(x: f32) -> Class {
    if x < 0.0 {
        Class::Negative
    } else if x < 0.5 {
        Class::Small
    } else {
        Class::Large
    }
}

/// Enums as slice elements: classifies each value into a `&mut [Class]`, and counts how
/// many of the block's values are of the class of the value before (read back from the
/// buffer it wrote, through a shared array of enums).
#[kernel]
pub fn classify(classes: &mut [Class], same_as_before: &mut [u32], xs: &[f32]) {
    let tile = gpu::shared_array::<Class, 128>();
    let t = gpu::thread_idx().x as usize;
    let i = gpu::global_id_x();
    if i < xs.len() {
        classes[i] = class_of(xs[i]);
        tile[t] = classes[i];
    }
    gpu::sync_threads();
    if i < xs.len() {
        let before = if t == 0 { Class::Large } else { tile[t - 1] };
        same_as_before[i] = match (tile[t], before) {
            (Class::Negative, Class::Negative) => 1,
            (Class::Small, Class::Small) => 2,
            (c, b) if c == b => 3,
            _ => 0,
        };
    }
}

/// Slices of enums read and written (`&[Op]`, `&mut [Op]`), and a shared array of them
/// reversed within each block of 128.
#[kernel]
pub fn apply_reversed(out: &mut [f32], next: &mut [Op], ops: &[Op], xs: &[f32]) {
    let tile = gpu::shared_array::<Op, 128>();
    let t = gpu::thread_idx().x as usize;
    let i = gpu::global_id_x();
    if i < ops.len() {
        tile[t] = ops[i];
        next[i] = ops[i].next();
    }
    gpu::sync_threads();
    let j = gpu::block_dim().x as usize - 1 - t;
    let src = gpu::block_idx().x as usize * gpu::block_dim().x as usize + j;
    if i < out.len() && src < ops.len() {
        out[i] = tile[j].apply(xs[i], 1.5);
    }
}

/// Structs holding an enum as slice elements: whole elements read, fields written in place,
/// an `&mut self` method on an element.
#[kernel]
pub fn run_steps(steps: &mut [Step], out: &mut [f32], xs: &[f32]) {
    let i = gpu::global_id_x();
    if i < steps.len() {
        let s = steps[i];
        let mut v = s.op.apply(xs[i], s.operand);
        if s.twice {
            v *= 2.0;
        }
        out[i] = v;
        steps[i].op = s.op.next();
        steps[i].tag += 1;
        steps[i].advance();
    }
}

#[device]
impl Step {
    /// Halves the operand, and flips `twice` for `Max`.
    pub fn advance(&mut self) {
        self.operand *= 0.5;
        if self.op == Op::Max {
            self.twice = !self.twice;
        }
    }
}

/// Writes integer codes into memory that the host reads as enums (a `DeviceBuffer<Op>`'s
/// `as_repr_mut()`): any integer may land there.
#[kernel]
pub fn write_codes(codes: &mut [u8], xs: &[u32]) {
    let i = gpu::global_id_x();
    if i < codes.len() {
        codes[i] = (xs[i] % 256) as u8;
    }
}

/// A `match` whose last arm has a guard after arms that cover every variant: only an integer
/// that is no variant (memory written through `as_repr_mut`) gets past them, and on a GPU it
/// stops the kernel with an `unreachable!` report instead of looping.
#[kernel]
pub fn guarded_last(out: &mut [u32], ops: &[Op], limit: u32) {
    let i = gpu::global_id_x();
    if i < out.len() {
        out[i] = match ops[i] {
            Op::Add | Op::Mul => 1,
            Op::Sub | Op::Max => 2,
            o if (o as u32) < limit => 3,
        };
    }
}
