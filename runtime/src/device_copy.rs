//! `DeviceCopy`: plain data that kernels take by value and buffers hold.

/// A type whose values are plain bytes that kernels can take by value: the scalars, arrays
/// of `DeviceCopy` types, and `#[repr(C)]` structs that `#[derive(DeviceCopy)]`.
///
/// # Safety
/// Every bit pattern of the type's size that the host copies to the device must be read by
/// kernels as a value of the type: the type is `Copy`, has no pointers or references, and
/// has no padding bytes (so no uninitialised byte is ever copied or read). The derive checks
/// all of this; implement it by hand only under the same promises.
pub unsafe trait DeviceCopy: Copy + Send + Sync + 'static {}

macro_rules! device_copy {
    ($($t:ty),*) => {$(
        // SAFETY: scalars have no padding and no pointers.
        unsafe impl DeviceCopy for $t {}
    )*};
}

device_copy!(bool, i8, i16, i32, i64, isize, u8, u16, u32, u64, usize, f32, f64);

// SAFETY: an array of padding-free plain data is padding-free plain data.
unsafe impl<T: DeviceCopy, const N: usize> DeviceCopy for [T; N] {}

/// A [`DeviceCopy`] type of which every bit pattern of its size is a value: what host code
/// may read back from device memory, whatever wrote it, or allocate zeroed.
///
/// The integer and float types, arrays of `AnyBitPattern` types, and `#[derive(DeviceCopy)]`
/// structs whose fields all are. Not `bool` and not `DeviceCopy` enums, whose other bit
/// patterns are no value: such types cross to kernels by value only.
///
/// # Safety
/// Every initialised bit pattern of `size_of::<Self>()` bytes must be a valid value of the
/// type (and the type has no padding).
pub unsafe trait AnyBitPattern: DeviceCopy {}

macro_rules! any_bit_pattern {
    ($($t:ty),*) => {$(
        // SAFETY: every bit pattern of an integer or a float is a value.
        unsafe impl AnyBitPattern for $t {}
    )*};
}

any_bit_pattern!(i8, i16, i32, i64, isize, u8, u16, u32, u64, usize, f32, f64);

// SAFETY: an array's bit patterns are its elements'.
unsafe impl<T: AnyBitPattern, const N: usize> AnyBitPattern for [T; N] {}
