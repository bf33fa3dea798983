//! Running one block: threads one after another when the kernel never waits, or as
//! coroutines that meet at barriers and warp operations when it does.

use corosensei::stack::DefaultStack;
use corosensei::{Coroutine, CoroutineResult, Yielder};

use super::thread::{BarrierKind, CurrentGuard, Resume, Suspend, Thread};
use super::warp::{self, WarpOp, WarpOpKind};
use super::{Failure, Loc, Stop};
use crate::Dim3;

/// The kernel body as the simulator calls it.
pub(crate) type Body<'a> = &'a (dyn Fn(&Thread) -> Result<(), Stop> + Sync);

/// Where a block's shared memory lives.
pub(crate) struct SharedLayout<'a> {
    pub base: *mut u8,
    pub offsets: &'a [usize],
    pub dynamic: (*mut u8, usize),
    /// The launch's grid barrier, or null.
    pub grid_barrier: *const super::grid::GridBarrier,
}

fn thread_of(linear: u64, block_dim: Dim3) -> Dim3 {
    let x = (linear % block_dim.x as u64) as u32;
    let rest = linear / block_dim.x as u64;
    Dim3::new(
        x,
        (rest % block_dim.y as u64) as u32,
        (rest / block_dim.y as u64) as u32,
    )
}

fn make_thread(
    linear: u64,
    block: Dim3,
    block_dim: Dim3,
    grid_dim: Dim3,
    shared: &SharedLayout,
) -> Thread {
    let mut t = Thread::new(thread_of(linear, block_dim), block, block_dim, grid_dim);
    t.shared = shared.base;
    t.shared_offsets = shared.offsets.as_ptr();
    t.dynamic_shared = shared.dynamic;
    t.grid_barrier = shared.grid_barrier;
    t
}

fn take_failure(t: &Thread) -> Failure {
    t.failure.borrow_mut().take().unwrap_or_else(|| Failure {
        message: "internal simulator error: a thread stopped without a reason".into(),
        loc: None,
        block: t.block,
        thread: t.thread,
    })
}

/// Runs the threads of a block that never synchronise, one after another. A thread that
/// fails stops alone, as on a GPU (where it exits): the others run to their end. Returns the
/// failure of the lowest-numbered failing thread.
pub(crate) fn run_sequential(
    block: Dim3,
    block_dim: Dim3,
    grid_dim: Dim3,
    shared: &SharedLayout,
    body: Body,
) -> Result<(), Failure> {
    let mut first = None;
    for linear in 0..block_dim.volume() {
        let t = make_thread(linear, block, block_dim, grid_dim, shared);
        let _current = CurrentGuard::set(&t);
        if body(&t).is_err() && first.is_none() {
            first = Some(take_failure(&t));
        }
    }
    first.map_or(Ok(()), Err)
}

#[derive(Clone, Copy)]
enum State {
    Runnable(Resume),
    Barrier(&'static Loc, BarrierKind, bool),
    Warp(WarpOp),
    Done,
    /// Stopped at a failed check: like a GPU thread that exited, it no longer holds up the
    /// block's barriers.
    Failed,
}

type Coro = Coroutine<Resume, Suspend, Result<(), Stop>, DefaultStack>;

/// Runs a block whose threads wait for each other, as coroutines scheduled round-robin on
/// this OS thread, each on a stack of `stack_bytes` (see `grid::stack_bytes`). `stacks` is a
/// pool of such stacks reused from block to block.
pub(crate) fn run_cooperative(
    block: Dim3,
    block_dim: Dim3,
    grid_dim: Dim3,
    shared: &SharedLayout,
    body: Body,
    stacks: &mut Vec<DefaultStack>,
    stack_bytes: usize,
) -> Result<(), Failure> {
    let n = block_dim.volume() as usize;
    let threads: Vec<Thread> = (0..n as u64)
        .map(|l| make_thread(l, block, block_dim, grid_dim, shared))
        .collect();
    let mut coros: Vec<Option<Coro>> = Vec::with_capacity(n);
    for t in &threads {
        let stack = match stacks.pop() {
            Some(s) => s,
            None => DefaultStack::new(stack_bytes).map_err(|e| Failure {
                message: format!("simulator: cannot allocate a thread stack: {e}"),
                loc: None,
                block,
                thread: t.thread,
            })?,
        };
        let tp: *const Thread = t;
        // SAFETY: the coroutine borrows `threads` and `body`, which outlive it: every
        // coroutine is run to completion (see `finish`) before this function returns.
        let c = unsafe {
            Coro::with_stack_unchecked(
                stack,
                move |y: &Yielder<Resume, Suspend>, _first: Resume| {
                    let t = &*tp;
                    t.yielder.set(y);
                    body(t)
                },
            )
        };
        coros.push(Some(c));
    }
    let mut state = vec![State::Runnable(0); n];
    let result = schedule(&threads, &mut coros, &mut state, block_dim);
    finish(&threads, &mut coros, stacks, result)
}

/// Resumes thread `i`; records its new state. A thread that fails is `Failed`; the first
/// failure of the block is kept in `first`.
fn step(
    threads: &[Thread],
    coros: &mut [Option<Coro>],
    state: &mut [State],
    i: usize,
    value: Resume,
    first: &mut Option<Failure>,
) {
    let coro = coros[i]
        .as_mut()
        .expect("runnable threads have a coroutine");
    let r = {
        let _current = CurrentGuard::set(&threads[i]);
        coro.resume(value)
    };
    state[i] = match r {
        CoroutineResult::Yield(Suspend::Barrier(loc, kind, p)) => State::Barrier(loc, kind, p),
        CoroutineResult::Yield(Suspend::Warp(op)) => State::Warp(op),
        CoroutineResult::Return(Ok(())) => State::Done,
        CoroutineResult::Return(Err(_)) => {
            let failure = take_failure(&threads[i]);
            first.get_or_insert(failure);
            State::Failed
        }
    };
}

fn describe(t: &Thread) -> String {
    format!("thread ({}, {}, {})", t.thread.x, t.thread.y, t.thread.z)
}

/// Runs the block's threads to their ends. A failed check stops only its thread; the block's
/// first failure is returned once every other thread has finished. A barrier or warp
/// operation that cannot complete stops the block (reported unless a thread failed first).
fn schedule(
    threads: &[Thread],
    coros: &mut [Option<Coro>],
    state: &mut [State],
    block_dim: Dim3,
) -> Result<(), Failure> {
    let mut first = None;
    let result = run_to_end(threads, coros, state, block_dim, &mut first);
    match (first, result) {
        (Some(f), _) | (None, Err(f)) => Err(f),
        (None, Ok(())) => Ok(()),
    }
}

fn run_to_end(
    threads: &[Thread],
    coros: &mut [Option<Coro>],
    state: &mut [State],
    block_dim: Dim3,
    first_failure: &mut Option<Failure>,
) -> Result<(), Failure> {
    let n = threads.len();
    let fail = |i: usize, message: String, loc: Option<Loc>| Failure {
        message,
        loc,
        block: threads[i].block,
        thread: threads[i].thread,
    };
    loop {
        for i in 0..n {
            if let State::Runnable(v) = state[i] {
                step(threads, coros, state, i, v, first_failure);
            }
        }
        if state
            .iter()
            .all(|s| matches!(s, State::Done | State::Failed))
        {
            return Ok(());
        }
        if resolve_warps(threads, state, block_dim.volume() as usize, &fail)? {
            continue;
        }
        // Every live thread waits at a barrier (threads that failed no longer count): release
        // them together, or report why not.
        let waiting: Vec<usize> = (0..n)
            .filter(|&i| matches!(state[i], State::Barrier(..)))
            .collect();
        let Some(&first) = waiting.first() else {
            return Err(fail(
                0,
                "internal simulator error: no thread can run, none waits at a barrier".into(),
                None,
            ));
        };
        let State::Barrier(loc, kind, _) = state[first] else {
            unreachable!("filtered above")
        };
        if let Some(done) = (0..n).find(|&i| matches!(state[i], State::Done)) {
            return Err(fail(
                done,
                format!(
                    "barrier divergence: {} returned without reaching the barrier at {loc} where {} thread(s) of its block wait (every thread of a block must reach each sync_threads)",
                    describe(&threads[done]),
                    waiting.len()
                ),
                Some(*loc),
            ));
        }
        if let Some(&other) = waiting.iter().find(
            |&&i| !matches!(state[i], State::Barrier(l, k, _) if std::ptr::eq(l, loc) && k == kind),
        ) {
            let State::Barrier(other_loc, ..) = state[other] else {
                unreachable!()
            };
            return Err(fail(
                other,
                format!(
                    "barrier divergence: {} waits at the barrier at {other_loc} while {} waits at the one at {loc}",
                    describe(&threads[other]),
                    describe(&threads[first])
                ),
                Some(*other_loc),
            ));
        }
        let mut preds = waiting.iter().map(|&i| match state[i] {
            State::Barrier(_, _, p) => p,
            _ => unreachable!(),
        });
        let result = match kind {
            BarrierKind::Plain => 0,
            BarrierKind::Count => preds.filter(|&p| p).count() as u64,
            BarrierKind::And => preds.all(|p| p) as u64,
            BarrierKind::Or => preds.any(|p| p) as u64,
        };
        for i in waiting {
            state[i] = State::Runnable(result);
        }
    }
}

/// Completes the warp operations whose lanes have all arrived. Returns whether any did.
fn resolve_warps(
    threads: &[Thread],
    state: &mut [State],
    n: usize,
    fail: &dyn Fn(usize, String, Option<Loc>) -> Failure,
) -> Result<bool, Failure> {
    let mut progress = false;
    for warp_base in (0..n).step_by(32) {
        let lanes = (n - warp_base).min(32);
        let mut ops: [Option<WarpOp>; 32] = [None; 32];
        for l in 0..lanes {
            if let State::Warp(op) = state[warp_base + l] {
                ops[l] = Some(op);
            }
        }
        for l in 0..lanes {
            let Some(op) = ops[l] else { continue };
            if !matches!(state[warp_base + l], State::Warp(_)) {
                continue; // resolved earlier in this loop
            }
            let mask = if op.kind == WarpOpKind::ActiveMask {
                (0..lanes)
                    .filter(|&k| {
                        ops[k].is_some_and(|o| {
                            o.kind == WarpOpKind::ActiveMask && std::ptr::eq(o.loc, op.loc)
                        })
                    })
                    .fold(0u32, |m, k| m | 1 << k)
            } else {
                op.mask
            };
            if mask & (1 << l) == 0 {
                return Err(fail(
                    warp_base + l,
                    format!("{} at {} is called by lane {l} with a mask {mask:#010x} that does not include it", op.kind.name(), op.loc),
                    Some(*op.loc),
                ));
            }
            for k in 0..32usize {
                if mask & (1 << k) == 0 {
                    continue;
                }
                let why = if k >= lanes {
                    Some(format!(
                        "lane {k} does not exist (the block has {n} threads)"
                    ))
                } else {
                    match state[warp_base + k] {
                        State::Done => Some(format!("lane {k} has already returned")),
                        State::Failed => Some(format!("lane {k} has stopped at a failed check")),
                        State::Barrier(bl, ..) => {
                            Some(format!("lane {k} waits at the barrier at {bl} instead"))
                        }
                        State::Warp(o)
                            if !o.kind.same_op(op.kind)
                                || o.mask != op.mask
                                || !std::ptr::eq(o.loc, op.loc) =>
                        {
                            Some(format!(
                                "lane {k} is at {} at {} instead",
                                o.kind.name(),
                                o.loc
                            ))
                        }
                        _ => None,
                    }
                };
                if let Some(why) = why {
                    return Err(fail(
                        warp_base + l,
                        format!(
                            "{} at {} names lanes {mask:#010x}, but {why}",
                            op.kind.name(),
                            op.loc
                        ),
                        Some(*op.loc),
                    ));
                }
            }
            let results =
                warp::resolve(&ops, mask).map_err(|m| fail(warp_base + l, m, Some(*op.loc)))?;
            for k in 0..lanes {
                if mask & (1 << k) != 0 {
                    state[warp_base + k] = State::Runnable(results[k]);
                    ops[k] = None;
                }
            }
            progress = true;
        }
    }
    let _ = threads;
    Ok(progress)
}

/// Runs every unfinished coroutine to its end (telling it to stop if the block failed) and
/// returns the stacks to the pool.
fn finish(
    threads: &[Thread],
    coros: &mut [Option<Coro>],
    stacks: &mut Vec<DefaultStack>,
    result: Result<(), Failure>,
) -> Result<(), Failure> {
    for (i, c) in coros.iter_mut().enumerate() {
        let Some(mut coro) = c.take() else { continue };
        if !coro.started() {
            // Never ran: drop it without running any of the kernel (its stack is freed).
            drop(coro);
            continue;
        }
        if !coro.done() {
            {
                let mut f = threads[i].failure.borrow_mut();
                if f.is_none() {
                    *f = Some(Failure {
                        message: String::new(),
                        loc: None,
                        block: threads[i].block,
                        thread: threads[i].thread,
                    });
                }
            }
            while !coro.done() {
                let _current = CurrentGuard::set(&threads[i]);
                let _ = coro.resume(0);
            }
        }
        stacks.push(coro.into_stack());
    }
    result
}
