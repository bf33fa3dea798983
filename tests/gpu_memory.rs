//! Allocating and freeing in a loop gives the memory back, and nothing panics in `Drop`
//! (buffers, views, pinned buffers, streams, events, graphs, a buffer dropped while its
//! kernel fails a check). One test in its own binary: free device memory is a process-wide
//! figure that concurrent tests would disturb.

use cuprum::prelude::*;
use cuprum_testkit::{on_backends, random_u32};

#[path = "kernels/runtime.rs"]
mod kernels;
use kernels::*;

const MIB: usize = 1 << 20;

/// One round of allocations and work, every result checked; returns free device memory while
/// the big buffer was alive (`None` on the simulator).
fn round(dev: &Device, stream: &Stream, big: usize) -> cuprum::Result<Option<usize>> {
    let mut rng = fastrand::Rng::new();
    let buf = stream.alloc_zeros::<u8>(big)?;
    let during = dev.memory_info().ok().map(|(free, _)| free);
    let n = 4096;
    let x = random_u32(n);
    let ((m1, c1), (m2, c2)) = (
        (rng.u32(..) | 1, rng.u32(..)),
        (rng.u32(..) | 1, rng.u32(..)),
    );
    let mut y = stream.to_device(&x)?;
    let side = dev.new_stream()?;
    side.wait_event(&stream.record_event()?)?;
    step::launch(
        &side,
        LaunchConfig::for_elements(n / 2, 128),
        &mut y.slice_mut(..n / 2),
        m1,
        c1,
    )?;
    stream.wait_event(&side.record_event()?)?;
    {
        let mut graph = stream
            .capture(|s| step::launch(s, LaunchConfig::for_elements(n, 256), &mut y, m2, c2))?;
        graph.launch()?;
        graph.launch()?;
    }
    let mut host = dev.alloc_pinned::<u32>(n)?;
    stream.copy_to_host(&y, &mut host)?;
    let got = host.as_slice()?;
    for i in 0..n {
        let first = if i < n / 2 {
            affine_ref(x[i], m1, c1)
        } else {
            x[i]
        };
        let want = affine_ref(affine_ref(first, m2, c2), m2, c2);
        assert_eq!(got[i], want, "element {i}");
    }
    // A kernel fails a check; its buffer is dropped before the failure is collected.
    let mut z = side.to_device(&x[..8])?;
    launch!(poke<<<1, 32, side>>>(&mut z, 8))?;
    drop(z);
    match side.synchronize() {
        Err(Error::KernelPanic(p)) => assert_eq!(p.kernel, poke::NAME),
        other => panic!("expected the failed check, got {other:?}"),
    }
    drop((buf, host, side));
    Ok(during)
}

/// Waits for the frees queued on `stream`; the driver's memory pool gives free memory back at
/// a synchronisation (its release threshold is 0), so synchronise once more after them.
fn settle(stream: &Stream) -> cuprum::Result<()> {
    stream.synchronize()?;
    stream.synchronize()
}

#[test]
fn allocating_and_freeing_returns_the_memory() -> cuprum::Result<()> {
    on_backends(|dev| {
        let stream = dev.new_stream()?;
        let (big, rounds) = if dev.is_simulator() {
            (16 * MIB, 50)
        } else {
            (1024 * MIB, 50)
        };
        // The first round loads modules and makes the per-stream records.
        round(&dev, &stream, big)?;
        settle(&stream)?;
        let before = dev.memory_info();
        for r in 0..rounds {
            let during = round(&dev, &stream, big)?;
            if let (Some(during), Ok((before, _))) = (during, &before) {
                assert!(
                during + big * 9 / 10 <= *before,
                "round {r}: {} MiB free with the buffer alive, {} MiB before: the allocation is not visible",
                during / MIB,
                before / MIB
            );
            }
        }
        settle(&stream)?;
        let after = dev.memory_info();
        match (before, after) {
            (Ok((before, total)), Ok((after, _))) => {
                assert!(
                    before.abs_diff(after) <= 128 * MIB,
                    "free memory {} MiB before {rounds} rounds of {} MiB, {} MiB after (of {} MiB)",
                    before / MIB,
                    big / MIB,
                    after / MIB,
                    total / MIB
                );
            }
            (Err(Error::Unsupported(_)), Err(Error::Unsupported(_))) => assert!(dev.is_simulator()),
            other => panic!("memory_info: {other:?}"),
        }
        Ok(())
    })
}
