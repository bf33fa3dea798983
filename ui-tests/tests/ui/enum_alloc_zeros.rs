// `alloc_zeros` needs zero bits to be a value: an enum with a variant whose discriminant is
// 0 (and a struct of such fields) can be allocated zeroed, one without cannot.
use cuprum::prelude::*;

#[derive(Clone, Copy, Debug, PartialEq, DeviceCopy)]
#[repr(i32)]
pub enum Level {
    Low = -1,
    Mid,
    High,
}

#[derive(Clone, Copy, Debug, PartialEq, DeviceCopy)]
#[repr(u8)]
pub enum Class {
    Small = 1,
    Large = 2,
}

fn main() -> cuprum::Result<()> {
    let stream = Device::simulator().default_stream();
    let levels = stream.alloc_zeros::<Level>(4)?;
    let classes = stream.alloc_zeros::<Class>(4)?;
    let _ = (levels, classes);
    Ok(())
}
