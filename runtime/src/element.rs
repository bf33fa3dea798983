//! `Element`: the scalar types a device buffer can hold.

mod sealed {
    pub trait Sealed {}
}

/// A scalar that can live in a [`DeviceBuffer`](crate::DeviceBuffer) and cross to a kernel:
/// `bool`, the integer types up to 64 bits, `f32` and `f64`. Sealed: kernels know exactly
/// these types.
pub trait Element:
    sealed::Sealed
    + cudarc::driver::DeviceRepr
    + cudarc::driver::ValidAsZeroBits
    + cuprum_std::sim::SimScalar
    + Copy
    + Default
    + PartialEq
    + std::fmt::Debug
    + Send
    + Sync
    + 'static
{
    /// The Rust name of the type, as kernels spell it.
    const NAME: &'static str;
}

macro_rules! elements {
    ($($t:ty),*) => {$(
        impl sealed::Sealed for $t {}
        impl Element for $t {
            const NAME: &'static str = stringify!($t);
        }
    )*};
}

elements!(bool, i8, i16, i32, i64, isize, u8, u16, u32, u64, usize, f32, f64);
