//! `Element`: the types a device buffer can hold.

/// A type that can live in a [`DeviceBuffer`](crate::DeviceBuffer) and be a kernel's slice
/// element: `bool`, the integer types up to 64 bits, `f32` and `f64`, arrays of elements
/// (`[f32; 4]`), and the `#[repr(C)]` structs and field-less enums that
/// `#[derive(DeviceCopy)]` (the derive implements it).
///
/// Zero bits need not be a value ([`Stream::alloc_zeros`](crate::Stream::alloc_zeros) also
/// asks for `ValidAsZeroBits`, which an enum has only when a variant's discriminant is 0),
/// and neither need every bit pattern: for types holding an enum
/// ([`SimValue::CHECKED`](cuprum_std::sim::SimValue::CHECKED)) every read of device memory
/// into values, by the host or by the simulator, checks the bits first.
///
/// # Safety
/// The type is [`DeviceCopy`](crate::DeviceCopy) (plain data without padding, so every byte
/// a copy moves is initialised), and its simulator accesses
/// ([`SimValue`](cuprum_std::sim::SimValue)) cover exactly its scalars at their `repr(C)`
/// offsets and check every scalar whose bit patterns are not all values.
pub unsafe trait Element:
    crate::DeviceCopy
    + cudarc::driver::DeviceRepr
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
        // SAFETY: scalars are padding-free plain data, and their simulator accesses are one
        // atomic access of their width.
        unsafe impl Element for $t {
            const NAME: &'static str = stringify!($t);
        }
    )*};
}

elements!(bool, i8, i16, i32, i64, isize, u8, u16, u32, u64, usize, f32, f64);

// SAFETY: an array of elements has no padding, and its simulator accesses are its elements'
// at consecutive offsets.
unsafe impl<T: Element, const N: usize> Element for [T; N] {
    const NAME: &'static str = "array";
}
