//! Cooperative kernels and `gpu::grid_sync()`: the heat-equation example, values written by
//! other blocks between barriers, a grid too large to be resident, a failing block while
//! others wait (against the CPU; on the GPU host, the GPU and the simulator each).

use cuprum::prelude::*;

#[path = "kernels/cooperative.rs"]
mod kernels;
use kernels::*;

#[allow(dead_code)]
#[path = "../examples/cooperative.rs"]
mod example;

#[test]
fn heat_equation_in_one_launch() -> cuprum::Result<()> {
    for dev in cuprum_testkit::backends()? {
        let u0 = cuprum_testkit::random_f32(2000, 0.0, 100.0);
        for steps in [1, 2, 17] {
            let got = example::compute(&dev.default_stream(), &u0, 0.3, steps)?;
            if let Err(e) = example::check(&u0, 0.3, steps, &got) {
                panic!("{}: {steps} steps: {e}", dev.name());
            }
        }
    }
    Ok(())
}

#[test]
fn values_of_other_blocks_between_barriers() -> cuprum::Result<()> {
    for dev in cuprum_testkit::backends()? {
        let stream = dev.default_stream();
        let config = LaunchConfig::for_cooperative(&rounds::INFO, &stream, 64)?;
        let blocks = config.grid.volume() as usize;
        let n = blocks * 64;
        let mut out = stream.to_device(&vec![u32::MAX; n])?;
        let mut scratch = stream.to_device(&vec![u32::MAX; n])?;
        let r = 5u32;
        rounds::launch(&stream, config, &mut out, &mut scratch, r)?;
        let got = stream.to_host(&out)?;
        let mut acc = vec![0u32; n];
        for round in 0..r {
            let s: Vec<u32> = (0..n)
                .map(|i| (i as u32).wrapping_mul(round + 1) ^ acc[i])
                .collect();
            for i in 0..n {
                acc[i] = acc[i].wrapping_add(s[(i + 64) % n]);
            }
        }
        assert_eq!(got, acc, "{} ({blocks} blocks)", dev.name());
    }
    Ok(())
}

#[test]
fn a_grid_that_cannot_be_resident_is_refused_before_running() -> cuprum::Result<()> {
    for dev in cuprum_testkit::backends()? {
        let stream = dev.default_stream();
        let fits = LaunchConfig::for_cooperative(&rounds::INFO, &stream, 64)?;
        let blocks = fits.grid.volume() as u32 + 1;
        let n = blocks as usize * 64;
        let mut out = stream.to_device(&vec![7u32; n])?;
        let mut scratch = stream.to_device(&vec![7u32; n])?;
        let r = rounds::launch(
            &stream,
            LaunchConfig::new(blocks, 64),
            &mut out,
            &mut scratch,
            3,
        );
        match r {
            Err(cuprum::Error::LaunchConfig(m)) => {
                assert!(
                    m.contains("cannot be resident at once"),
                    "{}: {m}",
                    dev.name()
                )
            }
            other => panic!("{}: expected a launch error, got {other:?}", dev.name()),
        }
        assert!(
            stream.to_host(&out)?.iter().all(|&v| v == 7),
            "{}: nothing ran",
            dev.name()
        );
    }
    Ok(())
}

#[test]
fn a_failing_block_stops_the_launch_without_a_hang() -> cuprum::Result<()> {
    for dev in cuprum_testkit::backends()? {
        let stream = dev.default_stream();
        let mut out = stream.to_device(&vec![0u32; 4 * 32])?;
        let r = leader_fails::launch(&stream, LaunchConfig::new(4, 32), &mut out, 1000)
            .and_then(|_| stream.synchronize());
        match r {
            Err(cuprum::Error::KernelPanic(p)) => {
                assert_eq!(p.block.x, 1, "{}: {p}", dev.name());
                assert_eq!(p.thread.x, 0, "{}: {p}", dev.name());
            }
            other => panic!("{}: expected a kernel panic, got {other:?}", dev.name()),
        }
        // The stream stays usable.
        let mut again = stream.to_device(&vec![0u32; 4 * 32])?;
        leader_fails::launch(&stream, LaunchConfig::new(4, 32), &mut again, 5)?;
        assert!(
            stream.to_host(&again)?.iter().all(|&v| v == 2),
            "{}",
            dev.name()
        );
    }
    Ok(())
}

#[test]
fn the_simulator_reports_a_block_that_never_reaches_the_barrier() -> cuprum::Result<()> {
    // On a GPU this kernel hangs: only the simulator runs it.
    let stream = Device::simulator().default_stream();
    let mut out = stream.to_device(&vec![0u32; 3 * 32])?;
    let r = block_leaves::launch(&stream, LaunchConfig::new(3, 32), &mut out)
        .and_then(|_| stream.synchronize());
    match r {
        Err(cuprum::Error::KernelPanic(p)) => {
            assert!(
                p.to_string()
                    .contains("without reaching the gpu::grid_sync()"),
                "{p}"
            )
        }
        other => panic!("expected a kernel panic, got {other:?}"),
    }
    Ok(())
}
