//! The asynchronous lifetime of GPU memory: which streams may still be using an allocation,
//! and the waits that order later work, frees and host reads after them.
//!
//! Every GPU allocation Cuprum owns carries a [`Uses`]: the stream of the last queued write,
//! and the streams that queued reads since. Every launch, copy and graph replay calls
//! [`Uses::before`] for each allocation it touches, before it is queued:
//!
//! - a use on the stream that already owns the allocation costs no driver call (the stream
//!   orders its own work), only a lock and a pointer comparison;
//! - a read on stream `S` of memory last written on another stream `W` makes `S` wait for
//!   everything queued on `W` so far (an event recorded on `W` now, which covers the write:
//!   it was queued before, and a write holds the buffer exclusively), once per write;
//! - a write on `S` waits so for the last writer and for every reader on other streams.
//!
//! The lists hold the streams themselves (`Arc<CudaStream>`), so a stream the program has
//! dropped stays recordable until no allocation needs it. Freeing an allocation (the last
//! owner drops) first makes the stream it is freed on wait for every listed stream. Host
//! reads copy on their own stream after these waits and wait for the copy. Nothing depends on
//! cudarc's own event tracking, which is only active while a context has more than one stream
//! and which Cuprum's launches bypass (they pass raw device addresses).
//!
//! Memory handed to cudarc code crosses into cudarc's tracking. Handed out writable
//! (`cuda_slice_mut`, `into_cuda_slice`), the allocation's own stream waits for every use
//! and cudarc's write event is recorded there, so cudarc's launches and copies on any stream
//! wait for it. Handed out read-only (`cuda_slice`), where cudarc's event cannot be recorded,
//! the host waits for the last write if it may still be running (once: the write is then
//! known done). Cuprum's next use of memory handed out (or adopted from cudarc) first waits
//! on cudarc's events.

use std::sync::{Arc, Mutex};

use cudarc::driver::{CudaStream, DriverError};

/// The streams that may still be using one allocation.
#[derive(Default)]
pub(crate) struct Uses {
    inner: Mutex<Inner>,
}

#[derive(Default)]
struct Inner {
    /// The stream of the last queued write (none before any).
    writer: Option<Arc<CudaStream>>,
    /// Streams other than `writer` that queued a read since that write, each already ordered
    /// after it.
    readers: Vec<Arc<CudaStream>>,
    /// cudarc code may have queued work on the memory (see the module doc).
    foreign: bool,
}

/// Whether two handles are the same CUDA stream (clones of one `Arc`, or one stream wrapped
/// twice: the default stream is re-wrapped when its last handle is dropped).
fn same(a: &Arc<CudaStream>, b: &Arc<CudaStream>) -> bool {
    Arc::ptr_eq(a, b)
        || (a.cu_stream() == b.cu_stream() && a.context().cu_ctx() == b.context().cu_ctx())
}

/// Makes `s` wait for everything queued on `other` so far.
fn wait_for(s: &CudaStream, other: &CudaStream) -> Result<(), DriverError> {
    // An event recorded now covers every use queued on `other` before. It may be dropped at
    // once: CUDA keeps it until the wait is resolved.
    let event = other.record_event(None)?;
    s.wait(&event)
}

impl Uses {
    /// Memory that cudarc code may be using (an adopted cudarc slice).
    pub fn foreign() -> Uses {
        Uses {
            inner: Mutex::new(Inner {
                foreign: true,
                ..Inner::default()
            }),
        }
    }

    /// Before a read (`write == false`) or write of the memory is queued on `s`: makes `s`
    /// wait for the conflicting uses on other streams, then lists `s` as a user. `cudarc_wait`
    /// is called when cudarc code may have used the memory since Cuprum last wrote it; it
    /// should make `s` wait on cudarc's events for it.
    pub fn before(
        &self,
        s: &Arc<CudaStream>,
        write: bool,
        cudarc_wait: impl FnOnce() -> Result<(), DriverError>,
    ) -> Result<(), DriverError> {
        let mut u = self.inner.lock().unwrap_or_else(|e| e.into_inner());
        if u.foreign {
            cudarc_wait()?;
            // A write holds the memory exclusively: no cudarc code can use it until it is
            // handed out again.
            if write {
                u.foreign = false;
            }
        }
        if write {
            let mine = u.writer.as_ref().is_none_or(|w| same(w, s))
                && u.readers.iter().all(|r| same(r, s));
            if !mine {
                if let Some(w) = u.writer.as_ref().filter(|w| !same(w, s)) {
                    wait_for(s, w)?;
                }
                for r in u.readers.iter().filter(|r| !same(r, s)) {
                    wait_for(s, r)?;
                }
            }
            u.readers.clear();
            if !u.writer.as_ref().is_some_and(|w| same(w, s)) {
                u.writer = Some(s.clone());
            }
        } else {
            // A reader listed since the last write has waited for it; the writer's own reads
            // are covered by waiting for the writer.
            let ordered = u.readers.iter().any(|r| same(r, s))
                || u.writer.as_ref().is_some_and(|w| same(w, s));
            if !ordered {
                if let Some(w) = &u.writer {
                    wait_for(s, w)?;
                }
                u.readers.push(s.clone());
            }
        }
        Ok(())
    }

    /// Makes `s` wait for every use on other streams (before the memory is freed or handed
    /// to cudarc code on `s`).
    pub fn settle_on(&self, s: &Arc<CudaStream>) -> Result<(), DriverError> {
        self.before(s, true, || Ok(()))
    }

    /// Waits on the host for every listed use (before handing the address to code Cuprum
    /// does not see).
    pub fn settle_host(&self) -> Result<(), DriverError> {
        let mut u = self.inner.lock().unwrap_or_else(|e| e.into_inner());
        for s in u.writer.iter().chain(&u.readers) {
            s.synchronize()?;
        }
        u.writer = None;
        u.readers.clear();
        Ok(())
    }

    /// Waits on the host for the last write, if any may still be running (before handing the
    /// memory to cudarc code that reads it on any stream).
    pub fn settle_writes_host(&self) -> Result<(), DriverError> {
        let mut u = self.inner.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(w) = &u.writer {
            w.synchronize()?;
            // Done: later reads on any stream need not wait for it.
            u.writer = None;
        }
        Ok(())
    }

    /// Marks the memory as handed to cudarc code (see [`Uses::before`]).
    pub fn mark_foreign(&self) {
        self.inner.lock().unwrap_or_else(|e| e.into_inner()).foreign = true;
    }
}
