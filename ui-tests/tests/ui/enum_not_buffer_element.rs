// Device memory is never read on the host as an enum: most bit patterns are no variant
// (here zero is none), so enums are not buffer elements and not `AnyBitPattern`, and
// neither is a struct that holds one.
use cuprum::prelude::*;

#[derive(Clone, Copy, Debug, PartialEq, DeviceCopy)]
#[repr(u8)]
pub enum Op {
    Add = 1,
    Mul = 2,
}

#[derive(Clone, Copy, DeviceCopy)]
#[repr(C)]
pub struct Step {
    pub op: Op,
    pub arg: u8,
}

// What every buffer API (`alloc_zeros`, `to_device`, `to_host`, views, copies) requires.
fn element<T: cuprum::Element>() {}

// What host reads of user types require.
fn any_bits<T: cuprum::AnyBitPattern>() {}

fn main() {
    element::<Op>();
    element::<Step>();
    any_bits::<[u8; 2]>();
    any_bits::<Op>();
    any_bits::<Step>();
}
