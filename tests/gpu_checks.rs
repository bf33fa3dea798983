//! Runtime checks: an out-of-bounds index stops the kernel and the host gets
//! `Error::KernelPanic` naming kernel, line, block, thread, index and length; memory past the
//! end is never written; the stream and its context stay usable afterwards.

use cuprum::prelude::*;
use cuprum_testkit::{on_backends, random_f32};

#[path = "kernels/checks.rs"]
mod kernels;
use kernels::*;

#[test]
fn out_of_bounds_write_is_reported_and_nothing_is_corrupted() -> cuprum::Result<()> {
    let n = 1000;
    let x = random_f32(n, 1.0, 2.0);
    // Every backend on the same input: what the failing launch left in memory must agree.
    on_backends(|dev| {
        let stream = dev.default_stream();
        let dx = stream.to_device(&x)?;
        // `out` is a view of the first n elements of a larger buffer: the guard past it must
        // stay untouched.
        let guard = -7.0f32;
        let mut big = stream.to_device(&vec![guard; n + 64])?;
        let shift = 3;
        let result = launch!(shifted_copy<<<LaunchConfig::for_elements(n, 128).grid, 128, stream>>>(&mut big.slice_mut(0..n), &dx, shift))
        .and_then(|()| stream.synchronize());
        let Err(Error::KernelPanic(p)) = result else {
            panic!("expected a kernel panic, got {result:?}")
        };
        assert_eq!(p.kernel, "shifted_copy");
        assert!(p.file.ends_with("checks.rs"), "{p}");
        let line = include_str!("kernels/checks.rs")
            .lines()
            .position(|l| l.contains("out[i + shift] = x[i]"))
            .unwrap()
            + 1;
        assert_eq!(p.line as usize, line, "{p}");
        let global = p.block.x as usize * 128 + p.thread.x as usize;
        assert!(global + shift >= n && global < n, "{p}");
        assert!(
            p.message.contains(&format!(
                "the len is {n} but the index is {}",
                global + shift
            )),
            "{p}"
        );
        // The in-range writes happened, the guard is intact.
        let after = stream.to_host(&big)?;
        for i in 0..n - shift {
            assert_eq!(after[i + shift], x[i], "element {}", i + shift);
        }
        assert!(
            after[n..].iter().all(|&v| v == guard),
            "memory past the view was written"
        );
        // The stream and context still work, and the panic is not reported twice.
        let mut y = stream.to_device(&vec![0.0f32; n + shift])?;
        launch!(shifted_copy<<<LaunchConfig::for_elements(n, 128).grid, 128, stream>>>(&mut y, &dx, shift))?;
        let y = stream.to_host(&y)?;
        assert_eq!(&y[shift..], &x[..]);
        Ok(after)
    })
    .map(drop)
}

#[test]
fn division_by_zero_is_reported() -> cuprum::Result<()> {
    let n = 300;
    let mut rng = fastrand::Rng::new();
    let num: Vec<i32> = (0..n).map(|_| rng.i32(1..1000)).collect();
    let mut den: Vec<i32> = (0..n).map(|_| rng.i32(1..50)).collect();
    let zero_at = rng.usize(0..n);
    den[zero_at] = 0;
    // Every backend on the same input: the report and the quotients of the other threads
    // must agree.
    on_backends(|dev| {
        let stream = dev.new_stream()?;
        let (dn, dd) = (stream.to_device(&num)?, stream.to_device(&den)?);
        let mut out = stream.alloc_zeros::<i32>(n)?;
        launch!(divide<<<3, 128, stream>>>(&mut out, &dn, &dd))?;
        match stream.synchronize() {
            Err(Error::KernelPanic(p)) => {
                assert_eq!(p.kernel, "divide");
                assert_eq!(
                    p.block.x as usize * 128 + p.thread.x as usize,
                    zero_at,
                    "{p}"
                );
                assert!(p.message.contains("divide by zero"), "{p}");
                let quotients = stream.to_host(&out)?;
                for i in (0..n).filter(|&i| i != zero_at) {
                    assert_eq!(quotients[i], num[i] / den[i], "element {i}");
                }
                Ok((p.to_string(), quotients))
            }
            other => panic!("expected a kernel panic, got {other:?}"),
        }
    })
    .map(drop)
}

#[test]
fn invalid_launch_configurations_are_errors_before_launch() -> cuprum::Result<()> {
    on_backends(|dev| {
        let stream = dev.default_stream();
        let x = stream.to_device(&[1.0f32; 4])?;
        let mut out = stream.alloc_zeros::<f32>(4)?;
        for (block, what) in [
            ((2048u32, 1u32, 1u32), "limit"),
            ((1, 1, 0), "no threads"),
            ((32, 32, 2), "threads per block"),
        ] {
            match launch!(shifted_copy<<<1, block, stream>>>(&mut out, &x, 0)) {
                Err(Error::LaunchConfig(msg)) => assert!(msg.contains(what), "{msg}"),
                other => {
                    panic!("block {block:?}: expected a launch configuration error, got {other:?}")
                }
            }
        }
        let too_much_shared = LaunchConfig::new(1, 32).with_shared_bytes(1 << 20);
        assert!(matches!(
            shifted_copy::launch(&stream, too_much_shared, &mut out, &x, 0),
            Err(Error::LaunchConfig(_))
        ));
        // An empty grid launches nothing and is fine.
        launch!(shifted_copy<<<0, 32, stream>>>(&mut out, &x, 0))?;
        stream.synchronize()
    })
}

/// The panic of `result`, or a test failure.
fn expect_panic(result: cuprum::Result<()>, kernel: &str) -> Box<cuprum::KernelPanic> {
    match result {
        Err(Error::KernelPanic(p)) => {
            assert_eq!(p.kernel, kernel, "{p}");
            p
        }
        other => panic!("expected a panic of {kernel}, got {other:?}"),
    }
}

fn line_of(needle: &str) -> u32 {
    include_str!("kernels/checks.rs")
        .lines()
        .position(|l| l.contains(needle))
        .unwrap_or_else(|| panic!("{needle} not in kernels/checks.rs")) as u32
        + 1
}

#[test]
fn a_loop_running_off_the_end_stops_with_the_first_index_past_it() -> cuprum::Result<()> {
    on_backends(|dev| {
        let stream = dev.new_stream()?;
        let n = 200;
        let x = random_f32(n, 0.5, 1.5);
        let dx = stream.to_device(&x)?;
        let mut out = stream.alloc_zeros::<f32>(4)?;
        let r = launch!(run_off_the_end<<<1, 32, stream>>>(&mut out, &dx))
            .and_then(|()| stream.synchronize());
        let p = expect_panic(r, "run_off_the_end");
        assert_eq!(p.line, line_of("while x[i] > 0.0"), "{p}");
        assert!(p.thread.x < 4, "{p}");
        assert!(
            p.message
                .contains(&format!("the len is {n} but the index is {n}")),
            "{p}"
        );
        Ok(())
    })
}

#[test]
fn an_index_past_the_end_in_a_grid_stride_loop_is_reported() -> cuprum::Result<()> {
    on_backends(|dev| {
        let stream = dev.new_stream()?;
        let mut rng = fastrand::Rng::new();
        let n = 5000 + rng.usize(0..1000);
        let x = random_f32(n, -1.0, 1.0);
        let dx = stream.to_device(&x)?;
        let (blocks, threads) = (4u32, 64u32);
        let stride = (blocks * threads) as usize;
        // The thread that reads x[n - 1] on its last turn reads x[n] instead.
        let bad = (n - 1) % stride;
        let mut out = stream.alloc_zeros::<f32>(stride)?;
        let r = launch!(strided_off_by_one<<<blocks, threads, stream>>>(&mut out, &dx, bad))
            .and_then(|()| stream.synchronize());
        let p = expect_panic(r, "strided_off_by_one");
        assert_eq!(p.line, line_of("x[i + extra]"), "{p}");
        assert_eq!(
            p.block.x as usize * threads as usize + p.thread.x as usize,
            bad,
            "{p}"
        );
        assert!(
            p.message
                .contains(&format!("the len is {n} but the index is {n}")),
            "{p}"
        );
        // Without the bad thread the same kernel computes every thread's strided sum.
        launch!(strided_off_by_one<<<blocks, threads, stream>>>(&mut out, &dx, usize::MAX))?;
        let got = stream.to_host(&out)?;
        for (t, &g) in got.iter().enumerate() {
            let want: f64 = (t..n).step_by(stride).map(|i| x[i] as f64).sum();
            assert!((g as f64 - want).abs() < 1e-4, "thread {t}: {g} vs {want}");
        }
        Ok(())
    })
}

#[test]
fn shared_and_local_arrays_are_checked() -> cuprum::Result<()> {
    on_backends(|dev| {
        let stream = dev.new_stream()?;
        let bad = fastrand::u32(0..64);
        let mut out = stream.alloc_zeros::<u32>(64)?;
        for (shared, len) in [(true, 64), (false, 4)] {
            let r = launch!(small_arrays<<<1, 64, stream>>>(&mut out, bad, shared))
                .and_then(|()| stream.synchronize());
            let p = expect_panic(r, "small_arrays");
            let (needle, index) = if shared {
                ("s[k as usize] = t", 64)
            } else {
                ("local[(k % 4 + k / 64 * 4) as usize] = t", 4)
            };
            assert_eq!(p.line, line_of(needle), "{p}");
            assert_eq!(p.thread.x, bad, "{p}");
            assert!(
                p.message
                    .contains(&format!("the len is {len} but the index is {index}")),
                "{p}"
            );
        }
        // In range, every thread reads back its own index.
        launch!(small_arrays<<<1, 64, stream>>>(&mut out, 99, true))?;
        let got = stream.to_host(&out)?;
        assert!(
            got.iter().enumerate().all(|(t, &v)| v == t as u32),
            "{got:?}"
        );
        Ok(())
    })
}

#[test]
fn the_first_failing_access_in_evaluation_order_is_reported() -> cuprum::Result<()> {
    on_backends(|dev| {
        let stream = dev.new_stream()?;
        let x = stream.to_device(&random_f32(8, -1.0, 1.0))?;
        let y = stream.to_device(&random_f32(9, -1.0, 1.0))?;
        let mut out = stream.alloc_zeros::<f32>(10)?;
        let line = line_of("out[k] = x[i] * 2.0 + y[j]");
        // Rust evaluates the value (x, then y) before the place (out).
        for which in 1..8u32 {
            let r = launch!(several_accesses<<<1, 32, stream>>>(&mut out, &x, &y, which))
                .and_then(|()| stream.synchronize());
            let p = expect_panic(r, "several_accesses");
            let (index, len) = if which & 1 != 0 {
                (8, 8)
            } else if which & 2 != 0 {
                (10, 9)
            } else {
                (12, 10)
            };
            assert_eq!(p.line, line, "which = {which}: {p}");
            assert!(
                p.message
                    .contains(&format!("the len is {len} but the index is {index}")),
                "which = {which}: {p}"
            );
        }
        // All in range: both statements ran.
        let (hx, hy) = (stream.to_host(&x)?, stream.to_host(&y)?);
        launch!(several_accesses<<<1, 32, stream>>>(&mut out, &x, &y, 0))?;
        let got = stream.to_host(&out)?;
        assert_eq!(got[2], hx[0] * 2.0 + hy[1]);
        assert_eq!(got[0], hx[0] - hy[1]);
        Ok(())
    })
}

#[test]
fn a_run_whose_checks_go_first_reports_the_first_failing_access() -> cuprum::Result<()> {
    on_backends(|dev| {
        let stream = dev.new_stream()?;
        let mut rng = fastrand::Rng::new();
        let n = 256;
        let (a, b) = (random_f32(n, -1.0, 1.0), random_f32(n, -1.0, 1.0));
        let (da, db) = (stream.to_device(&a)?, stream.to_device(&b)?);
        let (line_a, line_b) = (
            line_of("a_out[t] = a[t + shift_a]"),
            line_of("b_out[t] = b[t + shift_b]"),
        );
        // (a fails for some threads, b too), (only b fails), (only a fails), random.
        let mut shifts = vec![(5, 9), (0, 3), (7, 0)];
        shifts.push((rng.usize(0..n / 2), rng.usize(1..n / 2)));
        for (sa, sb) in shifts {
            let mut a_out = stream.alloc_zeros::<f32>(n)?;
            let mut b_out = stream.alloc_zeros::<f32>(n)?;
            let r =
            launch!(run_of_copies<<<2, 128, stream>>>(&mut a_out, &mut b_out, &da, &db, sa, sb))
                .and_then(|()| stream.synchronize());
            let p = expect_panic(r, "run_of_copies");
            let t = p.block.x as usize * 128 + p.thread.x as usize;
            let (line, index) = if t + sa >= n {
                (line_a, t + sa)
            } else {
                (line_b, t + sb)
            };
            assert_eq!(p.line, line, "shifts ({sa}, {sb}): {p}");
            assert!(
                p.message
                    .contains(&format!("the len is {n} but the index is {index}")),
                "shifts ({sa}, {sb}): {p}"
            );
            // Threads whose accesses are all in range did all their work.
            let (ga, gb) = (stream.to_host(&a_out)?, stream.to_host(&b_out)?);
            for t in 0..n - sa.max(sb) {
                assert_eq!((ga[t], gb[t]), (a[t + sa], b[t + sb]), "thread {t}");
            }
        }
        Ok(())
    })
}

#[test]
fn a_short_loop_whose_checks_go_first_reports_the_first_failing_turn() -> cuprum::Result<()> {
    on_backends(|dev| {
        let stream = dev.new_stream()?;
        let mut rng = fastrand::Rng::new();
        let threads = 256;
        let len = rng.usize(300..600);
        let x = random_f32(len, -1.0, 1.0);
        let dx = stream.to_device(&x)?;
        let line = line_of("out[t * 4 + k] = x[t + k * stride]");
        // Thread 255 fails at the last turn at least (255 + 3 * 120 >= 600 > len).
        for stride in [rng.usize(120..150), rng.usize(150..300)] {
            let mut out = stream.alloc_zeros::<f32>(threads * 4)?;
            let r = launch!(turns_of_copies<<<2, 128, stream>>>(&mut out, &dx, stride))
                .and_then(|()| stream.synchronize());
            let p = expect_panic(r, "turns_of_copies");
            let t = p.block.x as usize * 128 + p.thread.x as usize;
            let k = (0..4)
                .find(|k| t + k * stride >= len)
                .unwrap_or_else(|| panic!("thread {t} has no failing turn: {p}"));
            assert_eq!(p.line, line, "{p}");
            assert!(
                p.message.contains(&format!(
                    "the len is {len} but the index is {}",
                    t + k * stride
                )),
                "stride {stride}: {p}"
            );
            let got = stream.to_host(&out)?;
            for t in (0..threads).filter(|t| t + 3 * stride < len) {
                for k in 0..4 {
                    assert_eq!(got[t * 4 + k], x[t + k * stride], "thread {t}, turn {k}");
                }
            }
        }
        Ok(())
    })
}
