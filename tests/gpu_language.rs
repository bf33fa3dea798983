//! The statement and expression subset of the kernel language, construct by construct: each body runs
//! as a kernel (one thread per element) and as ordinary Rust on the CPU, on fresh random
//! inputs, and the results must agree exactly (integer) or to the last bit where no
//! contraction applies.

use cuprum::prelude::*;
use cuprum_testkit::device;

/// Defines, in a module `$name`, a kernel `kernel(out, x)` computing `out[i] = body(x[i])` and
/// the same body as a host function `host(x) -> r`.
macro_rules! elementwise {
    ($name:ident, |$v:ident: $t:ty| -> $r:ty $body:block) => {
        mod $name {
            #[allow(unused_imports)]
            use super::*;

            #[kernel]
            pub fn kernel(out: &mut [$r], x: &[$t]) {
                let i = gpu::global_id_x();
                if i < x.len() {
                    let $v = x[i];
                    out[i] = $body;
                }
            }

            #[allow(unused_mut, unused_parens, clippy::all)]
            pub fn host($v: $t) -> $r $body
        }
    };
}

elementwise!(arithmetic, |v: i32| -> i32 {
    let a = v.wrapping_mul(3) - 7;
    let b = a / 5 + a % 5;
    let c = (b << 2) ^ (b >> 1) | (a & 0xff);
    -c + !a
});

elementwise!(unsigned_ops, |v: u32| -> u32 {
    let a = v / 3 + v % 7;
    let b = (a << 5) >> 3;
    b.wrapping_sub(v).wrapping_add(17) ^ !a
});

elementwise!(float_ops, |v: f32| -> f32 {
    let a = v * 0.5 - 1.25;
    let b = (a / 3.0) % 1.5;
    let c = if b < 0.0 { -b } else { b };
    c.max(0.125).min(0.75).abs().floor() + c.sqrt().ceil() + (-a).trunc() + a.round()
});

elementwise!(comparisons_and_logic, |v: i32| -> u32 {
    let mut flags = 0u32;
    if v > 0 && v % 2 == 0 {
        flags |= 1;
    }
    if v < -100 || v >= 1000 {
        flags |= 2;
    }
    if !(v != 5) {
        flags |= 4;
    }
    if v <= 7 {
        flags |= 8;
    }
    let t = true;
    let f = v == 12345;
    if (t ^ f) & !f | f {
        flags |= 16;
    }
    flags
});

elementwise!(casts, |v: i32| -> i64 {
    let a = v as u8 as i64;
    let b = v as i16 as i64;
    let c = (v as f32 * 0.37) as i64;
    let d = (v as f64 / 7.5) as u16 as i64;
    let e = (v > 0) as i64;
    let f = (v as u32 as u64 as usize) as i64;
    let g = (v as f32 * 1e30) as i32 as i64; // saturates like Rust
    a + b * 3 + c * 5 + d * 7 + e * 11 + f * 13 + g
});

elementwise!(shadowing_and_blocks, |v: i32| -> i32 {
    let x = v;
    let x = x + 1;
    let y = {
        let x = x * 2;
        x - 3
    };
    let z = if y > 10 {
        y - 10
    } else if y < -10 {
        y + 10
    } else {
        0
    };
    x + y + z
});

elementwise!(compound_assignment, |v: u64| -> u64 {
    let mut a = v;
    a += 3;
    a -= 1;
    a *= 7;
    a /= 3;
    a %= 1_000_003;
    a <<= 3;
    a >>= 1;
    a &= 0xffff_ffff;
    a |= 0x100;
    a ^= 0x55;
    a
});

elementwise!(while_loop, |v: u32| -> u32 {
    // Collatz steps, capped.
    let mut n = v % 1000 + 1;
    let mut steps = 0u32;
    while n != 1 && steps < 500 {
        n = if n % 2 == 0 { n / 2 } else { 3 * n + 1 };
        steps += 1;
    }
    steps
});

elementwise!(loop_break_value, |v: i32| -> i32 {
    let mut k = 0;
    let found = loop {
        k += 1;
        if k * k > v.abs() % 5000 {
            break k;
        }
    };
    found
});

elementwise!(for_ranges, |v: u32| -> u64 {
    let n = (v % 50) as u64;
    let mut s = 0u64;
    for i in 0..n {
        s += i * i;
    }
    for i in 3..=n {
        s += i;
    }
    for i in (1..n).step_by(3) {
        s ^= i << 2;
    }
    for i in (0..=n).step_by(4) {
        s += i * 7;
    }
    for _ in 0..0 {
        s += 1000;
    }
    s
});

elementwise!(signed_ranges, |v: i32| -> i32 {
    let lo = -(v % 20).abs();
    let hi = v % 17;
    let mut s = 0;
    for i in lo..hi {
        s += i;
    }
    for i in (lo..=hi).step_by(2) {
        s -= i * 3;
    }
    s
});

elementwise!(break_continue_labels, |v: u32| -> u32 {
    let mut count = 0u32;
    'outer: for i in 0..(v % 20) {
        for j in 0..10u32 {
            if j == 7 {
                continue 'outer;
            }
            if i * j > 40 {
                break 'outer;
            }
            if (i + j) % 3 == 0 {
                continue;
            }
            count += i * 10 + j;
        }
    }
    count
});

elementwise!(early_return_value, |v: i32| -> i32 {
    let mut acc = v;
    let mut i = 0;
    while i < 10 {
        acc = acc.wrapping_mul(3).wrapping_add(1);
        if acc % 11 == 0 {
            acc = -acc;
            i = 10;
        }
        i += 1;
    }
    acc
});

elementwise!(local_arrays, |v: u32| -> u32 {
    let mut a = [0u32; 8];
    for i in 0..8 {
        a[i] = v.wrapping_mul(i as u32 + 1) % 97;
    }
    let b = [1u32, 2, 3, 4];
    let mut s = 0;
    for i in 0..a.len() {
        s += a[i] * b[i % 4];
    }
    let idx = (v % 8) as usize;
    s + a[idx]
});

elementwise!(tuples, |v: i64| -> i64 {
    let t = (v, v * 2, (v & 1) == 1);
    let (a, b, odd) = t;
    let mut pair = (a - b, 0i64);
    pair.1 = if odd { 7 } else { -7 };
    let (p, _) = pair;
    p + pair.1 + t.1
});

elementwise!(float64, |v: f64| -> f64 {
    let x = v * 1e-3;
    let mut acc = 1.0;
    let mut term = 1.0;
    for k in 1..12 {
        term = term * x / k as f64;
        acc = acc + term;
    }
    acc.mul_add(2.0, -1.0)
});

elementwise!(narrow_ints, |v: i8| -> i16 {
    let a = v.wrapping_add(100) as i16;
    let b = (v as u8 / 3) as i16;
    let c = v.max(-5).min(90) as i16;
    a * 2 - b + c
});

elementwise!(bools, |v: bool| -> bool {
    let a = !v;
    (a || v) && (a != v)
});

/// Results compare exactly, except floats, which may differ by 2 ulps where the GPU contracts
/// `a * b + c` into one FMA (rounding once where the CPU rounds twice).
trait Close {
    fn close(self, other: Self) -> bool;
}

macro_rules! exact {
    ($($t:ty),*) => {$(impl Close for $t { fn close(self, other: Self) -> bool { self == other } })*};
}
exact!(bool, i8, i16, i32, i64, u8, u16, u32, u64);

impl Close for f32 {
    fn close(self, other: Self) -> bool {
        cuprum_testkit::ulps_f32(self, other) <= 2
    }
}

impl Close for f64 {
    fn close(self, other: Self) -> bool {
        cuprum_testkit::ulps_f64(self, other) <= 2
    }
}

fn inputs<T>(n: usize, mut f: impl FnMut(&mut fastrand::Rng) -> T) -> Vec<T> {
    let mut rng = fastrand::Rng::new();
    (0..n).map(|_| f(&mut rng)).collect()
}

macro_rules! check {
    ($test:ident, $name:ident, $gen:expr, $poison:expr) => {
        #[test]
        fn $test() -> cuprum::Result<()> {
            // On the GPU host: the GPU and the simulator, each against the CPU.
            for dev in cuprum_testkit::backends()? {
                let stream = dev.default_stream();
                let n = 4099;
                let x = inputs(n, $gen);
                let dx = stream.to_device(&x)?;
                let mut out = stream.to_device(&vec![$poison; n])?;
                launch!($name::kernel<<<LaunchConfig::for_elements(n, 128).grid, 128, stream>>>(&mut out, &dx))?;
                let got = stream.to_host(&out)?;
                for (i, (&v, &g)) in x.iter().zip(&got).enumerate() {
                    let want = $name::host(v);
                    assert!(Close::close(g, want), "{} on {}: element {i}, input {v:?}: kernel {g:?}, CPU {want:?}", stringify!($name), dev.name());
                }
            }
            Ok(())
        }
    };
}

check!(
    arithmetic_matches,
    arithmetic,
    |r| r.i32(-1_000_000..1_000_000),
    i32::MIN
);
check!(unsigned_ops_match, unsigned_ops, |r| r.u32(..), 0xdead_beef);
check!(
    float_ops_match,
    float_ops,
    |r| r.f32() * 200.0 - 100.0,
    f32::NAN
);
check!(
    comparisons_and_logic_match,
    comparisons_and_logic,
    |r| r.i32(-2000..2000),
    0xdead_beef
);
check!(casts_match, casts, |r| r.i32(..), i64::MIN);
check!(
    shadowing_and_blocks_match,
    shadowing_and_blocks,
    |r| r.i32(-100..100),
    i32::MIN
);
check!(
    compound_assignment_matches,
    compound_assignment,
    |r| r.u64(..u64::MAX / 16),
    u64::MAX
);
check!(while_loop_matches, while_loop, |r| r.u32(..), u32::MAX);
check!(
    loop_break_value_matches,
    loop_break_value,
    |r| r.i32(..),
    i32::MIN
);
check!(for_ranges_match, for_ranges, |r| r.u32(..), u64::MAX);
check!(signed_ranges_match, signed_ranges, |r| r.i32(..), i32::MIN);
check!(
    break_continue_labels_match,
    break_continue_labels,
    |r| r.u32(..),
    u32::MAX
);
check!(
    early_return_value_matches,
    early_return_value,
    |r| r.i32(..),
    i32::MIN
);
check!(local_arrays_match, local_arrays, |r| r.u32(..), u32::MAX);
check!(
    tuples_match,
    tuples,
    |r| r.i64(-1_000_000..1_000_000),
    i64::MIN
);
check!(float64_matches, float64, |r| r.f64() * 10.0 - 5.0, f64::NAN);
check!(narrow_ints_match, narrow_ints, |r| r.i8(..), i16::MIN);
check!(bools_match, bools, |r| r.bool(), false);

// `match` on integers: literals, `|`, ranges (negative, open, with constants), bindings,
// `name @ range`, guards, as an expression and as a statement.
elementwise!(match_integers, |v: i32| -> i32 {
    let a = match v % 9 {
        0 => 10,
        1 | 2 => 20,
        3..=4 => v / 3,
        -3..=-1 => -100,
        small @ -8..-3 => small * 2,
        x if x > 6 => x + 1000,
        _ => 99,
    };
    let mut b = 0;
    match v {
        i32::MIN..=-1_000_000 => b += 1,
        -999_999..=0 => b += 2,
        1..=999_999 => {}
        1_000_000.. => b -= 5,
    }
    a + b
});

// `match` on `bool`, on tuples (with `..` and nested ranges), exhaustive without `_`.
elementwise!(match_tuples, |v: u32| -> u32 {
    let a = v % 3;
    let odd = v & 1 == 1;
    let t = match (a, odd) {
        (0, true) => 1,
        (0, false) => 2,
        (1, _) => 3,
        (x, true) => x * 10,
        (_, false) => 5,
    };
    let u = match (v % 5, (v >> 3) % 4, v % 2 == 0) {
        (0..=1, 0, ..) => 7,
        (k @ 2..=4, 1..=2, true) => k * 100,
        (_, m, flag) if flag && m == 3 => 11,
        _ => 13,
    };
    let w = match odd {
        true => 1000,
        false => 2000,
    };
    t + u + w
});

// An exhaustive `match` on a `u8` by ranges alone, and one on floats.
elementwise!(match_ranges_and_floats, |v: u8| -> f32 {
    let q = match v {
        0..=63 => 1.0f32,
        64..=127 => 2.0,
        128..=191 => 3.0,
        192..=u8::MAX => 4.0,
    };
    let f = v as f32 * 0.5;
    let g = match f {
        0.0 => -1.0,
        x if x < 10.0 => x,
        10.0..=50.0 => 50.0,
        _ => 0.25,
    };
    q + g
});
check!(
    match_integers_matches,
    match_integers,
    |r| match r.u8(..4) {
        0 => r.i32(..),
        _ => r.i32(-20..20),
    },
    i32::MIN
);
check!(match_tuples_matches, match_tuples, |r| r.u32(..), u32::MAX);

// `let x;` assigned later: in both branches of an `if`, in every arm of a `match`, in a
// branch whose other side leaves the loop, with and without a written type, as a tuple.
elementwise!(deferred_lets, |v: i32| -> i64 {
    let a;
    if v > 0 {
        a = v as i64 * 2;
    } else {
        a = -(v as i64);
    }
    let b: f32;
    match v % 3 {
        0 => b = 1.5,
        1 | -1 => b = 2.5,
        _ => {
            let t = v as f32;
            b = t * 0.5;
        }
    }
    let mut c = 0;
    let mut d = 0u8;
    for k in 0..3 {
        let ck;
        let mut dk;
        if (v + k) % 2 == 0 {
            ck = 7;
            dk = 1u8;
        } else {
            continue;
        }
        dk += 1;
        c += ck;
        d += dk;
    }
    let (e, f);
    e = 3i64;
    f = e * 2;
    a + b as i64 + c + d as i64 + e + f
});
check!(
    deferred_lets_match,
    deferred_lets,
    |r| r.i32(-1_000_000..1_000_000),
    i64::MIN
);
check!(
    match_ranges_and_floats_matches,
    match_ranges_and_floats,
    |r| r.u8(..),
    f32::NAN
);

/// Early `return` from a kernel: threads past the end leave before touching memory.
#[kernel]
pub fn early_return(out: &mut [u32], x: &[u32], limit: u32) {
    let i = gpu::global_id_x();
    if i >= x.len() {
        return;
    }
    if x[i] > limit {
        out[i] = 1;
        return;
    }
    out[i] = 2;
}

#[test]
fn early_return_leaves_the_kernel() -> cuprum::Result<()> {
    let dev = device()?;
    let stream = dev.default_stream();
    let n = 3001;
    let x = inputs(n, |r| r.u32(1..1000));
    let limit = 500;
    let dx = stream.to_device(&x)?;
    let mut out = stream.to_device(&vec![7u32; n + 100])?;
    // The grid is larger than `x`: the extra threads must return without writing.
    launch!(early_return<<<40, 128, stream>>>(&mut out, &dx, limit))?;
    let got = stream.to_host(&out)?;
    for i in 0..n {
        assert_eq!(got[i], if x[i] > limit { 1 } else { 2 }, "element {i}");
    }
    assert!(
        got[n..].iter().all(|&v| v == 7),
        "threads past the end wrote"
    );
    Ok(())
}
