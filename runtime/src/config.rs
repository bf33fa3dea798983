//! `LaunchConfig`: grid, block and dynamic shared memory of a launch.

use cuprum_std::Dim3;

/// Something that can be a grid or block size: `u32`, `(u32, u32)`, `(u32, u32, u32)` or
/// [`Dim3`].
#[diagnostic::on_unimplemented(
    message = "grid and block sizes are `u32`, `(u32, u32)`, `(u32, u32, u32)` or `Dim3`, not `{Self}`",
    label = "not a grid or block size",
    note = "convert with `as u32` (CUDA sizes are 32-bit)"
)]
pub trait IntoDim3 {
    /// The size as a `Dim3`.
    fn into_dim3(self) -> Dim3;
}

// One impl per accepted type rather than a blanket `impl<T: Into<Dim3>>`: a wrong size then
// reports the message above instead of "the trait `From<usize>` is not implemented for `Dim3`".
impl IntoDim3 for u32 {
    fn into_dim3(self) -> Dim3 {
        self.into()
    }
}

impl IntoDim3 for (u32, u32) {
    fn into_dim3(self) -> Dim3 {
        self.into()
    }
}

impl IntoDim3 for (u32, u32, u32) {
    fn into_dim3(self) -> Dim3 {
        self.into()
    }
}

impl IntoDim3 for Dim3 {
    fn into_dim3(self) -> Dim3 {
        self
    }
}

/// How a kernel is launched: blocks in the grid, threads per block, and bytes of dynamic
/// shared memory per block.
///
/// ```
/// use cuprum::prelude::*;
///
/// #[kernel]
/// pub fn fill(y: &mut [u32], v: u32) {
///     let i = gpu::global_id_x();
///     if i < y.len() {
///         y[i] = v;
///     }
/// }
///
/// # fn main() -> cuprum::Result<()> {
/// let dev = Device::simulator();
/// // One thread per element in blocks of 128: 8 blocks for 1000 elements.
/// let cfg = LaunchConfig::for_elements(1000, 128);
/// assert_eq!((cfg.grid.x, cfg.block.x, cfg.shared_bytes), (8, 128, 0));
/// // Or the block size that keeps the most threads resident (see `cuprum::occupancy`).
/// let best = LaunchConfig::for_occupancy(&dev, &fill::INFO, 1000)?;
/// let stream = dev.default_stream();
/// let mut y = stream.alloc_zeros::<u32>(1000)?;
/// fill::launch(&stream, best, &mut y, 7)?;
/// launch!(fill<<<(2, 2), (64, 2), stream>>>(&mut y.slice_mut(..100), 9))?;
/// let out = stream.to_host(&y)?;
/// assert!(out[..100].iter().all(|&v| v == 9) && out[100..].iter().all(|&v| v == 7));
/// # Ok(()) }
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LaunchConfig {
    /// Blocks in the grid.
    pub grid: Dim3,
    /// Threads per block.
    pub block: Dim3,
    /// Dynamic shared memory per block, in bytes (see `gpu::dynamic_shared`).
    pub shared_bytes: u32,
}

impl LaunchConfig {
    /// A launch of `grid` blocks of `block` threads, without dynamic shared memory.
    pub fn new(grid: impl IntoDim3, block: impl IntoDim3) -> LaunchConfig {
        LaunchConfig {
            grid: grid.into_dim3(),
            block: block.into_dim3(),
            shared_bytes: 0,
        }
    }

    /// One thread per element: `block` threads per block and enough blocks to cover `n`
    /// elements (the last block may have threads past the end; kernels check `i < len`).
    /// `n == 0` gives an empty grid, which launches nothing.
    ///
    /// # Panics
    /// If `block` is zero, or `n` needs more than `u32::MAX` blocks;
    /// [`try_for_elements`](Self::try_for_elements) returns `Err` instead.
    pub fn for_elements(n: usize, block: u32) -> LaunchConfig {
        LaunchConfig::try_for_elements(n, block).unwrap_or_else(|e| panic!("{e}"))
    }

    /// As [`for_elements`](Self::for_elements), without panicking.
    ///
    /// # Errors
    /// [`Error::LaunchConfig`](crate::Error::LaunchConfig) if `block` is zero, or `n` needs
    /// more than `u32::MAX` blocks.
    pub fn try_for_elements(n: usize, block: u32) -> crate::Result<LaunchConfig> {
        if block == 0 {
            return Err(crate::Error::LaunchConfig(
                "LaunchConfig::for_elements: a block needs at least one thread".into(),
            ));
        }
        let blocks = n.div_ceil(block as usize);
        let blocks = u32::try_from(blocks).map_err(|_| {
            crate::Error::LaunchConfig(format!(
                "LaunchConfig::for_elements: {n} elements need {blocks} blocks of {block}, more than a grid holds; use a grid-stride loop"
            ))
        })?;
        Ok(LaunchConfig::new(blocks, block))
    }

    /// The same launch with `bytes` of dynamic shared memory per block.
    pub fn with_shared_bytes(mut self, bytes: u32) -> LaunchConfig {
        self.shared_bytes = bytes;
        self
    }

    /// Threads per block.
    pub fn threads_per_block(&self) -> u64 {
        self.block.volume()
    }

    /// True when the grid has no blocks: such a launch does nothing.
    pub fn is_empty(&self) -> bool {
        self.grid.volume() == 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn for_elements_rounds_up() {
        let c = LaunchConfig::for_elements(1000, 256);
        assert_eq!(
            (c.grid, c.block),
            (Dim3::new(4, 1, 1), Dim3::new(256, 1, 1))
        );
        assert!(LaunchConfig::for_elements(0, 256).is_empty());
    }

    #[test]
    fn try_for_elements_refuses_what_for_elements_panics_on() {
        assert!(LaunchConfig::try_for_elements(10, 0).is_err());
        assert!(LaunchConfig::try_for_elements(usize::MAX, 1).is_err());
        assert_eq!(
            LaunchConfig::try_for_elements(1000, 256).ok(),
            Some(LaunchConfig::for_elements(1000, 256))
        );
    }

    #[test]
    fn sizes_from_tuples() {
        let c = LaunchConfig::new((2, 3), (4, 5, 6)).with_shared_bytes(64);
        assert_eq!(c.grid, Dim3::new(2, 3, 1));
        assert_eq!(c.threads_per_block(), 120);
        assert_eq!(c.shared_bytes, 64);
    }
}
