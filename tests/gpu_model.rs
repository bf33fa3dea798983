//! A randomized model test of the host API: random sequences of operations (allocate, copy
//! whole buffers and views from and to ordinary and pinned memory, launch checked kernels on
//! views and `unchecked` ones, in `unsafe`, with arguments that keep their promise, record and wait on events, capture and replay graphs, then drop or forget them,
//! drop streams and buffers in any order, launch and read on two threads at once), across
//! several streams, every host read checked against a host model of every buffer.
//!
//! Nothing in a sequence synchronizes but what a program would: ordering between streams is
//! Cuprum's to keep. `cargo test` runs a short deterministic pass; `CUPRUM_MODEL_SECS=600`
//! runs fresh sequences for that long and prints what it ran:
//!
//! ```text
//! CUPRUM_DEVICE=gpu CUPRUM_MODEL_SECS=600 cargo test --release --test gpu_model -- --nocapture
//! ```

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use cuprum::prelude::*;
use cuprum::PinnedBuffer;
use proptest::prelude::*;
use proptest::test_runner::{Config, RngAlgorithm, TestCaseError, TestRng, TestRunner};

/// `y[i] = y[i] * m + c` in place, wrapping.
#[kernel]
pub fn step(y: &mut [u32], m: u32, c: u32) {
    let i = gpu::global_id_x();
    if i < y.len() {
        y[i] = y[i].wrapping_mul(m).wrapping_add(c);
    }
}

/// `out[i] = x[i] * m + c` for `i` below both lengths, wrapping.
#[kernel]
pub fn affine(out: &mut [u32], x: &[u32], m: u32, c: u32) {
    let i = gpu::global_id_x();
    if i < out.len() && i < x.len() {
        out[i] = x[i].wrapping_mul(m).wrapping_add(c);
    }
}

/// `y[i] = f^rounds(y[i])` with `f(v) = v * m + c`: long enough on a GPU that an operation
/// not ordered after it sees the old values.
#[kernel]
pub fn slow_step(y: &mut [u32], m: u32, c: u32, rounds: u32) {
    let i = gpu::global_id_x();
    if i < y.len() {
        let mut v = y[i];
        for _ in 0..rounds {
            v = v.wrapping_mul(m).wrapping_add(c);
        }
        y[i] = v;
    }
}

/// `(m, c)` such that `v * m + c` is `v * m1 + c1` applied `rounds` times.
fn affine_power(m1: u32, c1: u32, rounds: u32) -> (u32, u32) {
    let (mut m, mut c) = (1u32, 0u32);
    let (mut bm, mut bc) = (m1, c1);
    let mut k = rounds;
    while k > 0 {
        if k & 1 == 1 {
            (m, c) = (m.wrapping_mul(bm), c.wrapping_mul(bm).wrapping_add(bc));
        }
        (bm, bc) = (bm.wrapping_mul(bm), bc.wrapping_mul(bm).wrapping_add(bc));
        k >>= 1;
    }
    (m, c)
}

/// `out[i] = x[off + i] * m + c` for `i` below `out.len()`, wrapping, with no checks: a
/// launch promises `off + out.len() <= x.len()` (and the grid covers no more than that).
#[kernel(unchecked)]
pub fn shifted_affine(out: &mut [u32], x: &[u32], off: u32, m: u32, c: u32) {
    let i = gpu::global_id_x();
    if i < out.len() {
        out[i] = x[off as usize + i].wrapping_mul(m).wrapping_add(c);
    }
}

/// Writes `y[at]` from thread 0 (a failed check when `at >= y.len()`).
#[kernel]
pub fn poke(y: &mut [u32], at: u32) {
    if gpu::global_id_x() == 0 {
        y[at as usize] = 7;
    }
}

fn affine_ref(x: u32, m: u32, c: u32) -> u32 {
    x.wrapping_mul(m).wrapping_add(c)
}

/// An index into a list whose length is only known when the operation runs (so that a
/// shrunk sequence stays meaningful).
type Pick = u16;

/// A range of a buffer, chosen when its length is known.
#[derive(Clone, Copy, Debug)]
struct Span(u16, u16);

impl Span {
    fn of(self, len: usize) -> std::ops::Range<usize> {
        let a = self.0 as usize % (len + 1);
        let b = a + self.1 as usize % (len - a + 1);
        a..b
    }
}

#[derive(Clone, Debug)]
enum Op {
    NewStream,
    DropStream(Pick),
    Alloc {
        stream: Pick,
        len: u16,
        seed: Option<u32>,
    },
    DropBuffer(Pick),
    Upload {
        stream: Pick,
        buf: Pick,
        span: Span,
        seed: u32,
        pinned: bool,
    },
    Download {
        stream: Pick,
        buf: Pick,
        span: Span,
        pinned: bool,
    },
    ToHost {
        stream: Pick,
        buf: Pick,
    },
    Slow {
        stream: Pick,
        buf: Pick,
        m: u32,
        c: u32,
    },
    Step {
        stream: Pick,
        buf: Pick,
        span: Span,
        m: u32,
        c: u32,
        block: u32,
    },
    /// The checked `affine`, or (with an offset) the `unchecked` `shifted_affine`.
    Affine {
        stream: Pick,
        dst: Pick,
        src: Pick,
        dst_span: Span,
        src_span: Span,
        m: u32,
        c: u32,
        unchecked: Option<u16>,
    },
    Copy {
        stream: Pick,
        src: Pick,
        dst: Pick,
        src_span: Span,
        at: u16,
    },
    Event {
        from: Pick,
        to: Pick,
    },
    Graph {
        stream: Pick,
        a: Pick,
        b: Pick,
        maps: [(u32, u32); 2],
        replays: u8,
        forget: bool,
    },
    Threads {
        s1: Pick,
        s2: Pick,
        a: Pick,
        b: Pick,
        m: u32,
        c: u32,
    },
    Poke {
        stream: Pick,
        buf: Pick,
    },
    Timeout {
        stream: Pick,
    },
}

fn span() -> impl Strategy<Value = Span> {
    (any::<u16>(), any::<u16>()).prop_map(|(a, b)| Span(a, b))
}

fn op() -> impl Strategy<Value = Op> {
    let p = any::<Pick>;
    let odd = || any::<u32>().prop_map(|m| m | 1);
    prop_oneof![
        2 => Just(Op::NewStream),
        1 => p().prop_map(Op::DropStream),
        3 => (p(), 0..1500u16, proptest::option::of(any::<u32>()))
            .prop_map(|(stream, len, seed)| Op::Alloc { stream, len, seed }),
        1 => p().prop_map(Op::DropBuffer),
        2 => (p(), p(), span(), any::<u32>(), any::<bool>()).prop_map(
            |(stream, buf, span, seed, pinned)| Op::Upload { stream, buf, span, seed, pinned }
        ),
        2 => (p(), p(), span(), any::<bool>())
            .prop_map(|(stream, buf, span, pinned)| Op::Download { stream, buf, span, pinned }),
        2 => (p(), p()).prop_map(|(stream, buf)| Op::ToHost { stream, buf }),
        4 => (p(), p(), span(), odd(), any::<u32>(), prop_oneof![Just(32u32), Just(128), Just(256)])
            .prop_map(|(stream, buf, span, m, c, block)| Op::Step { stream, buf, span, m, c, block }),
        2 => (p(), p(), odd(), any::<u32>()).prop_map(|(stream, buf, m, c)| Op::Slow { stream, buf, m, c }),
        6 => (p(), p(), p(), span(), span(), odd(), any::<u32>(), proptest::option::of(any::<u16>())).prop_map(
            |(stream, dst, src, dst_span, src_span, m, c, unchecked)| Op::Affine { stream, dst, src, dst_span, src_span, m, c, unchecked }
        ),
        2 => (p(), p(), p(), span(), any::<u16>())
            .prop_map(|(stream, src, dst, src_span, at)| Op::Copy { stream, src, dst, src_span, at }),
        1 => (p(), p()).prop_map(|(from, to)| Op::Event { from, to }),
        // A forgotten graph leaks its stream and buffers for good: rarely, so that long runs
        // stay within the driver's resources.
        2 => (p(), p(), p(), [(odd(), any::<u32>()), (odd(), any::<u32>())], 1..4u8, proptest::bool::weighted(0.05))
            .prop_map(|(stream, a, b, maps, replays, forget)| Op::Graph { stream, a, b, maps, replays, forget }),
        1 => (p(), p(), p(), p(), odd(), any::<u32>())
            .prop_map(|(s1, s2, a, b, m, c)| Op::Threads { s1, s2, a, b, m, c }),
        1 => (p(), p()).prop_map(|(stream, buf)| Op::Poke { stream, buf }),
        1 => p().prop_map(|stream| Op::Timeout { stream }),
    ]
}

/// A device buffer and what it must hold.
struct Buf {
    dev: DeviceBuffer<u32>,
    model: Vec<u32>,
}

/// Two distinct elements of `v`, exclusively.
fn two_mut<T>(v: &mut [T], i: usize, j: usize) -> (&mut T, &mut T) {
    assert_ne!(i, j);
    if i < j {
        let (lo, hi) = v.split_at_mut(j);
        (&mut lo[i], &mut hi[0])
    } else {
        let (lo, hi) = v.split_at_mut(i);
        (&mut hi[0], &mut lo[j])
    }
}

fn values(seed: u32, n: usize) -> Vec<u32> {
    let mut r = fastrand::Rng::with_seed(seed as u64);
    (0..n).map(|_| r.u32(..)).collect()
}

/// Operations run, over all sequences (reported by the long mode).
static OPS: AtomicU64 = AtomicU64::new(0);

/// The most streams and buffers alive at once.
const STREAMS: usize = 5;
const BUFFERS: usize = 8;

struct World {
    dev: Device,
    /// Rounds of `slow_step`: a fraction of a millisecond of a GPU, few on the simulator.
    rounds: u32,
    /// Index 0 is the device's default stream, never dropped.
    streams: Vec<Stream>,
    bufs: Vec<Buf>,
}

fn check(what: &str, got: &[u32], want: &[u32]) -> Result<(), TestCaseError> {
    if got == want {
        return Ok(());
    }
    let first = got.iter().zip(want).position(|(g, w)| g != w);
    let wrong = got.iter().zip(want).filter(|(g, w)| g != w).count();
    Err(TestCaseError::fail(format!(
        "{what}: {wrong} of {} elements differ from the model (first at {first:?}; lengths {} and {})",
        want.len(),
        got.len(),
        want.len()
    )))
}

fn fail(e: cuprum::Error) -> TestCaseError {
    TestCaseError::fail(format!("unexpected error: {e}"))
}

impl World {
    fn stream(&self, p: Pick) -> &Stream {
        &self.streams[p as usize % self.streams.len()]
    }

    fn buf(&self, p: Pick) -> Option<usize> {
        (!self.bufs.is_empty()).then(|| p as usize % self.bufs.len())
    }

    /// Two distinct buffers.
    fn pair(&self, a: Pick, b: Pick) -> Option<(usize, usize)> {
        let n = self.bufs.len();
        if n < 2 {
            return None;
        }
        let i = a as usize % n;
        let j = (i + 1 + b as usize % (n - 1)) % n;
        Some((i, j))
    }

    fn run(&mut self, op: &Op) -> Result<(), TestCaseError> {
        OPS.fetch_add(1, Ordering::Relaxed);
        match *op {
            Op::NewStream => {
                if self.streams.len() >= STREAMS {
                    self.streams.remove(1);
                }
                self.streams.push(self.dev.new_stream().map_err(fail)?);
            }
            Op::DropStream(p) => {
                if self.streams.len() > 1 {
                    self.streams
                        .remove(1 + p as usize % (self.streams.len() - 1));
                }
            }
            Op::Alloc { stream, len, seed } => {
                if self.bufs.len() >= BUFFERS {
                    self.bufs.remove(0);
                }
                let s = self.stream(stream);
                let len = len as usize;
                let buf = match seed {
                    Some(seed) => {
                        let model = values(seed, len);
                        Buf {
                            dev: s.to_device(&model).map_err(fail)?,
                            model,
                        }
                    }
                    None => Buf {
                        dev: s.alloc_zeros(len).map_err(fail)?,
                        model: vec![0; len],
                    },
                };
                self.bufs.push(buf);
            }
            Op::DropBuffer(p) => {
                if let Some(i) = self.buf(p) {
                    self.bufs.remove(i);
                }
            }
            Op::Upload {
                stream,
                buf,
                span,
                seed,
                pinned,
            } => {
                let Some(i) = self.buf(buf) else {
                    return Ok(());
                };
                let s = self.stream(stream).clone();
                let b = &mut self.bufs[i];
                let r = span.of(b.model.len());
                let data = values(seed, r.len());
                let mut view = b.dev.slice_mut(r.clone());
                if pinned {
                    let mut host: PinnedBuffer<u32> =
                        self.dev.alloc_pinned(r.len()).map_err(fail)?;
                    host.as_mut_slice().map_err(fail)?.copy_from_slice(&data);
                    s.copy_from_host(&mut view, &host).map_err(fail)?;
                    // Dropping the pinned buffer waits for the copy that reads it.
                } else {
                    s.copy_from_host(&mut view, &data).map_err(fail)?;
                }
                b.model[r].copy_from_slice(&data);
            }
            Op::Download {
                stream,
                buf,
                span,
                pinned,
            } => {
                let Some(i) = self.buf(buf) else {
                    return Ok(());
                };
                let s = self.stream(stream);
                let b = &self.bufs[i];
                let r = span.of(b.model.len());
                let view = b.dev.slice(r.clone());
                if pinned {
                    let mut host: PinnedBuffer<u32> =
                        self.dev.alloc_pinned(r.len()).map_err(fail)?;
                    s.copy_to_host(&view, &mut host).map_err(fail)?;
                    check(
                        "pinned download",
                        host.as_slice().map_err(fail)?,
                        &b.model[r],
                    )?;
                } else {
                    let mut host = vec![0u32; r.len()];
                    s.copy_to_host(&view, &mut host).map_err(fail)?;
                    check("download", &host, &b.model[r])?;
                }
            }
            Op::ToHost { stream, buf } => {
                let Some(i) = self.buf(buf) else {
                    return Ok(());
                };
                let b = &self.bufs[i];
                let got = self.stream(stream).to_host(&b.dev).map_err(fail)?;
                check("to_host", &got, &b.model)?;
            }
            Op::Slow { stream, buf, m, c } => {
                let Some(i) = self.buf(buf) else {
                    return Ok(());
                };
                let s = self.stream(stream).clone();
                let rounds = self.rounds;
                let b = &mut self.bufs[i];
                let cfg = LaunchConfig::for_elements(b.model.len(), 64);
                slow_step::launch(&s, cfg, &mut b.dev, m, c, rounds).map_err(fail)?;
                let (m, c) = affine_power(m, c, rounds);
                for v in &mut b.model {
                    *v = affine_ref(*v, m, c);
                }
            }
            Op::Step {
                stream,
                buf,
                span,
                m,
                c,
                block,
            } => {
                let Some(i) = self.buf(buf) else {
                    return Ok(());
                };
                let s = self.stream(stream).clone();
                let b = &mut self.bufs[i];
                let r = span.of(b.model.len());
                let cfg = LaunchConfig::for_elements(r.len(), block);
                step::launch(&s, cfg, &mut b.dev.slice_mut(r.clone()), m, c).map_err(fail)?;
                for v in &mut b.model[r] {
                    *v = affine_ref(*v, m, c);
                }
            }
            Op::Affine {
                stream,
                dst,
                src,
                dst_span,
                src_span,
                m,
                c,
                unchecked,
            } => {
                let Some((i, j)) = self.pair(dst, src) else {
                    return Ok(());
                };
                let s = self.stream(stream).clone();
                let (d, x) = two_mut(&mut self.bufs, i, j);
                let (mut rd, rx) = (dst_span.of(d.model.len()), src_span.of(x.model.len()));
                let off = match unchecked {
                    None => {
                        let cfg = LaunchConfig::for_elements(rd.len(), 128);
                        affine::launch(
                            &s,
                            cfg,
                            &mut d.dev.slice_mut(rd.clone()),
                            &x.dev.slice(rx.clone()),
                            m,
                            c,
                        )
                        .map_err(fail)?;
                        0
                    }
                    Some(off) => {
                        rd.end = rd.start + rd.len().min(rx.len());
                        let off = off as usize % (rx.len() - rd.len() + 1);
                        let cfg = LaunchConfig::for_elements(rd.len(), 128);
                        // SAFETY: `off + out.len() <= x.len()` (`rd` is no longer than `rx`,
                        // and `off` at most their difference), and `shifted_affine` guards its
                        // index by `out.len()`: every index is in bounds.
                        unsafe {
                            shifted_affine::launch(
                                &s,
                                cfg,
                                &mut d.dev.slice_mut(rd.clone()),
                                &x.dev.slice(rx.clone()),
                                off as u32,
                                m,
                                c,
                            )
                        }
                        .map_err(fail)?;
                        off
                    }
                };
                for (o, &v) in d.model[rd].iter_mut().zip(&x.model[rx][off..]) {
                    *o = affine_ref(v, m, c);
                }
            }
            Op::Copy {
                stream,
                src,
                dst,
                src_span,
                at,
            } => {
                let Some((i, j)) = self.pair(src, dst) else {
                    return Ok(());
                };
                let s = self.stream(stream).clone();
                let (x, d) = two_mut(&mut self.bufs, i, j);
                let mut rx = src_span.of(x.model.len());
                rx.end = rx.start + rx.len().min(d.model.len());
                let at = at as usize % (d.model.len() - rx.len() + 1);
                let rd = at..at + rx.len();
                s.copy(&x.dev.slice(rx.clone()), &mut d.dev.slice_mut(rd.clone()))
                    .map_err(fail)?;
                d.model[rd].copy_from_slice(&x.model[rx]);
            }
            Op::Event { from, to } => {
                let e = self.stream(from).record_event().map_err(fail)?;
                self.stream(to).wait_event(&e).map_err(fail)?;
            }
            Op::Graph {
                stream,
                a,
                b,
                maps,
                replays,
                forget,
            } => {
                let Some((i, j)) = self.pair(a, b) else {
                    return Ok(());
                };
                let s = self.stream(stream).clone();
                let (ba, bb) = two_mut(&mut self.bufs, i, j);
                let [(m1, c1), (m2, c2)] = maps;
                let (da, db) = (&mut ba.dev, &mut bb.dev);
                let cfg = LaunchConfig::for_elements(da.len().max(db.len()), 256);
                let mut graph = s
                    .capture(|h| {
                        step::launch(h, cfg, &mut *da, m1, c1)?;
                        affine::launch(h, cfg, &mut *db, &*da, m2, c2)
                    })
                    .map_err(fail)?;
                for _ in 0..replays {
                    graph.launch().map_err(fail)?;
                    for v in &mut ba.model {
                        *v = affine_ref(*v, m1, c1);
                    }
                    for (o, &v) in bb.model.iter_mut().zip(&ba.model) {
                        *o = affine_ref(v, m2, c2);
                    }
                }
                if forget {
                    std::mem::forget(graph);
                } else {
                    drop(graph);
                }
            }
            Op::Threads { s1, s2, a, b, m, c } => {
                let Some((i, j)) = self.pair(a, b) else {
                    return Ok(());
                };
                let (s1, s2) = (self.stream(s1).clone(), self.stream(s2).clone());
                let (ba, bb) = two_mut(&mut self.bufs, i, j);
                let cfg = LaunchConfig::for_elements(ba.model.len(), 128);
                let (launched, read) = std::thread::scope(|t| {
                    let da = &mut ba.dev;
                    let launcher = t.spawn(move || step::launch(&s1, cfg, da, m, c));
                    let reader = t.spawn(|| s2.to_host(&bb.dev));
                    (launcher.join(), reader.join())
                });
                launched.expect("launching thread").map_err(fail)?;
                check(
                    "read on a second thread",
                    &read.expect("reading thread").map_err(fail)?,
                    &bb.model,
                )?;
                for v in &mut ba.model {
                    *v = affine_ref(*v, m, c);
                }
            }
            Op::Poke { stream, buf } => {
                let Some(i) = self.buf(buf) else {
                    return Ok(());
                };
                let s = self.stream(stream).clone();
                let b = &mut self.bufs[i];
                let at = b.model.len() as u32;
                poke::launch(&s, LaunchConfig::new(1, 32), &mut b.dev, at).map_err(fail)?;
                match s.synchronize() {
                    Err(cuprum::Error::KernelPanic(_)) => {}
                    other => {
                        return Err(TestCaseError::fail(format!(
                            "an out-of-bounds write gave {other:?}, not a kernel panic"
                        )))
                    }
                }
            }
            Op::Timeout { stream } => {
                let done = self
                    .stream(stream)
                    .synchronize_timeout(Duration::from_secs(600))
                    .map_err(fail)?;
                prop_assert!(
                    done,
                    "a stream of short kernels did not finish in 10 minutes"
                );
            }
        }
        Ok(())
    }

    /// Every buffer read back on every stream.
    fn check_all(&self) -> Result<(), TestCaseError> {
        for s in &self.streams {
            for b in &self.bufs {
                check("final read", &s.to_host(&b.dev).map_err(fail)?, &b.model)?;
            }
        }
        Ok(())
    }
}

fn run_sequence(dev: &Device, ops: &[Op]) -> Result<(), TestCaseError> {
    let mut world = World {
        dev: dev.clone(),
        rounds: if dev.is_simulator() { 3 } else { 100_000 },
        streams: vec![dev.default_stream()],
        bufs: Vec::new(),
    };
    for (k, op) in ops.iter().enumerate() {
        world
            .run(op)
            .map_err(|e| TestCaseError::fail(format!("operation {k} ({op:?}): {e}")))?;
    }
    world.check_all()
}

#[test]
fn host_api_matches_its_model() {
    let long: Option<u64> = std::env::var("CUPRUM_MODEL_SECS")
        .ok()
        .and_then(|s| s.parse().ok());
    // The short deterministic pass runs on every backend (on a GPU host, the GPU and the
    // simulator); a long run on the device under test.
    let devices = match long {
        Some(_) => vec![cuprum_testkit::device().expect("a device")],
        None => cuprum_testkit::backends().expect("a device"),
    };
    for dev in devices {
        run_model(&dev, long);
    }
}

/// Runs fresh batches of sequences on `dev`: one batch, or batches for `long` seconds.
fn run_model(dev: &Device, long: Option<u64>) {
    let config = Config {
        cases: if long.is_some() { 64 } else { 48 },
        failure_persistence: None,
        ..Config::default()
    };
    let seed = match long {
        Some(_) => std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos() as u64),
        None => 0x6d0d_e150,
    };
    let deadline = long.map(|s| Instant::now() + Duration::from_secs(s));
    let start = Instant::now();
    let strategy = proptest::collection::vec(op(), 1..80);
    let mut sequences = 0u64;
    for batch in 0u64.. {
        // A runner stops after `cases` successes, so each batch gets a fresh one.
        let mut bytes = [0u8; 32];
        bytes[..8].copy_from_slice(&seed.to_le_bytes());
        bytes[8..16].copy_from_slice(&batch.to_le_bytes());
        let rng = TestRng::from_seed(RngAlgorithm::ChaCha, &bytes);
        let mut runner = TestRunner::new_with_rng(config.clone(), rng);
        if let Err(e) = runner.run(&strategy, |ops| run_sequence(dev, &ops)) {
            panic!(
                "the host API left its model on {} (seed {seed:#x}, batch {batch}): {e}",
                dev.name()
            );
        }
        sequences += config.cases as u64;
        if deadline.is_none_or(|d| Instant::now() >= d) {
            break;
        }
    }
    if long.is_some() {
        println!(
            "gpu_model on {}: {sequences} sequences, {} operations in {:.0?}, seed {seed:#x}, all reads matched the model",
            dev.name(),
            OPS.load(Ordering::Relaxed),
            start.elapsed()
        );
    }
}
