//! Field-less `#[derive(DeviceCopy)]` enums in kernels against the same code run as host
//! Rust (the `#[device]` functions and methods are ordinary functions there), on random data,
//! on every backend.

use cuprum::prelude::*;
use cuprum::Error;
use cuprum_testkit::backends;

#[path = "kernels/enums.rs"]
mod kernels;
use kernels::*;

const OPS: [Op; 4] = [Op::Add, Op::Mul, Op::Sub, Op::Max];
const LEVELS: [Level; 3] = [Level::Low, Level::Mid, Level::High];

#[test]
fn enum_parameters_fields_methods_and_comparisons() -> cuprum::Result<()> {
    let mut r = fastrand::Rng::new();
    let n = 1000 + r.usize(..100);
    let xs = cuprum_testkit::random_f32(n, -1.0, 1.0);
    let ys = cuprum_testkit::random_f32(n, -1.0, 1.0);
    for device in backends()? {
        let stream = device.default_stream();
        // Every operation and level as the parameters, with a random step.
        for (k, &op) in OPS.iter().enumerate() {
            let step = Step {
                operand: r.f32() + 0.5,
                op: OPS[r.usize(..4)],
                twice: r.bool(),
                tag: r.u16(..1000),
            };
            let l = LEVELS[k % 3];
            let (dx, dy) = (stream.to_device(&xs)?, stream.to_device(&ys)?);
            let mut out = stream.to_device(&vec![f32::NAN; n])?;
            let mut codes = stream.to_device(&vec![i32::MIN; n])?;
            launch!(enum_ops<<<(n as u32).div_ceil(128), 128, stream>>>(&mut out, &mut codes, &dx, &dy, op, step, l))?;
            let (got, got_codes) = (stream.to_host(&out)?, stream.to_host(&codes)?);
            for i in 0..n {
                let mut local = op;
                if i % 2 == 1 {
                    local = local.next();
                }
                let mut v = local.apply(xs[i], ys[i]);
                if step.op != Op::Add {
                    v = step.op.apply(v, step.operand);
                }
                if step.twice && local == step.op {
                    v *= 2.0;
                }
                // The GPU may fuse `a * b` and the next operation: a few ulps.
                let tol = 1e-5 * v.abs().max(1.0);
                assert!(
                    (got[i] - v).abs() <= tol,
                    "{op:?} {step:?} {i}: {} vs {v}",
                    got[i]
                );
                let lv = level_of(xs[i]);
                let code = lv as i32 * 10
                    + weight(lv, local)
                    + (lv == l) as i32
                    + step.tag as i32
                    + op as u8 as i32;
                assert_eq!(got_codes[i], code, "{op:?} {step:?} {l:?} {i}");
            }
        }
    }
    Ok(())
}

#[test]
fn match_on_enums_in_tuples() -> cuprum::Result<()> {
    let n = 4096;
    let xs = cuprum_testkit::random_u32(n);
    let want: Vec<u32> = xs
        .iter()
        .map(|&x| {
            let op = OPS[(x % 4) as usize];
            match (op, x % 3) {
                (Op::Add, 0) => 1,
                (Op::Add | Op::Mul, k) => 10 + k,
                (Op::Sub, k) if k > 0 => 100 * k,
                (_, 0) => 1000,
                (o, _) => o as u32,
            }
        })
        .collect();
    for device in backends()? {
        let stream = device.default_stream();
        let dx = stream.to_device(&xs)?;
        let mut out = stream.to_device(&vec![u32::MAX; n])?;
        launch!(enum_match<<<(n as u32).div_ceil(256), 256, stream>>>(&mut out, &dx))?;
        assert_eq!(stream.to_host(&out)?, want);
    }
    Ok(())
}

/// What the PTX and the simulator take for an enum is the host's layout: its `repr`'s size,
/// and a struct holding one keeps `repr(C)` offsets.
#[test]
fn enum_layout_is_the_hosts() {
    use std::mem::{offset_of, size_of};
    assert_eq!(size_of::<Op>(), 1);
    assert_eq!(size_of::<Level>(), 4);
    assert_eq!(size_of::<Step>(), 8);
    assert_eq!(offset_of!(Step, op), 4);
    assert_eq!(offset_of!(Step, tag), 6);
}

/// Constants of user types (module and body, structs, tuples, enums, arrays of structs, a
/// `static` table) against the same constants on the host.
#[test]
fn constants_of_user_types() -> cuprum::Result<()> {
    const LOCAL: Step = Step {
        operand: 0.75,
        op: DEFAULT_OP,
        twice: true,
        tag: PAIR.1 as u16,
    };
    const WEIGHTS: (f32, [f32; LEN + 1]) = (2.0, [0.5, 0.25, 0.125, 0.0625]);
    let n = 2000 + fastrand::usize(..100);
    let xs = cuprum_testkit::random_f32(n, -4.0, 4.0);
    let want: Vec<f32> = (0..n)
        .map(|i| {
            let mut v = xs[i];
            for s in PROGRAM {
                v = s.op.apply(v, s.operand);
                if s.twice {
                    v *= WEIGHTS.0;
                }
            }
            let t = TABLE[i % 2];
            v = t.op.apply(v, t.operand) + LOCAL.op.apply(PAIR.0, LOCAL.operand);
            v * WEIGHTS.1[i % (LEN + 1)] + (ORIGIN.tag + LOCAL.tag + t.tag) as f32 + PAIR.1 as f32
        })
        .collect();
    for device in backends()? {
        let stream = device.default_stream();
        let dx = stream.to_device(&xs)?;
        let mut out = stream.to_device(&vec![f32::NAN; n])?;
        launch!(run_program<<<(n as u32).div_ceil(128), 128, stream>>>(&mut out, &dx))?;
        let got = stream.to_host(&out)?;
        for i in 0..n {
            let tol = 1e-5 * want[i].abs().max(1.0);
            assert!(
                (got[i] - want[i]).abs() <= tol,
                "{i}: {} vs {}",
                got[i],
                want[i]
            );
        }
    }
    Ok(())
}

/// The class of each of `xs` and, per block of 128, how the class compares with the one
/// before (what `classify` computes).
fn classify_on_host(xs: &[f32]) -> (Vec<Class>, Vec<u32>) {
    let classes: Vec<Class> = xs.iter().map(|&x| class_of(x)).collect();
    let same = (0..xs.len())
        .map(|i| {
            let before = if i % 128 == 0 {
                Class::Large
            } else {
                classes[i - 1]
            };
            match (classes[i], before) {
                (Class::Negative, Class::Negative) => 1,
                (Class::Small, Class::Small) => 2,
                (c, b) if c == b => 3,
                _ => 0,
            }
        })
        .collect();
    (classes, same)
}

/// Enums as buffer elements and in shared arrays: a kernel classifies values into a
/// `DeviceBuffer<Class>` and reads them back through a shared array of enums; the host reads
/// the buffer (checked), whole and through a view, into new and existing memory.
#[test]
fn enums_in_buffers_and_shared_arrays() -> cuprum::Result<()> {
    let n = 3000 + fastrand::usize(..200);
    let xs = cuprum_testkit::random_f32(n, -1.0, 1.0);
    let (classes_want, same_want) = classify_on_host(&xs);
    for device in backends()? {
        let stream = device.default_stream();
        let dx = stream.to_device(&xs)?;
        let mut classes = stream.to_device(&vec![Class::Small; n])?;
        let mut same = stream.alloc_zeros::<u32>(n)?;
        launch!(classify<<<(n as u32).div_ceil(128), 128, stream>>>(&mut classes, &mut same, &dx))?;
        assert_eq!(stream.to_host(&classes)?, classes_want);
        assert_eq!(stream.to_host(&same)?, same_want);
        let half = n / 2;
        let mut back = vec![Class::Large; n - half];
        stream.copy_to_host(&classes.slice(half..), &mut back)?;
        assert_eq!(back, classes_want[half..]);
        // The discriminants, as integers.
        let codes: Vec<u8> = classes_want.iter().map(|&c| c as u8).collect();
        assert_eq!(stream.to_host(&classes.as_repr())?, codes);
        // Views of enum buffers as kernel arguments: the second half again, as its own grid.
        let (tail_classes, tail_same) = classify_on_host(&xs[half..]);
        let m = (n - half) as u32;
        launch!(classify<<<m.div_ceil(128), 128, stream>>>(&mut classes.slice_mut(half..), &mut same.slice_mut(half..), &dx.slice(half..)))?;
        assert_eq!(stream.to_host(&classes.slice(half..))?, tail_classes);
        assert_eq!(stream.to_host(&same.slice(half..))?, tail_same);
        assert_eq!(
            stream.to_host(&classes.slice(..half))?,
            classes_want[..half]
        );
    }
    Ok(())
}

/// `&[Op]` and `&mut [Op]` kernel parameters, and a shared array of enums read at other
/// threads' positions.
#[test]
fn enum_slices_and_a_shared_array_of_enums() -> cuprum::Result<()> {
    let mut r = fastrand::Rng::new();
    let n = 2000 + r.usize(..300);
    let xs = cuprum_testkit::random_f32(n, -2.0, 2.0);
    let ops: Vec<Op> = (0..n).map(|_| OPS[r.usize(..4)]).collect();
    let mut want = vec![f32::NAN; n];
    for (i, w) in want.iter_mut().enumerate() {
        let src = i / 128 * 128 + 127 - i % 128;
        if src < n {
            *w = ops[src].apply(xs[i], 1.5);
        }
    }
    let next_want: Vec<Op> = ops.iter().map(Op::next).collect();
    for device in backends()? {
        let stream = device.default_stream();
        let (dops, dx) = (stream.to_device(&ops)?, stream.to_device(&xs)?);
        let mut out = stream.to_device(&vec![f32::NAN; n])?;
        let mut next = stream.to_device(&vec![Op::Add; n])?;
        launch!(apply_reversed<<<(n as u32).div_ceil(128), 128, stream>>>(&mut out, &mut next, &dops, &dx))?;
        let got = stream.to_host(&out)?;
        for i in 0..n {
            let same =
                got[i] == want[i] || (got[i] - want[i]).abs() <= 1e-5 * want[i].abs().max(1.0);
            assert!(
                same || (got[i].is_nan() && want[i].is_nan()),
                "{i}: {} vs {}",
                got[i],
                want[i]
            );
        }
        assert_eq!(stream.to_host(&next)?, next_want);
    }
    Ok(())
}

/// A buffer of structs holding an enum: whole elements read, fields and `&mut self` methods
/// written in place, read back (checked) on the host.
#[test]
fn structs_holding_enums_in_buffers() -> cuprum::Result<()> {
    let mut r = fastrand::Rng::new();
    let n = 1500 + r.usize(..300);
    let xs = cuprum_testkit::random_f32(n, -1.0, 1.0);
    let steps: Vec<Step> = (0..n)
        .map(|_| Step {
            operand: r.f32() + 0.5,
            op: OPS[r.usize(..4)],
            twice: r.bool(),
            tag: r.u16(..1000),
        })
        .collect();
    let mut out_want = Vec::with_capacity(n);
    let mut steps_want = steps.clone();
    for (s, &x) in steps_want.iter_mut().zip(&xs) {
        let mut v = s.op.apply(x, s.operand);
        if s.twice {
            v *= 2.0;
        }
        out_want.push(v);
        s.op = s.op.next();
        s.tag += 1;
        s.advance();
    }
    for device in backends()? {
        let stream = device.default_stream();
        let mut ds = stream.to_device(&steps)?;
        let dx = stream.to_device(&xs)?;
        let mut out = stream.to_device(&vec![f32::NAN; n])?;
        launch!(run_steps<<<(n as u32).div_ceil(256), 256, stream>>>(&mut ds, &mut out, &dx))?;
        let got = stream.to_host(&out)?;
        for i in 0..n {
            let tol = 1e-5 * out_want[i].abs().max(1.0);
            assert!(
                (got[i] - out_want[i]).abs() <= tol,
                "{i}: {} vs {}",
                got[i],
                out_want[i]
            );
        }
        assert_eq!(stream.to_host(&ds)?, steps_want);
    }
    Ok(())
}

/// What `Op`'s discriminant `bits` is, if it is one.
fn op_of(bits: u8) -> Option<Op> {
    OPS.into_iter().find(|&o| o as u8 == bits)
}

/// Integers that are no variant, written by a kernel through the buffer's integer view, are
/// never read as enums: every host copy is `Err` naming the first such element and its bits
/// (and leaves existing memory unchanged). A kernel reading them is defined on both backends:
/// the simulator (which runs the user's own enum) stops with a report; on a GPU the value is
/// the integer, and `match` takes its last arm.
#[test]
fn integers_that_are_no_variant_are_never_read_as_enums() -> cuprum::Result<()> {
    let n = 1000 + fastrand::usize(..100);
    // Mostly discriminants, so that the first integer that is none is somewhere inside.
    let raw: Vec<u32> = (0..n)
        .map(|_| {
            if fastrand::u32(..8) == 0 {
                fastrand::u32(..)
            } else {
                [0, 5, 6, 7][fastrand::usize(..4)]
            }
        })
        .collect();
    let codes: Vec<u8> = raw.iter().map(|&x| (x % 256) as u8).collect();
    let first = codes.iter().position(|&c| op_of(c).is_none());
    let xs = cuprum_testkit::random_f32(n, -2.0, 2.0);
    let ops_valid: Vec<Op> = (0..n).map(|_| OPS[fastrand::usize(..4)]).collect();
    for device in backends()? {
        let stream = device.default_stream();
        let dops = stream.to_device(&ops_valid)?;
        let mut ops = stream.to_device(&vec![Op::Sub; n])?;
        let draw = stream.to_device(&raw)?;
        launch!(write_codes<<<(n as u32).div_ceil(128), 128, stream>>>(&mut ops.as_repr_mut(), &draw))?;
        assert_eq!(stream.to_host(&ops.as_repr())?, codes);
        let Some(first) = first else {
            assert_eq!(
                stream.to_host(&ops)?,
                codes.iter().map(|&c| op_of(c).unwrap()).collect::<Vec<_>>()
            );
            continue;
        };
        let expect_err = |r: cuprum::Result<()>, at: usize| match r {
            Err(Error::NotAVariant {
                index,
                ty,
                value,
                repr,
            }) => {
                assert_eq!(
                    (index, ty, value, repr),
                    (at, "Op", codes[first] as i128, "u8")
                );
            }
            other => panic!("expected NotAVariant at {at}, got {other:?}"),
        };
        expect_err(stream.to_host(&ops).map(|_| ()), first);
        let mut back = vec![Op::Max; n];
        expect_err(stream.copy_to_host(&ops, &mut back), first);
        assert!(
            back.iter().all(|&o| o == Op::Max),
            "a failed copy leaves the memory as it was"
        );
        // Through a view starting at the bad element, it is element 0.
        expect_err(stream.to_host(&ops.slice(first..)).map(|_| ()), 0);
        // A copy between buffers moves the bits, and reading the copy checks them.
        let mut copied = stream.to_device(&vec![Op::Add; n])?;
        stream.copy(&ops, &mut copied)?;
        expect_err(stream.to_host(&copied).map(|_| ()), first);
        assert_eq!(stream.to_host(&copied.as_repr())?, codes);
        // Nothing hands the memory on unchecked: no pinned copies, no cudarc slice.
        let mut pinned = device.alloc_pinned::<Op>(n)?;
        assert!(matches!(
            stream.copy_to_host(&ops, &mut pinned),
            Err(Error::Unsupported(_))
        ));
        assert!(ops.cuda_slice().is_none() && ops.cuda_slice_mut().is_none());
        // On valid elements, a `match` whose guarded last arm no variant reaches.
        let mut ranks = stream.to_device(&vec![0u32; n])?;
        launch!(guarded_last<<<(n as u32).div_ceil(128), 128, stream>>>(&mut ranks, &dops, 100))?;
        let ranks_want: Vec<u32> = ops_valid
            .iter()
            .map(|o| match o {
                Op::Add | Op::Mul => 1,
                _ => 2,
            })
            .collect();
        assert_eq!(stream.to_host(&ranks)?, ranks_want);
        // Over the integers that are none, it stops on both backends: the simulator at the
        // read, a GPU at the `match` (never looping).
        let stopped =
            launch!(guarded_last<<<(n as u32).div_ceil(128), 128, stream>>>(&mut ranks, &ops, 100))
                .and_then(|_| stream.synchronize());
        match stopped {
            Err(Error::KernelPanic(p)) => assert!(p.message.contains("no variant"), "{p}"),
            other => panic!("expected a stop, got {other:?}"),
        }
        // Kernels reading them.
        let dx = stream.to_device(&xs)?;
        let mut out = stream.to_device(&vec![f32::NAN; n])?;
        let mut next = stream.to_device(&vec![Op::Add; n])?;
        let run = launch!(apply_reversed<<<(n as u32).div_ceil(128), 128, stream>>>(&mut out, &mut next, &ops, &dx))
            .and_then(|_| stream.synchronize());
        if device.is_simulator() {
            match run {
                Err(Error::KernelPanic(p)) => {
                    assert!(p.message.contains("no variant of `Op`"), "{p}")
                }
                other => panic!("expected the simulator to stop, got {other:?}"),
            }
        } else {
            run?;
            // The integer as it is: a `match` tests `Add`, `Mul`, `Sub` and takes `Max` else.
            let as_gpu = |c: u8| op_of(c).unwrap_or(Op::Max);
            let got = stream.to_host(&out)?;
            for i in 0..n {
                let src = i / 128 * 128 + 127 - i % 128;
                if src < n {
                    let w = as_gpu(codes[src]).apply(xs[i], 1.5);
                    assert!(
                        (got[i] - w).abs() <= 1e-5 * w.abs().max(1.0),
                        "{i}: {} vs {w}",
                        got[i]
                    );
                }
            }
            let next_want: Vec<Op> = codes
                .iter()
                .map(|&c| match op_of(c) {
                    Some(o) => o.next(),
                    None => Op::Add,
                })
                .collect();
            assert_eq!(stream.to_host(&next)?, next_want);
        }
    }
    Ok(())
}

/// The host's check recurses into fields at their offsets: a `Step` whose `op` byte is no
/// discriminant is refused, whatever its other fields (including a `twice` byte), and a
/// valid one is read as it is.
#[test]
fn checks_recurse_into_struct_fields() {
    use cuprum::__private::sim::{SimSlice, SimValue};
    use std::mem::{align_of, size_of};
    const { assert!(<Step as SimValue>::CHECKED && <[Op; 3] as SimValue>::CHECKED) };
    const { assert!(!<[f32; 4] as SimValue>::CHECKED && !<bool as SimValue>::CHECKED) };
    let n = 64;
    let steps: Vec<Step> = (0..n)
        .map(|i| Step {
            operand: fastrand::f32(),
            op: OPS[i % 4],
            twice: fastrand::bool(),
            tag: fastrand::u16(..),
        })
        .collect();
    let bad = fastrand::usize(..n);
    let code = loop {
        let c = fastrand::u8(..);
        if op_of(c).is_none() {
            break c;
        }
    };
    // Plain words with `Step`'s size and alignment: the memory is never a `Step` at rest.
    let mut mem = vec![[0u32; 2]; n];
    assert_eq!((size_of::<Step>(), align_of::<Step>()), (8, 4));
    // SAFETY: each `Step` is written into its own 8 bytes, aligned to 4; `op` is the byte at
    // offset 4 (`enum_layout_is_the_hosts`); the words are only read through the checked view.
    unsafe {
        let p = mem.as_mut_ptr().cast::<u8>();
        for (i, s) in steps.iter().enumerate() {
            p.cast::<Step>().add(i).write(*s);
        }
        *p.add(bad * 8 + 4) = code;
        let view = SimSlice::<Step>::from_host(p, n);
        let (index, e) = view.to_vec().unwrap_err();
        assert_eq!(
            (index, e.ty, e.value, e.repr),
            (bad, "Op", code as i128, "u8")
        );
        *p.add(bad * 8 + 4) = Op::Mul as u8;
        let mut want = steps.clone();
        want[bad].op = Op::Mul;
        assert_eq!(view.to_vec().unwrap(), want);
    }
}
