//! `VectorLanes`: the scalar types whose buffers can be read as 16-byte vectors
//! ([`DeviceBuffer::as_vectors`](crate::DeviceBuffer::as_vectors)).
//!
//! A kernel moves a 16-byte element (`[u32; 4]`, `[f64; 2]`) in one 128-bit access
//! (`ld.global.nc.v4.u32`), because its slices start at a multiple of 16 bytes. A buffer of
//! `u32`s holds the same bytes, but a view of it may start anywhere a `u32` may. `as_vectors`
//! splits such memory into the elements before the first 16-byte boundary, the 16-byte
//! vectors after it and the elements left over, as `slice::as_simd` does on the host: the
//! middle part is a view of `[T; N]` that launches take for a `&[[T; N]]` parameter (and,
//! from `as_vectors_mut`, for a `&mut [[T; N]]` one), and every element is in exactly one of
//! the three parts. The split is computed from the memory's real address, so it holds for
//! every view, length and start.

mod sealed {
    pub trait Sealed<const N: usize> {}
}

/// A scalar type that fills a 16-byte vector with `N` lanes: `i32`, `u32` and `f32` with 4,
/// `i64`, `u64`, `isize`, `usize` and `f64` with 2. Every bit pattern of `[T; N]` is a
/// value, so reading the memory of `T`s as vectors of them is sound.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not read as 16-byte vectors of this many lanes",
    label = "`as_vectors::<N>` needs `[{Self}; N]` to be 16 bytes",
    note = "4-byte scalars (`i32`, `u32`, `f32`) take `as_vectors::<4>()`, 8-byte ones (`i64`, `u64`, `isize`, `usize`, `f64`) `as_vectors::<2>()`"
)]
pub trait VectorLanes<const N: usize>:
    crate::Element + crate::AnyBitPattern + sealed::Sealed<N>
{
}

macro_rules! lanes {
    ($n:literal: $($t:ty),*) => {$(
        impl sealed::Sealed<$n> for $t {}
        impl VectorLanes<$n> for $t {}
    )*};
}

lanes!(4: i32, u32, f32);
lanes!(2: i64, u64, isize, usize, f64);

/// Where the 16-byte vectors of `len` elements of `size` bytes, the first at address `addr`,
/// begin and how many there are: `(head, vectors)`, the head being the elements before the
/// first 16-byte boundary. No vectors (and every element in the head) when the elements
/// never reach a boundary (an address that is not a multiple of `size`).
pub(crate) fn split(addr: u64, len: usize, size: usize, lanes: usize) -> (usize, usize) {
    let to_boundary = (addr.wrapping_neg() % 16) as usize;
    if !to_boundary.is_multiple_of(size) {
        return (len, 0);
    }
    let head = (to_boundary / size).min(len);
    (head, (len - head) / lanes)
}

#[cfg(test)]
mod tests {
    use super::split;

    #[test]
    fn heads_reach_the_next_boundary() {
        assert_eq!(split(0x1000, 10, 4, 4), (0, 2));
        assert_eq!(split(0x1004, 10, 4, 4), (3, 1));
        assert_eq!(split(0x1008, 10, 4, 4), (2, 2));
        assert_eq!(split(0x100c, 3, 4, 4), (1, 0));
        assert_eq!(split(0x1004, 2, 4, 4), (2, 0));
        assert_eq!(split(0x1008, 7, 8, 2), (1, 3));
        assert_eq!(split(0x1002, 9, 4, 4), (9, 0));
        assert_eq!(split(0x1000, 0, 4, 4), (0, 0));
    }
}
