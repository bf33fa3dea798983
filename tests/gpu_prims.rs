//! The cooperative primitives `gpu::warp::*` and `gpu::block::*` (written in Cuprum, in
//! `runtime/src/gpu/`) against CPU references on fresh random data: every shuffle type, block
//! sizes from one warp to 1024 threads, 1-, 2- and 3-dimensional blocks, and an associative
//! operation that is not commutative (composition of affine maps), which shows that values are
//! combined in lane and thread order.

use cuprum::prelude::*;

#[allow(dead_code)]
#[path = "kernels/prims.rs"]
mod prims;

/// Every warp primitive, one output row each: sum, min, max, reduce (running max as a
/// closure), inclusive sum scan, exclusive scan from `init`, broadcast of lane `src`.
#[kernel(instances(i32, u32, i64, u64, f32, f64))]
pub fn warp_all<T: gpu::Num + gpu::WarpValue>(out: &mut [T], x: &[T], init: T, src: u32) {
    let i = gpu::global_id_x();
    let n = x.len();
    if i < n {
        let v = x[i];
        out[i] = gpu::warp::sum(v);
        out[n + i] = gpu::warp::min(v);
        out[2 * n + i] = gpu::warp::max(v);
        out[3 * n + i] = gpu::warp::reduce(v, |a, b| if a < b { b } else { a });
        out[4 * n + i] = gpu::warp::inclusive_scan(v, |a, b| a + b);
        out[5 * n + i] = gpu::warp::exclusive_scan(v, init, |a, b| a + b);
        out[6 * n + i] = gpu::warp::broadcast(v, src);
    }
}

/// Every block primitive, one output row each: sum, min, max, reduce (running max), inclusive
/// and exclusive sums, inclusive scan (running min), exclusive scan from `init`.
#[kernel(instances(i32, u32, i64, u64, f32, f64))]
pub fn block_all<T: gpu::Num + gpu::WarpValue>(out: &mut [T], x: &[T], init: T) {
    let d = gpu::block_dim();
    let t = gpu::thread_idx();
    let per_block = (d.x * d.y * d.z) as usize;
    let i = gpu::block_idx().x as usize * per_block + (t.x + d.x * (t.y + d.y * t.z)) as usize;
    let n = x.len();
    let v = x[i];
    out[i] = gpu::block::sum(v);
    out[n + i] = gpu::block::min(v);
    out[2 * n + i] = gpu::block::max(v);
    out[3 * n + i] = gpu::block::reduce(v, |a, b| if a < b { b } else { a });
    out[4 * n + i] = gpu::block::inclusive_sum(v);
    out[5 * n + i] = gpu::block::exclusive_sum(v);
    out[6 * n + i] = gpu::block::inclusive_scan(v, |a, b| if b < a { b } else { a });
    out[7 * n + i] = gpu::block::exclusive_scan(v, init, |a, b| a + b);
}

/// Composes affine maps `x ↦ a·x + b` (mod 2^32) packed as `a << 32 | b`: `compose(f, g)` is
/// "f, then g". Associative, not commutative.
#[device]
fn compose(f: u64, g: u64) -> u64 {
    let (fa, fb) = ((f >> 32) as u32, f as u32);
    let (ga, gb) = ((g >> 32) as u32, g as u32);
    let a = fa.wrapping_mul(ga);
    let b = ga.wrapping_mul(fb).wrapping_add(gb);
    ((a as u64) << 32) | b as u64
}

/// Warp and block reduce and scans with `compose`, which must see the values in order.
#[kernel]
pub fn ordered(out: &mut [u64], x: &[u64], id: u64) {
    let d = gpu::block_dim();
    let per_block = (d.x * d.y * d.z) as usize;
    let t = gpu::thread_idx();
    let i = gpu::block_idx().x as usize * per_block + (t.x + d.x * (t.y + d.y * t.z)) as usize;
    let n = x.len();
    let v = x[i];
    out[i] = gpu::warp::reduce(v, |f, g| compose(f, g));
    out[n + i] = gpu::warp::inclusive_scan(v, |f, g| compose(f, g));
    out[2 * n + i] = gpu::warp::exclusive_scan(v, id, |f, g| compose(f, g));
    out[3 * n + i] = gpu::block::reduce(v, |f, g| compose(f, g));
    out[4 * n + i] = gpu::block::inclusive_scan(v, |f, g| compose(f, g));
    out[5 * n + i] = gpu::block::exclusive_scan(v, id, |f, g| compose(f, g));
}

fn compose_host(f: u64, g: u64) -> u64 {
    let (fa, fb) = ((f >> 32) as u32, f as u32);
    let (ga, gb) = ((g >> 32) as u32, g as u32);
    ((fa.wrapping_mul(ga) as u64) << 32) | ga.wrapping_mul(fb).wrapping_add(gb) as u64
}

/// Host arithmetic of the element types, as the kernels do it (integers wrap).
trait Elem: Copy + PartialEq + PartialOrd + std::fmt::Debug + cuprum::Element {
    fn from_i64(v: i64) -> Self;
    fn add(self, o: Self) -> Self;
    const ZERO: Self;
}
macro_rules! elem {
    (int $($t:ty),*) => {$(impl Elem for $t {
        fn from_i64(v: i64) -> Self { v as $t }
        fn add(self, o: Self) -> Self { self.wrapping_add(o) }
        const ZERO: Self = 0;
    })*};
    (float $($t:ty),*) => {$(impl Elem for $t {
        fn from_i64(v: i64) -> Self { v as $t }
        fn add(self, o: Self) -> Self { self + o }
        const ZERO: Self = 0.0;
    })*};
}
elem!(int i32, u32, i64, u64);
elem!(float f32, f64);

/// Random values: full-range integers (sums wrap) or integer-valued floats (sums are exact in
/// any order, so results compare exactly).
fn random<T: Elem>(n: usize, float: bool) -> Vec<T> {
    let mut r = fastrand::Rng::new();
    (0..n)
        .map(|_| T::from_i64(if float { r.i64(-1000..1000) } else { r.i64(..) }))
        .collect()
}

fn min_of<T: Elem>(a: T, b: T) -> T {
    if b < a {
        b
    } else {
        a
    }
}
fn max_of<T: Elem>(a: T, b: T) -> T {
    if b > a {
        b
    } else {
        a
    }
}

/// The expected rows of `block_all` (or, with `group` = 32, `warp_all`'s first six) for
/// groups of `group` consecutive values.
fn group_rows<T: Elem>(x: &[T], group: usize, init: T) -> Vec<Vec<T>> {
    let n = x.len();
    let mut rows = vec![vec![T::ZERO; n]; 8];
    for g in x.chunks(group).enumerate() {
        let (k, vals) = g;
        let base = k * group;
        let sum = vals.iter().fold(T::ZERO, |a, &b| a.add(b));
        let mn = vals.iter().copied().reduce(min_of).unwrap();
        let mx = vals.iter().copied().reduce(max_of).unwrap();
        let (mut inc, mut run_min, mut ex) = (T::ZERO, vals[0], init);
        for (j, &v) in vals.iter().enumerate() {
            rows[0][base + j] = sum;
            rows[1][base + j] = mn;
            rows[2][base + j] = mx;
            rows[3][base + j] = mx;
            rows[5][base + j] = inc;
            inc = inc.add(v);
            rows[4][base + j] = inc;
            run_min = min_of(run_min, v);
            rows[6][base + j] = run_min;
            rows[7][base + j] = ex;
            ex = ex.add(v);
        }
    }
    rows
}

fn check_rows<T: Elem>(what: &str, got: &[T], want: &[Vec<T>]) {
    let n = want[0].len();
    for (r, row) in want.iter().enumerate() {
        for i in 0..n {
            assert_eq!(got[r * n + i], row[i], "{what}: row {r}, thread {i}");
        }
    }
}

macro_rules! warp_test {
    ($name:ident, $t:ty, $float:expr) => {
        #[test]
        fn $name() -> cuprum::Result<()> {
            for dev in cuprum_testkit::backends()? {
                let stream = dev.default_stream();
                let n = 32 * 6;
                let x: Vec<$t> = random(n, $float);
                let init: $t = random(1, $float)[0];
                let src = fastrand::u32(0..32);
                let dx = stream.to_device(&x)?;
                let mut out = stream.to_device(&vec![<$t as Elem>::from_i64(7); 7 * n])?;
                launch!(warp_all::<$t><<<2, 96, stream>>>(&mut out, &dx, init, src))?;
                let got = stream.to_host(&out)?;
                let mut want = group_rows(&x, 32, init);
                want.truncate(4);
                let scans = group_rows(&x, 32, <$t as Elem>::ZERO);
                want.push(scans[4].clone());
                want.push(group_rows(&x, 32, init)[7].clone());
                want.push((0..n).map(|i| x[i / 32 * 32 + src as usize]).collect());
                check_rows(&format!("{}: warp {}", dev.name(), stringify!($t)), &got, &want);
            }
            Ok(())
        }
    };
}
warp_test!(warp_primitives_i32, i32, false);
warp_test!(warp_primitives_u32, u32, false);
warp_test!(warp_primitives_i64, i64, false);
warp_test!(warp_primitives_u64, u64, false);
warp_test!(warp_primitives_f32, f32, true);
warp_test!(warp_primitives_f64, f64, true);

/// Block shapes: one warp, odd warp counts (below, at and past the eight warps the block
/// reductions combine without selects), 2-D and 3-D blocks, the 1024-thread maximum.
const SHAPES: [(u32, u32, u32); 8] = [
    (32, 1, 1),
    (96, 1, 1),
    (224, 1, 1),
    (256, 1, 1),
    (288, 1, 1),
    (32, 3, 1),
    (8, 4, 2),
    (1024, 1, 1),
];

macro_rules! block_test {
    ($name:ident, $t:ty, $float:expr) => {
        #[test]
        fn $name() -> cuprum::Result<()> {
            for dev in cuprum_testkit::backends()? {
                let stream = dev.default_stream();
                for &(bx, by, bz) in &SHAPES {
                    let per = (bx * by * bz) as usize;
                    let blocks = 3;
                    let n = per * blocks;
                    let x: Vec<$t> = random(n, $float);
                    let init: $t = random(1, $float)[0];
                    let dx = stream.to_device(&x)?;
                    let mut out = stream.to_device(&vec![<$t as Elem>::from_i64(7); 8 * n])?;
                    launch!(block_all::<$t><<<blocks as u32, (bx, by, bz), stream>>>(&mut out, &dx, init))?;
                    let got = stream.to_host(&out)?;
                    let mut want = group_rows(&x, per, init);
                    want[5] = group_rows(&x, per, <$t as Elem>::ZERO)[7].clone();
                    check_rows(
                        &format!("{}: block {:?} {}", dev.name(), (bx, by, bz), stringify!($t)),
                        &got,
                        &want,
                    );
                }
            }
            Ok(())
        }
    };
}
block_test!(block_primitives_i32, i32, false);
block_test!(block_primitives_u32, u32, false);
block_test!(block_primitives_i64, i64, false);
block_test!(block_primitives_u64, u64, false);
block_test!(block_primitives_f32, f32, true);
block_test!(block_primitives_f64, f64, true);

/// `gpu::block` sum, min and max, `gpu::warp`'s, and the block's inclusive and exclusive
/// sums: the rows of [`reductions_of`].
#[kernel(instances(i32, u32, i64, f32))]
pub fn reductions<T: gpu::Num + gpu::WarpValue>(out: &mut [T], x: &[T]) {
    let d = gpu::block_dim();
    let t = gpu::thread_idx();
    let per_block = (d.x * d.y * d.z) as usize;
    let i = gpu::block_idx().x as usize * per_block + (t.x + d.x * (t.y + d.y * t.z)) as usize;
    let n = x.len();
    let v = x[i];
    out[i] = gpu::block::sum(v);
    out[n + i] = gpu::block::min(v);
    out[2 * n + i] = gpu::block::max(v);
    out[3 * n + i] = gpu::warp::sum(v);
    out[4 * n + i] = gpu::warp::min(v);
    out[5 * n + i] = gpu::warp::max(v);
    out[6 * n + i] = gpu::block::inclusive_sum(v);
    out[7 * n + i] = gpu::block::exclusive_sum(v);
}

/// The expected rows of `reductions`: the block's sum, min and max, the warp's, then the
/// block's inclusive and exclusive sums.
fn reductions_of<T: Elem>(x: &[T], per: usize) -> Vec<Vec<T>> {
    let block = group_rows(x, per, T::ZERO);
    let warp = group_rows(x, 32, T::ZERO);
    vec![
        block[0].clone(),
        block[1].clone(),
        block[2].clone(),
        warp[0].clone(),
        warp[1].clone(),
        warp[2].clone(),
        block[4].clone(),
        block[7].clone(),
    ]
}

/// Random values; integers with their type's extremes and zero sprinkled in (a min or max
/// that is `MIN`/`MAX`, sums that wrap). Floats stay integer-valued (sums exact in any order).
fn random_with_extremes<T: Elem + gpu::Num>(n: usize, float: bool) -> Vec<T> {
    let mut x: Vec<T> = random(n, float);
    if !float {
        for _ in 0..n / 16 {
            let k = fastrand::usize(..n);
            x[k] = [
                <T as gpu::Num>::MIN,
                <T as gpu::Num>::MAX,
                <T as Elem>::ZERO,
            ][fastrand::usize(..3)];
        }
    }
    x
}

macro_rules! reductions_test {
    ($name:ident, $t:ty, $float:expr) => {
        /// Every block size from one warp to 1024 threads (`i32`/`u32`: `redux.sync` on
        /// sm_80+; `i64`/`f32`: shuffles), 2 blocks each, in one launch per size.
        #[test]
        fn $name() -> cuprum::Result<()> {
            for dev in cuprum_testkit::backends()? {
                let stream = dev.default_stream();
                for per in (32..=1024).step_by(32) {
                    let n = per * 2;
                    let x: Vec<$t> = random_with_extremes(n, $float);
                    let dx = stream.to_device(&x)?;
                    let mut out = stream.to_device(&vec![<$t as Elem>::from_i64(7); 8 * n])?;
                    launch!(reductions::<$t><<<2, per as u32, stream>>>(&mut out, &dx))?;
                    let got = stream.to_host(&out)?;
                    check_rows(
                        &format!("{}: block of {per}, {}", dev.name(), stringify!($t)),
                        &got,
                        &reductions_of(&x, per),
                    );
                }
            }
            Ok(())
        }
    };
}
reductions_test!(reductions_every_block_size_i32, i32, false);
reductions_test!(reductions_every_block_size_u32, u32, false);
reductions_test!(reductions_every_block_size_i64, i64, false);
reductions_test!(reductions_every_block_size_f32, f32, true);

/// Blocks whose thread count is not a multiple of 32 are outside the primitives' contract
/// (a warp collective names all 32 lanes): the simulator reports the missing lanes rather
/// than give a number.
#[test]
fn a_partial_warp_is_reported_by_the_simulator() -> cuprum::Result<()> {
    let stream = Device::simulator().default_stream();
    for per in [100usize, 33, 1000] {
        let x: Vec<i32> = random(per, false);
        let dx = stream.to_device(&x)?;
        let mut out = stream.alloc_zeros::<i32>(8 * per)?;
        let e = launch!(reductions::<i32><<<1, per as u32, stream>>>(&mut out, &dx))
            .and_then(|()| stream.synchronize())
            .expect_err("a partial warp");
        let msg = e.to_string();
        assert!(msg.contains("does not exist"), "{per}: {msg}");
    }
    Ok(())
}

#[test]
fn primitives_combine_in_order() -> cuprum::Result<()> {
    for dev in cuprum_testkit::backends()? {
        let stream = dev.default_stream();
        for &(bx, by, bz) in &SHAPES {
            let per = (bx * by * bz) as usize;
            let n = per * 2;
            let x = (0..n).map(|_| fastrand::u64(..)).collect::<Vec<_>>();
            let id = 1u64 << 32;
            let dx = stream.to_device(&x)?;
            let mut out = stream.to_device(&vec![0u64; 6 * n])?;
            launch!(ordered<<<2, (bx, by, bz), stream>>>(&mut out, &dx, id))?;
            let got = stream.to_host(&out)?;
            let mut want = vec![vec![0u64; n]; 6];
            for (row, group) in [(0, 32), (3, per)] {
                for (k, vals) in x.chunks(group).enumerate() {
                    let total = vals.iter().copied().reduce(compose_host).unwrap();
                    let (mut inc, mut ex) = (id, id);
                    for (j, &v) in vals.iter().enumerate() {
                        want[row][k * group + j] = total;
                        want[row + 2][k * group + j] = ex;
                        inc = compose_host(inc, v);
                        ex = inc;
                        want[row + 1][k * group + j] = inc;
                    }
                }
            }
            check_rows(&format!("{}: {:?}", dev.name(), (bx, by, bz)), &got, &want);
        }
    }
    Ok(())
}

/// `gpu::block::radix_sort` of 4 keys per thread, in place.
#[kernel(instances(u8, i16, u32, i32, u64, i64))]
pub fn block_sort4<K: gpu::Int>(keys: &mut [K]) {
    let base = (gpu::block_idx().x * gpu::block_dim().x * 4) as usize;
    let first = base + 4 * gpu::thread_idx().x as usize;
    let mut mine = [K::ZERO; 4];
    for j in 0..4 {
        mine[j] = keys[first + j];
    }
    gpu::block::radix_sort(&mut mine);
    for j in 0..4 {
        keys[first + j] = mine[j];
    }
}

macro_rules! sort_test {
    ($name:ident, $t:ty, $gen:expr) => {
        #[test]
        fn $name() -> cuprum::Result<()> {
            for dev in cuprum_testkit::backends()? {
                let stream = dev.default_stream();
                for threads in [32u32, 160, 1024] {
                    let per = threads as usize * 4;
                    let mut r = fastrand::Rng::new();
                    let x: Vec<$t> = (0..per * 2).map(|_| $gen(&mut r)).collect();
                    let mut keys = stream.to_device(&x)?;
                    launch!(block_sort4::<$t><<<2, threads, stream>>>(&mut keys))?;
                    let got = stream.to_host(&keys)?;
                    for (b, (g, w)) in got.chunks(per).zip(x.chunks(per)).enumerate() {
                        let mut want = w.to_vec();
                        want.sort();
                        assert_eq!(g, &want[..], "{}: {threads} threads, block {b}", dev.name());
                    }
                }
            }
            Ok(())
        }
    };
}
sort_test!(block_radix_sort_u8, u8, |r: &mut fastrand::Rng| r.u8(..));
sort_test!(block_radix_sort_i16, i16, |r: &mut fastrand::Rng| r
    .i16(-300..300));
sort_test!(block_radix_sort_u32, u32, |r: &mut fastrand::Rng| r.u32(..));
sort_test!(block_radix_sort_i32, i32, |r: &mut fastrand::Rng| r.i32(..));
sort_test!(block_radix_sort_u64, u64, |r: &mut fastrand::Rng| r.u64(..));
sort_test!(block_radix_sort_i64, i64, |r: &mut fastrand::Rng| r.i64(..));

#[test]
fn ptxas_accepts_the_primitive_kernels() {
    cuprum_testkit::assert_ptxas_accepts(&[
        ("warp_all<f64>", warp_all::<f64>::NAME, warp_all::<f64>::PTX),
        ("warp_all<i32>", warp_all::<i32>::NAME, warp_all::<i32>::PTX),
        ("warp_all<u32>", warp_all::<u32>::NAME, warp_all::<u32>::PTX),
        (
            "block_all<i32>",
            block_all::<i32>::NAME,
            block_all::<i32>::PTX,
        ),
        (
            "reductions<u32>",
            reductions::<u32>::NAME,
            reductions::<u32>::PTX,
        ),
        (
            "reductions<i64>",
            reductions::<i64>::NAME,
            reductions::<i64>::PTX,
        ),
        (
            "block_all<u64>",
            block_all::<u64>::NAME,
            block_all::<u64>::PTX,
        ),
        (
            "block_all<f32>",
            block_all::<f32>::NAME,
            block_all::<f32>::PTX,
        ),
        ("ordered", ordered::NAME, ordered::PTX),
        (
            "block_sort4<u8>",
            block_sort4::<u8>::NAME,
            block_sort4::<u8>::PTX,
        ),
        (
            "block_sort4<i64>",
            block_sort4::<i64>::NAME,
            block_sort4::<i64>::PTX,
        ),
    ]);
}

/// A block collective after a `&&` guard, with the last block partly past the end (the shape
/// of stream compaction, which once hung on the H200): each kept value's rank among its
/// block's kept values, for block sizes from one warp to 1024 threads.
#[test]
fn guarded_collective_with_a_partial_last_block() -> cuprum::Result<()> {
    for dev in cuprum_testkit::backends()? {
        let stream = dev.default_stream();
        for &block in &[32u32, 96, 256, 1024] {
            let n = block as usize * fastrand::usize(1..6) + fastrand::usize(1..block as usize);
            let x = (0..n).map(|_| fastrand::f32()).collect::<Vec<_>>();
            let threshold = fastrand::f32();
            let grid = n.div_ceil(block as usize) as u32;
            let dx = stream.to_device(&x)?;
            let mut rank = stream.to_device(&vec![u32::MAX; n])?;
            launch!(prims::guarded_rank<<<grid, block, stream>>>(&mut rank, &dx, threshold))?;
            let got = stream.to_host(&rank)?;
            let mut want = vec![u32::MAX; n];
            for (b, vals) in x.chunks(block as usize).enumerate() {
                let mut r = 0;
                for (j, &v) in vals.iter().enumerate() {
                    if v > threshold {
                        want[b * block as usize + j] = r;
                        r += 1;
                    }
                }
            }
            assert_eq!(got, want, "{}: block {block}, n {n}", dev.name());
        }
    }
    Ok(())
}
