//! The simulator's per-thread context: which simulated GPU thread the current host code is
//! running as. The launch machinery lives in the `cuprum` runtime; this module holds what the
//! `cuprum::gpu` functions need to answer.

use std::cell::Cell;

use crate::Dim3;

/// What a simulated thread knows about itself and its launch.
#[derive(Clone, Copy, Debug)]
pub struct ThreadCtx {
    /// `thread_idx()`
    pub thread: Dim3,
    /// `block_idx()`
    pub block: Dim3,
    /// `block_dim()`
    pub block_dim: Dim3,
    /// `grid_dim()`
    pub grid_dim: Dim3,
}

thread_local! {
    static CURRENT: Cell<Option<ThreadCtx>> = const { Cell::new(None) };
}

/// Runs `f` as the simulated thread `ctx`.
pub fn run_as<R>(ctx: ThreadCtx, f: impl FnOnce() -> R) -> R {
    let previous = CURRENT.with(|c| c.replace(Some(ctx)));
    let out = f();
    CURRENT.with(|c| c.set(previous));
    out
}

/// The current simulated thread.
///
/// # Panics
/// Outside a kernel running on the simulator, with a message saying so.
pub fn current() -> ThreadCtx {
    CURRENT.with(|c| c.get()).unwrap_or_else(|| {
        panic!("cuprum::gpu functions can only be called inside a kernel (on the GPU or the simulator)")
    })
}
