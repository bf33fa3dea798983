//! CUDA graphs: launches captured with `Stream::capture` and replayed with `Graph::launch`,
//! checked against CPU references on fresh random inputs (integer maps that do not commute,
//! so order and count of the replayed launches show in the result).

use cuprum::prelude::*;
use cuprum::Graph;
use cuprum_testkit::{on_backends, random_u32};

#[path = "kernels/runtime.rs"]
mod kernels;
use kernels::*;

fn random_map() -> (u32, u32) {
    let mut r = fastrand::Rng::new();
    (r.u32(..) | 1, r.u32(1..))
}

/// Four launches, two of them on views: `y = m1 y + c1`, then `m2 y + c2` on `lo..hi`, then
/// `z = m3 y + c3`, then `z[..lo] = x[..lo]`.
fn pipeline<'a>(
    stream: &Stream,
    (dx, dy, dz): (
        &'a DeviceBuffer<u32>,
        &'a mut DeviceBuffer<u32>,
        &'a mut DeviceBuffer<u32>,
    ),
    maps: [(u32, u32); 3],
    (lo, hi): (usize, usize),
) -> cuprum::Result<Graph<'a>> {
    let [(m1, c1), (m2, c2), (m3, c3)] = maps;
    let cfg = LaunchConfig::for_elements(dy.len(), 256);
    stream.capture(move |s| {
        step::launch(s, cfg, dy, m1, c1)?;
        launch!(step<<<LaunchConfig::for_elements(hi - lo, 128).grid, 128, s>>>(&mut dy.slice_mut(lo..hi), m2, c2))?;
        // SAFETY: `affine` guards its index by the lengths of both slices.
        unsafe {
            affine::launch(s, cfg, dz, &*dy, m3, c3)?;
            affine::launch(s, cfg, &mut dz.slice_mut(..lo), &dx.slice(..lo), 1, 0)
        }
    })
}

#[test]
fn replays_run_the_captured_launches_in_order() -> cuprum::Result<()> {
    on_backends(|dev| {
        for stream in [dev.new_stream()?, dev.default_stream()] {
            let n = 40_000;
            let (x, y) = (random_u32(n), random_u32(n));
            let maps = [random_map(), random_map(), random_map()];
            let (lo, hi) = (123, 30_000);
            let dx = stream.to_device(&x)?;
            let mut dy = stream.to_device(&y)?;
            let mut dz = stream.to_device(&vec![0u32; n])?;
            // Capturing runs nothing.
            drop(pipeline(&stream, (&dx, &mut dy, &mut dz), maps, (lo, hi))?);
            assert_eq!(stream.to_host(&dy)?, y, "a capture ran a launch");
            let replays = 4;
            {
                let mut graph = pipeline(&stream, (&dx, &mut dy, &mut dz), maps, (lo, hi))?;
                assert_eq!(graph.stream().device(), &dev);
                for _ in 0..replays {
                    graph.launch()?;
                }
            }
            let [(m1, c1), (m2, c2), (m3, c3)] = maps;
            let (mut wy, mut wz) = (y.clone(), vec![0u32; n]);
            for _ in 0..replays {
                for (i, v) in wy.iter_mut().enumerate() {
                    *v = affine_ref(*v, m1, c1);
                    if (lo..hi).contains(&i) {
                        *v = affine_ref(*v, m2, c2);
                    }
                }
                for i in 0..n {
                    wz[i] = if i < lo {
                        x[i]
                    } else {
                        affine_ref(wy[i], m3, c3)
                    };
                }
            }
            assert_eq!(stream.to_host(&dy)?, wy, "y after {replays} replays");
            assert_eq!(stream.to_host(&dz)?, wz, "z after {replays} replays");
        }
        Ok(())
    })
}

#[test]
fn a_graph_keeps_the_memory_its_launches_use() -> cuprum::Result<()> {
    on_backends(|dev| {
        let (stream, other) = (dev.new_stream()?, dev.new_stream()?);
        let n = 10_000;
        let x = random_u32(n);
        let (m, c) = random_map();
        let mut y = stream.to_device(&vec![0u32; n])?;
        {
            let mut graph = stream.capture(|s| {
                // A buffer that dies with the closure: the graph keeps its memory (on the
                // simulator the closure runs again at each replay and makes a new one).
                let tmp = other.to_device(&x)?;
                // SAFETY: `affine` guards its index by the lengths of both slices.
                unsafe { affine::launch(s, LaunchConfig::for_elements(n, 256), &mut y, &tmp, m, c) }
            })?;
            graph.launch()?;
            graph.launch()?;
        }
        let got = stream.to_host(&y)?;
        assert!((0..n).all(|i| got[i] == affine_ref(x[i], m, c)));
        Ok(())
    })
}

#[test]
fn failed_checks_in_replays_are_reported_by_the_stream() -> cuprum::Result<()> {
    on_backends(|dev| {
        let stream = dev.new_stream()?;
        let n = 100;
        let mut y = stream.to_device(&random_u32(n))?;
        let mut at = n as u32; // one past the end
        {
            let mut graph = stream.capture(|s| launch!(poke<<<1, 32, s>>>(&mut y, at)))?;
            graph.launch()?;
            match stream.synchronize() {
                Err(Error::KernelPanic(p)) => {
                    assert_eq!(p.kernel, poke::NAME);
                    assert!(
                        p.message
                            .contains(&format!("the len is {n} but the index is {n}")),
                        "{}",
                        p.message
                    );
                }
                other => panic!("expected the replay's failed check, got {other:?}"),
            }
        }
        // The stream works on after the failure.
        at = 3;
        launch!(poke<<<1, 32, stream>>>(&mut y, at))?;
        assert_eq!(stream.to_host(&y)?[3], 7);
        Ok(())
    })
}

#[test]
fn captures_record_launches_only() -> cuprum::Result<()> {
    on_backends(|dev| {
        let stream = dev.new_stream()?;
        let x = random_u32(64);
        let mut y = stream.to_device(&x)?;
        let mut handle = None;
        let graph = stream.capture(|s| {
            let refused = |r: cuprum::Result<()>, what: &str| {
                assert!(
                    matches!(r, Err(Error::Capture(_))),
                    "{what} on a capture handle: {r:?}"
                )
            };
            refused(s.to_device(&[1u32]).map(drop), "to_device");
            refused(s.alloc_zeros::<u32>(4).map(drop), "alloc_zeros");
            refused(s.synchronize(), "synchronize");
            refused(s.to_host(&y).map(drop), "to_host");
            refused(s.record_event().map(drop), "record_event");
            refused(s.copy_from_host(&mut y, &x), "copy_from_host");
            refused(s.capture(|_| Ok(())).map(drop), "capture");
            handle = Some(s.clone());
            step::launch(s, LaunchConfig::new(1, 64), &mut y, 3, 1)
        })?;
        drop(graph);
        // The handle is dead once the capture is over.
        let handle = handle.expect("the closure ran");
        match step::launch(&handle, LaunchConfig::new(1, 64), &mut y, 3, 1) {
            Err(Error::Capture(_)) => {}
            other => panic!("launch on a finished capture's handle: {other:?}"),
        }
        // Errors inside the closure end the capture and come out of it.
        match stream.capture(|s| step::launch(s, LaunchConfig::new(1, 2048), &mut y, 3, 1)) {
            Err(Error::LaunchConfig(_)) => {}
            other => panic!("an invalid launch in a capture: {other:?}"),
        }
        match stream.capture(|_| Err(Error::Tool("mine".into()))) {
            Err(Error::Tool(m)) => assert_eq!(m, "mine"),
            other => panic!("the closure's error: {other:?}"),
        }
        // Nothing ran, and the stream still works.
        assert_eq!(stream.to_host(&y)?, x);
        let mut graph =
            stream.capture(|s| step::launch(s, LaunchConfig::new(1, 64), &mut y, 3, 1))?;
        graph.launch()?;
        drop(graph);
        let got = stream.to_host(&y)?;
        assert!((0..64).all(|i| got[i] == affine_ref(x[i], 3, 1)));
        Ok(())
    })
}
