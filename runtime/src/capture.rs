//! The state of a graph capture's stream handle (see `graph.rs`): what a launch on it does
//! ([`LaunchGate`]) and the GPU memory its recorded launches use. Below streams, which carry
//! it, and launches, which consult it.

use std::sync::atomic::{AtomicU8, Ordering};
use std::sync::{Arc, Mutex};

use crate::buffer::KeepAlive;
use crate::error::{Error, Result};

/// What a launch does on a stream.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum LaunchGate {
    /// Runs (an ordinary stream).
    Run,
    /// Is recorded into a graph: on a GPU the launch goes to the capture stream; on the
    /// simulator it is checked, and runs at each replay.
    Record,
    /// A GPU capture's first pass: checked and its module loaded, launching nothing (so that
    /// no module is loaded while the stream is being captured).
    Load,
}

/// `Capture::state` values.
const LOAD: u8 = 0;
const RECORD: u8 = 1;
const CLOSED: u8 = 2;

/// The state of a capture handle.
pub(crate) struct Capture {
    /// `LOAD` during a GPU capture's first pass, `RECORD` while launches are recorded,
    /// `CLOSED` after: the handle then refuses launches.
    state: AtomicU8,
    /// The GPU memory the recorded launches use.
    keep: Mutex<Vec<KeepAlive>>,
}

impl Capture {
    /// A handle's state: a GPU capture's first pass (`loading`) or recording.
    pub(crate) fn new(loading: bool) -> Capture {
        Capture {
            state: AtomicU8::new(if loading { LOAD } else { RECORD }),
            keep: Mutex::new(Vec::new()),
        }
    }

    /// What a launch on the handle does.
    pub(crate) fn gate(&self) -> Result<LaunchGate> {
        match self.state.load(Ordering::Acquire) {
            LOAD => Ok(LaunchGate::Load),
            RECORD => Ok(LaunchGate::Record),
            _ => Err(Error::Capture(
                "a launch on the stream handle of a finished capture; launch on the graph's stream, or replay the graph".into(),
            )),
        }
    }

    /// Closes the handle; returns the memory the launches used, each allocation once
    /// (written if any launch writes it).
    pub(crate) fn finish(&self) -> Vec<KeepAlive> {
        self.state.store(CLOSED, Ordering::Release);
        let all = std::mem::take(&mut *self.keep.lock().unwrap_or_else(|e| e.into_inner()));
        let mut unique: Vec<KeepAlive> = Vec::new();
        for (memory, write) in all {
            match unique.iter_mut().find(|(m, _)| Arc::ptr_eq(m, &memory)) {
                Some((_, w)) => *w |= write,
                None => unique.push((memory, write)),
            }
        }
        unique
    }

    /// A launch's use of memory: kept for the graph (which orders each replay) while
    /// launches are recorded.
    pub(crate) fn keep(&self, keep: impl FnOnce() -> Option<KeepAlive>) {
        if self.state.load(Ordering::Acquire) == RECORD {
            if let Some(keep) = keep() {
                self.keep
                    .lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .push(keep);
            }
        }
    }
}
