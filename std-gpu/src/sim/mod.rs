//! The CPU simulator: runs a kernel's body (emitted by `#[kernel]` as host Rust) for every
//! thread of a grid, with GPU semantics.
//!
//! - Blocks are spread over worker threads. A kernel that never synchronises runs each
//!   block's threads one after another; a kernel with barriers or warp operations runs them
//!   as coroutines on one worker, so that `sync_threads` waits for the whole block and warp
//!   operations exchange values among 32-lane warps.
//! - All device memory (buffers, shared memory) is accessed with relaxed atomics of the
//!   element's width: racing threads read stale or fresh values as on a GPU, but Rust sees no
//!   data race and no `&mut` aliasing.
//! - Errors a GPU would hide or hang on are reported with block and thread: out-of-bounds
//!   indexing, division by zero, a barrier not every thread reaches, a warp operation whose
//!   mask names lanes that are not there.
//! - A failed check stops only its thread, as on a GPU (where the thread exits): the other
//!   threads run to their ends, a stopped thread no longer holds up its block's barriers, and
//!   the first failure is reported.
//! - A simulated thread's stack is sized from the kernel's locals (`GridSpec::frame_bytes`).
//!
//! Everything here is called by macro expansions and the `cuprum` runtime; it is public but
//! hidden and carries no stability promise.

mod block;
mod grid;
mod memory;
mod ops;
mod printf;
mod thread;
mod warp;

use std::fmt;

pub use grid::{run_grid, GridSpec, SharedDecl};
pub use memory::{
    div, rem, NotAValue, OutOfMemory, SharedArray, SimBuffer, SimElement, SimPlace, SimScalar,
    SimSlice, SimSliceMut, SimValue,
};
pub use ops::{clock64, warp_mask, warp_value};
pub use printf::{format_printf, printf, PrintfArg};
pub use thread::{current, Thread};
pub use warp::{ReduxOp, WarpOp, WarpOpKind};

/// A source location in a kernel, for error reports.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Loc {
    /// Source file.
    pub file: &'static str,
    /// Line, 1-based.
    pub line: u32,
    /// Column, 1-based.
    pub column: u32,
}

impl fmt::Display for Loc {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}:{}", self.file, self.line, self.column)
    }
}

/// The error a simulated thread returns when it stops; what went wrong is recorded in its
/// [`Thread`] (this type is zero-sized so that `?` costs nothing on the fast path).
#[derive(Debug)]
pub struct Stop(pub(crate) ());

/// Why a simulated launch failed.
#[derive(Clone, Debug, PartialEq)]
pub struct Failure {
    /// What happened, in words.
    pub message: String,
    /// Where in the kernel's source, when known.
    pub loc: Option<Loc>,
    /// The block of the thread that failed (or that the report is about).
    pub block: crate::Dim3,
    /// The thread, within its block.
    pub thread: crate::Dim3,
}
