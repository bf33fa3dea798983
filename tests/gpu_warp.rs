//! Warp operations: the four shuffles on every type, votes, match, activemask, sync_warp, and
//! the barrier reductions.

use cuprum::prelude::*;

#[path = "kernels/warp.rs"]
mod kernels;
use kernels::*;

macro_rules! check_shfl {
    ($test:ident, $kernel:ident, $t:ty, $gen:expr) => {
        #[test]
        fn $test() -> cuprum::Result<()> {
            // On the GPU host: the GPU and the simulator, each against the CPU.
            for dev in cuprum_testkit::backends()? {
            let stream = dev.default_stream();
            let n = 256;
            let mut r = fastrand::Rng::new();
            let v: Vec<$t> = (0..n).map(|_| $gen(&mut r)).collect();
            let src: Vec<u32> = (0..n).map(|_| r.u32(0..32)).collect();
            let (dv, ds) = (stream.to_device(&v)?, stream.to_device(&src)?);
            let mut out = stream.alloc_zeros::<$t>(4 * n)?;
            launch!($kernel<<<2, 128, stream>>>(&mut out, &dv, &ds))?;
            let got = stream.to_host(&out)?;
            for i in 0..n {
                let (warp, lane) = (i / 32 * 32, i % 32);
                let want = [
                    v[warp + src[i] as usize],
                    if lane >= 3 { v[i - 3] } else { v[i] },
                    if lane + 5 < 32 { v[i + 5] } else { v[i] },
                    v[warp + (lane ^ 1)],
                ];
                for k in 0..4 {
                    assert_eq!(got[4 * i + k].to_bits(), want[k].to_bits(), "thread {i}, shuffle {k}");
                }
            }
            }
            Ok(())
        }
    };
}

trait Bits {
    fn to_bits(self) -> u64;
}
macro_rules! bits {
    ($($t:ty => |$x:ident| $e:expr),*) => {$(impl Bits for $t { fn to_bits(self) -> u64 { let $x = self; $e } })*};
}
bits!(i32 => |x| x as u32 as u64, u32 => |x| x as u64, i64 => |x| x as u64, u64 => |x| x, f32 => |x| f32::to_bits(x) as u64, f64 => |x| f64::to_bits(x));

check_shfl!(shuffles_i32, shfl_i32, i32, |r: &mut fastrand::Rng| r
    .i32(..));
check_shfl!(shuffles_u32, shfl_u32, u32, |r: &mut fastrand::Rng| r
    .u32(..));
check_shfl!(shuffles_i64, shfl_i64, i64, |r: &mut fastrand::Rng| r
    .i64(..));
check_shfl!(shuffles_u64, shfl_u64, u64, |r: &mut fastrand::Rng| r
    .u64(..));
check_shfl!(shuffles_f32, shfl_f32, f32, |r: &mut fastrand::Rng| r.f32()
    * 100.0
    - 50.0);
check_shfl!(shuffles_f64, shfl_f64, f64, |r: &mut fastrand::Rng| r.f64()
    * 1e10
    - 5e9);

#[test]
fn warp_sum_with_shuffles() -> cuprum::Result<()> {
    // On the GPU host: the GPU and the simulator, each against the CPU.
    for dev in cuprum_testkit::backends()? {
        let stream = dev.default_stream();
        let n = 32 * 12;
        let mut r = fastrand::Rng::new();
        let v: Vec<f32> = (0..n).map(|_| r.i32(-50..50) as f32 + 0.5).collect();
        let dv = stream.to_device(&v)?;
        let mut out = stream.alloc_zeros::<f32>(n / 32)?;
        launch!(warp_sum<<<3, 128, stream>>>(&mut out, &dv))?;
        let got = stream.to_host(&out)?;
        for w in 0..n / 32 {
            assert_eq!(
                got[w],
                v[w * 32..w * 32 + 32].iter().sum::<f32>(),
                "warp {w}"
            );
        }
    }
    Ok(())
}

#[test]
fn votes_match_and_barrier_reductions() -> cuprum::Result<()> {
    // On the GPU host: the GPU and the simulator, each against the CPU.
    for dev in cuprum_testkit::backends()? {
        let stream = dev.default_stream();
        let (block, blocks) = (96usize, 3usize);
        let n = block * blocks;
        let mut r = fastrand::Rng::new();
        let v: Vec<u32> = (0..n).map(|_| r.u32(1..12)).collect();
        let dv = stream.to_device(&v)?;
        let mut out = stream.alloc_zeros::<u32>(8 * n)?;
        launch!(votes<<<blocks as u32, block as u32, stream>>>(&mut out, &dv))?;
        let got = stream.to_host(&out)?;
        for i in 0..n {
            let w = &v[i / 32 * 32..i / 32 * 32 + 32];
            let b = &v[i / block * block..i / block * block + block];
            let mask = |f: &dyn Fn(u32) -> bool| {
                w.iter()
                    .enumerate()
                    .filter(|(_, &x)| f(x))
                    .fold(0u32, |m, (l, _)| m | 1 << l)
            };
            let want = [
                mask(&|x| x % 3 == 0),
                w.iter().all(|&x| x < 1000) as u32,
                w.contains(&7) as u32,
                mask(&|x| x % 4 == v[i] % 4),
                u32::MAX,
                b.iter().filter(|&&x| x % 3 == 0).count() as u32,
                b.iter().all(|&x| x > 0) as u32,
                b.contains(&5) as u32,
            ];
            assert_eq!(&got[8 * i..8 * i + 8], &want, "thread {i}");
        }
    }
    Ok(())
}

#[test]
fn redux_over_partial_masks() -> cuprum::Result<()> {
    // On the GPU host: the GPU and the simulator, each against the CPU.
    for dev in cuprum_testkit::backends()? {
        let stream = dev.default_stream();
        let warps = 12usize;
        let n = 32 * warps;
        let mut r = fastrand::Rng::new();
        let a: Vec<i32> = (0..n)
            .map(|_| match r.u32(0..8) {
                0 => i32::MIN,
                1 => i32::MAX,
                _ => r.i32(..),
            })
            .collect();
        let b: Vec<u32> = (0..n)
            .map(|_| match r.u32(0..8) {
                0 => 0,
                1 => u32::MAX,
                _ => r.u32(..),
            })
            .collect();
        let mut masks = vec![u32::MAX, 1, 1 << 31, 0x5555_5555, 0xffff_0000, 0];
        masks.extend((masks.len()..warps).map(|_| r.u32(..)));
        let (da, db, dm) = (
            stream.to_device(&a)?,
            stream.to_device(&b)?,
            stream.to_device(&masks)?,
        );
        let mut sa = stream.to_device(&vec![7i32; 3 * n])?;
        let mut sb = stream.to_device(&vec![7u32; 3 * n])?;
        launch!(redux_masks<<<3, 128, stream>>>(&mut sa, &mut sb, &da, &db, &dm))?;
        let (ga, gb) = (stream.to_host(&sa)?, stream.to_host(&sb)?);
        for (w, &m) in masks.iter().enumerate() {
            let lanes: Vec<usize> = (0..32)
                .filter(|l| m & (1 << l) != 0)
                .map(|l| w * 32 + l)
                .collect();
            let want_a = lanes.iter().map(|&i| a[i]);
            let want_b = lanes.iter().map(|&i| b[i]);
            let sum_a = want_a.clone().fold(0i32, i32::wrapping_add);
            let sum_b = want_b.clone().fold(0u32, u32::wrapping_add);
            for l in 0..32 {
                let i = w * 32 + l;
                let (wa, wb) = if m & (1 << l) != 0 {
                    (
                        [
                            sum_a,
                            want_a.clone().min().unwrap(),
                            want_a.clone().max().unwrap(),
                        ],
                        [
                            sum_b,
                            want_b.clone().min().unwrap(),
                            want_b.clone().max().unwrap(),
                        ],
                    )
                } else {
                    ([7; 3], [7; 3])
                };
                assert_eq!(
                    &ga[3 * i..3 * i + 3],
                    &wa,
                    "{}: warp {w} mask {m:#x} lane {l}",
                    dev.name()
                );
                assert_eq!(
                    &gb[3 * i..3 * i + 3],
                    &wb,
                    "{}: warp {w} mask {m:#x} lane {l}",
                    dev.name()
                );
            }
        }
    }
    Ok(())
}
