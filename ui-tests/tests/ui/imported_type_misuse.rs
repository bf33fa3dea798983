use cuprum::prelude::*;

mod model {
    use cuprum::prelude::*;

    #[derive(Clone, Copy, DeviceCopy)]
    #[repr(C)]
    pub struct Particle {
        pub x: f32,
    }

    #[derive(Clone, Copy, PartialEq, DeviceCopy)]
    #[repr(u8)]
    pub enum Op {
        Add,
        Mul,
    }
}

mod plain {
    // Not `DeviceCopy`: kernels cannot take it.
    #[derive(Clone, Copy)]
    #[repr(C)]
    pub struct Plain {
        pub x: f32,
    }
}

use plain::Plain;

mod config {
    pub const TILE: usize = 32;
}

// `crate::` paths are not followed (the file may not be the crate's root).
use crate::config::TILE;

// A type named by its path: the simulator's code names user types by one name.
#[kernel]
pub fn by_path(out: &mut [f32], p: model::Particle) {
    out[0] = p.x;
}

// A variant of an enum named by its path.
#[kernel]
pub fn variant_by_path(out: &mut [u32]) {
    out[0] = model::Op::Mul as u32;
}

// A constant of a module whose items the kernel compiler cannot read.
#[kernel]
pub fn imported_constant(out: &mut [f32]) {
    out[0] = TILE as f32;
}

// An imported type without the derive: rustc finds no macro of that name.
#[kernel]
pub fn not_device_copy(out: &mut [f32], p: Plain) {
    out[0] = p.x;
}

fn main() {}
