//! `Element`: the types a device buffer can hold.

/// A type that can live in a [`DeviceBuffer`](crate::DeviceBuffer) and be a kernel's slice
/// element: `bool`, the integer types up to 64 bits, `f32` and `f64`, arrays of elements
/// (`[f32; 4]`), and `#[repr(C)]` structs that `#[derive(DeviceCopy)]` (the derive implements
/// it).
///
/// # Safety
/// The type is [`DeviceCopy`](crate::DeviceCopy) (plain data without padding, so every byte
/// a copy moves is initialised), the all-zero bit pattern is one of its values (buffers are
/// allocated zeroed), and its simulator accesses ([`SimValue`](cuprum_std::sim::SimValue))
/// cover exactly its scalars at their `repr(C)` offsets.
pub unsafe trait Element:
    crate::DeviceCopy
    + cudarc::driver::DeviceRepr
    + cudarc::driver::ValidAsZeroBits
    + cuprum_std::sim::SimValue
    + Copy
    + Send
    + Sync
    + 'static
{
    /// The Rust name of the type, as kernels spell it (`"array"` for arrays).
    const NAME: &'static str;
}

macro_rules! elements {
    ($($t:ty),*) => {$(
        // SAFETY: scalars are padding-free plain data, zero is a value of each, and their
        // simulator accesses are one atomic access of their width.
        unsafe impl Element for $t {
            const NAME: &'static str = stringify!($t);
        }
    )*};
}

elements!(bool, i8, i16, i32, i64, isize, u8, u16, u32, u64, usize, f32, f64);

// SAFETY: an array of elements has no padding, zero is a value when it is one of `T`'s, and
// its simulator accesses are its elements' at consecutive offsets.
unsafe impl<T: Element, const N: usize> Element for [T; N] {
    const NAME: &'static str = "array";
}
