//! Barriers and memory fences.
//!
//! Inside kernels these compile to `bar.sync`, `bar.red`, `bar.warp.sync` and `fence.sc`; the
//! host functions here exist so that `#[device]` functions compile as ordinary Rust, and they
//! panic when called outside a kernel.

fn outside(name: &str) -> ! {
    panic!("cuprum::gpu::{name} can only be called inside a kernel")
}

/// Waits until every thread of the block has reached this call (CUDA's `__syncthreads`);
/// shared-memory writes before it are visible to the whole block after it.
pub fn sync_threads() {
    outside("sync_threads")
}

/// Waits until every thread of the grid has reached this call (cooperative groups'
/// `grid.sync()`); writes before it are visible to the whole grid after it. Only kernels
/// marked `#[kernel(cooperative)]` may call it: they are launched with every block resident.
pub fn grid_sync() {
    outside("grid_sync")
}

/// `sync_threads`, returning how many threads of the block passed `true`
/// (`__syncthreads_count`).
pub fn sync_threads_count(_p: bool) -> u32 {
    outside("sync_threads_count")
}

/// `sync_threads`, returning whether every thread of the block passed `true`
/// (`__syncthreads_and`).
pub fn sync_threads_and(_p: bool) -> bool {
    outside("sync_threads_and")
}

/// `sync_threads`, returning whether any thread of the block passed `true`
/// (`__syncthreads_or`).
pub fn sync_threads_or(_p: bool) -> bool {
    outside("sync_threads_or")
}

/// Waits until the warp lanes named by `mask` have reached this call (`__syncwarp`).
pub fn sync_warp(_mask: u32) {
    outside("sync_warp")
}

/// Orders this thread's memory accesses for every thread of the GPU (`__threadfence`).
pub fn thread_fence() {
    std::sync::atomic::fence(std::sync::atomic::Ordering::SeqCst)
}

/// Orders this thread's memory accesses for the threads of its block (`__threadfence_block`).
pub fn thread_fence_block() {
    std::sync::atomic::fence(std::sync::atomic::Ordering::SeqCst)
}

/// Orders this thread's memory accesses for the GPU, the host and peer GPUs
/// (`__threadfence_system`).
pub fn thread_fence_system() {
    std::sync::atomic::fence(std::sync::atomic::Ordering::SeqCst)
}
