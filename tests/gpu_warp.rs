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
