//! Thread and block indices.

use crate::sim::current;
use crate::Dim3;

/// This thread's index within its block (CUDA's `threadIdx`).
pub fn thread_idx() -> Dim3 {
    current().thread
}

/// This block's index within the grid (CUDA's `blockIdx`).
pub fn block_idx() -> Dim3 {
    current().block
}

/// Threads per block (CUDA's `blockDim`).
pub fn block_dim() -> Dim3 {
    current().block_dim
}

/// Blocks per grid (CUDA's `gridDim`).
pub fn grid_dim() -> Dim3 {
    current().grid_dim
}

fn global(axis: fn(Dim3) -> u32) -> usize {
    let c = current();
    axis(c.block) as usize * axis(c.block_dim) as usize + axis(c.thread) as usize
}

fn stride(axis: fn(Dim3) -> u32) -> usize {
    let c = current();
    axis(c.block_dim) as usize * axis(c.grid_dim) as usize
}

/// `block_idx().x * block_dim().x + thread_idx().x`, computed without overflow (Numba's
/// `cuda.grid(1)`).
pub fn global_id_x() -> usize {
    global(|d| d.x)
}

/// The global thread index along y.
pub fn global_id_y() -> usize {
    global(|d| d.y)
}

/// The global thread index along z.
pub fn global_id_z() -> usize {
    global(|d| d.z)
}

/// Threads in the whole grid along x, the step of a grid-stride loop (Numba's `cuda.gridsize(1)`).
pub fn grid_stride_x() -> usize {
    stride(|d| d.x)
}

/// Threads in the whole grid along y.
pub fn grid_stride_y() -> usize {
    stride(|d| d.y)
}

/// Threads in the whole grid along z.
pub fn grid_stride_z() -> usize {
    stride(|d| d.z)
}

fn linear_thread() -> u32 {
    let c = current();
    (c.thread.z * c.block_dim.y + c.thread.y) * c.block_dim.x + c.thread.x
}

/// This thread's lane within its warp, `0..32`.
pub fn lane_id() -> u32 {
    linear_thread() % crate::WARP_SIZE
}

/// This thread's warp within its block: its linear index in the block divided by 32.
pub fn warp_id() -> u32 {
    linear_thread() / crate::WARP_SIZE
}
