//! Field-less `#[derive(DeviceCopy)]` enums in kernels against the same code run as host
//! Rust (the `#[device]` functions and methods are ordinary functions there), on random data,
//! on every backend.

use cuprum::prelude::*;
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
