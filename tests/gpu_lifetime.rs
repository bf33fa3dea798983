//! The asynchronous lifetime of device memory and the limits of the host API: work on a
//! stream the program dropped, or in a graph it forgot, is still waited for by reads, frees
//! and later work on other streams; allocations whose size overflows or that the machine
//! cannot hold are errors, not wrapped sizes or aborts; views and launch shapes have
//! non-panicking forms; `synchronize_timeout` returns.
//!
//! The kernels here run long on a GPU (each thread iterates an affine map many times) so that
//! a read that does not wait for them sees stale data; the CPU reference composes the map in
//! closed form.

use std::time::Duration;

use cuprum::prelude::*;
use cuprum_testkit::{on_backends, random_u32};

/// `y[i] = f^rounds(x[i])` with `f(v) = v * m + c`, wrapping: `rounds` dependent steps per
/// thread.
#[kernel]
pub fn spin_affine(y: &mut [u32], x: &[u32], m: u32, c: u32, rounds: u32) {
    let i = gpu::global_id_x();
    if i < y.len() && i < x.len() {
        let mut v = x[i];
        for _ in 0..rounds {
            v = v.wrapping_mul(m).wrapping_add(c);
        }
        y[i] = v;
    }
}

/// Writes `y[at]` from thread 0: out of bounds (a failed check) when `at >= y.len()`.
#[kernel]
pub fn poke(y: &mut [u32], at: u32) {
    if gpu::global_id_x() == 0 {
        y[at as usize] = 7;
    }
}

/// `(m, c)` such that `v * m + c` is `f` applied `rounds` times, `f(v) = v * m1 + c1`.
fn affine_power(m1: u32, c1: u32, rounds: u32) -> (u32, u32) {
    // Square-and-multiply on affine maps: (m, c) after (m', c') is (m m', m c' + c).
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

/// A problem that keeps a GPU busy for tens of milliseconds, small on the simulator.
struct Spin {
    x: Vec<u32>,
    m: u32,
    c: u32,
    rounds: u32,
}

impl Spin {
    fn new(dev: &Device) -> Spin {
        let (n, rounds) = if dev.is_simulator() {
            (4096, 8)
        } else {
            (1 << 20, 20_000)
        };
        let mut r = fastrand::Rng::new();
        Spin {
            x: random_u32(n),
            m: r.u32(..) | 1,
            c: r.u32(1..),
            rounds,
        }
    }

    fn want(&self) -> Vec<u32> {
        let (m, c) = affine_power(self.m, self.c, self.rounds);
        self.x
            .iter()
            .map(|&v| v.wrapping_mul(m).wrapping_add(c))
            .collect()
    }

    fn launch(
        &self,
        s: &Stream,
        y: &mut DeviceBuffer<u32>,
        x: &DeviceBuffer<u32>,
    ) -> cuprum::Result<()> {
        let cfg = LaunchConfig::for_elements(self.x.len(), 256);
        spin_affine::launch(s, cfg, y, x, self.m, self.c, self.rounds)
    }
}

#[test]
fn closed_form_matches_iteration() {
    let (m1, c1) = (0x9e37_79b9u32, 12345u32);
    let mut v = 77u32;
    for _ in 0..1000 {
        v = v.wrapping_mul(m1).wrapping_add(c1);
    }
    let (m, c) = affine_power(m1, c1, 1000);
    assert_eq!(77u32.wrapping_mul(m).wrapping_add(c), v);
}

/// A kernel queued on a stream that is then dropped: a read on another stream returns its
/// results, and memory freed and allocated again meanwhile is not written by it.
#[test]
fn work_of_a_dropped_stream_is_waited_for() -> cuprum::Result<()> {
    on_backends(|dev| {
        let spin = Spin::new(&dev);
        let main = dev.default_stream();
        let dx = main.to_device(&spin.x)?;
        let mut dy = main.alloc_zeros::<u32>(spin.x.len())?;
        let side = dev.new_stream()?;
        spin.launch(&side, &mut dy, &dx)?;
        drop(side);
        assert_eq!(
            main.to_host(&dy)?,
            spin.want(),
            "a read raced the dropped stream's kernel"
        );

        // The same kernel again, then its output freed while it may still run: memory allocated
        // next must not receive its writes.
        let side = dev.new_stream()?;
        spin.launch(&side, &mut dy, &dx)?;
        drop(side);
        drop(dy);
        let fresh = main.alloc_zeros::<u32>(spin.x.len())?;
        assert!(
            main.to_host(&fresh)?.iter().all(|&v| v == 0),
            "a freed buffer's kernel wrote into a new allocation"
        );
        Ok(())
    })
}

/// A read on one stream of memory a kernel on another stream is still writing waits for it.
#[test]
fn reads_on_another_stream_wait_for_writes() -> cuprum::Result<()> {
    on_backends(|dev| {
        let spin = Spin::new(&dev);
        let (s1, s2) = (dev.new_stream()?, dev.new_stream()?);
        let dx = s2.to_device(&spin.x)?;
        let mut dy = s2.alloc_zeros::<u32>(spin.x.len())?;
        spin.launch(&s1, &mut dy, &dx)?;
        assert_eq!(s2.to_host(&dy)?, spin.want());
        // And a write on s2 waits for a read on s1: the kernel reads `dx` while s2 overwrites it.
        spin.launch(&s1, &mut dy, &dx)?;
        let mut dx = dx;
        s2.copy_from_host(&mut dx, &vec![0u32; spin.x.len()])?;
        assert_eq!(
            s1.to_host(&dy)?,
            spin.want(),
            "a copy overwrote a kernel's input"
        );
        Ok(())
    })
}

/// A graph replayed and then forgotten (`mem::forget` ends its borrows without waiting): its
/// replays are still waited for by reads on other streams.
#[test]
fn replays_of_a_forgotten_graph_are_waited_for() -> cuprum::Result<()> {
    on_backends(|dev| {
        let spin = Spin::new(&dev);
        let main = dev.default_stream();
        let side = dev.new_stream()?;
        let dx = main.to_device(&spin.x)?;
        let mut dy = main.alloc_zeros::<u32>(spin.x.len())?;
        let cfg = LaunchConfig::for_elements(spin.x.len(), 256);
        let (m, c, rounds) = (spin.m, spin.c, spin.rounds);
        let mut graph =
            side.capture(|s| spin_affine::launch(s, cfg, &mut dy, &dx, m, c, rounds))?;
        graph.launch()?;
        std::mem::forget(graph);
        assert_eq!(
            main.to_host(&dy)?,
            spin.want(),
            "a read raced a forgotten graph's replay"
        );
        let third = dev.new_stream()?;
        assert_eq!(third.to_host(&dy)?, spin.want());
        Ok(())
    })
}

/// Sizes whose bytes overflow, or that no machine holds, are errors on both kinds of device.
#[test]
fn impossible_allocations_are_errors() -> cuprum::Result<()> {
    on_backends(|dev| {
        let s = dev.default_stream();
        let oom = |r: cuprum::Result<()>| {
            matches!(
                r,
                Err(Error::Driver { source, .. })
                    if source.0 == cudarc::driver::sys::CUresult::CUDA_ERROR_OUT_OF_MEMORY
            )
        };
        // 2^61 + 1 elements of 8 bytes wrap to 8 bytes when multiplied unchecked.
        assert!(oom(s.alloc_zeros::<u64>((1 << 61) + 1).map(drop)));
        assert!(oom(s.alloc_zeros::<u8>(usize::MAX).map(drop)));
        assert!(oom(dev.alloc_pinned::<u64>(usize::MAX / 4).map(drop)));
        // 1 PiB: a size, not an overflow, that neither the GPU nor the host has (the driver
        // chooses the error; the simulator says out of memory).
        let driver_error = |r: cuprum::Result<()>| matches!(r, Err(Error::Driver { .. }));
        assert!(driver_error(s.alloc_zeros::<u8>(1 << 50).map(drop)));
        assert!(driver_error(dev.alloc_pinned::<u8>(1 << 50).map(drop)));
        // The device still works.
        let x = random_u32(1000);
        assert_eq!(s.to_host(&s.to_device(&x)?)?, x);
        Ok(())
    })
}

/// A cudarc slice of another length assigned into a buffer becomes the buffer's memory and
/// length; launches see the new length (no panic inside the launch).
#[test]
fn a_cudarc_slice_swapped_in_sets_the_length() -> cuprum::Result<()> {
    on_backends(|dev| {
        let s = dev.default_stream();
        let mut buf = s.to_device(&random_u32(100))?;
        let Some(cuda) = s.cuda_stream().cloned() else {
            assert!(
                buf.cuda_slice_mut().is_none(),
                "the simulator has no cudarc memory"
            );
            return Ok(());
        };
        let short = cuda
            .clone_htod(&[5u32; 10])
            .expect("a small cudarc allocation");
        *buf.cuda_slice_mut().expect("a GPU buffer") = short;
        assert_eq!(buf.len(), 10);
        poke::launch(&s, LaunchConfig::new(1, 32), &mut buf, 3)?;
        let mut want = vec![5u32; 10];
        want[3] = 7;
        assert_eq!(s.to_host(&buf)?, want);
        // Past the new end is a failed check, not a write past the allocation.
        poke::launch(&s, LaunchConfig::new(1, 32), &mut buf, 10)?;
        assert!(matches!(s.synchronize(), Err(Error::KernelPanic(_))));
        Ok(())
    })
}

/// `try_slice` and `try_slice_mut` return `None` where `slice` and `slice_mut` panic.
#[test]
fn views_out_of_range_are_none() -> cuprum::Result<()> {
    on_backends(|dev| {
        let s = dev.default_stream();
        let x = random_u32(64);
        let mut buf = s.to_device(&x)?;
        assert!(buf.try_slice(10..65).is_none());
        let (start, end) = (11, 10);
        assert!(buf.try_slice(start..end).is_none());
        assert!(buf.try_slice(..=usize::MAX).is_none());
        assert!(buf.try_slice_mut(65..).is_none());
        let v = buf.try_slice(10..20).expect("in range");
        assert_eq!(s.to_host(&v)?, x[10..20]);
        let mut v = buf.try_slice_mut(60..).expect("in range");
        poke::launch(&s, LaunchConfig::new(1, 1), &mut v, 1)?;
        assert_eq!(s.to_host(&buf)?[61], 7);
        let past_end = std::panic::AssertUnwindSafe(|| buf.slice(..65).len());
        assert!(std::panic::catch_unwind(past_end).is_err());
        Ok(())
    })
}

/// `synchronize_timeout` returns: `true` once the work is done (with its results there and
/// failed checks reported), and it can be polled.
#[test]
fn synchronize_timeout_returns() -> cuprum::Result<()> {
    on_backends(|dev| {
        let spin = Spin::new(&dev);
        let s = dev.new_stream()?;
        assert!(
            s.synchronize_timeout(Duration::ZERO)?,
            "an idle stream is done"
        );
        let dx = s.to_device(&spin.x)?;
        let mut dy = s.alloc_zeros::<u32>(spin.x.len())?;
        spin.launch(&s, &mut dy, &dx)?;
        while !s.synchronize_timeout(Duration::from_millis(1))? {}
        let mut got = vec![0u32; spin.x.len()];
        s.copy_to_host(&dy, &mut got)?;
        assert_eq!(got, spin.want());
        poke::launch(&s, LaunchConfig::new(1, 1), &mut dy, u32::MAX)?;
        assert!(matches!(
            s.synchronize_timeout(Duration::from_secs(600)),
            Err(Error::KernelPanic(_))
        ));
        Ok(())
    })
}

/// Grids and blocks whose element counts overflow 64 bits are configuration errors (their
/// volumes were multiplied unchecked).
#[test]
fn huge_launch_shapes_are_errors() -> cuprum::Result<()> {
    on_backends(|dev| {
        let s = dev.default_stream();
        let mut y = s.alloc_zeros::<u32>(4)?;
        let huge = (u32::MAX, u32::MAX, u32::MAX);
        assert_eq!(Dim3::from(huge).volume(), u64::MAX);
        for cfg in [
            LaunchConfig::new(huge, 32),
            LaunchConfig::new(1, huge),
            LaunchConfig::new(huge, huge),
            LaunchConfig::new((1 << 31, 1 << 31, 4), 32),
        ] {
            assert!(!cfg.is_empty());
            match poke::launch(&s, cfg, &mut y, 0) {
                Err(Error::LaunchConfig(_)) => {}
                other => panic!("{cfg:?} gave {other:?}"),
            }
        }
        assert_eq!(s.to_host(&y)?, vec![0; 4], "a refused launch ran");
        Ok(())
    })
}
