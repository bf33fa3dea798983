//! Running a grid: blocks handed out to worker threads, each with its own shared memory and
//! pool of coroutine stacks; a failure stops only its thread. A kernel that calls
//! `gpu::grid_sync()` runs every block at once, one worker each, meeting at a [`GridBarrier`].

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Condvar, Mutex};

use super::block::{run_cooperative, run_sequential, SharedLayout};
use super::{Failure, Stop, Thread};
use crate::Dim3;

/// A static shared-memory array of the kernel.
#[derive(Clone, Copy, Debug)]
pub struct SharedDecl {
    /// Its size in bytes.
    pub bytes: usize,
}

/// What to run.
pub struct GridSpec<'a> {
    /// Blocks in the grid.
    pub grid: Dim3,
    /// Threads per block.
    pub block: Dim3,
    /// The kernel's static shared arrays, in declaration order.
    pub shared: &'a [SharedDecl],
    /// Dynamic shared memory per block.
    pub dynamic_shared_bytes: usize,
    /// Whether threads wait for each other (barriers, warp operations): then each block's
    /// threads run as coroutines.
    pub cooperative: bool,
    /// Worker threads to spread blocks over.
    pub workers: usize,
    /// Whether the kernel calls `gpu::grid_sync()`: then every block runs at once.
    pub grid_sync: bool,
    /// The bytes of the kernel's locals (see `cuprum_codegen::sim::frame_bytes`), from which
    /// the stacks of simulated threads are sized.
    pub frame_bytes: usize,
}

/// The stack a simulated thread runs on: room for the runner's own frames plus a generous
/// multiple of the kernel's locals (unoptimised code keeps temporaries of arrays too). Pages
/// are only committed when touched, so a large reservation costs address space, not memory.
fn stack_bytes(frame_bytes: usize) -> Option<usize> {
    const BASE: usize = 256 * 1024;
    // Above this a thread's locals cannot be simulated (a GPU thread has at most 512 KiB of
    // local memory).
    const MOST: usize = 64 << 20;
    let bytes = frame_bytes.checked_mul(4)?.checked_add(BASE)?;
    (bytes <= MOST).then(|| bytes.next_multiple_of(64 * 1024))
}

/// What a block waiting at an abandoned grid barrier reports; a real failure of another block
/// is reported instead.
const ABANDONED: &str = "gpu::grid_sync() was abandoned: another block stopped";

/// The barrier of `gpu::grid_sync()`: blocks arrive one at a time (their first thread does);
/// the last one releases the others. A block that stops (or ends without arriving while
/// others wait, which hangs a GPU) breaks it, so that no block waits forever.
pub(crate) struct GridBarrier {
    blocks: u64,
    state: Mutex<BarrierState>,
    released: Condvar,
}

#[derive(Default)]
struct BarrierState {
    arrived: u64,
    generation: u64,
    finished: u64,
    broken: Option<String>,
}

impl GridBarrier {
    fn new(blocks: u64) -> GridBarrier {
        GridBarrier {
            blocks,
            state: Mutex::new(BarrierState::default()),
            released: Condvar::new(),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, BarrierState> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Waits until every block has arrived; `Err` with the reason when the barrier breaks.
    pub(crate) fn wait(&self) -> Result<(), String> {
        let mut s = self.lock();
        if let Some(why) = &s.broken {
            return Err(why.clone());
        }
        s.arrived += 1;
        if s.arrived + s.finished == self.blocks {
            if s.finished > 0 {
                return Err(self.break_with(&mut s, ENDED.into()));
            }
            s.arrived = 0;
            s.generation += 1;
            self.released.notify_all();
            return Ok(());
        }
        let generation = s.generation;
        while s.generation == generation && s.broken.is_none() {
            s = self.released.wait(s).unwrap_or_else(|e| e.into_inner());
        }
        match (&s.broken, s.generation == generation) {
            (Some(why), true) => Err(why.clone()),
            _ => Ok(()),
        }
    }

    /// A block ended normally: blocks waiting for it would wait forever.
    fn finished(&self) {
        let mut s = self.lock();
        s.finished += 1;
        if s.arrived > 0 && s.arrived + s.finished == self.blocks {
            self.break_with(&mut s, ENDED.into());
        }
    }

    /// A block stopped: nobody waits for it.
    fn abandon(&self) {
        let mut s = self.lock();
        self.break_with(&mut s, ABANDONED.into());
    }

    fn break_with(&self, s: &mut BarrierState, why: String) -> String {
        let why = s.broken.get_or_insert(why).clone();
        self.released.notify_all();
        why
    }
}

/// Blocks waiting at `gpu::grid_sync()` for a block that has ended.
const ENDED: &str = "a block ended without reaching the gpu::grid_sync() that other blocks wait at (on a GPU this hangs): every block must call it";

/// Bytes shared memory is filled with before each block: uninitialised reads give NaN for
/// floats and all-ones for integers, so a kernel that forgets to initialise shows it.
const POISON: u8 = 0xff;

/// A worker thread's stack when the kernel's frame is small (Rust's default for spawned
/// threads).
const SMALL_STACK: usize = 2 << 20;

fn align16(n: usize) -> usize {
    n.div_ceil(16) * 16
}

fn block_of(linear: u64, grid: Dim3) -> Dim3 {
    let x = (linear % grid.x as u64) as u32;
    let rest = linear / grid.x as u64;
    Dim3::new(
        x,
        (rest % grid.y as u64) as u32,
        (rest / grid.y as u64) as u32,
    )
}

/// Runs `body` for every thread of the grid. As on a GPU, a failing thread stops alone: every
/// other thread of every block runs to its end. Returns the failure of the lowest-numbered
/// failing block, if any.
pub fn run_grid(
    spec: &GridSpec,
    body: &(dyn Fn(&Thread) -> Result<(), Stop> + Sync),
) -> Result<(), Failure> {
    let blocks = spec.grid.volume();
    if blocks == 0 || spec.block.volume() == 0 {
        return Ok(());
    }
    let Some(stack) = stack_bytes(spec.frame_bytes) else {
        return Err(Failure {
            message: format!(
                "the kernel's locals take {} bytes per thread, more than the simulator can give a thread",
                spec.frame_bytes
            ),
            loc: None,
            block: Dim3::default(),
            thread: Dim3::default(),
        });
    };
    let mut offsets = Vec::with_capacity(spec.shared.len());
    let mut total = 0usize;
    for d in spec.shared {
        offsets.push(total);
        total += align16(d.bytes);
    }
    let dynamic_offset = total;
    let arena_bytes = total + align16(spec.dynamic_shared_bytes);
    let grid_barrier = spec.grid_sync.then(|| GridBarrier::new(blocks));
    let barrier = grid_barrier.as_ref();
    // Blocks that wait for each other all run at once (the runtime bounds their number).
    let workers = if spec.grid_sync {
        blocks as usize
    } else {
        spec.workers.clamp(1, blocks.min(64) as usize)
    };

    let next = AtomicU64::new(0);
    let failure: Mutex<Option<(u64, Failure)>> = Mutex::new(None);
    let worker = || {
        // u64 words keep the arena 8-aligned; regions inside are 16-byte multiples.
        let mut arena = vec![0u64; arena_bytes.div_ceil(8).max(2)];
        let mut stacks = Vec::new();
        loop {
            let b = next.fetch_add(1, Ordering::Relaxed);
            if b >= blocks {
                break;
            }
            let block = block_of(b, spec.grid);
            let base = arena.as_mut_ptr().cast::<u8>();
            // SAFETY: the arena holds at least arena_bytes bytes.
            unsafe { std::ptr::write_bytes(base, POISON, arena_bytes) };
            let layout = SharedLayout {
                base,
                offsets: &offsets,
                // SAFETY: dynamic_offset <= arena_bytes.
                dynamic: (
                    unsafe { base.add(dynamic_offset) },
                    spec.dynamic_shared_bytes,
                ),
                grid_barrier: barrier.map_or(std::ptr::null(), |b| b as *const GridBarrier),
            };
            let run = catch_unwind(AssertUnwindSafe(|| {
                if spec.cooperative {
                    run_cooperative(
                        block,
                        spec.block,
                        spec.grid,
                        &layout,
                        body,
                        &mut stacks,
                        stack,
                    )
                } else {
                    run_sequential(block, spec.block, spec.grid, &layout, body)
                }
            }));
            let result = run.unwrap_or_else(|panic| {
                let msg = panic
                    .downcast_ref::<String>()
                    .cloned()
                    .or_else(|| panic.downcast_ref::<&str>().map(|s| s.to_string()))
                    .unwrap_or_default();
                Err(Failure {
                    message: format!("internal simulator error: {msg}"),
                    loc: None,
                    block,
                    thread: Dim3::default(),
                })
            });
            match result {
                Ok(()) => {
                    if let Some(barrier) = barrier {
                        barrier.finished();
                    }
                }
                Err(f) => {
                    // A failed thread stops alone, so the other blocks run on; but blocks
                    // waiting at a grid barrier for this one would wait forever.
                    if let Some(barrier) = barrier {
                        barrier.abandon();
                    }
                    let abandoned = f.message == ABANDONED;
                    let mut slot = failure.lock().unwrap_or_else(|e| e.into_inner());
                    // The lowest-numbered block's failure, preferring a real one to a block
                    // that only waited for it.
                    let better = match slot.as_ref() {
                        None => true,
                        Some((other, g)) => match (abandoned, g.message == ABANDONED) {
                            (false, true) => true,
                            (true, false) => false,
                            _ => b < *other,
                        },
                    };
                    if better {
                        *slot = Some((b, f));
                    }
                }
            }
        }
    };
    // Blocks that never synchronise run on the workers' own stacks: the caller's thread when
    // there is one worker and the frame is small (a caller has at least Rust's 2 MiB), else
    // threads whose stacks hold the frame.
    if workers == 1 && (spec.cooperative || stack <= SMALL_STACK / 4) {
        worker();
    } else {
        let spawned = std::thread::scope(|s| {
            let handles: Vec<_> = (0..workers)
                .map(|_| {
                    std::thread::Builder::new()
                        .stack_size(stack.max(SMALL_STACK))
                        .spawn_scoped(s, worker)
                })
                .collect();
            // One worker that started runs every block.
            handles.iter().any(|h| h.is_ok())
        });
        if !spawned {
            let mut slot = failure.lock().unwrap_or_else(|e| e.into_inner());
            slot.get_or_insert((
                0,
                Failure {
                    message: "the simulator cannot start its worker threads".into(),
                    loc: None,
                    block: Dim3::default(),
                    thread: Dim3::default(),
                },
            ));
        }
    }
    match failure.into_inner().unwrap_or_else(|e| e.into_inner()) {
        Some((_, f)) => Err(f),
        None => Ok(()),
    }
}
