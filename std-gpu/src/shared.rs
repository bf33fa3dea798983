//! Shared memory: arrays that the threads of one block share.
//!
//! In a kernel, `let tile = gpu::shared_array::<f32, 256>();` allocates one array per block at
//! that call site (in PTX's `.shared` space) and `tile[i]` reads and writes it; the size must
//! be a constant. `dynamic_shared::<T>()` is the launch's dynamic shared memory
//! (`launch!(k<<<grid, block, bytes, stream>>>(..))`) seen as `bytes / size_of::<T>()`
//! elements. Outside a kernel these functions panic.

fn outside(name: &str) -> ! {
    panic!("cuprum::gpu::{name} can only be called inside a kernel")
}

/// A shared array of `N` elements, one per block per call site.
pub fn shared_array<T, const N: usize>() -> &'static mut [T; N] {
    outside("shared_array")
}

/// A shared `R × C` array, indexed `s[r][c]`, one per block per call site.
pub fn shared_array_2d<T, const R: usize, const C: usize>() -> &'static mut [[T; C]; R] {
    outside("shared_array_2d")
}

/// The launch's dynamic shared memory as an array of `T`.
pub fn dynamic_shared<T>() -> &'static mut [T] {
    outside("dynamic_shared")
}
