//! GPU communicators: NCCL through cudarc's `nccl::result` and `nccl::sys` layers.
//!
//! Communicators are non-blocking (`ncclConfig_t::blocking = 0`) unless the caller asks for
//! blocking ones, so that no NCCL call waits on the host for another rank: creation and each
//! group return at once (or with `ncclInProgress`), and Cuprum polls `ncclCommGetAsyncError`
//! until the communicator is ready, up to the communicator's timeout, after which it calls
//! `ncclCommAbort`. cudarc's safe `Comm` is blocking and panics in its `Drop`, so it is not
//! used.

use std::cell::Cell;
use std::ffi::{c_void, CStr};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, Instant};

use cudarc::driver::{CudaContext, CudaStream};
use cudarc::nccl::result::{self, NcclError, NcclStatus};
use cudarc::nccl::sys::{self, ncclComm_t, ncclDataType_t, ncclRedOp_t, ncclResult_t};

use super::{CommOptions, Id, Kind, Pending, ReduceOp};
use crate::error::{DriverContext, Error, Result};
use crate::stream::Stream;

/// The oldest NCCL with non-blocking communicators (`ncclCommInitRankConfig`).
const MIN_VERSION: i32 = 21400;

/// `Ok` when NCCL can be loaded and is new enough (checked once per process: cudarc panics
/// when it calls into a library that is not there, so every entry point asks this first).
fn loaded() -> Result<()> {
    static LOADED: OnceLock<std::result::Result<(), String>> = OnceLock::new();
    LOADED
        .get_or_init(|| {
            // SAFETY: only probes whether the shared library loads.
            if !unsafe { sys::is_culib_present() } {
                return Err(missing_message());
            }
            let v = result::get_nccl_version().map_err(|e| describe(&e, None))?;
            if v < MIN_VERSION {
                return Err(format!(
                    "NCCL {} is too old: Cuprum needs NCCL 2.14 or newer (non-blocking communicators)",
                    version_text(v)
                ));
            }
            Ok(())
        })
        .clone()
        .map_err(Error::NcclMissing)
}

fn missing_message() -> String {
    let mut names = cudarc::get_lib_name_candidates("nccl");
    names.sort();
    names.dedup();
    format!(
        "NCCL is not installed (none of {} could be loaded). Install NCCL 2.14 or newer: \
         `apt install libnccl2 libnccl-dev` (NVIDIA's CUDA repository) gives libnccl.so; the pip \
         wheels `nvidia-nccl-cu12` / `nvidia-nccl-cu13` hold only libnccl.so.2, which cudarc does \
         not look for: link it as libnccl.so in a directory on LD_LIBRARY_PATH (scripts/nccl-run \
         does this)",
        names.join(", ")
    )
}

fn version_text(v: i32) -> String {
    format!("{}.{}.{}", v / 10000, (v / 100) % 100, v % 100)
}

/// NCCL's version number.
pub(crate) fn version() -> Result<i32> {
    loaded()?;
    result::get_nccl_version().map_err(|e| nccl_error("reading NCCL's version", &e, None))
}

/// A new NCCL unique id (starts NCCL's bootstrap service in this process).
pub(crate) fn unique_id() -> Result<[std::ffi::c_char; 128]> {
    loaded()?;
    result::get_uniqueid()
        .map(|id| id.internal)
        .map_err(|e| nccl_error("making a unique id", &e, None))
}

/// NCCL's description of `e`, with the communicator's last error when there is one.
fn describe(e: &NcclError, comm: Option<ncclComm_t>) -> String {
    // SAFETY: NCCL returns a static string for every result code.
    let what = unsafe { CStr::from_ptr(sys::ncclGetErrorString(e.0)) }
        .to_string_lossy()
        .into_owned();
    let last = comm
        .filter(|c| !c.is_null())
        // SAFETY: `c` is a live communicator; NCCL returns a string it owns (maybe empty).
        .map(|c| unsafe { CStr::from_ptr(sys::ncclGetLastError(c)) })
        .map(|s| s.to_string_lossy().into_owned())
        .filter(|s| !s.is_empty());
    match last {
        Some(l) => format!("{what} ({:?}): {l}", e.0),
        None => format!("{what} ({:?})", e.0),
    }
}

fn nccl_error(op: &str, e: &NcclError, comm: Option<ncclComm_t>) -> Error {
    Error::Nccl(format!("{op}: {}", describe(e, comm)))
}

/// A communicator's configuration: what `NCCL_CONFIG_INITIALIZER` gives, and `blocking`.
/// NCCL reads as much of the struct as its own version knows.
fn config(blocking: bool) -> sys::ncclConfig_t {
    const UNDEF_INT: i32 = i32::MIN;
    sys::ncclConfig_t {
        size: std::mem::size_of::<sys::ncclConfig_t>(),
        magic: 0xcafe_beef,
        version: 23000,
        blocking: i32::from(blocking),
        cgaClusterSize: UNDEF_INT,
        minCTAs: UNDEF_INT,
        maxCTAs: UNDEF_INT,
        netName: std::ptr::null(),
        splitShare: UNDEF_INT,
        trafficClass: UNDEF_INT,
        commName: std::ptr::null(),
        collnetEnable: UNDEF_INT,
        CTAPolicy: UNDEF_INT,
        shrinkShare: UNDEF_INT,
        nvlsCTAs: UNDEF_INT,
        nChannelsPerNetPeer: UNDEF_INT,
        nvlinkCentricSched: UNDEF_INT,
        graphUsageMode: UNDEF_INT,
        numRmaCtx: UNDEF_INT,
        maxP2pPeers: UNDEF_INT,
    }
}

/// One GPU rank's NCCL communicator. The handle is null once aborted.
pub(crate) struct RawComm {
    handle: Cell<ncclComm_t>,
    ctx: Arc<CudaContext>,
    /// Why the communicator was aborted.
    aborted: Cell<Option<&'static str>>,
    /// Owns the handles of every rank made together, and `index` is this rank's among them.
    owner: Arc<Owner>,
    index: usize,
}

// SAFETY: an NCCL communicator may be used from any thread, one call at a time; `RawComm` is
// not `Sync`, so calls on one are never concurrent.
unsafe impl Send for RawComm {}

/// The handles of the ranks made together (all GPUs of a process, or one rank), released
/// together when the last of their `Comm`s is dropped. Each `Comm` first waits for its own
/// stream, so no rank's resources go while a peer's kernels may still read them.
struct Owner {
    /// Live handles as addresses (0 once aborted), with their contexts.
    handles: Mutex<Vec<(usize, Arc<CudaContext>)>>,
}

impl Owner {
    /// Takes handle `index` out and aborts it (never waits for other ranks).
    fn abort(&self, index: usize) {
        let mut handles = self.handles.lock().unwrap_or_else(|e| e.into_inner());
        let (h, ctx) = &mut handles[index];
        let h = std::mem::take(h) as ncclComm_t;
        if !h.is_null() {
            let _ = ctx.bind_to_thread();
            // SAFETY: `h` was live and is never used again (its slot now holds 0, and the
            // rank's own copy was cleared first).
            let _ = unsafe { result::comm_abort(h) };
        }
    }
}

impl Drop for Owner {
    fn drop(&mut self) {
        let n = self.handles.get_mut().map_or(0, |h| h.len());
        (0..n).for_each(|i| self.abort(i));
    }
}

impl RawComm {
    /// The live handle, or the error that a call on an aborted communicator gets.
    fn live(&self) -> Result<ncclComm_t> {
        let h = self.handle.get();
        if h.is_null() {
            Err(Error::Nccl(format!(
                "the communicator was aborted ({})",
                self.aborted.get().unwrap_or("unknown reason")
            )))
        } else {
            Ok(h)
        }
    }

    /// Aborts the communicator (ends its kernels; never waits for other ranks).
    fn abort(&self, why: &'static str) {
        if !self.handle.replace(std::ptr::null_mut()).is_null() {
            self.aborted.set(Some(why));
            self.owner.abort(self.index);
        }
    }

    /// The communicator's pending state: `Ok(true)` when ready, `Ok(false)` while in
    /// progress.
    fn ready(&self) -> Result<bool> {
        let h = self.live()?;
        let mut state = ncclResult_t::ncclSuccess;
        // SAFETY: `h` is live; `state` is a valid out-pointer.
        let r = unsafe { sys::ncclCommGetAsyncError(h, &mut state) };
        let status = r
            .result()
            .and_then(|_| state.result())
            .map_err(|e| nccl_error("communicator error", &e, Some(h)))?;
        Ok(status != NcclStatus::InProgress)
    }

    /// Waits until the communicator is ready, aborting it at `deadline`.
    fn settle(&self, deadline: Instant, what: &str) -> Result<()> {
        let mut spins = 0u32;
        loop {
            match self.ready() {
                Ok(true) => return Ok(()),
                Ok(false) => {}
                Err(e) => {
                    self.abort("it reported an error");
                    return Err(e);
                }
            }
            if Instant::now() >= deadline {
                self.abort("a rank timed out");
                return Err(Error::Timeout(format!(
                    "{what}: the other ranks did not arrive in time; the communicator is aborted"
                )));
            }
            pause(&mut spins);
        }
    }

    /// Waits for everything queued on `stream`, polling the communicator's errors; aborts it
    /// when `timeout` passes first.
    pub fn wait_stream(&self, stream: &Stream, timeout: Duration, rank: usize) -> Result<()> {
        self.live()?;
        let cuda = stream
            .cuda_stream()
            .expect("a GPU communicator's stream is a GPU stream");
        let done = cuda
            .record_event(None)
            .during("recording an event to wait for collectives")?;
        let deadline = Instant::now() + timeout;
        let mut spins = 0u32;
        loop {
            if done.try_is_complete().during("waiting for collectives")? {
                return Ok(());
            }
            if let Err(e) = self.ready() {
                self.abort("it reported an error");
                return Err(e);
            }
            if Instant::now() >= deadline {
                self.abort("a rank timed out");
                // The aborted kernels finish now; wait for them so the buffers are free.
                let _ = done.synchronize();
                return Err(Error::Timeout(format!(
                    "rank {rank} waited {timeout:?} for its collectives: a peer never arrived; the communicator is aborted"
                )));
            }
            pause(&mut spins);
        }
    }

    /// Makes one NCCL call of a group on `stream`.
    pub fn issue(
        &self,
        kind: Kind,
        buffers: Buffers,
        ty: ncclDataType_t,
        stream: &CudaStream,
    ) -> Result<()> {
        let h = self.live()?;
        self.ctx
            .bind_to_thread()
            .during("binding the device's context")?;
        let s = stream.cu_stream() as sys::cudaStream_t;
        let src = buffers
            .send
            .map_or(std::ptr::null(), |p| p as *const c_void);
        let dst = buffers
            .recv
            .map_or(std::ptr::null_mut(), |p| p as *mut c_void);
        // In-place calls name their one buffer as both.
        let src = if src.is_null() {
            dst as *const c_void
        } else {
            src
        };
        let recv_count = buffers.recv_count.unwrap_or(0);
        let send_count = buffers.send_count.unwrap_or(0);
        // SAFETY: the pointers are live device memory of this communicator's device with the
        // counts given (checked when the call was added), ordered on `stream` by
        // `order_access`, which listed the stream as their user; their borrows outlast the
        // group, and a free waits for every listed user.
        let r = unsafe {
            match kind {
                Kind::AllReduce(op) => {
                    result::all_reduce(src, dst, recv_count, ty, red_op(op), h, s)
                }
                Kind::Broadcast { root } => {
                    result::broadcast(src, dst, recv_count, ty, root as i32, h, s)
                }
                Kind::Reduce { op, root } => {
                    result::reduce(src, dst, send_count, ty, red_op(op), root as i32, h, s)
                }
                Kind::AllGather => result::all_gather(src, dst, send_count, ty, h, s),
                Kind::ReduceScatter(op) => {
                    result::reduce_scatter(src, dst, recv_count, ty, red_op(op), h, s)
                }
                Kind::Send { peer } => result::send(src, send_count, ty, peer as i32, h, s),
                Kind::Recv { peer } => result::recv(dst, recv_count, ty, peer as i32, h, s),
            }
        };
        r.map(|_| ())
            .map_err(|e| nccl_error(kind.name(), &e, Some(h)))
    }
}

/// Device addresses and element counts (in NCCL's type) of one call.
pub(crate) struct Buffers {
    pub send: Option<u64>,
    pub recv: Option<u64>,
    pub send_count: Option<usize>,
    pub recv_count: Option<usize>,
}

fn red_op(op: ReduceOp) -> ncclRedOp_t {
    match op {
        ReduceOp::Sum => ncclRedOp_t::ncclSum,
        ReduceOp::Prod => ncclRedOp_t::ncclProd,
        ReduceOp::Min => ncclRedOp_t::ncclMin,
        ReduceOp::Max => ncclRedOp_t::ncclMax,
        ReduceOp::Avg => ncclRedOp_t::ncclAvg,
    }
}

/// Busy-waits briefly, then sleeps: queueing a collective settles in microseconds, a peer
/// may take seconds.
fn pause(spins: &mut u32) {
    *spins += 1;
    if *spins < 1000 {
        std::thread::yield_now();
    } else {
        std::thread::sleep(Duration::from_micros(200));
    }
}

/// The CUDA context of a GPU stream.
fn context(stream: &Stream) -> Arc<CudaContext> {
    stream
        .cuda_stream()
        .expect("a GPU communicator's stream is a GPU stream")
        .context()
        .clone()
}

/// Creates rank `rank` of `size` on `stream`'s GPU.
pub(crate) fn init_rank(
    stream: &Stream,
    rank: usize,
    size: usize,
    id: &Id,
    options: CommOptions,
) -> Result<RawComm> {
    loaded()?;
    let ctx = context(stream);
    ctx.bind_to_thread()
        .during("binding the device's context")?;
    let mut handles = Vec::new();
    let started = start_init(&ctx, rank, size, id, options.is_blocking(), &mut handles);
    let comm = ranks(handles).pop();
    started?;
    let comm = comm.expect("a rank that started has its handle");
    comm.settle(
        Instant::now() + options.get_timeout(),
        "creating the communicator",
    )?;
    Ok(comm)
}

/// Starts creating one rank (NCCL finishes in the background); the current context is the
/// rank's. The handle goes into `handles` even on failure (so that it is aborted).
fn start_init(
    ctx: &Arc<CudaContext>,
    rank: usize,
    size: usize,
    id: &Id,
    blocking: bool,
    handles: &mut Vec<(usize, Arc<CudaContext>)>,
) -> Result<()> {
    let (Ok(nranks), Ok(r)) = (i32::try_from(size), i32::try_from(rank)) else {
        return Err(Error::Collective(format!(
            "a communicator of {size} ranks is too large for NCCL"
        )));
    };
    let mut cfg = config(blocking);
    let mut handle: ncclComm_t = std::ptr::null_mut();
    let unique = sys::ncclUniqueId {
        internal: id.internal(),
    };
    // SAFETY: valid out-pointer and configuration; NCCL copies the id and the configuration.
    let r = unsafe { result::comm_init_rank_config(&mut handle, nranks, unique, r, &mut cfg) };
    let described = r.map_err(|e| nccl_error("creating the communicator", &e, Some(handle)));
    handles.push((handle as usize, ctx.clone()));
    described.map(|_| ())
}

/// The ranks whose creation `handles` started, owned together.
fn ranks(handles: Vec<(usize, Arc<CudaContext>)>) -> Vec<RawComm> {
    let comms: Vec<(ncclComm_t, Arc<CudaContext>)> = handles
        .iter()
        .map(|(h, ctx)| (*h as ncclComm_t, ctx.clone()))
        .collect();
    let owner = Arc::new(Owner {
        handles: Mutex::new(handles),
    });
    comms
        .into_iter()
        .enumerate()
        .map(|(index, (h, ctx))| RawComm {
            handle: Cell::new(h),
            ctx,
            aborted: Cell::new(None),
            owner: owner.clone(),
            index,
        })
        .collect()
}

/// One communicator over the GPUs of `streams`, all in this process.
pub(crate) fn init_all(streams: &[Stream], options: CommOptions) -> Result<Vec<RawComm>> {
    loaded()?;
    let size = streams.len();
    let id = Id::from_bytes(unique_id()?.map(|c| c as u8));
    let mut handles = Vec::with_capacity(size);
    result::group_start().map_err(|e| nccl_error("starting a group", &e, None))?;
    let mut failure = None;
    for (rank, s) in streams.iter().enumerate() {
        let ctx = context(s);
        let started = ctx
            .bind_to_thread()
            .during("binding the device's context")
            .and_then(|()| start_init(&ctx, rank, size, &id, options.is_blocking(), &mut handles));
        if let Err(e) = started {
            failure = Some(e);
            break;
        }
    }
    let ended = result::group_end();
    // From here on the handles are owned (and aborted on every error path).
    let comms = ranks(handles);
    if let Some(e) = failure {
        return Err(e);
    }
    ended.map_err(|e| nccl_error("creating the communicators", &e, None))?;
    let deadline = Instant::now() + options.get_timeout();
    for c in &comms {
        c.settle(deadline, "creating the communicators")?;
    }
    Ok(comms)
}

/// Issues a group of GPU calls: waits and pointers for each call's buffers, one NCCL group,
/// then records the buffers' use once everything is queued.
pub(crate) fn run_group<'a>(calls: Vec<Box<dyn Pending<'a> + 'a>>) -> Result<()> {
    loaded()?;
    let comms: Vec<&'a super::Comm> = calls.iter().map(|c| c.comm()).collect();
    for c in &comms {
        raw(c).live()?;
    }
    let deadline = comms
        .iter()
        .map(|c| Instant::now() + c.timeout())
        .min()
        .expect("a group has calls");
    result::group_start().map_err(|e| nccl_error("starting a group", &e, None))?;
    let mut failure = None;
    for call in calls {
        if let Err(e) = call.issue() {
            failure = Some(e);
            break;
        }
    }
    // The group must end even when a call failed (NCCL then drops the group's calls).
    let ended = result::group_end();
    if let Some(e) = failure {
        return Err(e);
    }
    ended.map_err(|e| nccl_error("ending a group", &e, None))?;
    for (i, c) in comms.iter().enumerate() {
        if !comms[..i].iter().any(|d| std::ptr::eq(*d, *c)) {
            raw(c).settle(deadline, "queueing collectives")?;
        }
    }
    Ok(())
}

fn raw(c: &super::Comm) -> &RawComm {
    match &c.backend {
        super::Backend::Gpu(r) => r,
        super::Backend::Sim(_) => unreachable!("a GPU group holds GPU communicators"),
    }
}
