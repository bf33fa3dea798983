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

/// A [`DeviceCopy`] type of which every bit pattern of its size is a value: what may be
/// reinterpreted from any memory without a check, whatever wrote it.
///
/// The integer and float types, arrays of `AnyBitPattern` types, and `#[derive(DeviceCopy)]`
/// structs whose fields all are. Not `bool` and not `DeviceCopy` enums, whose other bit
/// patterns are no value: an enum is a buffer element, but its memory becomes host values
/// only through the checks of [`DeviceEnum`].
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

/// A field-less `#[derive(DeviceCopy)]` enum with an integer `#[repr(..)]` (the derive
/// implements it): kernels hold a value as its discriminant, of type [`Repr`](Self::Repr).
///
/// Enums are buffer and slice elements, but most bit patterns of their size are no variant,
/// so device memory of an enum is read soundly: every copy into host enum values
/// ([`Stream::to_host`](crate::Stream::to_host), [`Stream::copy_to_host`](crate::Stream::copy_to_host))
/// checks each element and returns [`Error::NotAVariant`](crate::Error::NotAVariant) for bits
/// that are no variant. Through [`DeviceBuffer::as_repr_mut`](crate::DeviceBuffer::as_repr_mut)
/// a kernel or a copy may write any integer into the buffer.
///
/// # Safety
/// `Repr` has the enum's size and alignment, and every value of the enum is a value of
/// `Repr` (its discriminant).
pub unsafe trait DeviceEnum: crate::Element {
    /// The `repr` integer (`u8` for `#[repr(u8)]`).
    type Repr: crate::Element + AnyBitPattern;
}

/// Whether a `DeviceCopy` enum has a variant whose discriminant is 0, as a type: the derive
/// implements `ValidAsZeroBits` for the enum where `ZeroIsAVariant<{ .. }>: Holds`.
#[doc(hidden)]
pub struct ZeroIsAVariant<const B: bool>;

/// Implemented for `ZeroIsAVariant<true>` only.
#[doc(hidden)]
#[diagnostic::on_unimplemented(
    message = "zero bits are no value of this enum: no variant has discriminant 0",
    label = "`alloc_zeros` and `alloc_pinned` need the all-zero bit pattern to be a value",
    note = "give a variant the discriminant 0 (`Name = 0`), or make the buffer from values with `to_device`"
)]
pub trait Holds {}

impl Holds for ZeroIsAVariant<true> {}
