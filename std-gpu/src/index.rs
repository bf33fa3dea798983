//! Thread and block indices.

use crate::sim::current;
use crate::Dim3;

/// This thread's index within its block (CUDA's `threadIdx`).
pub fn thread_idx() -> Dim3 {
    current(|t| t.thread_idx())
}

/// This block's index within the grid (CUDA's `blockIdx`).
pub fn block_idx() -> Dim3 {
    current(|t| t.block_idx())
}

/// Threads per block (CUDA's `blockDim`).
pub fn block_dim() -> Dim3 {
    current(|t| t.block_dim())
}

/// Blocks per grid (CUDA's `gridDim`).
pub fn grid_dim() -> Dim3 {
    current(|t| t.grid_dim())
}

/// `block_idx().x * block_dim().x + thread_idx().x`, computed without overflow (Numba's
/// `cuda.grid(1)`).
pub fn global_id_x() -> usize {
    current(|t| t.global_id(0))
}

/// The global thread index along y.
pub fn global_id_y() -> usize {
    current(|t| t.global_id(1))
}

/// The global thread index along z.
pub fn global_id_z() -> usize {
    current(|t| t.global_id(2))
}

/// Threads in the whole grid along x, the step of a grid-stride loop (Numba's
/// `cuda.gridsize(1)`).
pub fn grid_stride_x() -> usize {
    current(|t| t.grid_stride(0))
}

/// Threads in the whole grid along y.
pub fn grid_stride_y() -> usize {
    current(|t| t.grid_stride(1))
}

/// Threads in the whole grid along z.
pub fn grid_stride_z() -> usize {
    current(|t| t.grid_stride(2))
}

/// This thread's lane within its warp, `0..32`.
pub fn lane_id() -> u32 {
    current(|t| t.lane_id())
}

/// The lanes of this warp below this thread's lane (`%lanemask_lt`).
pub fn lanemask_lt() -> u32 {
    current(|t| ((1u64 << t.lane_id()) - 1) as u32)
}

/// The lanes of this warp up to and including this thread's lane (`%lanemask_le`).
pub fn lanemask_le() -> u32 {
    current(|t| ((2u64 << t.lane_id()) - 1) as u32)
}

/// The lanes of this warp above this thread's lane (`%lanemask_gt`).
pub fn lanemask_gt() -> u32 {
    !lanemask_le()
}

/// The lanes of this warp from this thread's lane up (`%lanemask_ge`).
pub fn lanemask_ge() -> u32 {
    !lanemask_lt()
}

/// This thread's warp within its block: its linear index in the block divided by 32.
pub fn warp_id() -> u32 {
    current(|t| t.warp_id())
}
