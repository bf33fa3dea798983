//! Warp operations: the four shuffles on every type, votes, match, activemask, sync_warp, and
//! the barrier reductions.

use cuprum::prelude::*;
use cuprum_testkit::device;

macro_rules! shuffles {
    ($name:ident, $t:ty) => {
        /// out[4 * i + k] = the k-th shuffle of v[i] (idx, up, down, xor).
        #[kernel]
        pub fn $name(out: &mut [$t], v: &[$t], src: &[u32]) {
            let i = gpu::global_id_x();
            let lane = gpu::lane_id();
            let x = v[i];
            let a = gpu::shfl_sync(gpu::FULL_MASK, x, src[i]);
            let b = gpu::shfl_up_sync(gpu::FULL_MASK, x, 3);
            let c = gpu::shfl_down_sync(gpu::FULL_MASK, x, 5);
            let d = gpu::shfl_xor_sync(gpu::FULL_MASK, x, lane % 7 + 1 - lane % 7);
            out[4 * i] = a;
            out[4 * i + 1] = b;
            out[4 * i + 2] = c;
            out[4 * i + 3] = d;
        }
    };
}

shuffles!(shfl_i32, i32);
shuffles!(shfl_u32, u32);
shuffles!(shfl_i64, i64);
shuffles!(shfl_u64, u64);
shuffles!(shfl_f32, f32);
shuffles!(shfl_f64, f64);

macro_rules! check_shfl {
    ($test:ident, $kernel:ident, $t:ty, $gen:expr) => {
        #[test]
        fn $test() -> cuprum::Result<()> {
            let dev = device()?;
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

/// Warp sum by shuffling down, as reductions do.
#[kernel]
pub fn warp_sum(out: &mut [f32], v: &[f32]) {
    let i = gpu::global_id_x();
    let mut x = v[i];
    for d in [16u32, 8, 4, 2, 1] {
        x += gpu::shfl_down_sync(gpu::FULL_MASK, x, d);
    }
    if gpu::lane_id() == 0 {
        out[i / 32] = x;
    }
}

#[test]
fn warp_sum_with_shuffles() -> cuprum::Result<()> {
    let dev = device()?;
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
    Ok(())
}

/// Votes, match, activemask, sync_warp and the barrier reductions, per thread.
#[kernel]
pub fn votes(out: &mut [u32], v: &[u32]) {
    let i = gpu::global_id_x();
    let x = v[i];
    let p = x % 3 == 0;
    gpu::sync_warp(gpu::FULL_MASK);
    let ballot = gpu::ballot_sync(gpu::FULL_MASK, p);
    let all = gpu::all_sync(gpu::FULL_MASK, x < 1000) as u32;
    let any = gpu::any_sync(gpu::FULL_MASK, x == 7) as u32;
    let m = gpu::match_any_sync(gpu::FULL_MASK, x % 4);
    let active = gpu::activemask();
    let count = gpu::sync_threads_count(p);
    let and = gpu::sync_threads_and(x > 0) as u32;
    let or = gpu::sync_threads_or(x == 5) as u32;
    out[8 * i] = ballot;
    out[8 * i + 1] = all;
    out[8 * i + 2] = any;
    out[8 * i + 3] = m;
    out[8 * i + 4] = active;
    out[8 * i + 5] = count;
    out[8 * i + 6] = and;
    out[8 * i + 7] = or;
}

#[test]
fn votes_match_and_barrier_reductions() -> cuprum::Result<()> {
    let dev = device()?;
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
    Ok(())
}
