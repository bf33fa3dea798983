//! `Dim3`: a three-dimensional size or index.

/// A size or position in three dimensions, as CUDA's `dim3`: grid and block sizes, block and
/// thread indices.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Dim3 {
    /// Extent or index along x.
    pub x: u32,
    /// Extent or index along y.
    pub y: u32,
    /// Extent or index along z.
    pub z: u32,
}

impl Dim3 {
    /// A `Dim3` from its three components.
    pub const fn new(x: u32, y: u32, z: u32) -> Dim3 {
        Dim3 { x, y, z }
    }

    /// The number of elements, `x * y * z`, or `u64::MAX` where that does not fit in a `u64`
    /// (three `u32`s can reach 2^96; no device runs so many blocks or threads, so a limit
    /// compared with the saturated count still rejects it, and it is never 0 unless an axis
    /// is).
    pub const fn volume(self) -> u64 {
        match (self.x as u64 * self.y as u64).checked_mul(self.z as u64) {
            Some(v) => v,
            None => u64::MAX,
        }
    }
}

impl From<u32> for Dim3 {
    fn from(x: u32) -> Dim3 {
        Dim3::new(x, 1, 1)
    }
}

impl From<(u32, u32)> for Dim3 {
    fn from((x, y): (u32, u32)) -> Dim3 {
        Dim3::new(x, y, 1)
    }
}

impl From<(u32, u32, u32)> for Dim3 {
    fn from((x, y, z): (u32, u32, u32)) -> Dim3 {
        Dim3::new(x, y, z)
    }
}
