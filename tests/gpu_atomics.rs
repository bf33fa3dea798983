//! Every atomic on every type it supports, at every scope, on global and shared places,
//! checked against what the CPU computes; each returns the old value.

use cuprum::prelude::*;

#[path = "kernels/atomics.rs"]
mod kernels;
use kernels::*;

macro_rules! check_int {
    ($test:ident, $kernel:ident, $t:ty, $lo:expr, $hi:expr) => {
        #[test]
        fn $test() -> cuprum::Result<()> {
            // On the GPU host: the GPU and the simulator, each against the CPU.
            for dev in cuprum_testkit::backends()? {
            let stream = dev.default_stream();
            let n = 777;
            let mut r = fastrand::Rng::new();
            let v: Vec<$t> = (0..n).map(|_| r.i64($lo..$hi) as $t).collect();
            let init: Vec<$t> = vec![5, 5, <$t>::MAX, <$t>::MIN, !0, 0, 0, 0, 0, 1, 2, <$t>::MIN, <$t>::MAX, 990, 3, 7, 0];
            let mut acc = stream.to_device(&init)?;
            let mut olds = stream.to_device(&vec![0 as $t; n])?;
            let dv = stream.to_device(&v)?;
            launch!($kernel<<<7, 128, stream>>>(&mut acc, &mut olds, &dv))?;
            let got = stream.to_host(&acc)?;
            let olds = stream.to_host(&olds)?;
            let sum = v.iter().fold(0 as $t, |a, &x| a.wrapping_add(x));
            let inc = |start: $t| (0..n).fold(start, |o, _| if (o as u64) >= 1000 { 0 } else { o + 1 });
            let dec = |start: $t| (0..n).fold(start, |o, _| if o == 0 || (o as u64) > 1000 { 1000 } else { o - 1 });
            assert_eq!(got[0], init[0].wrapping_add(sum), "add");
            assert_eq!(got[1], init[1].wrapping_sub(sum), "sub");
            assert_eq!(got[2], *v.iter().min().unwrap(), "min");
            assert_eq!(got[3], *v.iter().max().unwrap(), "max");
            assert_eq!(got[4], v.iter().fold(init[4], |a, &x| a & x), "and");
            assert_eq!(got[5], v.iter().fold(0, |a, &x| a | x), "or");
            assert_eq!(got[6], v.iter().fold(0, |a, &x| a ^ x), "xor");
            assert_eq!(got[7], inc(0), "inc");
            assert_eq!(got[8], dec(0), "dec");
            assert_eq!(got[9], init[9].wrapping_add(sum), "add_block");
            assert_eq!(got[10], init[10].wrapping_add(sum), "add_system");
            assert_eq!(got[11], *v.iter().max().unwrap(), "max_system");
            assert_eq!(got[12], *v.iter().min().unwrap(), "min_block");
            assert_eq!(got[13], inc(990), "inc_system");
            // exch: the values returned and the final value form one chain through all writes.
            let mut seen: Vec<$t> = olds.clone();
            seen.push(got[14]);
            let mut expect: Vec<$t> = v.clone();
            expect.push(3);
            seen.sort();
            expect.sort();
            assert_eq!(seen, expect, "exch returns every old value exactly once");
            assert!(v.contains(&got[15]) && got[16] == got[15], "cas: one winner, {} {}", got[15], got[16]);
            }
            Ok(())
        }
    };
}

check_int!(int32_atomics, atomics_i32, i32, -100_000, 100_000);
check_int!(uint32_atomics, atomics_u32, u32, 1, 1_000_000);
check_int!(int64_atomics, atomics_i64, i64, -(1 << 40), 1 << 40);
check_int!(uint64_atomics, atomics_u64, u64, 1, 1 << 40);

macro_rules! check_float {
    ($test:ident, $kernel:ident, $t:ty) => {
        #[test]
        fn $test() -> cuprum::Result<()> {
            // On the GPU host: the GPU and the simulator, each against the CPU.
            for dev in cuprum_testkit::backends()? {
            let stream = dev.default_stream();
            let n = 500;
            let mut r = fastrand::Rng::new();
            // Multiples of 1/8 with small magnitude: every partial sum is exact, in any order.
            let v: Vec<$t> = (0..n).map(|_| r.i32(-800..800) as $t / 8.0).map(|x| if x == 0.0 { 0.125 } else { x }).collect();
            let init: Vec<$t> = vec![1.0, 1.0, <$t>::INFINITY, <$t>::NEG_INFINITY, 0.5, 0.25, <$t>::MIN, <$t>::MAX, 3.0, 3.0];
            let mut acc = stream.to_device(&init)?;
            let mut olds = stream.to_device(&vec![0.0 as $t; n])?;
            let dv = stream.to_device(&v)?;
            launch!($kernel<<<4, 128, stream>>>(&mut acc, &mut olds, &dv))?;
            let got = stream.to_host(&acc)?;
            let olds = stream.to_host(&olds)?;
            let sum: $t = v.iter().sum();
            let min = v.iter().cloned().fold(<$t>::INFINITY, <$t>::min);
            let max = v.iter().cloned().fold(<$t>::NEG_INFINITY, <$t>::max);
            assert_eq!(got[0], 1.0 + sum, "add");
            assert_eq!(got[1], 1.0 - sum, "sub");
            assert_eq!((got[2], got[3]), (min, max), "min/max");
            assert_eq!((got[4], got[5]), (0.5 + sum, 0.25 + sum), "scoped add");
            assert_eq!((got[6], got[7]), (max, min), "scoped max/min");
            let mut seen: Vec<$t> = olds.clone();
            seen.push(got[8]);
            let mut expect = v.clone();
            expect.push(3.0);
            seen.sort_by(|a, b| a.total_cmp(b));
            expect.sort_by(|a, b| a.total_cmp(b));
            assert_eq!(seen, expect, "exch returns every old value exactly once");
            assert!(v.contains(&got[9]), "exch_system");
            }
            Ok(())
        }
    };
}

check_float!(f32_atomics, atomics_f32, f32);
check_float!(f64_atomics, atomics_f64, f64);

#[test]
fn atomics_on_shared_memory() -> cuprum::Result<()> {
    // On the GPU host: the GPU and the simulator, each against the CPU.
    for dev in cuprum_testkit::backends()? {
        let stream = dev.default_stream();
        let n = 3000;
        let mut r = fastrand::Rng::new();
        let v: Vec<u32> = (0..n).map(|_| r.u32(1..100_000)).collect();
        let dv = stream.to_device(&v)?;
        let mut out = stream.to_device(&[0u64, 0, u64::MAX, 0, 0])?;
        launch!(shared_atomics<<<12, 256, stream>>>(&mut out, &dv))?;
        let got = stream.to_host(&out)?;
        let bits = v.iter().fold(0u64, |a, &x| a | 1u64 << (x as u64 % 64));
        assert_eq!(
            got,
            vec![
                v.iter().map(|&x| x as u64).sum(),
                *v.iter().max().unwrap() as u64,
                *v.iter().min().unwrap() as u64,
                bits,
                v.iter().map(|&x| x as u64).sum(),
            ]
        );
    }
    Ok(())
}

/// `gpu::atomic_load`: the last block adds the sums the other blocks published (each read
/// with a relaxed load), and each thread halves its element of `scaled`, read with one.
#[test]
fn relaxed_loads_see_other_blocks_writes() -> cuprum::Result<()> {
    for dev in cuprum_testkit::backends()? {
        let stream = dev.default_stream();
        let (n, blocks) = (5000usize, 20usize);
        let mut r = fastrand::Rng::new();
        let v: Vec<u32> = (0..n).map(|_| r.u32(1..100_000)).collect();
        let f: Vec<f32> = (0..n).map(|_| r.f32() * 100.0 - 50.0).collect();
        let dv = stream.to_device(&v)?;
        let mut scaled = stream.to_device(&f)?;
        let mut total = stream.alloc_zeros::<u64>(1)?;
        let mut sums = stream.alloc_zeros::<u64>(blocks)?;
        let mut done = stream.alloc_zeros::<u32>(1)?;
        launch!(relaxed_loads<<<blocks as u32, 256, stream>>>(
            &mut total, &mut sums, &mut done, &mut scaled, &dv
        ))?;
        let want: Vec<u64> = v
            .chunks(256)
            .map(|c| c.iter().map(|&x| x as u64).sum())
            .collect();
        assert_eq!(stream.to_host(&sums)?, want, "{dev:?}: published sums");
        assert_eq!(
            stream.to_host(&total)?,
            [want.iter().sum::<u64>()],
            "{dev:?}: total"
        );
        let halves: Vec<f32> = f.iter().map(|&x| 0.5 * x).collect();
        assert_eq!(stream.to_host(&scaled)?, halves, "{dev:?}: halved");
    }
    Ok(())
}
