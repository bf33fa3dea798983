//! Temporary device memory of the algorithms: buffers kept per device and element type, taken
//! for one call and given back after its launches are queued. Queued work that still uses a
//! buffer is ordered before its next use (and before it is freed) like any launch's memory,
//! so a buffer can be handed to the next call, on any stream, at once.

use std::any::{Any, TypeId};
use std::sync::Mutex;

use crate::{DeviceBuffer, Element, Result, Stream};

struct Kept {
    device: (bool, usize),
    ty: TypeId,
    buffer: Box<dyn Any + Send>,
}

static KEPT: Mutex<Vec<Kept>> = Mutex::new(Vec::new());

fn device_key(stream: &Stream) -> (bool, usize) {
    let d = stream.device();
    (d.is_simulator(), d.ordinal())
}

/// A buffer of at least `len` elements (at least one), reused when one is kept.
pub(crate) fn take<T: Element + cudarc::driver::ValidAsZeroBits>(
    stream: &Stream,
    len: usize,
) -> Result<DeviceBuffer<T>> {
    take_as::<T, T>(stream, len)
}

/// Keeps `buffer` for later calls.
pub(crate) fn give<T: Element>(stream: &Stream, buffer: DeviceBuffer<T>) {
    give_as::<T, T>(stream, buffer)
}

/// The kind of the one-pass reductions' ticket words, kept apart from other `u32` buffers.
struct Ticket;

/// A ticket word of the one-pass reductions (`device::combine_partials`): zero, as every
/// launch that uses one leaves it (a new one is zeroed memory). Give it back with
/// [`give_ticket`] only after its launch completed (a launch that failed may have left it
/// anywhere: then it is dropped).
pub(crate) fn take_ticket(stream: &Stream) -> Result<DeviceBuffer<u32>> {
    take_as::<u32, Ticket>(stream, 1)
}

/// Keeps a ticket word for later calls: see [`take_ticket`].
pub(crate) fn give_ticket(stream: &Stream, buffer: DeviceBuffer<u32>) {
    give_as::<u32, Ticket>(stream, buffer)
}

/// A buffer of at least `len` elements (at least one) kept under kind `K`, or a new zeroed one.
fn take_as<T: Element + cudarc::driver::ValidAsZeroBits, K: 'static>(
    stream: &Stream,
    len: usize,
) -> Result<DeviceBuffer<T>> {
    let key = device_key(stream);
    let found = {
        let mut kept = KEPT.lock().unwrap_or_else(|e| e.into_inner());
        let at = kept.iter().position(|k| {
            k.device == key
                && k.ty == TypeId::of::<K>()
                && k.buffer
                    .downcast_ref::<DeviceBuffer<T>>()
                    .is_some_and(|b| b.len() >= len)
        });
        at.map(|i| kept.swap_remove(i))
    };
    match found.map(|k| k.buffer.downcast::<DeviceBuffer<T>>()) {
        Some(Ok(b)) => Ok(*b),
        _ => stream.alloc_zeros::<T>(len.max(1)),
    }
}

/// Keeps `buffer` under kind `K`.
fn give_as<T: Element, K: 'static>(stream: &Stream, buffer: DeviceBuffer<T>) {
    let mut kept = KEPT.lock().unwrap_or_else(|e| e.into_inner());
    kept.push(Kept {
        device: device_key(stream),
        ty: TypeId::of::<K>(),
        buffer: Box::new(buffer),
    });
}

/// Frees the temporary device memory the algorithms keep between calls (it is otherwise kept
/// for the life of the process, the largest buffer each call needed). Work still queued that
/// uses it finishes first.
pub fn release_temporary_storage() {
    KEPT.lock().unwrap_or_else(|e| e.into_inner()).clear();
}
