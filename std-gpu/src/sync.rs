//! Barriers.

/// Waits until every thread of the block has reached this call (CUDA's `__syncthreads`);
/// shared-memory writes before it are visible to the whole block after it.
///
/// # Panics
/// Outside a kernel (see the crate documentation).
pub fn sync_threads() {
    static LOC: crate::sim::Loc = crate::sim::Loc {
        file: "<host call>",
        line: 0,
        column: 0,
    };
    crate::sim::current(|t| {
        let _ = t.sync_threads(&LOC);
    })
}
