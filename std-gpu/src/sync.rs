//! Barriers.

/// Waits until every thread of the block has reached this call (CUDA's `__syncthreads`);
/// shared-memory writes before it are visible to the whole block after it.
pub fn sync_threads() {
    crate::sim::current();
}
