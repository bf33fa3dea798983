//! Collectives across GPUs and processes through NCCL: `all_reduce`, `broadcast`, `reduce`,
//! `all_gather`, `reduce_scatter`, `send`/`recv`, and [`Group`]s of them, on Cuprum buffers
//! (and views) and streams. Behind the `nccl` cargo feature.
//!
//! A [`Comm`] is one rank of a communicator, bound to one [`Stream`]: its collectives are
//! queued on that stream in order with the kernels and copies there, and they order
//! themselves with work on other streams exactly as a kernel launch does (a buffer a
//! collective writes is not read, and a buffer it reads or writes is not freed, before the
//! collective is done). Make the ranks with [`Comm::from_devices`] (every GPU of one process;
//! drive them from one thread with a [`Group`], or move each `Comm` to its own thread) or with
//! [`Comm::from_rank`] (one rank per process or thread, all given the same [`Id`]).
//!
//! ```
//! use cuprum::nccl::{Comm, Group, ReduceOp};
//! use cuprum::prelude::*;
//! # fn main() -> cuprum::Result<()> {
//! // Two simulated devices here; `Device::gpu(0)` and `Device::gpu(1)` on a two-GPU host.
//! let streams = [Device::simulated(0).default_stream(), Device::simulated(1).default_stream()];
//! let comms = Comm::from_devices(&streams)?;
//! let mut bufs = vec![streams[0].to_device(&[1.0f32, 2.0])?, streams[1].to_device(&[10.0f32, 20.0])?];
//! // One thread drives both ranks: their calls go in one group.
//! let mut group = Group::new();
//! for (comm, buf) in comms.iter().zip(&mut bufs) {
//!     group.all_reduce_in_place(comm, buf, ReduceOp::Sum)?;
//! }
//! group.end()?;
//! assert_eq!(streams[1].to_host(&bufs[1])?, vec![11.0, 22.0]);
//! # Ok(()) }
//! ```
//!
//! **Errors are values.** Without NCCL on the machine, the first GPU communicator is
//! [`Error::NcclMissing`] (Cuprum loads `libnccl.so` at run time through cudarc; single-GPU
//! programs never load it). Buffers of another device, lengths that do not fit the
//! collective, and ranks, roots or peers outside the communicator are refused before NCCL is
//! called. Ranks in other processes cannot be checked: ranks that disagree about a collective
//! get what NCCL gives (the simulator reports it as [`Error::Nccl`]).
//!
//! **Timeouts.** A rank that never joins does not hang the others forever. GPU communicators
//! are NCCL non-blocking communicators (unless [`CommOptions::blocking`] says otherwise):
//! creating one, and queueing each collective, waits (polling `ncclCommGetAsyncError`) at
//! most the communicator's [timeout](Comm::set_timeout) ([`DEFAULT_TIMEOUT`] unless set),
//! then aborts the communicator (`ncclCommAbort`) and returns [`Error::Timeout`]. A queued collective whose peer never arrives waits on the GPU:
//! [`Comm::synchronize`] waits for it with the same timeout (and aborts, which ends the
//! waiting kernels), while [`Stream::synchronize`] on the communicator's stream waits as long
//! as the peer does. An aborted communicator refuses every later call. On the simulator the
//! same calls wait for the other ranks' threads with the same timeout.
//!
//! **The simulator.** [`Device::simulated`](crate::Device::simulated) gives as many
//! simulated devices as wanted; a communicator over them runs every collective on the host
//! when the last rank has called it, with NCCL's arithmetic (integer sums wrap, `Avg` of
//! floats multiplies each value by `1/size` before summing, of integers divides the sum).
//!
//! **NVLink SHARP.** NCCL's NVLink multicast (NVLS) is controlled by its environment variable
//! `NCCL_NVLS_ENABLE`, read when the first communicator is made; Cuprum does not change the
//! environment (that would race with other threads). Set `NCCL_NVLS_ENABLE=0` where
//! multicast must not be used (the launchers under `scripts/` do).

mod gpu;
mod id;
mod order;
mod sim;

use std::any::Any;
use std::cell::Cell;
use std::sync::Arc;
use std::time::Duration;

use cudarc::nccl::sys::ncclDataType_t;

use crate::buffer::{
    DeviceSlice, DeviceSliceMut, DeviceView, DeviceViewMut, RawView, RawViewMut, Repr, ReprMut,
};
use crate::device::Device;
use crate::element::Element;
use crate::error::{Error, Result};
use crate::stream::Stream;

pub use id::Id;

/// How long a communicator waits for a missing rank unless told otherwise
/// ([`CommOptions::timeout`], [`Comm::set_timeout`]).
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(120);

/// How a communicator is made ([`Comm::from_devices_with`], [`Comm::from_rank_with`]).
///
/// ```
/// # use cuprum::nccl::CommOptions;
/// # use std::time::Duration;
/// let options = CommOptions::default().timeout(Duration::from_secs(10));
/// assert!(!options.is_blocking());
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CommOptions {
    timeout: Duration,
    blocking: bool,
}

impl Default for CommOptions {
    /// [`DEFAULT_TIMEOUT`], non-blocking.
    fn default() -> Self {
        CommOptions {
            timeout: DEFAULT_TIMEOUT,
            blocking: false,
        }
    }
}

impl CommOptions {
    /// How long creation, and later each call, waits for the other ranks.
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.timeout = timeout;
        self
    }

    /// NCCL's blocking mode on GPUs (off by default). A non-blocking communicator (NCCL's
    /// `blocking = 0`) never waits inside NCCL, so every wait has the timeout; but NCCL then
    /// starts a host thread for each group it queues, some tens of microseconds per call.
    /// A blocking one queues a call on the calling thread (what PyTorch uses), and its
    /// creation and its first call with each peer wait inside NCCL for the other ranks
    /// **without a timeout**; [`Comm::synchronize`] still times out and aborts. The simulator
    /// ignores it. A group cannot mix blocking and non-blocking communicators.
    pub fn blocking(mut self, blocking: bool) -> Self {
        self.blocking = blocking;
        self
    }

    /// The timeout.
    pub fn get_timeout(&self) -> Duration {
        self.timeout
    }

    /// Whether communicators are made blocking.
    pub fn is_blocking(&self) -> bool {
        self.blocking
    }
}

/// The most ranks of a simulated communicator (its ranks are threads of this process).
pub const MAX_SIMULATED_RANKS: usize = 4096;

/// The version of the NCCL library this process loads, as NCCL encodes it (2.27.3 is
/// `22703`).
///
/// # Errors
/// [`Error::NcclMissing`] when NCCL cannot be loaded.
pub fn version() -> Result<i32> {
    gpu::version()
}

/// How a reduction combines the ranks' values.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ReduceOp {
    /// The sum (integers wrap).
    Sum,
    /// The product (integers wrap).
    Prod,
    /// The smallest value.
    Min,
    /// The largest value.
    Max,
    /// The mean: for floats each value times `1/size`, summed; for integers the (wrapping)
    /// sum divided by `size`, rounded toward zero.
    Avg,
}

mod sealed {
    pub trait Sealed {}
}

/// An element type collectives can move: every scalar [`Element`] but `bool` (a peer could write
/// any byte into a `bool`, which Rust does not allow). Sealed.
#[diagnostic::on_unimplemented(
    message = "NCCL cannot move `{Self}`",
    note = "collectives move the integer types, `f32` and `f64`; send `bool`s as `u8`"
)]
pub trait CommElement: Element + Default + PartialEq + std::fmt::Debug + sealed::Sealed {
    #[doc(hidden)]
    /// NCCL's type for `Self`, and how many of its elements make one `Self`.
    fn nccl_type() -> (ncclDataType_t, usize);
}

/// An element type reductions can combine (NCCL has arithmetic for it): `i8`, `u8`, `i32`,
/// `u32`, `i64`, `u64`, `isize`, `usize`, `f32`, `f64`. Sealed.
#[diagnostic::on_unimplemented(
    message = "NCCL cannot reduce `{Self}`",
    note = "reductions take `i8`, `u8`, `i32`, `u32`, `i64`, `u64`, `isize`, `usize`, `f32` and `f64`"
)]
pub trait Reducible: CommElement {
    #[doc(hidden)]
    /// The simulator's reduction of the ranks' `inputs` (equal lengths), as NCCL computes it.
    fn sim_reduce(op: ReduceOp, inputs: &[Vec<Self>]) -> Vec<Self>;
}

macro_rules! comm_elements {
    ($($t:ty => $nccl:ident, $per:expr;)*) => {$(
        impl sealed::Sealed for $t {}
        impl CommElement for $t {
            fn nccl_type() -> (ncclDataType_t, usize) {
                (ncclDataType_t::$nccl, $per)
            }
        }
    )*};
}

comm_elements! {
    i8 => ncclInt8, 1;
    u8 => ncclUint8, 1;
    // NCCL has no 16-bit integers; moving them as bytes is exact.
    i16 => ncclUint8, 2;
    u16 => ncclUint8, 2;
    i32 => ncclInt32, 1;
    u32 => ncclUint32, 1;
    i64 => ncclInt64, 1;
    u64 => ncclUint64, 1;
    isize => ncclInt64, 1;
    usize => ncclUint64, 1;
    f32 => ncclFloat32, 1;
    f64 => ncclFloat64, 1;
}

macro_rules! reducible_ints {
    ($($t:ty),*) => {$(
        impl Reducible for $t {
            fn sim_reduce(op: ReduceOp, inputs: &[Vec<Self>]) -> Vec<Self> {
                let f = |a: $t, b: $t| match op {
                    ReduceOp::Sum | ReduceOp::Avg => a.wrapping_add(b),
                    ReduceOp::Prod => a.wrapping_mul(b),
                    ReduceOp::Min => a.min(b),
                    ReduceOp::Max => a.max(b),
                };
                let mut out = inputs[0].clone();
                for part in &inputs[1..] {
                    for (o, &v) in out.iter_mut().zip(part) {
                        *o = f(*o, v);
                    }
                }
                if op == ReduceOp::Avg {
                    let n = inputs.len() as $t;
                    out.iter_mut().for_each(|v| *v /= n);
                }
                out
            }
        }
    )*};
}

reducible_ints!(i8, u8, i32, u32, i64, u64, isize, usize);

macro_rules! reducible_floats {
    ($($t:ty),*) => {$(
        impl Reducible for $t {
            fn sim_reduce(op: ReduceOp, inputs: &[Vec<Self>]) -> Vec<Self> {
                // NCCL's average of floats scales each value by 1/size (in the type), then sums.
                let scale = (1.0f64 / inputs.len() as f64) as $t;
                let pre = |v: $t| if op == ReduceOp::Avg { v * scale } else { v };
                let f = |a: $t, b: $t| match op {
                    ReduceOp::Sum | ReduceOp::Avg => a + b,
                    ReduceOp::Prod => a * b,
                    ReduceOp::Min => a.min(b),
                    ReduceOp::Max => a.max(b),
                };
                let mut out: Vec<$t> = inputs[0].iter().map(|&v| pre(v)).collect();
                for part in &inputs[1..] {
                    for (o, &v) in out.iter_mut().zip(part) {
                        *o = f(*o, pre(v));
                    }
                }
                out
            }
        }
    )*};
}

reducible_floats!(f32, f64);

/// Memory a grouped call reads: `&buf` or `&view` (borrowed for the group's lifetime), or a
/// [`DeviceView`] by value (`buf.slice(..n)`), which the group keeps.
pub trait ReadBuf<'a, T: Element> {
    #[doc(hidden)]
    fn __raw(self) -> RawView<'a, T>;
}

/// Memory a grouped call writes: `&mut buf` or `&mut view` (borrowed for the group's
/// lifetime), or a [`DeviceViewMut`] by value (`buf.slice_mut(..n)`), which the group keeps.
pub trait WriteBuf<'a, T: Element> {
    #[doc(hidden)]
    fn __raw(self) -> RawViewMut<'a, T>;
}

impl<'a, T: Element, B: DeviceSlice<T> + ?Sized> ReadBuf<'a, T> for &'a B {
    fn __raw(self) -> RawView<'a, T> {
        self.__view()
    }
}

impl<'a, T: Element> ReadBuf<'a, T> for DeviceView<'a, T> {
    fn __raw(self) -> RawView<'a, T> {
        self.into_raw()
    }
}

impl<'a, T: Element, B: DeviceSliceMut<T> + ?Sized> WriteBuf<'a, T> for &'a mut B {
    fn __raw(self) -> RawViewMut<'a, T> {
        self.__view_mut()
    }
}

impl<'a, T: Element> WriteBuf<'a, T> for DeviceViewMut<'a, T> {
    fn __raw(self) -> RawViewMut<'a, T> {
        self.into_raw()
    }
}

/// One rank of a communicator, bound to a stream of its device.
///
/// `Send` (a rank may be moved to the thread that drives it) but not `Sync`: NCCL does not
/// allow concurrent calls on one communicator. Dropping a GPU rank waits (up to its timeout)
/// for the work queued on its stream, then releases NCCL's resources (`ncclCommAbort`, which
/// never waits for other ranks).
pub struct Comm {
    rank: usize,
    size: usize,
    stream: Stream,
    timeout: Cell<Duration>,
    backend: Backend,
}

enum Backend {
    Gpu(gpu::RawComm),
    Sim(Arc<sim::World>),
}

impl std::fmt::Debug for Comm {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Comm")
            .field("rank", &self.rank)
            .field("size", &self.size)
            .field("device", self.stream.device())
            .finish()
    }
}

impl Comm {
    /// One communicator over the devices of `streams` (one rank each, in that order), all in
    /// this process: every GPU of a machine, or several [simulated
    /// devices](crate::Device::simulated). Each rank's collectives run on its stream.
    ///
    /// # Errors
    /// As [`Comm::from_devices_with`].
    pub fn from_devices(streams: &[Stream]) -> Result<Vec<Comm>> {
        Comm::from_devices_with(streams, CommOptions::default())
    }

    /// As [`Comm::from_devices`], made as `options` say.
    ///
    /// # Errors
    /// [`Error::Collective`] for no streams, a device given twice, GPUs mixed with simulated
    /// devices, or a stream of a graph capture; [`Error::Timeout`]; [`Error::NcclMissing`];
    /// NCCL's errors.
    pub fn from_devices_with(streams: &[Stream], options: CommOptions) -> Result<Vec<Comm>> {
        if streams.is_empty() {
            return Err(Error::Collective(
                "from_devices: a communicator needs at least one stream".into(),
            ));
        }
        for (i, s) in streams.iter().enumerate() {
            s.check_not_capturing("Comm::from_devices")?;
            if streams[..i].iter().any(|t| t.device() == s.device()) {
                return Err(Error::Collective(format!(
                    "from_devices: {} (device {}) appears twice; a communicator has one rank per device",
                    s.device().name(),
                    s.device().ordinal()
                )));
            }
            if s.device().is_simulator() != streams[0].device().is_simulator() {
                return Err(Error::Collective(
                    "from_devices: GPUs and simulated devices cannot share a communicator".into(),
                ));
            }
        }
        let size = streams.len();
        let backends: Vec<Backend> = if streams[0].device().is_simulator() {
            let world = sim::World::new(size, true);
            (0..size).map(|_| Backend::Sim(world.clone())).collect()
        } else {
            gpu::init_all(streams, options)?
                .into_iter()
                .map(Backend::Gpu)
                .collect()
        };
        Ok(backends
            .into_iter()
            .zip(streams)
            .enumerate()
            .map(|(rank, (backend, stream))| Comm {
                rank,
                size,
                stream: stream.clone(),
                timeout: Cell::new(options.timeout),
                backend,
            })
            .collect())
    }

    /// Rank `rank` of a communicator of `size` ranks named by `id` (made by one rank with
    /// [`Id::new`] and handed to the others), on `stream`'s device: one rank per process (or
    /// per thread). Waits until every rank has joined, at most [`DEFAULT_TIMEOUT`].
    ///
    /// # Errors
    /// As [`Comm::from_rank_with`].
    pub fn from_rank(stream: &Stream, rank: usize, size: usize, id: &Id) -> Result<Comm> {
        Comm::from_rank_with(stream, rank, size, id, CommOptions::default())
    }

    /// As [`Comm::from_rank`], made as `options` say: it waits at most their timeout for the
    /// other ranks (also the communicator's timeout for its calls afterwards).
    ///
    /// # Errors
    /// [`Error::Collective`] for `rank >= size`, a rank that joined twice, an id of the other
    /// kind of device, or a stream of a graph capture; [`Error::Timeout`] when a rank does not
    /// join in time; [`Error::NcclMissing`]; NCCL's errors.
    pub fn from_rank_with(
        stream: &Stream,
        rank: usize,
        size: usize,
        id: &Id,
        options: CommOptions,
    ) -> Result<Comm> {
        let timeout = options.timeout;
        stream.check_not_capturing("Comm::from_rank")?;
        if rank >= size {
            return Err(Error::Collective(format!(
                "from_rank: rank {rank} is not a rank of a communicator of {size}"
            )));
        }
        let limit = if stream.device().is_simulator() {
            MAX_SIMULATED_RANKS
        } else {
            i32::MAX as usize
        };
        if size > limit {
            return Err(Error::Collective(format!(
                "from_rank: a communicator of {size} ranks is more than the {limit} that {} allows",
                if stream.device().is_simulator() {
                    "the simulator"
                } else {
                    "NCCL"
                }
            )));
        }
        if id.is_simulated() != stream.device().is_simulator() {
            return Err(Error::Collective(format!(
                "from_rank: the id was made for {} but the stream is on {}",
                if id.is_simulated() {
                    "the simulator"
                } else {
                    "a GPU"
                },
                stream.device().name()
            )));
        }
        let backend = if stream.device().is_simulator() {
            Backend::Sim(sim::World::join(id, rank, size, timeout)?)
        } else {
            Backend::Gpu(gpu::init_rank(stream, rank, size, id, options)?)
        };
        Ok(Comm {
            rank,
            size,
            stream: stream.clone(),
            timeout: Cell::new(timeout),
            backend,
        })
    }

    /// This rank's number, from 0.
    pub fn rank(&self) -> usize {
        self.rank
    }

    /// The number of ranks.
    pub fn size(&self) -> usize {
        self.size
    }

    /// The stream this rank's collectives run on.
    pub fn stream(&self) -> &Stream {
        &self.stream
    }

    /// The device of this rank.
    pub fn device(&self) -> &Device {
        self.stream.device()
    }

    /// How long a call waits for the other ranks before it aborts the communicator.
    pub fn timeout(&self) -> Duration {
        self.timeout.get()
    }

    /// Sets how long later calls wait for the other ranks.
    pub fn set_timeout(&self, timeout: Duration) {
        self.timeout.set(timeout);
    }

    /// Waits until the collectives queued on this rank's stream are done (and the rest of the
    /// stream's work, as [`Stream::synchronize`]), at most the communicator's timeout. When a
    /// peer never arrives, aborts the communicator (which ends the kernels waiting for it) and
    /// returns [`Error::Timeout`]; the contents of the buffers of the unfinished collectives
    /// are then unspecified.
    ///
    /// # Errors
    /// [`Error::Timeout`]; NCCL's asynchronous errors; as [`Stream::synchronize`].
    pub fn synchronize(&self) -> Result<()> {
        match &self.backend {
            Backend::Gpu(raw) => raw.wait_stream(&self.stream, self.timeout.get(), self.rank)?,
            Backend::Sim(world) => world.check_alive()?,
        }
        self.stream.synchronize()
    }

    /// Sums (or otherwise reduces, see [`ReduceOp`]) `send` over all ranks into every rank's
    /// `recv`.
    ///
    /// # Errors
    /// [`Error::LengthMismatch`] unless `send` and `recv` have the same length;
    /// [`Error::WrongDevice`] for a buffer of another device; [`Error::Timeout`]; NCCL's
    /// errors.
    pub fn all_reduce<T: Reducible>(
        &self,
        send: &(impl DeviceSlice<T> + ?Sized),
        recv: &mut (impl DeviceSliceMut<T> + ?Sized),
        op: ReduceOp,
    ) -> Result<()> {
        let mut g = Group::new();
        g.all_reduce(self, send, recv, op)?;
        g.end()
    }

    /// [`all_reduce`](Comm::all_reduce) with `buf` as both input and output.
    ///
    /// # Errors
    /// As [`Comm::all_reduce`].
    pub fn all_reduce_in_place<T: Reducible>(
        &self,
        buf: &mut (impl DeviceSliceMut<T> + ?Sized),
        op: ReduceOp,
    ) -> Result<()> {
        let mut g = Group::new();
        g.all_reduce_in_place(self, buf, op)?;
        g.end()
    }

    /// Copies rank `root`'s `buf` into every other rank's `buf` (all of the same length).
    ///
    /// # Errors
    /// [`Error::Collective`] for a root outside the communicator; as [`Comm::all_reduce`].
    pub fn broadcast<T: CommElement>(
        &self,
        buf: &mut (impl DeviceSliceMut<T> + ?Sized),
        root: usize,
    ) -> Result<()> {
        let mut g = Group::new();
        g.broadcast(self, buf, root)?;
        g.end()
    }

    /// Reduces `send` over all ranks into rank `root`'s `recv`; the other ranks' `recv` (of the
    /// same length, unused) is left as it was.
    ///
    /// # Errors
    /// As [`Comm::all_reduce`] and [`Comm::broadcast`].
    pub fn reduce<T: Reducible>(
        &self,
        send: &(impl DeviceSlice<T> + ?Sized),
        recv: &mut (impl DeviceSliceMut<T> + ?Sized),
        op: ReduceOp,
        root: usize,
    ) -> Result<()> {
        let mut g = Group::new();
        g.reduce(self, send, recv, op, root)?;
        g.end()
    }

    /// Gathers every rank's `send` into every rank's `recv`, in rank order: `recv` holds
    /// `size × send.len()` elements.
    ///
    /// # Errors
    /// [`Error::LengthMismatch`] unless `recv.len() == size * send.len()`; as
    /// [`Comm::all_reduce`].
    pub fn all_gather<T: CommElement>(
        &self,
        send: &(impl DeviceSlice<T> + ?Sized),
        recv: &mut (impl DeviceSliceMut<T> + ?Sized),
    ) -> Result<()> {
        let mut g = Group::new();
        g.all_gather(self, send, recv)?;
        g.end()
    }

    /// Reduces `send` (`size × recv.len()` elements) over all ranks and leaves block `rank`
    /// of the result in this rank's `recv`.
    ///
    /// # Errors
    /// [`Error::LengthMismatch`] unless `send.len() == size * recv.len()`; as
    /// [`Comm::all_reduce`].
    pub fn reduce_scatter<T: Reducible>(
        &self,
        send: &(impl DeviceSlice<T> + ?Sized),
        recv: &mut (impl DeviceSliceMut<T> + ?Sized),
        op: ReduceOp,
    ) -> Result<()> {
        let mut g = Group::new();
        g.reduce_scatter(self, send, recv, op)?;
        g.end()
    }

    /// Sends `buf` to rank `peer`, which receives it with [`recv`](Comm::recv) (same length
    /// and type). A rank that both sends and receives puts the two in one [`Group`], as
    /// NCCL requires.
    ///
    /// # Errors
    /// [`Error::Collective`] for a peer outside the communicator; as [`Comm::all_reduce`].
    pub fn send<T: CommElement>(
        &self,
        buf: &(impl DeviceSlice<T> + ?Sized),
        peer: usize,
    ) -> Result<()> {
        let mut g = Group::new();
        g.send(self, buf, peer)?;
        g.end()
    }

    /// Receives into `buf` what rank `peer` [sends](Comm::send).
    ///
    /// # Errors
    /// As [`Comm::send`].
    pub fn recv<T: CommElement>(
        &self,
        buf: &mut (impl DeviceSliceMut<T> + ?Sized),
        peer: usize,
    ) -> Result<()> {
        let mut g = Group::new();
        g.recv(self, buf, peer)?;
        g.end()
    }

    /// `Err` unless memory of `device` can take part in this rank's collectives.
    fn check_device(&self, op: &str, device: &Device) -> Result<()> {
        self.stream.check_device(op, device)
    }

    /// `Err` unless `r` (a root or peer) is a rank of this communicator.
    fn check_rank(&self, op: &str, what: &str, r: usize) -> Result<()> {
        if r < self.size {
            Ok(())
        } else {
            Err(Error::Collective(format!(
                "{op}: {what} {r} is not a rank of this communicator of {} ranks",
                self.size
            )))
        }
    }
}

impl Drop for Comm {
    fn drop(&mut self) {
        // NCCL's resources go only once this rank's queued collectives are done (bounded by
        // the timeout: a missing peer aborts them instead).
        if let Backend::Gpu(raw) = &self.backend {
            let _ = raw.wait_stream(&self.stream, self.timeout.get(), self.rank);
        }
    }
}

/// Collectives queued together: NCCL's group call (`ncclGroupStart` … `ncclGroupEnd`). Needed
/// when one thread drives several ranks (each rank's call would otherwise wait for the
/// others), and when a rank both sends and receives. Also batches several collectives into
/// one launch.
///
/// Calls are checked when added and issued together by [`end`](Group::end); until then the
/// group borrows their buffers. A group dropped without `end` issues nothing.
#[must_use = "a group does nothing until `end` is called"]
pub struct Group<'a> {
    calls: Vec<Box<dyn Pending<'a> + 'a>>,
}

impl Default for Group<'_> {
    fn default() -> Self {
        Group::new()
    }
}

impl std::fmt::Debug for Group<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Group({} calls)", self.calls.len())
    }
}

impl<'a> Group<'a> {
    /// An empty group.
    pub fn new() -> Group<'a> {
        Group { calls: Vec::new() }
    }

    /// Adds [`Comm::all_reduce`] on `comm`.
    ///
    /// # Errors
    /// As [`Comm::all_reduce`], for what can be checked before issuing.
    pub fn all_reduce<T: Reducible>(
        &mut self,
        comm: &'a Comm,
        send: impl ReadBuf<'a, T>,
        recv: impl WriteBuf<'a, T>,
        op: ReduceOp,
    ) -> Result<()> {
        let (send, recv) = (send.__raw(), recv.__raw());
        same_len(recv.repr.len(), send.repr.len())?;
        self.add(
            comm,
            Kind::AllReduce(op),
            Some(send),
            Some(recv),
            sim::exec_reduce::<T>,
        )
    }

    /// Adds [`Comm::all_reduce_in_place`] on `comm`.
    ///
    /// # Errors
    /// As [`Comm::all_reduce`].
    pub fn all_reduce_in_place<T: Reducible>(
        &mut self,
        comm: &'a Comm,
        buf: impl WriteBuf<'a, T>,
        op: ReduceOp,
    ) -> Result<()> {
        let buf = buf.__raw();
        self.add(
            comm,
            Kind::AllReduce(op),
            None,
            Some(buf),
            sim::exec_reduce::<T>,
        )
    }

    /// Adds [`Comm::broadcast`] on `comm`.
    ///
    /// # Errors
    /// As [`Comm::broadcast`].
    pub fn broadcast<T: CommElement>(
        &mut self,
        comm: &'a Comm,
        buf: impl WriteBuf<'a, T>,
        root: usize,
    ) -> Result<()> {
        comm.check_rank("broadcast", "root", root)?;
        let buf = buf.__raw();
        self.add(
            comm,
            Kind::Broadcast { root },
            None,
            Some(buf),
            sim::exec_move::<T>,
        )
    }

    /// Adds [`Comm::reduce`] on `comm`.
    ///
    /// # Errors
    /// As [`Comm::reduce`].
    pub fn reduce<T: Reducible>(
        &mut self,
        comm: &'a Comm,
        send: impl ReadBuf<'a, T>,
        recv: impl WriteBuf<'a, T>,
        op: ReduceOp,
        root: usize,
    ) -> Result<()> {
        comm.check_rank("reduce", "root", root)?;
        let (send, recv) = (send.__raw(), recv.__raw());
        same_len(recv.repr.len(), send.repr.len())?;
        self.add(
            comm,
            Kind::Reduce { op, root },
            Some(send),
            Some(recv),
            sim::exec_reduce::<T>,
        )
    }

    /// Adds [`Comm::all_gather`] on `comm`.
    ///
    /// # Errors
    /// As [`Comm::all_gather`].
    pub fn all_gather<T: CommElement>(
        &mut self,
        comm: &'a Comm,
        send: impl ReadBuf<'a, T>,
        recv: impl WriteBuf<'a, T>,
    ) -> Result<()> {
        let (send, recv) = (send.__raw(), recv.__raw());
        same_len(recv.repr.len(), times(send.repr.len(), comm.size)?)?;
        self.add(
            comm,
            Kind::AllGather,
            Some(send),
            Some(recv),
            sim::exec_move::<T>,
        )
    }

    /// Adds [`Comm::reduce_scatter`] on `comm`.
    ///
    /// # Errors
    /// As [`Comm::reduce_scatter`].
    pub fn reduce_scatter<T: Reducible>(
        &mut self,
        comm: &'a Comm,
        send: impl ReadBuf<'a, T>,
        recv: impl WriteBuf<'a, T>,
        op: ReduceOp,
    ) -> Result<()> {
        let (send, recv) = (send.__raw(), recv.__raw());
        same_len(times(recv.repr.len(), comm.size)?, send.repr.len())?;
        self.add(
            comm,
            Kind::ReduceScatter(op),
            Some(send),
            Some(recv),
            sim::exec_reduce::<T>,
        )
    }

    /// Adds [`Comm::send`] on `comm`.
    ///
    /// # Errors
    /// As [`Comm::send`].
    pub fn send<T: CommElement>(
        &mut self,
        comm: &'a Comm,
        buf: impl ReadBuf<'a, T>,
        peer: usize,
    ) -> Result<()> {
        comm.check_rank("send", "peer", peer)?;
        let buf = buf.__raw();
        self.add(
            comm,
            Kind::Send { peer },
            Some(buf),
            None,
            sim::exec_move::<T>,
        )
    }

    /// Adds [`Comm::recv`] on `comm`.
    ///
    /// # Errors
    /// As [`Comm::recv`].
    pub fn recv<T: CommElement>(
        &mut self,
        comm: &'a Comm,
        buf: impl WriteBuf<'a, T>,
        peer: usize,
    ) -> Result<()> {
        comm.check_rank("recv", "peer", peer)?;
        let buf = buf.__raw();
        self.add(
            comm,
            Kind::Recv { peer },
            None,
            Some(buf),
            sim::exec_move::<T>,
        )
    }

    fn add<T: CommElement>(
        &mut self,
        comm: &'a Comm,
        kind: Kind,
        send: Option<RawView<'a, T>>,
        recv: Option<RawViewMut<'a, T>>,
        sim_exec: sim::Exec,
    ) -> Result<()> {
        let op = kind.name();
        comm.stream.check_not_capturing(op)?;
        if let Some(s) = &send {
            comm.check_device(op, s.device())?;
        }
        if let Some(r) = &recv {
            comm.check_device(op, r.device())?;
        }
        self.calls.push(Box::new(Call {
            comm,
            kind,
            send,
            recv,
            sim_exec,
        }));
        Ok(())
    }

    /// Issues every call of the group. On GPUs the calls are queued (their streams then run
    /// them); on the simulator they have run when `end` returns. An empty group does nothing.
    ///
    /// # Errors
    /// [`Error::Timeout`] when a rank does not join in time (its communicator is then
    /// aborted); NCCL's errors; [`Error::Collective`] for a group mixing GPU and simulator
    /// communicators.
    pub fn end(self) -> Result<()> {
        let Some(first) = self.calls.first() else {
            return Ok(());
        };
        let on_sim = matches!(first.comm().backend, Backend::Sim(_));
        if self
            .calls
            .iter()
            .any(|c| matches!(c.comm().backend, Backend::Sim(_)) != on_sim)
        {
            return Err(Error::Collective(
                "a group cannot mix GPU and simulator communicators".into(),
            ));
        }
        if on_sim {
            sim::run_group(self.calls.into_iter().map(|c| c.post()).collect())
        } else {
            gpu::run_group(self.calls)
        }
    }
}

/// `Err` unless a buffer holds the `expected` number of elements.
fn same_len(found: usize, expected: usize) -> Result<()> {
    if found == expected {
        Ok(())
    } else {
        Err(Error::LengthMismatch { expected, found })
    }
}

/// `len × size`, or an error when it overflows.
fn times(len: usize, size: usize) -> Result<usize> {
    len.checked_mul(size).ok_or_else(|| {
        Error::Collective(format!(
            "{len} elements per rank over {size} ranks overflow the address space"
        ))
    })
}

/// What a queued call does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Kind {
    /// `recv = reduce(send)`, or in place when there is no `send`.
    AllReduce(ReduceOp),
    /// The root's `recv` (in place) to every rank.
    Broadcast { root: usize },
    /// `recv` on the root = reduce(send).
    Reduce { op: ReduceOp, root: usize },
    /// `recv` = every rank's `send`, in rank order.
    AllGather,
    /// `recv` = block `rank` of reduce(send).
    ReduceScatter(ReduceOp),
    /// `send` to `peer`.
    Send { peer: usize },
    /// `recv` from `peer`.
    Recv { peer: usize },
}

impl Kind {
    fn name(&self) -> &'static str {
        match self {
            Kind::AllReduce(_) => "all_reduce",
            Kind::Broadcast { .. } => "broadcast",
            Kind::Reduce { .. } => "reduce",
            Kind::AllGather => "all_gather",
            Kind::ReduceScatter(_) => "reduce_scatter",
            Kind::Send { .. } => "send",
            Kind::Recv { .. } => "recv",
        }
    }
}

/// A call of a group, its element type erased.
pub(crate) trait Pending<'a> {
    /// The rank it runs on.
    fn comm(&self) -> &'a Comm;
    /// GPU: orders the call's buffers on its stream and makes the NCCL call (inside the
    /// group).
    fn issue(self: Box<Self>) -> Result<()>;
    /// Simulator: the call as a simulated communicator takes it.
    fn post(self: Box<Self>) -> sim::Post;
}

/// A checked call: its rank, what it does and its buffers.
struct Call<'a, T> {
    comm: &'a Comm,
    kind: Kind,
    send: Option<RawView<'a, T>>,
    recv: Option<RawViewMut<'a, T>>,
    sim_exec: sim::Exec,
}

impl<'a, T: CommElement> Pending<'a> for Call<'a, T> {
    fn comm(&self) -> &'a Comm {
        self.comm
    }

    fn issue(self: Box<Self>) -> Result<()> {
        let Backend::Gpu(raw) = &self.comm.backend else {
            unreachable!("GPU groups hold GPU communicators")
        };
        let stream = self
            .comm
            .stream
            .cuda_stream()
            .expect("a GPU communicator's stream is a GPU stream");
        let (ty, per) = T::nccl_type();
        let send_len = self.send.as_ref().map(|s| s.repr.len());
        let recv_len = self.recv.as_ref().map(|r| r.repr.len());
        let send = self
            .send
            .map(|s| order::order_access(stream, order::Access::Read(s)))
            .transpose()?;
        let recv = self
            .recv
            .map(|r| order::order_access(stream, order::Access::Write(r)))
            .transpose()?;
        raw.issue(
            self.kind,
            gpu::Buffers {
                send,
                recv,
                send_count: send_len.map(|n| n * per),
                recv_count: recv_len.map(|n| n * per),
            },
            ty,
            stream,
        )
    }

    fn post(self: Box<Self>) -> sim::Post {
        let Backend::Sim(world) = &self.comm.backend else {
            unreachable!("simulator groups hold simulator communicators")
        };
        let send_len = self.send.as_ref().map(|s| s.repr.len());
        let recv_len = self.recv.as_ref().map(|r| r.repr.len());
        let send = self.send.map(|s| match s.repr {
            Repr::Sim(v, _) => Box::new(v) as Box<dyn Any + Send>,
            Repr::Gpu(_) => unreachable!("a simulated device's buffers are simulator memory"),
        });
        let recv = self.recv.map(|r| match r.repr {
            ReprMut::Sim(v, _) => Box::new(v) as Box<dyn Any + Send>,
            ReprMut::Gpu(_) => unreachable!("a simulated device's buffers are simulator memory"),
        });
        sim::Post {
            world: world.clone(),
            rank: self.comm.rank,
            timeout: self.comm.timeout.get(),
            kind: self.kind,
            elem: std::any::TypeId::of::<T>(),
            elem_name: T::NAME,
            send_len,
            recv_len,
            send,
            recv,
            exec: self.sim_exec,
        }
    }
}
