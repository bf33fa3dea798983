// Enums are buffer elements (every host read of them checks the discriminants), but never
// `AnyBitPattern`: most bit patterns of their size are no variant (here zero is none), so
// nothing reinterprets memory as an enum unchecked, nor as a struct that holds one.
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

// What every buffer API (`to_device`, `to_host`, views, copies) requires.
fn element<T: cuprum::Element>() {}

// What reading memory as values unchecked would require.
fn any_bits<T: cuprum::AnyBitPattern>() {}

fn main() {
    element::<Op>();
    element::<Step>();
    element::<[Step; 4]>();
    any_bits::<[u8; 2]>();
    any_bits::<Op>();
    any_bits::<Step>();
}
