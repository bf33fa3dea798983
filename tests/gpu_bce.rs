//! The kernels of `tests/kernels/bce.rs`, whose index checks the IR passes prove redundant
//! or keep, on fresh random inputs against CPU references; random inputs that go out of
//! bounds must still be reported with Rust's message at the access (never as an elided
//! check's internal error, which the simulator reports when a proof was wrong); a kernel
//! declared with `block = (X, Y)` refuses any other block shape.

use cuprum::prelude::*;
use cuprum_testkit::{backends, compare_f32, gemm_f32, random_f32, random_u32};

#[path = "kernels/bce.rs"]
mod bce;
use bce::*;

/// The simulator is slow: smaller problems there.
fn on_gpu(dev: &Device) -> bool {
    !dev.is_simulator()
}

/// A failure of a launch must be a bounds failure as Rust words it, not a compiler error.
fn bounds_failure(result: cuprum::Result<()>) -> Option<(u64, u64)> {
    match result {
        Ok(()) => None,
        Err(Error::KernelPanic(p)) => {
            assert!(
                !p.message.contains("internal error"),
                "an elided check failed: {p}"
            );
            let rest = p
                .message
                .strip_prefix("index out of bounds: the len is ")
                .unwrap_or_else(|| panic!("not a bounds failure: {p}"));
            let (len, index) = rest
                .split_once(" but the index is ")
                .unwrap_or_else(|| panic!("{p}"));
            Some((index.parse().unwrap(), len.parse().unwrap()))
        }
        Err(e) => panic!("unexpected error {e}"),
    }
}

#[test]
fn transpose_coalesced_transposes() -> cuprum::Result<()> {
    for dev in backends()? {
        // Its own stream: tests run in parallel and a stream reports its failures to whoever synchronizes it.
        let stream = dev.new_stream()?;
        let mut rng = fastrand::Rng::new();
        let (w, h) = if on_gpu(&dev) {
            (2048 + rng.usize(0..40), 1024 + rng.usize(0..40))
        } else {
            (rng.usize(1..100), rng.usize(1..100))
        };
        let m = random_f32(w * h, -1.0, 1.0);
        let d = stream.to_device(&m)?;
        let mut out = stream.to_device(&vec![f32::NAN; w * h])?;
        let grid = (w.div_ceil(TILE_DIM) as u32, h.div_ceil(TILE_DIM) as u32);
        launch!(transpose_coalesced<<<grid, (32, 8), stream>>>(&mut out, &d, w, h))?;
        let got = stream.to_host(&out)?;
        for r in 0..h {
            for c in 0..w {
                assert_eq!(got[c * h + r], m[r * w + c], "({r}, {c}) of {h} x {w}");
            }
        }
        // Any other block shape is refused before anything runs, here and on a GPU.
        let refused = launch!(transpose_coalesced<<<grid, (32, 4), stream>>>(&mut out, &d, w, h));
        match refused {
            Err(Error::LaunchConfig(m)) => assert!(m.contains("block = (32, 8, 1)"), "{m}"),
            other => panic!("a (32, 4) block was not refused: {other:?}"),
        }
        // A matrix larger than its buffers is reported at the access.
        let small = stream.to_device(&m[..w * h - 1])?;
        let failed =
            launch!(transpose_coalesced<<<grid, (32, 8), stream>>>(&mut out, &small, w, h))
                .and_then(|()| stream.synchronize());
        let (index, len) = bounds_failure(failed).expect("the last element is out of bounds");
        assert_eq!((index, len), ((w * h - 1) as u64, (w * h - 1) as u64));
    }
    Ok(())
}

#[test]
fn jacobi_2d_sweeps_the_interior() -> cuprum::Result<()> {
    for dev in backends()? {
        // Its own stream: tests run in parallel and a stream reports its failures to whoever synchronizes it.
        let stream = dev.new_stream()?;
        let mut rng = fastrand::Rng::new();
        let (nx, ny) = if on_gpu(&dev) {
            (1000 + rng.usize(0..50), 900 + rng.usize(0..50))
        } else {
            (rng.usize(1..70), rng.usize(1..70))
        };
        let a = random_f32(nx * ny, -1.0, 1.0);
        let da = stream.to_device(&a)?;
        let mut out = stream.to_device(&vec![0.0f32; nx * ny])?;
        let grid = (nx.div_ceil(16) as u32, ny.div_ceil(16) as u32);
        launch!(jacobi_2d<<<grid, (16, 16), stream>>>(&mut out, &da, nx, ny))?;
        let got = stream.to_host(&out)?;
        for j in 0..ny {
            for i in 0..nx {
                let c = j * nx + i;
                let want = if i >= 1 && j >= 1 && i + 1 < nx && j + 1 < ny {
                    0.25 * (a[c - 1] + a[c + 1] + a[c - nx] + a[c + nx])
                } else {
                    0.0
                };
                assert_eq!(got[c], want, "({i}, {j}) of {nx} x {ny}");
            }
        }
        // A grid wider than the data: the reads past its end are reported.
        if nx >= 3 && ny >= 3 {
            let short = stream.to_device(&a[..nx * ny - nx])?;
            let failed = launch!(jacobi_2d<<<grid, (16, 16), stream>>>(&mut out, &short, nx, ny))
                .and_then(|()| stream.synchronize());
            let (index, len) = bounds_failure(failed).expect("the last rows read past the end");
            assert!(
                index >= len && len == (nx * ny - nx) as u64,
                "{index} {len}"
            );
        }
    }
    Ok(())
}

#[test]
fn fast_matmul_multiplies() -> cuprum::Result<()> {
    for dev in backends()? {
        // Its own stream: tests run in parallel and a stream reports its failures to whoever synchronizes it.
        let stream = dev.new_stream()?;
        let mut rng = fastrand::Rng::new();
        let n = if on_gpu(&dev) {
            512 + rng.usize(0..20)
        } else {
            rng.usize(1..40)
        };
        let (a, b) = (random_f32(n * n, -1.0, 1.0), random_f32(n * n, -1.0, 1.0));
        let (da, db) = (stream.to_device(&a)?, stream.to_device(&b)?);
        let mut c = stream.alloc_zeros::<f32>(n * n)?;
        let grid = (n.div_ceil(TPB) as u32, n.div_ceil(TPB) as u32);
        launch!(fast_matmul<<<grid, (16, 16), stream>>>(&mut c, &da, &db, n))?;
        let got = stream.to_host(&c)?;
        let (want, scale) = gemm_f32(&a, &b, (n, n, n), n);
        compare_f32(&got, &want, &scale, 4.0 * n as f32 * f32::EPSILON)
            .unwrap_or_else(|e| panic!("n = {n}: {e}"));
        let refused = launch!(fast_matmul<<<grid, (16, 8), stream>>>(&mut c, &da, &db, n));
        assert!(
            matches!(refused, Err(Error::LaunchConfig(_))),
            "{refused:?}"
        );
    }
    Ok(())
}

#[test]
fn vector_add_adds_and_reports_a_short_operand() -> cuprum::Result<()> {
    for dev in backends()? {
        // Its own stream: tests run in parallel and a stream reports its failures to whoever synchronizes it.
        let stream = dev.new_stream()?;
        let n = if on_gpu(&dev) { 1 << 20 } else { 5000 } + fastrand::usize(0..100);
        let (a, b) = (random_f32(n, -1.0, 1.0), random_f32(n, -1.0, 1.0));
        let (da, db) = (stream.to_device(&a)?, stream.to_device(&b)?);
        let mut c = stream.alloc_zeros::<f32>(n)?;
        launch!(vector_add<<<LaunchConfig::for_elements(n, 256).grid, 256, stream>>>(&mut c, &da, &db))?;
        let got = stream.to_host(&c)?;
        for i in 0..n {
            assert_eq!(got[i], a[i] + b[i], "element {i}");
        }
        let short = stream.to_device(&b[..n - 3])?;
        let failed = launch!(vector_add<<<LaunchConfig::for_elements(n, 256).grid, 256, stream>>>(&mut c, &da, &short))
            .and_then(|()| stream.synchronize());
        let (index, len) = bounds_failure(failed).expect("b is short");
        assert!(index >= len && len == (n - 3) as u64 && index < n as u64);
    }
    Ok(())
}

/// A launch against its model: with no failing thread in the model, it succeeds and its
/// output (`got`) is the model's; otherwise it fails with one of the model's failures.
fn matches_model<T: PartialEq + std::fmt::Debug>(
    case: usize,
    result: cuprum::Result<()>,
    failures: &[(u64, u64)],
    got: impl FnOnce() -> cuprum::Result<Vec<T>>,
    want: &[T],
) -> cuprum::Result<()> {
    match bounds_failure(result) {
        None => {
            assert!(
                failures.is_empty(),
                "case {case}: {failures:?} not reported"
            );
            assert_eq!(got()?, want, "case {case}");
        }
        Some(f) => assert!(
            failures.contains(&f),
            "case {case}: {f:?} not in {failures:?}"
        ),
    }
    Ok(())
}

/// What `guarded_stencil` does to `out`, or the first failure of each thread that fails
/// (index, len), by thread.
fn stencil_model(a: &[f32], threads: usize, shift: usize, out: &mut [f32]) -> Vec<(u64, u64)> {
    let n = a.len();
    let mut failures = Vec::new();
    for g in 0..threads {
        let i = g.wrapping_add(shift);
        if i >= 1 && i.wrapping_add(1) < n {
            // Rust's order: the reads, then the write.
            let bad = [i - 1, i, i.wrapping_add(1)].into_iter().find(|&k| k >= n);
            match bad {
                Some(k) => failures.push((k as u64, n as u64)),
                None if i >= out.len() => failures.push((i as u64, out.len() as u64)),
                None => out[i] = a[i - 1] + a[i] + a[i + 1],
            }
        }
    }
    failures
}

/// Random lengths, launches and shifts (some near `usize::MAX`, where the guard's `i + 1`
/// wraps): the result is the model's, and a launch fails exactly when a thread of the model
/// does, with one of its failures.
#[test]
fn random_guarded_stencils_match_the_model() -> cuprum::Result<()> {
    let mut rng = fastrand::Rng::new();
    let dev = Device::simulator();
    // Its own stream: tests run in parallel and a stream reports its failures to whoever synchronizes it.
    let stream = dev.new_stream()?;
    for case in 0..60 {
        let n = rng.usize(0..300);
        let out_len = rng.usize(0..320);
        let threads = rng.usize(1..400);
        let shift = match rng.u8(0..4) {
            0 => usize::MAX - rng.usize(0..4),
            1 => rng.usize(0..4),
            _ => 0,
        };
        let a = random_f32(n, -1.0, 1.0);
        let mut want = random_f32(out_len, -1.0, 1.0);
        let da = stream.to_device(&a)?;
        let mut dout = stream.to_device(&want)?;
        let result = launch!(guarded_stencil<<<threads.div_ceil(64) as u32, 64, stream>>>(&mut dout, &da, shift))
            .and_then(|()| stream.synchronize());
        let launched = threads.div_ceil(64) * 64;
        let failures = stencil_model(&a, launched, shift, &mut want);
        matches_model(case, result, &failures, || stream.to_host(&dout), &want)?;
    }
    Ok(())
}

/// `guard_forms` on random lengths, strides and limits against its CPU model.
#[test]
fn random_guard_forms_match_the_model() -> cuprum::Result<()> {
    let mut rng = fastrand::Rng::new();
    let dev = Device::simulator();
    // Its own stream: tests run in parallel and a stream reports its failures to whoever synchronizes it.
    let stream = dev.new_stream()?;
    for case in 0..40 {
        let n = rng.usize(0..200);
        let out_len = rng.usize(0..200);
        let stride = rng.usize(1..70);
        let limit = rng.usize(0..260);
        let blocks = rng.usize(1..5);
        let a = random_u32(n);
        let da = stream.to_device(&a)?;
        let mut dout = stream.to_device(&vec![7u32; out_len])?;
        let result =
            launch!(guard_forms<<<blocks as u32, 64, stream>>>(&mut dout, &da, stride, limit))
                .and_then(|()| stream.synchronize());
        let mut want = vec![7u32; out_len];
        let mut failures = Vec::new();
        // Threads past `out`'s end return at once.
        for (i, w) in want.iter_mut().enumerate().take(blocks * 64) {
            let t = i % 64;
            let mut s = 0u32;
            for k in (t..n).step_by(stride) {
                s = s.wrapping_add(a[k]);
            }
            let mut j = i;
            let mut failed = false;
            while j < limit {
                if j >= n {
                    failures.push((j as u64, n as u64));
                    failed = true;
                    break;
                }
                s = s.wrapping_add(a[j]);
                j += 64;
            }
            if !failed {
                *w = s;
            }
        }
        matches_model(case, result, &failures, || stream.to_host(&dout), &want)?;
    }
    Ok(())
}

/// `jacobi_2d` on random shapes with buffers shorter or longer than `nx × ny` (so that the
/// uniform test of the versioned body goes both ways) and grids wider than the shape: the
/// result is the CPU model's, and a launch fails exactly when a thread of the model does,
/// with one of its failures.
#[test]
fn random_jacobi_shapes_match_the_model() -> cuprum::Result<()> {
    let mut rng = fastrand::Rng::new();
    let dev = Device::simulator();
    // Its own stream: tests run in parallel and a stream reports its failures to whoever synchronizes it.
    let stream = dev.new_stream()?;
    for case in 0..80 {
        let (nx, ny) = (rng.usize(0..24), rng.usize(0..24));
        let cells = nx * ny;
        let a_len = (cells + rng.usize(0..3)).saturating_sub(rng.usize(0..nx.max(1) + 2));
        let out_len = (cells + rng.usize(0..3)).saturating_sub(rng.usize(0..nx.max(1) + 2));
        let a = random_f32(a_len, -1.0, 1.0);
        let mut want = random_f32(out_len, -1.0, 1.0);
        let da = stream.to_device(&a)?;
        let mut dout = stream.to_device(&want)?;
        let grid = ((nx + 1).div_ceil(8) as u32, (ny + 1).div_ceil(8) as u32);
        let result = launch!(jacobi_2d<<<grid, (8, 8), stream>>>(&mut dout, &da, nx, ny))
            .and_then(|()| stream.synchronize());
        let mut failures = Vec::new();
        for j in 0..grid.1 as usize * 8 {
            for i in 0..grid.0 as usize * 8 {
                if !(i >= 1 && j >= 1 && i + 1 < nx && j + 1 < ny) {
                    continue;
                }
                let c = j * nx + i;
                let reads = [c - 1, c + 1, c - nx, c + nx];
                if let Some(&k) = reads.iter().find(|&&k| k >= a_len) {
                    failures.push((k as u64, a_len as u64));
                } else if c >= out_len {
                    failures.push((c as u64, out_len as u64));
                } else {
                    want[c] = 0.25 * (a[c - 1] + a[c + 1] + a[c - nx] + a[c + nx]);
                }
            }
        }
        matches_model(case, result, &failures, || stream.to_host(&dout), &want)?;
    }
    Ok(())
}

/// `transpose_coalesced` on random shapes with buffers shorter or longer than `w × h`.
#[test]
fn random_transpose_shapes_match_the_model() -> cuprum::Result<()> {
    let mut rng = fastrand::Rng::new();
    let dev = Device::simulator();
    // Its own stream: tests run in parallel and a stream reports its failures to whoever synchronizes it.
    let stream = dev.new_stream()?;
    for case in 0..30 {
        let (w, h) = (rng.usize(0..70), rng.usize(0..70));
        let cells = w * h;
        let in_len = (cells + rng.usize(0..3)).saturating_sub(rng.usize(0..4));
        let out_len = (cells + rng.usize(0..3)).saturating_sub(rng.usize(0..4));
        let m = random_f32(in_len, -1.0, 1.0);
        let mut want = vec![-5.0f32; out_len];
        let d = stream.to_device(&m)?;
        let mut dout = stream.to_device(&want)?;
        let grid = (w.div_ceil(32).max(1) as u32, h.div_ceil(32).max(1) as u32);
        let result = launch!(transpose_coalesced<<<grid, (32, 8), stream>>>(&mut dout, &d, w, h))
            .and_then(|()| stream.synchronize());
        let mut load_failures = Vec::new();
        for r in 0..h {
            for c in 0..w {
                if r * w + c >= in_len {
                    load_failures.push(((r * w + c) as u64, in_len as u64));
                }
            }
        }
        let mut store_failures = Vec::new();
        for r in 0..h {
            for c in 0..w {
                if c * h + r >= out_len {
                    store_failures.push(((c * h + r) as u64, out_len as u64));
                } else if r * w + c < in_len {
                    want[c * h + r] = m[r * w + c];
                }
            }
        }
        // A block that fails a load stops before the barrier; others may get to stores.
        let failures = [load_failures, store_failures].concat();
        matches_model(case, result, &failures, || stream.to_host(&dout), &want)?;
    }
    Ok(())
}

/// `tricky`'s CPU model: its output, or each failing thread's first failure.
fn tricky_model(
    out: &mut [u32],
    a: &[u32],
    (n, m, k, rows): (u32, usize, usize, u32),
    threads: usize,
) -> Vec<(u64, u64)> {
    let len = a.len();
    let mut failures = Vec::new();
    let mut fail = |i: usize| failures.push((i as u64, len as u64));
    'thread: for (i, o) in out.iter_mut().enumerate().take(threads) {
        let mut acc = 0u32;
        let w = ((i % 64) as u32).wrapping_add(n) as usize;
        if w < len {
            acc = acc.wrapping_add(a[w]);
        }
        if i >= k && i - k < len {
            acc = acc.wrapping_add(a[i - k]);
        }
        if i.wrapping_add(m) < len {
            acc = acc.wrapping_add(a[i.wrapping_add(m)]);
            if i >= len {
                fail(i);
                continue 'thread;
            }
            acc = acc.wrapping_add(a[i]);
        }
        if m != 0 && i < m && i != m - 1 {
            if i + 1 >= len {
                fail(i + 1);
                continue 'thread;
            }
            acc = acc.wrapping_add(a[i + 1]);
        }
        let mut j = i;
        while j < len {
            acc = acc.wrapping_add(a[j]);
            j = if j % 2 == 0 { j + 3 } else { j * 2 + 1 };
        }
        for r in 0..rows as usize {
            let idx = r.wrapping_mul(m).wrapping_add(k);
            if idx < len {
                acc ^= a[idx];
            }
            let at = r * 4 % (len + 1);
            if at >= len {
                fail(at);
                continue 'thread;
            }
            acc ^= a[at];
        }
        *o = acc;
    }
    failures
}

/// `tricky` with parameters at and near the ends of their types.
#[test]
fn random_tricky_guards_match_the_model() -> cuprum::Result<()> {
    let mut rng = fastrand::Rng::new();
    let dev = Device::simulator();
    let stream = dev.new_stream()?;
    let pick = |rng: &mut fastrand::Rng, max: u64| -> u64 {
        match rng.u8(0..5) {
            0 => 0,
            1 => max - rng.u64(0..4),
            2 => rng.u64(0..4),
            _ => rng.u64(0..300),
        }
    };
    for case in 0..150 {
        let a = random_u32(rng.usize(0..300));
        let out_len = rng.usize(0..300);
        let n = pick(&mut rng, u32::MAX as u64) as u32;
        let m = pick(&mut rng, u64::MAX) as usize;
        let k = pick(&mut rng, u64::MAX) as usize;
        let rows = rng.u32(0..6);
        let blocks = rng.usize(1..6);
        let mut want = vec![9u32; out_len];
        let da = stream.to_device(&a)?;
        let mut dout = stream.to_device(&want)?;
        let result = launch!(tricky<<<blocks as u32, 64, stream>>>(&mut dout, &da, n, m, k, rows))
            .and_then(|()| stream.synchronize());
        let failures = tricky_model(&mut want, &a, (n, m, k, rows), blocks * 64);
        matches_model(case, result, &failures, || stream.to_host(&dout), &want)?;
    }
    Ok(())
}

/// The fast copy (checks versioned away) is chosen at each launch from what the launch
/// passes: the lengths of the views the kernel gets (never the length of the buffer a view
/// is of) and the scalar arguments. A launch whose test fails runs the checked body, which
/// is correct where it stays in bounds and reports where it does not.
#[test]
fn the_launch_chooses_the_fast_copy_from_what_it_passes() -> cuprum::Result<()> {
    for dev in backends()? {
        // Its own stream: tests run in parallel and a stream reports its failures to whoever synchronizes it.
        let stream = dev.new_stream()?;
        let mut rng = fastrand::Rng::new();
        let blocks = if on_gpu(&dev) { 4096 } else { 8 } + rng.usize(0..8);
        let m = blocks * 256;
        let n = m + 1 + rng.usize(0..1000);
        let (a, b, c0) = (
            random_f32(n, -1.0, 1.0),
            random_f32(n, -1.0, 1.0),
            random_f32(n, -1.0, 1.0),
        );
        let (da, db) = (stream.to_device(&a)?, stream.to_device(&b)?);
        let expect = |got: &[f32], upto: usize| {
            for i in 0..n {
                let want = if i < upto { a[i] + b[i] } else { c0[i] };
                assert_eq!(got[i], want, "element {i} of {n} ({upto} added)");
            }
        };
        // Operands shorter than `c` (`len(c) <= len(a)` fails) and a grid that reaches only
        // their elements: the checked body, correct.
        let (sa, sb) = (stream.to_device(&a[..m])?, stream.to_device(&b[..m])?);
        let mut c = stream.to_device(&c0)?;
        launch!(vector_add<<<blocks as u32, 256, stream>>>(&mut c, &sa, &sb))?;
        expect(&stream.to_host(&c)?, m);
        // A view of `m` elements of a longer buffer: its own length decides (the buffer's
        // would select the copy without checks, which would read past the view unreported).
        let grid = LaunchConfig::for_elements(n, 256).grid;
        let failed = launch!(vector_add<<<grid, 256, stream>>>(&mut c, &da.slice(..m), &db))
            .and_then(|()| stream.synchronize());
        let (index, len) = bounds_failure(failed).expect("the view of a ends at m");
        assert!(
            len == m as u64 && index >= len && index < n as u64,
            "{index} {len}"
        );
        // A writable view shorter than its buffer, operands as long as the buffer: the test
        // holds (fast copy), and the buffer's elements past the view are not written.
        let mut c = stream.to_device(&c0)?;
        launch!(vector_add<<<grid, 256, stream>>>(&mut c.slice_mut(..m), &da, &db))?;
        expect(&stream.to_host(&c)?, m);

        // A scalar past the data: `jacobi_2d` told `ny` rows more than its buffers hold (its
        // test `nx·ny − 1 <= len(a)` fails), on a grid that reaches only rows they hold:
        // the checked body, correct.
        let nx = if on_gpu(&dev) { 1000 } else { 20 } + rng.usize(0..30);
        let gy = if on_gpu(&dev) { 50 } else { 2 } + rng.usize(0..3);
        let rows = gy * 16 + 1 + rng.usize(0..4);
        let ny = rows + 1 + rng.usize(0..5);
        let grid = (nx.div_ceil(16) as u32, gy as u32);
        let data = random_f32(nx * rows, -1.0, 1.0);
        let d = stream.to_device(&data)?;
        let mut out = stream.to_device(&vec![0.0f32; nx * rows])?;
        launch!(jacobi_2d<<<grid, (16, 16), stream>>>(&mut out, &d, nx, ny))?;
        let got = stream.to_host(&out)?;
        for j in 0..rows {
            for i in 0..nx {
                let c = j * nx + i;
                let want = if i >= 1 && j >= 1 && i + 1 < nx && j < gy * 16 {
                    0.25 * (data[c - 1] + data[c + 1] + data[c - nx] + data[c + nx])
                } else {
                    0.0
                };
                assert_eq!(got[c], want, "({i}, {j}) of {nx} x {rows}, ny = {ny}");
            }
        }
        // The same with a grid over all `ny` rows: the rows past the data are reported.
        let grid = (nx.div_ceil(16) as u32, ny.div_ceil(16) as u32);
        let failed = launch!(jacobi_2d<<<grid, (16, 16), stream>>>(&mut out, &d, nx, ny))
            .and_then(|()| stream.synchronize());
        let (index, len) = bounds_failure(failed).expect("rows past the data");
        assert!(len == (nx * rows) as u64 && index >= len, "{index} {len}");
    }
    Ok(())
}

/// 32-bit index arithmetic (`passes::narrow`) is chosen only when the launch has tested the
/// lengths below 2³¹: `rows_from` (and its unchecked twin, 64-bit throughout) on bytes, with
/// rows near the end of `nx × ny` grids of fewer and of more than 2³¹ elements. Past the
/// bound the launch must run the 64-bit body (32-bit indices would wrap to the grid's start:
/// wrong bytes, or on the simulator an internal error); below it, the fast copy, whose every
/// 32-bit index the simulator confirms fits. The buffers are zeroed lazily: only the rows
/// used are touched.
#[test]
fn indices_are_computed_in_32_bits_only_when_the_lengths_allow() -> cuprum::Result<()> {
    for dev in backends()? {
        let stream = dev.new_stream()?;
        let mut rng = fastrand::Rng::new();
        let nx = 4096 + rng.usize(0..64);
        for ny in [(1usize << 31) / nx - 4, (1usize << 31) / nx + 4] {
            let n = nx * ny;
            let row0 = ny - 3;
            // Rows `row0 - 1 ..= row0 + 2` of the input are random, the rest zero.
            let first = (row0 - 1) * nx;
            let rows: Vec<u8> = (0..4 * nx).map(|_| rng.u8(..)).collect();
            let mut inp = stream.alloc_zeros::<u8>(n)?;
            stream.copy_from_host(&mut inp.slice_mut(first..first + 4 * nx), &rows)?;
            let at = |k: usize| rows[k - first];
            for unchecked in [false, true] {
                let mut out = stream.alloc_zeros::<u8>(n)?;
                let grid = (nx.div_ceil(256) as u32, 1u32);
                if unchecked {
                    // SAFETY: every access is guarded to lie inside the `nx × ny` grid.
                    unsafe {
                        let cfg = LaunchConfig::new(grid, (256, 2));
                        rows_from_unchecked::rows_from::launch(
                            &stream, cfg, &mut out, &inp, nx, ny, row0,
                        )?
                    };
                } else {
                    launch!(rows_from<<<grid, (256, 2), stream>>>(&mut out, &inp, nx, ny, row0))?;
                }
                let got = stream.to_host(&out.slice(first..first + 4 * nx))?;
                for j in row0 - 1..row0 + 3 {
                    for i in 0..nx {
                        let c = j * nx + i;
                        let want = if (row0..row0 + 2).contains(&j) && i >= 1 && i + 1 < nx {
                            at(c - 1)
                                .wrapping_add(at(c + 1).wrapping_mul(3))
                                .wrapping_add(at(c - nx).wrapping_mul(5))
                                .wrapping_add(at(c + nx).wrapping_mul(7))
                        } else {
                            0
                        };
                        assert_eq!(
                            got[c - first],
                            want,
                            "row {j} column {i} of {ny} × {nx} (unchecked: {unchecked})"
                        );
                    }
                }
            }
        }
    }
    Ok(())
}

/// 32-bit comparisons in the launch-selected copy (`passes::compare32`) only where the launch
/// tested their operands: `below_bound`'s `i + 1 < bound` for bounds below 2³¹ (the copy, every
/// operand confirmed by the simulator to fit) and past 2³² (the checked body: compared in 32
/// bits, `bound`'s low bits would stop the count early: wrong values, or on the simulator an
/// internal error).
#[test]
fn comparisons_are_computed_in_32_bits_only_when_the_launch_allows() -> cuprum::Result<()> {
    for dev in backends()? {
        let stream = dev.new_stream()?;
        let mut rng = fastrand::Rng::new();
        let n = if on_gpu(&dev) { 100_000 } else { 3000 } + rng.usize(0..100);
        let inp: Vec<u32> = random_u32(n).iter().map(|x| x >> 2).collect();
        let d = stream.to_device(&inp)?;
        let big = (1usize << 32) + rng.usize(1..100);
        for bound in [
            rng.usize(0..n),
            (1 << 31) - 1,
            1 << 31,
            big,
            (1 << 33) + 7,
            usize::MAX,
        ] {
            let mut out = stream.to_device(&vec![0u32; n])?;
            let grid = LaunchConfig::for_elements(n, 256).grid;
            launch!(below_bound<<<grid, 256, stream>>>(&mut out, &d, bound))?;
            let got = stream.to_host(&out)?;
            for i in 0..n {
                let want = inp[i] + u32::from(i + 1 < bound);
                assert_eq!(got[i], want, "element {i} of {n}, bound {bound}");
            }
        }
    }
    Ok(())
}

/// `sgemm_tiles` (`examples/matmul.rs`' `sgemm`, 8×8 tiles, no declared block) on both sides
/// of its launch's test (`block_dim() <= (8, 8)`, and the operands hold what the grid reaches
/// at the last turn): the copy without checks computes the product; a block wider than the
/// tile runs the checked body, which reports the tile's index; a `k` whose last tile ends
/// past a short `a` fails the test and the checked body computes the right product where
/// it stays in bounds, and reports `a`'s index where it does not.
#[test]
fn sgemm_tiles_is_versioned_on_the_block_shape_and_the_last_tile() -> cuprum::Result<()> {
    let tile = GEMM_TILE;
    assert!(
        sgemm_tiles::FAST_PTX.is_some(),
        "sgemm_tiles has a launch-selected copy"
    );
    for dev in backends()? {
        // Its own stream: tests run in parallel and a stream reports its failures to whoever synchronizes it.
        let stream = dev.new_stream()?;
        let mut rng = fastrand::Rng::new();
        let scale = if on_gpu(&dev) { 32 } else { 1 };
        let (gm, gn) = (scale + rng.usize(1..3), scale + rng.usize(1..3));
        let (m, n) = (gm * tile, gn * tile);
        // `k` not a multiple of the tile: the loop reads the first `k / 8 · 8` columns, and
        // the test's bound for `8·t` (`k − 8`) is above the last turn's (`(k / 8 − 1) · 8`).
        let k = tile * (scale + rng.usize(1..4)) + rng.usize(1..tile);
        let used = k / tile * tile;
        let (a, b) = (random_f32(m * k, -1.0, 1.0), random_f32(k * n, -1.0, 1.0));
        let (want, mag) = gemm_f32(&a, &b, (m, n, k), used);
        let product = |c: &[f32], what: &str| {
            compare_f32(c, &want, &mag, 4.0 * k as f32 * f32::EPSILON)
                .unwrap_or_else(|e| panic!("{what}, m {m} n {n} k {k}: {e}"));
        };
        let (da, db) = (stream.to_device(&a)?, stream.to_device(&b)?);
        let grid = (gn as u32, gm as u32);
        let (nu, ku) = (n as u32, k as u32);
        // The launch it is written for: the test holds.
        let mut c = stream.to_device(&vec![f32::NAN; m * n])?;
        launch!(sgemm_tiles<<<grid, (8, 8), stream>>>(&mut c, &da, &db, nu, ku))?;
        product(&stream.to_host(&c)?, "block (8, 8)");
        // A shorter `a` whose missing elements no turn reads (`k − used` of them): the test
        // fails, the checked body runs and is right.
        let short = m * k - (k - used);
        let sa = stream.to_device(&a[..short])?;
        let mut c = stream.to_device(&vec![f32::NAN; m * n])?;
        launch!(sgemm_tiles<<<grid, (8, 8), stream>>>(&mut c, &sa, &db, nu, ku))?;
        product(&stream.to_host(&c)?, "a short by the unread columns");
        // One element shorter still: the last row's last tile reads past it, reported.
        let sa = stream.to_device(&a[..short - 1])?;
        let failed = launch!(sgemm_tiles<<<grid, (8, 8), stream>>>(&mut c, &sa, &db, nu, ku))
            .and_then(|()| stream.synchronize());
        let (index, len) = bounds_failure(failed).expect("a's last element is missing");
        assert_eq!((index, len), (short as u64 - 1, short as u64 - 1));
        // A block wider than the tile (same threads): the checked body reports the tile.
        let failed = launch!(sgemm_tiles<<<grid, (16, 4), stream>>>(&mut c, &da, &db, nu, ku))
            .and_then(|()| stream.synchronize());
        let (index, len) = bounds_failure(failed).expect("tx reaches past the tile");
        assert!(len == tile as u64 && index >= len, "{index} {len}");
        // A narrower block: the test holds, nothing out of bounds (the tile is partly
        // written, so no product to compare).
        let mut c = stream.to_device(&vec![0.0f32; m * n])?;
        launch!(sgemm_tiles<<<grid, (4, 8), stream>>>(&mut c, &da, &db, nu, ku))?;
        stream.synchronize()?;
    }
    Ok(())
}
