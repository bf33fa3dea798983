//! Assertions and panics in kernels: a failure is `Error::KernelPanic` with Rust's message
//! (formatted on the host from the values the failing thread recorded), file, line, block
//! and thread; the stream stays usable; `unchecked` keeps assertions; `debug_assert!` follows
//! the test crate's own debug assertions.

use cuprum::prelude::*;
use cuprum::KernelPanic;
use cuprum_testkit::{on_backends, random_f32};

#[path = "kernels/report.rs"]
mod kernels;
use kernels::*;

/// The 1-based line of the first line of `kernels/report.rs` containing `text`.
fn line_of(text: &str) -> u32 {
    include_str!("kernels/report.rs")
        .lines()
        .position(|l| l.contains(text))
        .expect("the text is in the kernel source") as u32
        + 1
}

/// The kernel panic a synchronisation reports.
fn panic_of(result: cuprum::Result<()>) -> KernelPanic {
    match result {
        Err(Error::KernelPanic(p)) => *p,
        other => panic!("expected a kernel panic, got {other:?}"),
    }
}

fn global_x(p: &KernelPanic, block: usize) -> usize {
    p.block.x as usize * block + p.thread.x as usize
}

#[test]
fn assert_with_a_message_reports_the_formatted_values() -> cuprum::Result<()> {
    on_backends(|dev| {
        let stream = dev.new_stream()?;
        let n = 3000;
        let mut x = random_f32(n, 0.0, 1.0);
        let mut rng = fastrand::Rng::new();
        let bad = rng.usize(0..n);
        x[bad] = 1.0 + rng.f32() * 5.0;
        let limit = 1.0f32;
        let dx = stream.to_device(&x)?;
        launch!(all_below<<<(n as u32).div_ceil(256), 256, stream>>>(&dx, limit))?;
        let p = panic_of(stream.synchronize());
        assert_eq!(p.kernel, "all_below");
        assert_eq!(global_x(&p, 256), bad, "{p}");
        assert_eq!(
            p.message,
            format!("x[{}] = {:.2} is not below {limit}", bad, x[bad]),
            "{p}"
        );
        assert!(p.file.ends_with("report.rs"), "{p}");
        assert_eq!(p.line, line_of("assert!(x[i] < limit"), "{p}");
        // The stream works after the panic, and a passing launch reports nothing.
        x[bad] = 0.5;
        let dx = stream.to_device(&x)?;
        launch!(all_below<<<(n as u32).div_ceil(256), 256, stream>>>(&dx, limit))?;
        stream.synchronize()
    })
}

#[test]
fn assert_eq_uses_rusts_wording() -> cuprum::Result<()> {
    on_backends(|dev| {
        let stream = dev.new_stream()?;
        let n = 1000;
        let mut rng = fastrand::Rng::new();
        let a: Vec<i32> = (0..n).map(|_| rng.i32(..)).collect();
        let mut b = a.clone();
        let bad = rng.usize(0..n);
        b[bad] = b[bad].wrapping_add(rng.i32(1..1000));
        let (da, db) = (stream.to_device(&a)?, stream.to_device(&b)?);
        launch!(same_as<<<8, 128, stream>>>(&da, &db))?;
        let p = panic_of(stream.synchronize());
        assert_eq!(global_x(&p, 128), bad);
        assert_eq!(
            p.message,
            format!(
                "assertion `left == right` failed\n  left: {:?}\n right: {:?}",
                a[bad], b[bad]
            )
        );
        assert_eq!(p.line, line_of("assert_eq!(a[i], b[i])"));
        launch!(same_as<<<8, 128, stream>>>(&da, &da))?;
        stream.synchronize()
    })
}

#[test]
fn assert_ne_with_a_message_names_the_element() -> cuprum::Result<()> {
    on_backends(|dev| {
        let stream = dev.new_stream()?;
        let n = 700;
        let mut rng = fastrand::Rng::new();
        let a: Vec<u8> = (0..n).map(|_| rng.u8(..)).collect();
        let mut b: Vec<u8> = a.iter().map(|v| v.wrapping_add(1)).collect();
        let bad = rng.usize(0..n);
        b[bad] = a[bad];
        let (da, db) = (stream.to_device(&a)?, stream.to_device(&b)?);
        launch!(differs_from<<<7, 100, stream>>>(&da, &db))?;
        let p = panic_of(stream.synchronize());
        assert_eq!(
            p.message,
            format!(
                "assertion `left != right` failed: element {bad}\n  left: {:?}\n right: {:?}",
                a[bad], b[bad]
            )
        );
        Ok(())
    })
}

#[test]
fn unchecked_kernels_keep_their_panics() -> cuprum::Result<()> {
    on_backends(|dev| {
        let stream = dev.new_stream()?;
        let n = 5000;
        let mut rng = fastrand::Rng::new();
        let mut x: Vec<i64> = (0..n).map(|_| rng.i64(0..i64::MAX)).collect();
        let bad = rng.usize(0..n);
        x[bad] = -rng.i64(1..i64::MAX);
        let dx = stream.to_device(&x)?;
        // SAFETY: the kernel reads `x[i]` only for `i < x.len()`.
        unsafe { launch!(no_negatives<<<(n as u32).div_ceil(128), 128, stream>>>(&dx)) }?;
        let p = panic_of(stream.synchronize());
        assert_eq!(p.message, format!("negative value {} at {}", x[bad], bad));
        assert_eq!(p.line, line_of("panic!(\"negative value"));
        Ok(())
    })
}

#[test]
fn unreachable_as_a_value() -> cuprum::Result<()> {
    on_backends(|dev| {
        let stream = dev.new_stream()?;
        let n = 2000;
        let mut rng = fastrand::Rng::new();
        let x: Vec<u32> = (0..n).map(|_| rng.u32(..)).collect();
        let dx = stream.to_device(&x)?;
        let mut out = stream.to_device(&vec![u32::MAX; n])?;
        launch!(classify<<<(n as u32).div_ceil(256), 256, stream>>>(&mut out, &dx, 4))?;
        stream.synchronize()?;
        let want: Vec<u32> = x
            .iter()
            .map(|v| [10, 20, 30, 40][(v % 4) as usize])
            .collect();
        assert_eq!(stream.to_host(&out)?, want);
        // A modulus above 4 reaches the last branch for some element.
        let modulus = 5 + rng.u32(0..20);
        launch!(classify<<<(n as u32).div_ceil(256), 256, stream>>>(&mut out, &dx, modulus))?;
        let p = panic_of(stream.synchronize());
        let i = global_x(&p, 256);
        assert!(x[i] % modulus >= 4);
        assert_eq!(
            p.message,
            format!(
                "internal error: entered unreachable code: remainder {} of {modulus}",
                x[i] % modulus
            )
        );
        Ok(())
    })
}

#[test]
fn debug_assert_follows_the_crates_debug_assertions() -> cuprum::Result<()> {
    on_backends(|dev| {
        let stream = dev.new_stream()?;
        let n = 600;
        let mut rng = fastrand::Rng::new();
        let mut x: Vec<i32> = (0..n).map(|_| rng.i32(0..1 << 20)).collect();
        let bad = rng.usize(0..n);
        x[bad] = -rng.i32(1..1 << 20);
        let mut dx = stream.to_device(&x)?;
        launch!(double_non_negative<<<(n as u32).div_ceil(64), 64, stream>>>(&mut dx))?;
        let result = stream.synchronize();
        if cfg!(debug_assertions) {
            let p = panic_of(result);
            assert_eq!(p.message, format!("x[{bad}] = {} is negative", x[bad]));
        } else {
            result?;
            let want: Vec<i32> = x.iter().map(|v| v * 2).collect();
            assert_eq!(stream.to_host(&dx)?, want);
        }
        Ok(())
    })
}

#[test]
fn assertions_in_device_functions_name_their_line() -> cuprum::Result<()> {
    on_backends(|dev| {
        let stream = dev.new_stream()?;
        let n = 900;
        let mut rng = fastrand::Rng::new();
        let mut x: Vec<i64> = (0..n + 1).map(|_| rng.i64(1..1 << 40)).collect();
        let dx = stream.to_device(&x)?;
        let mut out = stream.to_device(&vec![-1i64; n])?;
        launch!(pair_sums<<<(n as u32).div_ceil(128), 128, stream>>>(&mut out, &dx))?;
        stream.synchronize()?;
        let want: Vec<i64> = (0..n).map(|i| x[i] + x[i + 1]).collect();
        assert_eq!(stream.to_host(&out)?, want);
        let bad = rng.usize(0..n + 1);
        x[bad] = -rng.i64(0..1 << 40);
        let dx = stream.to_device(&x)?;
        launch!(pair_sums<<<(n as u32).div_ceil(128), 128, stream>>>(&mut out, &dx))?;
        let p = panic_of(stream.synchronize());
        assert_eq!(
            p.message,
            format!("value {} at {bad} is not positive", x[bad])
        );
        assert_eq!(p.line, line_of("assert!(v > 0"));
        let thread = global_x(&p, 128);
        assert!(thread == bad || thread + 1 == bad, "{p}");
        Ok(())
    })
}

#[test]
fn assertions_without_messages_use_rusts_default_wording() -> cuprum::Result<()> {
    on_backends(|dev| {
        let stream = dev.new_stream()?;
        let n = 500;
        let mut rng = fastrand::Rng::new();
        let mut x: Vec<i32> = (0..n).map(|_| rng.i32(14..1000)).collect();
        let bad = rng.usize(0..n);
        x[bad] = 13;
        let dx = stream.to_device(&x)?;
        for (which, message) in [
            (0, "assertion failed: x[i] != 13"),
            (1, "explicit panic"),
            (2, "internal error: entered unreachable code"),
        ] {
            launch!(plain_guards<<<4, 128, stream>>>(&dx, which))?;
            let p = panic_of(stream.synchronize());
            assert_eq!(p.message, message);
            assert_eq!(global_x(&p, 128), bad);
        }
        launch!(plain_guards<<<4, 128, stream>>>(&dx, 3))?;
        stream.synchronize()
    })
}
