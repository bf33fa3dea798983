//! `cuprum::nccl`: every collective, every reduction and element type, groups, point-to-point
//! messages, one rank per thread, stream ordering, and the errors refused before NCCL runs.
//! Results are checked against CPU references on fresh random inputs, outputs poisoned first.
//!
//! On a machine without a GPU (CI) the ranks are three simulated devices; under
//! `CUPRUM_DEVICE=gpu` they are every GPU of the machine (NCCL must be loadable, and
//! `NCCL_NVLS_ENABLE=0` set: `scripts/nccl-run` does both).

use std::time::Duration;

use cuprum::nccl::{Comm, CommOptions, Group, Id, ReduceOp, Reducible};
use cuprum::prelude::*;
use cuprum_testkit::device;

/// Adds `v` to every element of `y` (to order a kernel against collectives).
#[kernel]
pub fn add_f32(y: &mut [f32], v: f32) {
    let i = gpu::global_id_x();
    if i < y.len() {
        y[i] += v;
    }
}

/// The devices the ranks run on: every GPU under `CUPRUM_DEVICE=gpu`, else three simulated
/// devices (an odd count, so that nothing depends on a power of two).
fn devices() -> cuprum::Result<Vec<Device>> {
    let dev = device()?;
    if dev.is_simulator() {
        return Ok((0..3).map(Device::simulated).collect());
    }
    assert_eq!(
        std::env::var("NCCL_NVLS_ENABLE").as_deref(),
        Ok("0"),
        "run the NCCL tests with NCCL_NVLS_ENABLE=0 (scripts/nccl-run sets it)"
    );
    (0..Device::count()).map(Device::gpu).collect()
}

/// One communicator over `devices()`, each rank on a stream of its own (not the default
/// stream, where the tests make their buffers: the collectives must order themselves).
fn comms() -> cuprum::Result<Vec<Comm>> {
    let streams = devices()?
        .iter()
        .map(Device::new_stream)
        .collect::<cuprum::Result<Vec<_>>>()?;
    Comm::from_devices(&streams)
}

const OPS: [ReduceOp; 5] = [
    ReduceOp::Sum,
    ReduceOp::Prod,
    ReduceOp::Min,
    ReduceOp::Max,
    ReduceOp::Avg,
];

/// An element type under test, with its CPU reference of NCCL's arithmetic.
trait Num: Reducible {
    fn random(rng: &mut fastrand::Rng) -> Self;
    /// A value no input has.
    fn poison() -> Self;
    /// The reduction of one element's values over the ranks.
    fn reference(op: ReduceOp, xs: &[Self]) -> Self;
    fn close(got: Self, want: Self) -> bool;
}

macro_rules! ints {
    ($($t:ty),*) => {$(
        impl Num for $t {
            fn random(rng: &mut fastrand::Rng) -> Self {
                rng.i16(-10..10) as $t
            }
            fn poison() -> Self {
                <$t>::MAX - 3
            }
            fn reference(op: ReduceOp, xs: &[Self]) -> Self {
                let f = |a: $t, b: $t| match op {
                    ReduceOp::Sum | ReduceOp::Avg => a.wrapping_add(b),
                    ReduceOp::Prod => a.wrapping_mul(b),
                    ReduceOp::Min => a.min(b),
                    ReduceOp::Max => a.max(b),
                };
                let r = xs[1..].iter().fold(xs[0], |a, &b| f(a, b));
                if op == ReduceOp::Avg { r / xs.len() as $t } else { r }
            }
            fn close(got: Self, want: Self) -> bool {
                got == want
            }
        }
    )*};
}

ints!(i8, u8, i32, u32, i64, u64, isize, usize);

macro_rules! floats {
    ($($t:ty, $tol:expr);*) => {$(
        impl Num for $t {
            fn random(rng: &mut fastrand::Rng) -> Self {
                let v = 0.5 + 1.5 * rng.f64();
                (if rng.bool() { v } else { -v }) as $t
            }
            fn poison() -> Self {
                <$t>::NAN
            }
            fn reference(op: ReduceOp, xs: &[Self]) -> Self {
                let n = xs.len() as f64;
                let it = xs.iter().map(|&x| x as f64);
                (match op {
                    ReduceOp::Sum => it.sum::<f64>(),
                    ReduceOp::Avg => it.map(|x| x / n).sum::<f64>(),
                    ReduceOp::Prod => it.product::<f64>(),
                    ReduceOp::Min => it.fold(f64::INFINITY, f64::min),
                    ReduceOp::Max => it.fold(f64::NEG_INFINITY, f64::max),
                }) as $t
            }
            fn close(got: Self, want: Self) -> bool {
                (got - want).abs() <= $tol * (1.0 + want.abs())
            }
        }
    )*};
}

floats!(f32, 1e-5; f64, 1e-12);

/// Fresh inputs for each rank.
fn inputs<T: Num>(ranks: usize, n: usize) -> Vec<Vec<T>> {
    let mut rng = fastrand::Rng::new();
    (0..ranks)
        .map(|_| (0..n).map(|_| T::random(&mut rng)).collect())
        .collect()
}

/// The element-wise reduction of the ranks' inputs.
fn reduced<T: Num>(op: ReduceOp, xs: &[Vec<T>]) -> Vec<T> {
    (0..xs[0].len())
        .map(|i| T::reference(op, &xs.iter().map(|x| x[i]).collect::<Vec<_>>()))
        .collect()
}

fn assert_close<T: Num>(got: &[T], want: &[T], what: &str) {
    assert_eq!(got.len(), want.len(), "{what}: length");
    for (i, (&g, &w)) in got.iter().zip(want).enumerate() {
        assert!(
            T::close(g, w),
            "{what}: element {i} is {g:?}, expected {w:?}"
        );
    }
}

/// All-reduce of every operation on `T`, out of place and in place, from one thread (a group).
fn all_reduce_of<T: Num>(comms: &[Comm]) -> cuprum::Result<()> {
    let n = 1000 + fastrand::usize(..100);
    for op in OPS {
        let xs = inputs::<T>(comms.len(), n);
        let want = reduced(op, &xs);
        let mut sends = Vec::new();
        let mut recvs = Vec::new();
        for (c, x) in comms.iter().zip(&xs) {
            let s = c.device().default_stream();
            sends.push(s.to_device(x)?);
            recvs.push(s.to_device(&vec![T::poison(); n])?);
        }
        let mut g = Group::new();
        for ((c, s), r) in comms.iter().zip(&sends).zip(&mut recvs) {
            g.all_reduce(c, s, r, op)?;
        }
        g.end()?;
        let mut g = Group::new();
        for (c, s) in comms.iter().zip(&mut sends) {
            g.all_reduce_in_place(c, s, op)?;
        }
        g.end()?;
        for (rank, c) in comms.iter().enumerate() {
            let s = c.device().default_stream();
            let what = format!("all_reduce {op:?} on {} rank {rank}", T::NAME);
            assert_close(&s.to_host(&recvs[rank])?, &want, &what);
            assert_close(
                &s.to_host(&sends[rank])?,
                &want,
                &format!("{what} in place"),
            );
        }
    }
    Ok(())
}

#[test]
fn all_reduce_every_op_and_type() -> cuprum::Result<()> {
    let comms = comms()?;
    all_reduce_of::<f32>(&comms)?;
    all_reduce_of::<f64>(&comms)?;
    all_reduce_of::<i8>(&comms)?;
    all_reduce_of::<u8>(&comms)?;
    all_reduce_of::<i32>(&comms)?;
    all_reduce_of::<u32>(&comms)?;
    all_reduce_of::<i64>(&comms)?;
    all_reduce_of::<u64>(&comms)?;
    all_reduce_of::<isize>(&comms)?;
    all_reduce_of::<usize>(&comms)
}

#[test]
fn blocking_communicators_reduce_too() -> cuprum::Result<()> {
    let streams = devices()?
        .iter()
        .map(Device::new_stream)
        .collect::<cuprum::Result<Vec<_>>>()?;
    let comms = Comm::from_devices_with(&streams, CommOptions::default().blocking(true))?;
    all_reduce_of::<f32>(&comms)?;
    all_reduce_of::<u64>(&comms)
}

#[test]
fn views_reduce_only_their_range() -> cuprum::Result<()> {
    let comms = comms()?;
    let n = 4096;
    let (a, b) = (100, 3000);
    let xs = inputs::<f32>(comms.len(), n);
    let want = reduced(ReduceOp::Sum, &xs);
    let mut bufs = Vec::new();
    for (c, x) in comms.iter().zip(&xs) {
        bufs.push(c.device().default_stream().to_device(x)?);
    }
    let mut views: Vec<_> = bufs.iter_mut().map(|buf| buf.slice_mut(a..b)).collect();
    let mut g = Group::new();
    for (c, v) in comms.iter().zip(&mut views) {
        g.all_reduce_in_place(c, v, ReduceOp::Sum)?;
    }
    g.end()?;
    drop(views);
    for ((c, buf), x) in comms.iter().zip(&bufs).zip(&xs) {
        let got = c.device().default_stream().to_host(buf)?;
        assert_eq!(&got[..a], &x[..a], "before the view");
        assert_close(&got[a..b], &want[a..b], "the view");
        assert_eq!(&got[b..], &x[b..], "after the view");
    }
    Ok(())
}

#[test]
fn broadcast_from_every_root() -> cuprum::Result<()> {
    let comms = comms()?;
    let n = 777;
    for root in 0..comms.len() {
        let xs = inputs::<i64>(comms.len(), n);
        let mut bufs = Vec::new();
        for (c, x) in comms.iter().zip(&xs) {
            bufs.push(c.device().default_stream().to_device(x)?);
        }
        let mut g = Group::new();
        for (c, b) in comms.iter().zip(&mut bufs) {
            g.broadcast(c, b, root)?;
        }
        g.end()?;
        for (c, b) in comms.iter().zip(&bufs) {
            assert_eq!(
                c.device().default_stream().to_host(b)?,
                xs[root],
                "root {root}"
            );
        }
    }
    Ok(())
}

#[test]
fn broadcast_moves_types_without_arithmetic() -> cuprum::Result<()> {
    // NCCL has no 16-bit integers: they travel as bytes.
    let comms = comms()?;
    let data: Vec<i16> = (0..501).map(|_| fastrand::i16(..)).collect();
    let mut bufs = Vec::new();
    for (rank, c) in comms.iter().enumerate() {
        let init = if rank == 0 {
            data.clone()
        } else {
            vec![-1; data.len()]
        };
        bufs.push(c.device().default_stream().to_device(&init)?);
    }
    let mut g = Group::new();
    for (c, b) in comms.iter().zip(&mut bufs) {
        g.broadcast(c, b, 0)?;
    }
    g.end()?;
    for (c, b) in comms.iter().zip(&bufs) {
        assert_eq!(c.device().default_stream().to_host(b)?, data);
    }
    Ok(())
}

#[test]
fn reduce_writes_only_the_root() -> cuprum::Result<()> {
    let comms = comms()?;
    let n = 1500;
    let root = comms.len() - 1;
    for op in OPS {
        let xs = inputs::<i32>(comms.len(), n);
        let want = reduced(op, &xs);
        let mut sends = Vec::new();
        let mut recvs = Vec::new();
        for (c, x) in comms.iter().zip(&xs) {
            let s = c.device().default_stream();
            sends.push(s.to_device(x)?);
            recvs.push(s.to_device(&vec![i32::poison(); n])?);
        }
        let mut g = Group::new();
        for ((c, s), r) in comms.iter().zip(&sends).zip(&mut recvs) {
            g.reduce(c, s, r, op, root)?;
        }
        g.end()?;
        for (rank, c) in comms.iter().enumerate() {
            let got = c.device().default_stream().to_host(&recvs[rank])?;
            if rank == root {
                assert_eq!(got, want, "reduce {op:?} at the root");
            } else {
                assert!(
                    got.iter().all(|&v| v == i32::poison()),
                    "rank {rank} was written"
                );
            }
        }
    }
    Ok(())
}

#[test]
fn all_gather_in_rank_order() -> cuprum::Result<()> {
    let comms = comms()?;
    let n = 333;
    let xs = inputs::<f64>(comms.len(), n);
    let want: Vec<f64> = xs.concat();
    let mut sends = Vec::new();
    let mut recvs = Vec::new();
    for (c, x) in comms.iter().zip(&xs) {
        let s = c.device().default_stream();
        sends.push(s.to_device(x)?);
        recvs.push(s.to_device(&vec![f64::NAN; n * comms.len()])?);
    }
    let mut g = Group::new();
    for ((c, s), r) in comms.iter().zip(&sends).zip(&mut recvs) {
        g.all_gather(c, s, r)?;
    }
    g.end()?;
    for (c, r) in comms.iter().zip(&recvs) {
        let got = c.device().default_stream().to_host(r)?;
        assert!(got
            .iter()
            .zip(&want)
            .all(|(g, w)| g.to_bits() == w.to_bits()));
    }
    Ok(())
}

#[test]
fn reduce_scatter_leaves_each_rank_its_block() -> cuprum::Result<()> {
    let comms = comms()?;
    let block = 256;
    let size = comms.len();
    for op in [ReduceOp::Sum, ReduceOp::Max] {
        let xs = inputs::<f32>(size, block * size);
        let want = reduced(op, &xs);
        let mut sends = Vec::new();
        let mut recvs = Vec::new();
        for (c, x) in comms.iter().zip(&xs) {
            let s = c.device().default_stream();
            sends.push(s.to_device(x)?);
            recvs.push(s.to_device(&vec![f32::NAN; block])?);
        }
        let mut g = Group::new();
        for ((c, s), r) in comms.iter().zip(&sends).zip(&mut recvs) {
            g.reduce_scatter(c, s, r, op)?;
        }
        g.end()?;
        for (rank, c) in comms.iter().enumerate() {
            let got = c.device().default_stream().to_host(&recvs[rank])?;
            let what = format!("reduce_scatter {op:?} rank {rank}");
            assert_close(&got, &want[rank * block..(rank + 1) * block], &what);
        }
    }
    Ok(())
}

#[test]
fn send_recv_around_a_ring() -> cuprum::Result<()> {
    let comms = comms()?;
    let size = comms.len();
    let n = 1000;
    let xs = inputs::<u64>(size, n);
    let mut sends = Vec::new();
    let mut recvs = Vec::new();
    for (c, x) in comms.iter().zip(&xs) {
        let s = c.device().default_stream();
        sends.push(s.to_device(x)?);
        recvs.push(s.to_device(&vec![u64::poison(); n])?);
    }
    // Each rank sends to the next and receives from the one before, all in one group.
    let mut g = Group::new();
    for (rank, ((c, s), r)) in comms.iter().zip(&sends).zip(&mut recvs).enumerate() {
        g.send(c, s, (rank + 1) % size)?;
        g.recv(c, r, (rank + size - 1) % size)?;
    }
    g.end()?;
    for (rank, c) in comms.iter().enumerate() {
        let got = c.device().default_stream().to_host(&recvs[rank])?;
        assert_eq!(got, xs[(rank + size - 1) % size], "rank {rank}");
    }
    Ok(())
}

#[test]
fn one_rank_per_thread() -> cuprum::Result<()> {
    let devices = devices()?;
    let size = devices.len();
    let id = Id::new(&devices[0])?;
    let n = 10_000;
    let xs = inputs::<f32>(size, n);
    let want = reduced(ReduceOp::Sum, &xs);
    std::thread::scope(|scope| {
        let handles: Vec<_> = devices
            .iter()
            .zip(&xs)
            .enumerate()
            .map(|(rank, (dev, x))| {
                let want = &want;
                scope.spawn(move || -> cuprum::Result<()> {
                    let stream = dev.new_stream()?;
                    let comm = Comm::from_rank(&stream, rank, size, &id)?;
                    assert_eq!((comm.rank(), comm.size()), (rank, size));
                    let mut buf = stream.to_device(x)?;
                    // A kernel, the collective and the copy back, all on the rank's stream.
                    launch!(add_f32<<<n.div_ceil(256) as u32, 256, stream>>>(&mut buf, 1.0))?;
                    comm.all_reduce_in_place(&mut buf, ReduceOp::Sum)?;
                    comm.synchronize()?;
                    let got = stream.to_host(&buf)?;
                    let shifted: Vec<f32> = want.iter().map(|w| w + size as f32).collect();
                    assert_close(&got, &shifted, &format!("rank {rank}"));
                    Ok(())
                })
            })
            .collect();
        handles
            .into_iter()
            .try_for_each(|h| h.join().expect("a rank panicked"))
    })
}

#[test]
fn collectives_order_with_kernels_on_other_streams() -> cuprum::Result<()> {
    let comms = comms()?;
    let n = 1 << 20;
    let xs = inputs::<f32>(comms.len(), n);
    let mut bufs = Vec::new();
    for (c, x) in comms.iter().zip(&xs) {
        let s = c.device().default_stream();
        let mut b = s.to_device(x)?;
        // Written by a kernel on the default stream, reduced on the communicator's stream.
        launch!(add_f32<<<(n / 256) as u32, 256, s>>>(&mut b, 2.0))?;
        bufs.push(b);
    }
    let mut g = Group::new();
    for (c, b) in comms.iter().zip(&mut bufs) {
        g.all_reduce_in_place(c, b, ReduceOp::Max)?;
    }
    g.end()?;
    // Then a kernel on a third stream, and the copy back on the default stream.
    for (c, b) in comms.iter().zip(&mut bufs) {
        let s = c.device().new_stream()?;
        launch!(add_f32<<<(n / 256) as u32, 256, s>>>(b, 1.0))?;
    }
    let plus2: Vec<Vec<f32>> = xs
        .iter()
        .map(|x| x.iter().map(|v| v + 2.0).collect())
        .collect();
    let want: Vec<f32> = reduced(ReduceOp::Max, &plus2)
        .iter()
        .map(|v| v + 1.0)
        .collect();
    for (c, b) in comms.iter().zip(&bufs) {
        assert_close(&c.device().default_stream().to_host(b)?, &want, "max");
    }
    Ok(())
}

#[test]
fn buffers_dropped_after_a_collective_wait_for_it() -> cuprum::Result<()> {
    // The inputs are freed (on their own stream) right after the collective is queued on
    // another stream, and the memory is at once allocated again and overwritten: the free
    // must wait for the collective, or the sum would read the new contents.
    let comms = comms()?;
    let n = if comms[0].device().is_simulator() {
        1 << 16
    } else {
        1 << 24
    };
    let xs = inputs::<f32>(comms.len(), n);
    let want = reduced(ReduceOp::Sum, &xs);
    let mut sends = Vec::new();
    let mut recvs = Vec::new();
    for (c, x) in comms.iter().zip(&xs) {
        let s = c.device().default_stream();
        sends.push(s.to_device(x)?);
        recvs.push(s.alloc_zeros::<f32>(n)?);
    }
    let mut g = Group::new();
    for ((c, s), r) in comms.iter().zip(&sends).zip(&mut recvs) {
        g.all_reduce(c, s, r, ReduceOp::Sum)?;
    }
    g.end()?;
    drop(sends);
    let mut again = Vec::new();
    for c in &comms {
        let s = c.device().default_stream();
        let mut b = s.alloc_zeros::<f32>(n)?;
        launch!(add_f32<<<(n / 256) as u32, 256, s>>>(&mut b, 1e6))?;
        again.push(b);
    }
    for (c, r) in comms.iter().zip(&recvs) {
        assert_close(
            &c.stream().to_host(r)?,
            &want,
            "sum after the inputs were freed",
        );
    }
    Ok(())
}

#[test]
fn misuse_is_refused_before_nccl_runs() -> cuprum::Result<()> {
    let comms = comms()?;
    let c = &comms[0];
    let s = c.device().default_stream();
    let a = s.to_device(&[1.0f32; 8])?;
    let mut b = s.alloc_zeros::<f32>(7)?;
    assert!(matches!(
        c.all_reduce(&a, &mut b, ReduceOp::Sum),
        Err(Error::LengthMismatch {
            expected: 8,
            found: 7
        })
    ));
    let mut gathered = s.alloc_zeros::<f32>(8)?;
    if comms.len() > 1 {
        assert!(matches!(
            c.all_gather(&a, &mut gathered),
            Err(Error::LengthMismatch { .. })
        ));
    }
    let mut scattered = s.alloc_zeros::<f32>(8)?;
    if comms.len() > 1 {
        assert!(matches!(
            c.reduce_scatter(&a, &mut scattered, ReduceOp::Sum),
            Err(Error::LengthMismatch { .. })
        ));
    }
    let size = comms.len();
    let mut x = s.to_device(&[0i32; 4])?;
    assert!(matches!(
        c.broadcast(&mut x, size),
        Err(Error::Collective(_))
    ));
    assert!(matches!(c.send(&x, size + 3), Err(Error::Collective(_))));
    assert!(matches!(
        c.recv(&mut x, usize::MAX),
        Err(Error::Collective(_))
    ));
    // Memory of another device (the next rank's, or the plain simulator for a GPU).
    let other = if comms.len() > 1 {
        comms[1].device().clone()
    } else {
        Device::simulator()
    };
    let mut foreign = other.default_stream().to_device(&[0i32; 4])?;
    assert!(matches!(
        c.all_reduce_in_place(&mut foreign, ReduceOp::Sum),
        Err(Error::WrongDevice(_))
    ));
    // A device twice in one communicator.
    let twice = [s.clone(), c.device().new_stream()?];
    assert!(matches!(
        Comm::from_devices(&twice),
        Err(Error::Collective(_))
    ));
    assert!(matches!(Comm::from_devices(&[]), Err(Error::Collective(_))));
    // After all that, the communicator still works.
    let mut bufs: Vec<_> = comms
        .iter()
        .map(|c| c.device().default_stream().to_device(&[2u32; 16]))
        .collect::<cuprum::Result<_>>()?;
    let mut g = Group::new();
    for (c, b) in comms.iter().zip(&mut bufs) {
        g.all_reduce_in_place(c, b, ReduceOp::Sum)?;
    }
    g.end()?;
    let got = s.to_host(&bufs[0])?;
    assert_eq!(got, vec![2 * comms.len() as u32; 16]);
    Ok(())
}

#[test]
fn a_rank_that_never_joins_times_out() -> cuprum::Result<()> {
    let devices = devices()?;
    let dev = &devices[0];
    let id = Id::new(dev)?;
    let stream = dev.new_stream()?;
    let t = Duration::from_millis(1500);
    // Rank 1 of 2 never comes.
    match Comm::from_rank_with(&stream, 0, 2, &id, CommOptions::default().timeout(t)) {
        Err(Error::Timeout(msg)) => assert!(!msg.is_empty()),
        other => panic!("expected a timeout, got {other:?}"),
    }
    Ok(())
}

#[test]
fn a_collective_without_its_peers_times_out_and_aborts() -> cuprum::Result<()> {
    let comms = comms()?;
    if comms.len() < 2 {
        return Ok(());
    }
    let c = &comms[0];
    c.set_timeout(Duration::from_millis(1500));
    let mut buf = c.device().default_stream().to_device(&[1.0f32; 1024])?;
    // One thread, one rank's call, no group: the other ranks never take part. On a GPU the
    // call is queued and waits on the device until `synchronize` gives up.
    let outcome = c
        .all_reduce_in_place(&mut buf, ReduceOp::Sum)
        .and_then(|()| c.synchronize());
    assert!(matches!(outcome, Err(Error::Timeout(_))), "{outcome:?}");
    // The communicator is aborted: later calls are refused, and the buffer is usable.
    assert!(c.all_reduce_in_place(&mut buf, ReduceOp::Sum).is_err());
    let _ = c.device().default_stream().to_host(&buf)?;
    Ok(())
}

#[test]
fn simulated_ranks_that_disagree_are_reported() -> cuprum::Result<()> {
    if !device()?.is_simulator() {
        // NCCL cannot see it; the simulator can.
        return Ok(());
    }
    let streams: Vec<_> = (0..2)
        .map(|i| Device::simulated(i).default_stream())
        .collect();
    let comms = Comm::from_devices(&streams)?;
    let mut a = streams[0].to_device(&[1.0f32; 10])?;
    let mut b = streams[1].to_device(&[1.0f32; 12])?;
    let mut g = Group::new();
    g.all_reduce_in_place(&comms[0], &mut a, ReduceOp::Sum)?;
    g.all_reduce_in_place(&comms[1], &mut b, ReduceOp::Sum)?;
    assert!(matches!(g.end(), Err(Error::Nccl(_))));
    Ok(())
}

#[test]
fn ids_travel_as_text_files_and_variables() -> cuprum::Result<()> {
    let dev = devices()?.remove(0);
    let id = Id::new(&dev)?;
    assert_eq!(id.to_string().parse::<Id>()?, id);
    assert!("not an id".parse::<Id>().is_err());
    let path = std::env::temp_dir().join(format!(
        "cuprum-nccl-id-{}-{}",
        std::process::id(),
        fastrand::u64(..)
    ));
    let written = Id::share_through_file(&path, 0, &dev, Duration::from_secs(5))?;
    let read = Id::share_through_file(&path, 1, &dev, Duration::from_secs(5))?;
    assert_eq!(written, read);
    std::fs::remove_file(&path).ok();
    let missing = std::env::temp_dir().join("cuprum-nccl-id-that-nobody-writes");
    assert!(matches!(
        Id::share_through_file(&missing, 1, &dev, Duration::from_millis(50)),
        Err(Error::Timeout(_))
    ));
    assert!(Id::from_env("CUPRUM_TEST_UNSET_VARIABLE").is_err());
    Ok(())
}

#[test]
fn missing_nccl_is_an_error_that_says_what_to_install() -> cuprum::Result<()> {
    let on_gpu = !device()?.is_simulator();
    match cuprum::nccl::version() {
        Ok(v) => assert!(v >= 21400, "NCCL version {v}"),
        Err(Error::NcclMissing(msg)) => {
            assert!(!on_gpu, "the GPU tests need NCCL: {msg}");
            assert!(
                msg.contains("libnccl.so") && msg.contains("Install NCCL"),
                "{msg}"
            );
            // Simulated communicators never need it.
            let streams = [Device::simulated(0).default_stream()];
            assert_eq!(Comm::from_devices(&streams)?.len(), 1);
        }
        Err(e) => panic!("unexpected error: {e}"),
    }
    Ok(())
}

#[test]
fn simulated_devices_are_distinct_devices() -> cuprum::Result<()> {
    assert_eq!(Device::simulated(0), Device::simulator());
    assert_eq!(Device::simulated(5), Device::simulated(5));
    assert_ne!(Device::simulated(5), Device::simulator());
    // Any ordinal, without making the ones below it.
    assert_eq!(Device::simulated(usize::MAX).ordinal(), usize::MAX);
    let buf = Device::simulated(1)
        .default_stream()
        .to_device(&[1u32, 2])?;
    assert!(matches!(
        Device::simulated(2).default_stream().to_host(&buf),
        Err(Error::WrongDevice(_))
    ));
    assert_eq!(
        Device::simulated(1).default_stream().to_host(&buf)?,
        vec![1, 2]
    );
    Ok(())
}

#[test]
fn impossible_communicators_are_refused() -> cuprum::Result<()> {
    let dev = devices()?.remove(0);
    let id = Id::new(&dev)?;
    let stream = dev.new_stream()?;
    for (rank, size) in [(0, usize::MAX), (3, 3), (usize::MAX, 2)] {
        assert!(
            matches!(
                Comm::from_rank(&stream, rank, size, &id),
                Err(Error::Collective(_))
            ),
            "rank {rank} of {size}"
        );
    }
    // An id of the other kind of device.
    let other = if dev.is_simulator() {
        None
    } else {
        Some(Id::new(&Device::simulator())?)
    };
    if let Some(sim_id) = other {
        assert!(matches!(
            Comm::from_rank(&stream, 0, 1, &sim_id),
            Err(Error::Collective(_))
        ));
    }
    // A GPU's id (not a simulator's) on the simulator.
    let sim = Device::simulator().default_stream();
    assert!(matches!(
        Comm::from_rank(&sim, 0, 1, &Id::from_bytes([7; 128])),
        Err(Error::Collective(_))
    ));
    Ok(())
}
