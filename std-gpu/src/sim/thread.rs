//! One simulated GPU thread: its indices, its way of waiting (barriers and warp operations
//! suspend its coroutine), and the record of why it stopped.

use std::cell::{Cell, RefCell};

use corosensei::Yielder;
use cuprum_abi::CheckKind;

use super::memory::{SharedArray, SimSliceMut};
use super::warp::{WarpOp, WarpOpKind};
use super::{Failure, Loc, Stop};
use crate::Dim3;

/// Why a cooperative thread suspends.
pub(crate) enum Suspend {
    /// At `sync_threads`, with the barrier's kind and the thread's predicate.
    Barrier(&'static Loc, BarrierKind, bool),
    /// At a warp operation.
    Warp(WarpOp),
}

/// What a barrier computes besides waiting.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum BarrierKind {
    /// `sync_threads()`
    Plain,
    /// `sync_threads_count(p)`
    Count,
    /// `sync_threads_and(p)`
    And,
    /// `sync_threads_or(p)`
    Or,
}

/// What a suspended thread is resumed with: the result of its barrier or warp operation.
pub(crate) type Resume = u64;

/// A simulated thread, as the emitted kernel body sees it.
pub struct Thread {
    pub(crate) thread: Dim3,
    pub(crate) block: Dim3,
    pub(crate) block_dim: Dim3,
    pub(crate) grid_dim: Dim3,
    pub(crate) linear: u32,
    pub(crate) yielder: Cell<*const Yielder<Resume, Suspend>>,
    pub(crate) failure: RefCell<Option<Failure>>,
    pub(crate) shared: *mut u8,
    pub(crate) shared_offsets: *const usize,
    pub(crate) dynamic_shared: (*mut u8, usize),
    /// The launch's grid barrier (cooperative launches only; null otherwise).
    pub(crate) grid_barrier: *const super::grid::GridBarrier,
}

thread_local! {
    static CURRENT: Cell<*const Thread> = const { Cell::new(std::ptr::null()) };
}

/// Makes `t` the current simulated thread of this OS thread (for the `cuprum::gpu` functions
/// called from host code); restores the previous one on drop.
pub(crate) struct CurrentGuard(*const Thread);

impl CurrentGuard {
    pub(crate) fn set(t: &Thread) -> CurrentGuard {
        CurrentGuard(CURRENT.with(|c| c.replace(t)))
    }
}

impl Drop for CurrentGuard {
    fn drop(&mut self) {
        CURRENT.with(|c| c.set(self.0));
    }
}

/// Runs `f` with the current simulated thread.
///
/// # Panics
/// Outside a kernel running on the simulator, with a message saying so.
pub fn current<R>(f: impl FnOnce(&Thread) -> R) -> R {
    let p = CURRENT.with(|c| c.get());
    assert!(
        !p.is_null(),
        "cuprum::gpu functions can only be called inside a kernel (on the GPU or the simulator)"
    );
    // SAFETY: set by a CurrentGuard whose Thread outlives the guard.
    f(unsafe { &*p })
}

impl Thread {
    pub(crate) fn new(thread: Dim3, block: Dim3, block_dim: Dim3, grid_dim: Dim3) -> Thread {
        Thread {
            linear: (thread.z * block_dim.y + thread.y) * block_dim.x + thread.x,
            thread,
            block,
            block_dim,
            grid_dim,
            yielder: Cell::new(std::ptr::null()),
            failure: RefCell::new(None),
            shared: std::ptr::null_mut(),
            shared_offsets: std::ptr::null(),
            dynamic_shared: (std::ptr::null_mut(), 0),
            grid_barrier: std::ptr::null(),
        }
    }

    /// Records why this thread stops; returns the `Stop` to propagate with `?`.
    pub fn fail(&self, message: String, loc: Option<Loc>) -> Stop {
        let mut f = self.failure.borrow_mut();
        if f.is_none() {
            *f = Some(Failure {
                message,
                loc,
                block: self.block,
                thread: self.thread,
            });
        }
        Stop(())
    }

    /// `gpu::thread_idx()`
    #[inline]
    pub fn thread_idx(&self) -> Dim3 {
        self.thread
    }

    /// `gpu::block_idx()`
    #[inline]
    pub fn block_idx(&self) -> Dim3 {
        self.block
    }

    /// `gpu::block_dim()`
    #[inline]
    pub fn block_dim(&self) -> Dim3 {
        self.block_dim
    }

    /// `gpu::grid_dim()`
    #[inline]
    pub fn grid_dim(&self) -> Dim3 {
        self.grid_dim
    }

    fn axis(d: Dim3, axis: u8) -> u32 {
        match axis {
            0 => d.x,
            1 => d.y,
            _ => d.z,
        }
    }

    /// `gpu::global_id_x/y/z()` (axis 0, 1, 2).
    #[inline]
    pub fn global_id(&self, axis: u8) -> usize {
        Self::axis(self.block, axis) as usize * Self::axis(self.block_dim, axis) as usize
            + Self::axis(self.thread, axis) as usize
    }

    /// `gpu::grid_stride_x/y/z()`.
    #[inline]
    pub fn grid_stride(&self, axis: u8) -> usize {
        Self::axis(self.block_dim, axis) as usize * Self::axis(self.grid_dim, axis) as usize
    }

    /// `gpu::lane_id()`
    #[inline]
    pub fn lane_id(&self) -> u32 {
        self.linear % crate::WARP_SIZE
    }

    /// `gpu::warp_id()`
    #[inline]
    pub fn warp_id(&self) -> u32 {
        self.linear / crate::WARP_SIZE
    }

    /// Checks an index into a local array.
    #[inline]
    pub fn index(&self, index: usize, len: usize, loc: &'static Loc) -> Result<usize, Stop> {
        if index < len {
            Ok(index)
        } else {
            Err(self.fail(
                CheckKind::Index
                    .message(index as u64, len as u64)
                    .to_string(),
                Some(*loc),
            ))
        }
    }

    /// An index whose check the compiler proved redundant and did not compile for the GPU
    /// (an elided check site): still checked here, and a failure is reported as the
    /// compiler's mistake, so that every kernel the simulator runs also tests the proofs.
    #[inline]
    pub fn proved(&self, index: usize, len: usize, loc: &'static Loc) -> Result<usize, Stop> {
        if index < len {
            Ok(index)
        } else {
            Err(self.fail(
                format!(
                    "internal error in Cuprum's compiler (please report it with this kernel): an index check proved redundant failed: the len is {len} but the index is {index}"
                ),
                Some(*loc),
            ))
        }
    }

    /// An index into a slice of `len` elements that the compiler computes in 32 bits on a GPU
    /// (`passes::narrow`: the launch tested that the slice has fewer than 2³¹ elements, so an
    /// index in range fits): still computed in 64 bits here. An index in range that does not
    /// fit is reported as the compiler's mistake, so that every kernel the simulator runs also
    /// tests that reasoning; one out of range is left to the access, which reports it.
    #[inline]
    pub fn narrowed(&self, index: usize, len: usize, loc: &'static Loc) -> Result<usize, Stop> {
        if (index as u64) < 1 << 31 || index >= len {
            Ok(index)
        } else {
            Err(self.fail(
                format!(
                    "internal error in Cuprum's compiler (please report it with this kernel): an index computed in 32 bits does not fit them: the len is {len} but the index is {index}"
                ),
                Some(*loc),
            ))
        }
    }

    /// A 64-bit operand of a comparison that the compiler computes in 32 bits on a GPU
    /// (`passes::compare32`: value ranges, or the launch's test, put it in `u32`'s range, or
    /// `i32`'s when `signed`): still compared in 64 bits here. One that does not fit is
    /// reported as the compiler's mistake, so that every kernel the simulator runs also tests
    /// that reasoning.
    #[inline]
    pub fn fits32(&self, value: i128, signed: bool, loc: &'static Loc) -> Result<(), Stop> {
        let fits = if signed {
            i32::try_from(value).is_ok()
        } else {
            u32::try_from(value).is_ok()
        };
        if fits {
            Ok(())
        } else {
            Err(self.fail(
                format!(
                    "internal error in Cuprum's compiler (please report it with this kernel): a comparison computed in 32 bits has an operand that does not fit them: {value}"
                ),
                Some(*loc),
            ))
        }
    }

    /// Checks a `step_by` step.
    #[inline]
    pub fn step(&self, step: usize, loc: &'static Loc) -> Result<usize, Stop> {
        if step == 0 {
            Err(self.fail(CheckKind::StepZero.message(0, 0).to_string(), Some(*loc)))
        } else {
            Ok(step)
        }
    }

    fn suspend(&self, why: Suspend) -> Result<Resume, Stop> {
        let y = self.yielder.get();
        if y.is_null() {
            return Err(self.fail(
                "internal simulator error: a barrier or warp operation in a kernel launched without cooperative threads".into(),
                None,
            ));
        }
        // SAFETY: set by the block scheduler to the yielder of the coroutine running this
        // thread, which is alive while the thread runs.
        let value = unsafe { &*y }.suspend(why);
        if self.failure.borrow().is_some() {
            // The scheduler stopped the block (another thread failed, or this barrier was
            // divergent); unwind this thread too.
            return Err(Stop(()));
        }
        Ok(value)
    }

    fn barrier(&self, loc: &'static Loc, kind: BarrierKind, p: bool) -> Result<u64, Stop> {
        self.suspend(Suspend::Barrier(loc, kind, p))
    }

    /// `gpu::sync_threads()`
    pub fn sync_threads(&self, loc: &'static Loc) -> Result<(), Stop> {
        self.barrier(loc, BarrierKind::Plain, false).map(|_| ())
    }

    /// `gpu::grid_sync()`: the block meets; its first thread then waits (blocking this OS
    /// thread, while the block's other threads are suspended at the block barrier) until every
    /// block of the grid has arrived; the block meets again.
    pub fn grid_sync(&self, loc: &'static Loc) -> Result<(), Stop> {
        self.sync_threads(loc)?;
        if self.linear == 0 {
            // SAFETY: set by `run_grid` to a barrier that outlives every block of the launch.
            let Some(barrier) = (unsafe { self.grid_barrier.as_ref() }) else {
                return Err(self.fail(
                    "internal simulator error: gpu::grid_sync() in a launch that is not cooperative"
                        .into(),
                    Some(*loc),
                ));
            };
            if let Err(why) = barrier.wait() {
                return Err(self.fail(why, Some(*loc)));
            }
        }
        self.sync_threads(loc)
    }

    /// `gpu::sync_threads_count(p)`
    pub fn sync_threads_count(&self, p: bool, loc: &'static Loc) -> Result<u32, Stop> {
        self.barrier(loc, BarrierKind::Count, p).map(|v| v as u32)
    }

    /// `gpu::sync_threads_and(p)`
    pub fn sync_threads_and(&self, p: bool, loc: &'static Loc) -> Result<bool, Stop> {
        self.barrier(loc, BarrierKind::And, p).map(|v| v != 0)
    }

    /// `gpu::sync_threads_or(p)`
    pub fn sync_threads_or(&self, p: bool, loc: &'static Loc) -> Result<bool, Stop> {
        self.barrier(loc, BarrierKind::Or, p).map(|v| v != 0)
    }

    /// A warp operation on the raw bits of a value; returns the raw bits of the result.
    pub fn warp(
        &self,
        kind: WarpOpKind,
        mask: u32,
        value: u64,
        loc: &'static Loc,
    ) -> Result<u64, Stop> {
        self.suspend(Suspend::Warp(WarpOp {
            kind,
            mask,
            value,
            loc,
        }))
    }

    /// Static shared array number `k` of the kernel.
    ///
    /// # Safety
    /// `k` is one of the kernel's declared arrays ([`GridSpec::shared`](super::GridSpec)),
    /// `len` elements of `T` fit in its bytes, and the array is not used after this thread's
    /// block has finished (it carries no lifetime).
    pub unsafe fn shared<T>(&self, k: usize, len: usize) -> SharedArray<T>
    where
        T: super::SimValue,
    {
        // SAFETY: the grid runner laid out one region per declared array; the caller passes
        // a declared array and its element count.
        let ptr = unsafe { self.shared.add(*self.shared_offsets.add(k)) };
        SharedArray(SimSliceMut::from_raw(ptr, len))
    }

    /// The launch's dynamic shared memory as an array of `T`.
    ///
    /// # Safety
    /// The array is not used after this thread's block has finished (it carries no lifetime).
    pub unsafe fn dynamic_shared<T: super::SimValue>(&self) -> SharedArray<T> {
        let (ptr, bytes) = self.dynamic_shared;
        SharedArray(SimSliceMut::from_raw(ptr, bytes / std::mem::size_of::<T>()))
    }
}
