//! `cuprum::algorithms` against CPU references on fresh random data: every element type,
//! lengths 0, 1, around the block and tile sizes and over many tiles (2^28 on the GPU), views
//! as inputs and outputs.

use cuprum::algorithms;
use cuprum::prelude::*;

/// Lengths: empty, one, around a 256-thread block and a 2048-element scan tile, several tiles
/// and reduction blocks; on a GPU also 4 million and, for 32-bit types, 2^28 (not with
/// `CUPRUM_SMALL_INPUTS=1`, as under compute-sanitizer).
fn lengths<T>(dev: &Device) -> Vec<usize> {
    let mut v = vec![0, 1, 2, 255, 256, 2047, 2048, 2049, 5000, 70_001];
    if !cuprum_testkit::small_inputs(dev) {
        v.push(4_000_037);
        if std::mem::size_of::<T>() == 4 {
            v.push(1 << 28);
        }
    }
    v
}

/// Host arithmetic of the element types as the algorithms do it (integer sums wrap).
trait Elem: Copy + PartialEq + PartialOrd + std::fmt::Debug + algorithms::Number {
    fn random(r: &mut fastrand::Rng) -> Self;
    fn wadd(self, o: Self) -> Self;
    /// Whether two sums agree (floats: within the rounding of a different order).
    fn close(self, o: Self, n: usize) -> bool;
}
macro_rules! ints {
    ($($t:ty),*) => {$(impl Elem for $t {
        fn random(r: &mut fastrand::Rng) -> Self { r.u64(..) as $t }
        fn wadd(self, o: Self) -> Self { self.wrapping_add(o) }
        fn close(self, o: Self, _: usize) -> bool { self == o }
    })*};
}
ints!(i8, i16, i32, i64, isize, u8, u16, u32, u64, usize);
macro_rules! floats {
    ($($t:ty),*) => {$(impl Elem for $t {
        fn random(r: &mut fastrand::Rng) -> Self { (r.f64() * 2.0 - 1.0) as $t }
        fn wadd(self, o: Self) -> Self { self + o }
        // Values in [-1, 1): any order of summation is within n·eps·n of the exact sum.
        fn close(self, o: Self, n: usize) -> bool {
            (self - o).abs() <= (n as $t) * <$t>::EPSILON * (1.0 + (n as $t).sqrt())
        }
    })*};
}
floats!(f32, f64);

fn check_type<T: Elem>() -> cuprum::Result<()> {
    for dev in cuprum_testkit::backends()? {
        let stream = dev.default_stream();
        let mut r = fastrand::Rng::new();
        for n in lengths::<T>(&dev) {
            let what = format!("{} {} n={n}", dev.name(), std::any::type_name::<T>());
            // A view that starts 3 elements into its buffer.
            let host: Vec<T> = (0..n + 3).map(|_| T::random(&mut r)).collect();
            let x = &host[3..];
            let buf = stream.to_device(&host)?;
            let view = buf.slice(3..);
            let want_sum = x.iter().fold(T::ZERO, |a, &b| a.wadd(b));
            let got = algorithms::sum(&stream, &view)?;
            assert!(
                got.close(want_sum, n),
                "{what}: sum {got:?} vs {want_sum:?}"
            );
            let want_min = x.iter().copied().reduce(|a, b| if b < a { b } else { a });
            let want_max = x.iter().copied().reduce(|a, b| if b > a { b } else { a });
            assert_eq!(algorithms::min(&stream, &view)?, want_min, "{what}: min");
            assert_eq!(algorithms::max(&stream, &view)?, want_max, "{what}: max");
            // Scans into a poisoned view of a longer buffer: the element past it stays.
            let poison = T::random(&mut r);
            let mut out = stream.to_device(&vec![poison; n + 1])?;
            for exclusive in [false, true] {
                let mut y = out.slice_mut(..n);
                if exclusive {
                    algorithms::exclusive_sum(&stream, &view, &mut y)?;
                } else {
                    algorithms::inclusive_sum(&stream, &view, &mut y)?;
                }
                let got = stream.to_host(&out)?;
                let mut run = T::ZERO;
                for i in 0..n {
                    let before = run;
                    run = run.wadd(x[i]);
                    let want = if exclusive { before } else { run };
                    assert!(
                        got[i].close(want, i + 1),
                        "{what}: {} sum at {i}: {:?} vs {want:?}",
                        if exclusive { "exclusive" } else { "inclusive" },
                        got[i]
                    );
                }
                assert_eq!(got[n], poison, "{what}: written past the output");
            }
        }
    }
    Ok(())
}

macro_rules! type_tests {
    ($($name:ident: $t:ty),*) => {$(
        #[test]
        fn $name() -> cuprum::Result<()> {
            check_type::<$t>()
        }
    )*};
}
type_tests!(reduce_and_scan_i8: i8, reduce_and_scan_i16: i16, reduce_and_scan_i32: i32,
    reduce_and_scan_i64: i64, reduce_and_scan_isize: isize, reduce_and_scan_u8: u8,
    reduce_and_scan_u16: u16, reduce_and_scan_u32: u32, reduce_and_scan_u64: u64,
    reduce_and_scan_usize: usize, reduce_and_scan_f32: f32, reduce_and_scan_f64: f64);

/// Reductions run in one launch whose last block combines the blocks' results, counted by a
/// ticket word kept between calls (it must be back at zero after each): many calls in a row,
/// on two streams, every grid size from one block to many, each of sum, min, max and
/// `reduce!`, with sorts and histograms (which keep `u32` buffers of their own) in between.
#[test]
fn reductions_in_one_launch_reuse_their_ticket() -> cuprum::Result<()> {
    for dev in cuprum_testkit::backends()? {
        let streams = [dev.new_stream()?, dev.new_stream()?];
        let mut r = fastrand::Rng::new();
        let mut sizes = vec![1, 2, 4095, 4096, 4097, 70_001, 300_000];
        if !cuprum_testkit::small_inputs(&dev) {
            sizes.push(4_000_037);
        }
        for round in 0..40 {
            let stream = &streams[round % 2];
            let n = sizes[r.usize(..sizes.len())];
            let what = format!("{} round {round} n={n}", dev.name());
            let x: Vec<u32> = (0..n).map(|_| r.u32(..)).collect();
            let dx = stream.to_device(&x)?;
            match r.u32(..5) {
                0 => {
                    let want = x.iter().fold(0u32, |a, &b| a.wrapping_add(b));
                    assert_eq!(algorithms::sum(stream, &dx)?, want, "{what}: sum");
                }
                1 => {
                    let want = x.iter().copied().min();
                    assert_eq!(algorithms::min(stream, &dx.slice(..))?, want, "{what}: min");
                }
                2 => {
                    let want = x.iter().copied().max();
                    assert_eq!(algorithms::max(stream, &dx)?, want, "{what}: max");
                }
                3 => {
                    let got = algorithms::reduce!(stream, &dx, 5, |a: u32, b: u32| a ^ b)?;
                    assert_eq!(got, x.iter().fold(5, |a, &b| a ^ b), "{what}: reduce!");
                }
                _ => {
                    let f: Vec<f64> = x.iter().map(|&v| v as f64 / 4e9).collect();
                    let want = f.iter().fold(0.0, |a, &b| a + b);
                    let got = algorithms::sum(stream, &stream.to_device(&f)?)?;
                    assert!((got - want).abs() < 1e-9 * n as f64, "{what}: f64 sum");
                }
            }
            if round % 7 == 3 {
                let mut k = stream.to_device(&x)?;
                algorithms::sort(stream, &mut k)?;
                let mut bins = stream.alloc_zeros::<u32>(100)?;
                algorithms::histogram(stream, &dx, 0, u32::MAX, &mut bins)?;
                let counted: u32 = stream.to_host(&bins)?.iter().sum();
                assert_eq!(
                    counted as usize,
                    x.iter().filter(|&&v| v < u32::MAX).count()
                );
            }
        }
    }
    Ok(())
}

#[test]
fn scan_lengths_must_match() -> cuprum::Result<()> {
    let dev = cuprum_testkit::device()?;
    let stream = dev.default_stream();
    let x = stream.to_device(&[1u32, 2, 3])?;
    let mut y = stream.alloc_zeros::<u32>(2)?;
    let e = algorithms::inclusive_sum(&stream, &x, &mut y).unwrap_err();
    assert!(
        matches!(
            e,
            Error::LengthMismatch {
                expected: 2,
                found: 3
            }
        ),
        "{e}"
    );
    Ok(())
}

/// `compose` of affine maps mod 2^32 packed in a `u64` (`a << 32 | b`): associative, not
/// commutative, so a scan that combined out of order would differ.
fn compose(f: u64, g: u64) -> u64 {
    let (fa, fb) = ((f >> 32) as u32, f as u32);
    let (ga, gb) = ((g >> 32) as u32, g as u32);
    ((fa.wrapping_mul(ga) as u64) << 32) | ga.wrapping_mul(fb).wrapping_add(gb) as u64
}

#[test]
fn reduce_and_scans_with_closures() -> cuprum::Result<()> {
    for dev in cuprum_testkit::backends()? {
        let stream = dev.default_stream();
        let mut r = fastrand::Rng::new();
        for n in lengths::<i32>(&dev) {
            let what = format!("{} n={n}", dev.name());
            let x: Vec<i32> = (0..n).map(|_| r.i32(-1_000_000..1_000_000)).collect();
            let dx = stream.to_device(&x)?;
            // Largest magnitude, after an init of 17.
            let got = algorithms::reduce!(&stream, &dx, 17, |a: i32, b: i32| a.abs().max(b.abs()))?;
            let want = x.iter().fold(17, |a: i32, &b| a.abs().max(b.abs()));
            assert_eq!(got, want, "{what}: reduce!");
            // Running maximum.
            let mut y = stream.to_device(&vec![i32::MIN; n])?;
            algorithms::inclusive_scan!(&stream, &dx, &mut y, |a: i32, b: i32| if b > a {
                b
            } else {
                a
            })?;
            let got = stream.to_host(&y)?;
            let mut run = i32::MIN;
            for i in 0..n {
                run = run.max(x[i]);
                assert_eq!(got[i], run, "{what}: inclusive_scan! at {i}");
            }
            // Composition of affine maps from the identity, over a view.
            let f: Vec<u64> = (0..n + 1).map(|_| r.u64(..)).collect();
            let df = stream.to_device(&f)?;
            let mut out = stream.alloc_zeros::<u64>(n + 2)?;
            let id = 1u64 << 32;
            algorithms::exclusive_scan!(
                &stream,
                &df.slice(1..),
                &mut out.slice_mut(2..),
                id,
                |p: u64, q: u64| {
                    let (pa, pb) = ((p >> 32) as u32, p as u32);
                    let (qa, qb) = ((q >> 32) as u32, q as u32);
                    ((pa.wrapping_mul(qa) as u64) << 32)
                        | qa.wrapping_mul(pb).wrapping_add(qb) as u64
                }
            )?;
            let got = stream.to_host(&out)?;
            assert_eq!(&got[..2], &[0, 0], "{what}: written before the view");
            let mut run = id;
            for i in 0..n {
                assert_eq!(got[i + 2], run, "{what}: exclusive_scan! at {i}");
                run = compose(run, f[i + 1]);
            }
        }
    }
    Ok(())
}

/// The bin of `v` as `algorithms::histogram` documents it, `None` outside the range.
trait Binned: algorithms::Number + std::fmt::Display {
    fn bin(v: Self, lower: Self, upper: Self, bins: usize) -> Option<usize>;
    /// A range and values reaching a little past it on both sides.
    fn setup(r: &mut fastrand::Rng) -> (Self, Self, Vec<Self>);
}
macro_rules! binned_ints {
    ($($t:ty: $end:expr),*) => {$(impl Binned for $t {
        fn bin(v: Self, lower: Self, upper: Self, bins: usize) -> Option<usize> {
            (v >= lower && v < upper).then(|| {
                ((v as i128 - lower as i128) * bins as i128 / (upper as i128 - lower as i128)) as usize
            })
        }
        fn setup(r: &mut fastrand::Rng) -> (Self, Self, Vec<Self>) {
            // 64-bit ranges keep (upper - lower) × bins within 64 bits, as documented.
            let end: fn(&mut fastrand::Rng) -> $t = $end;
            let (a, b) = (end(r), end(r));
            let (lower, upper) = if a < b { (a, b) } else if b < a { (b, a) } else { (<$t>::MIN, <$t>::MAX) };
            // Half of the values in the range, the rest anywhere.
            let span = (upper as i128 - lower as i128) as u128;
            let vals = (0..3000).map(|k| if k % 2 == 0 {
                (lower as i128 + (r.u128(..) % span) as i128) as $t
            } else {
                r.u64(..) as $t
            }).collect();
            (lower, upper, vals)
        }
    })*};
}
binned_ints!(i8: |r| r.i8(..), i16: |r| r.i16(..), i32: |r| r.i32(..),
    i64: |r| r.i64(-(1 << 40)..1 << 40), isize: |r| r.isize(-(1 << 40)..1 << 40), u8: |r| r.u8(..),
    u16: |r| r.u16(..), u32: |r| r.u32(..), u64: |r| r.u64(u64::MAX - (1 << 41)..),
    usize: |r| r.usize(..1 << 41));
macro_rules! binned_floats {
    ($($t:ty),*) => {$(impl Binned for $t {
        fn bin(v: Self, lower: Self, upper: Self, bins: usize) -> Option<usize> {
            (v >= lower && v < upper).then(|| (((v - lower) * (bins as $t / (upper - lower))) as usize).min(bins - 1))
        }
        fn setup(r: &mut fastrand::Rng) -> (Self, Self, Vec<Self>) {
            let lower = (r.f64() * 10.0 - 5.0) as $t;
            let upper = lower + (r.f64() * 20.0 + 0.5) as $t;
            let vals = (0..3000).map(|k| match k % 50 {
                0 => <$t>::NAN,
                1 => upper,
                2 => lower,
                _ => lower - 1.0 + (r.f64() as $t) * (upper - lower + 2.0),
            }).collect();
            (lower, upper, vals)
        }
    })*};
}
binned_floats!(f32, f64);

fn check_histogram<T: Binned>() -> cuprum::Result<()> {
    for dev in cuprum_testkit::backends()? {
        let stream = dev.default_stream();
        let mut r = fastrand::Rng::new();
        for bins in [1usize, 7, 256, 4096, 5000] {
            let (lower, upper, x) = T::setup(&mut r);
            let mut want = vec![0u32; bins];
            for &v in &x {
                if let Some(b) = T::bin(v, lower, upper, bins) {
                    want[b] += 1;
                }
            }
            let dx = stream.to_device(&x)?;
            let mut got = stream.to_device(&vec![9u32; bins])?;
            algorithms::histogram(&stream, &dx, lower, upper, &mut got)?;
            assert_eq!(
                stream.to_host(&got)?,
                want,
                "{}: {} bins over {lower}..{upper} of {}",
                dev.name(),
                bins,
                std::any::type_name::<T>()
            );
        }
    }
    Ok(())
}

macro_rules! histogram_tests {
    ($($name:ident: $t:ty),*) => {$(
        #[test]
        fn $name() -> cuprum::Result<()> {
            check_histogram::<$t>()
        }
    )*};
}
histogram_tests!(histogram_i8: i8, histogram_i16: i16, histogram_i32: i32,
    histogram_i64: i64, histogram_isize: isize, histogram_u64: u64, histogram_u8: u8, histogram_u16: u16, histogram_u32: u32,
    histogram_usize: usize, histogram_f32: f32, histogram_f64: f64);

/// Lengths for the 16-byte vector kernels: 0, 1, shorter than one vector, around one and two,
/// a block's worth of vectors and past it, and a random longer one.
fn vector_lengths(r: &mut fastrand::Rng) -> Vec<usize> {
    vec![
        0,
        1,
        2,
        3,
        4,
        5,
        7,
        8,
        9,
        13,
        1023,
        1025,
        4099,
        70_001,
        100_000 + r.usize(..50_000),
    ]
}

/// Sums, minima and maxima of views starting at every element of a 16-byte vector (0 to 4
/// elements in), of `vector_lengths`, on fresh random data: the vector kernels' head and
/// tail, and the element kernels where a view holds no vector.
fn check_vector_starts<T: Elem>() -> cuprum::Result<()> {
    for dev in cuprum_testkit::backends()? {
        let stream = dev.default_stream();
        let mut r = fastrand::Rng::new();
        for n in vector_lengths(&mut r) {
            let host: Vec<T> = (0..n + 4).map(|_| T::random(&mut r)).collect();
            let buf = stream.to_device(&host)?;
            for skip in 0..=4 {
                let what = format!(
                    "{} {} n={n} at {skip}",
                    dev.name(),
                    std::any::type_name::<T>()
                );
                let x = &host[skip..skip + n];
                let view = buf.slice(skip..skip + n);
                let want = x.iter().fold(T::ZERO, |a, &b| a.wadd(b));
                let got = algorithms::sum(&stream, &view)?;
                assert!(got.close(want, n), "{what}: sum {got:?} vs {want:?}");
                let want_min = x.iter().copied().reduce(|a, b| if b < a { b } else { a });
                let want_max = x.iter().copied().reduce(|a, b| if b > a { b } else { a });
                assert_eq!(algorithms::min(&stream, &view)?, want_min, "{what}: min");
                assert_eq!(algorithms::max(&stream, &view)?, want_max, "{what}: max");
            }
        }
    }
    Ok(())
}

macro_rules! vector_start_tests {
    ($($name:ident: $t:ty),*) => {$(
        #[test]
        fn $name() -> cuprum::Result<()> {
            check_vector_starts::<$t>()
        }
    )*};
}
vector_start_tests!(reduce_starts_i32: i32, reduce_starts_u32: u32, reduce_starts_f32: f32,
    reduce_starts_i64: i64, reduce_starts_u64: u64, reduce_starts_f64: f64);

/// Histograms of views starting at every element of a 16-byte vector, of `vector_lengths`,
/// into 256 bins (counted in shared memory) and 5000 (in global memory), on fresh random
/// values around the range (NaNs and both ends among them).
fn check_histogram_starts<T: Binned>() -> cuprum::Result<()> {
    for dev in cuprum_testkit::backends()? {
        let stream = dev.default_stream();
        let mut r = fastrand::Rng::new();
        for n in vector_lengths(&mut r) {
            let (lower, upper, vals) = T::setup(&mut r);
            let host: Vec<T> = (0..n + 4).map(|_| vals[r.usize(..vals.len())]).collect();
            let buf = stream.to_device(&host)?;
            for bins in [256usize, 5000] {
                for skip in 0..=4 {
                    let mut want = vec![0u32; bins];
                    for &v in &host[skip..skip + n] {
                        if let Some(b) = T::bin(v, lower, upper, bins) {
                            want[b] += 1;
                        }
                    }
                    let mut got = stream.to_device(&vec![9u32; bins])?;
                    algorithms::histogram(
                        &stream,
                        &buf.slice(skip..skip + n),
                        lower,
                        upper,
                        &mut got,
                    )?;
                    assert!(
                        stream.to_host(&got)? == want,
                        "{}: {bins} bins over {lower}..{upper} of {} n={n} at {skip}",
                        dev.name(),
                        std::any::type_name::<T>()
                    );
                }
            }
        }
    }
    Ok(())
}

#[test]
fn histogram_starts_f32() -> cuprum::Result<()> {
    check_histogram_starts::<f32>()
}

#[test]
fn histogram_starts_f64() -> cuprum::Result<()> {
    check_histogram_starts::<f64>()
}

#[test]
fn histogram_starts_u32() -> cuprum::Result<()> {
    check_histogram_starts::<u32>()
}

#[test]
fn histogram_refuses_bad_ranges() -> cuprum::Result<()> {
    let dev = cuprum_testkit::device()?;
    let stream = dev.default_stream();
    let x = stream.to_device(&[1.0f32, 2.0])?;
    let mut bins = stream.alloc_zeros::<u32>(4)?;
    for (lo, hi) in [
        (1.0, 1.0),
        (2.0, 1.0),
        (0.0, f32::INFINITY),
        (f32::NAN, 1.0),
    ] {
        let e = algorithms::histogram(&stream, &x, lo, hi, &mut bins).unwrap_err();
        assert!(matches!(e, Error::InvalidArgument(_)), "{lo}..{hi}: {e}");
    }
    let xi = stream.to_device(&[1i64])?;
    let e = algorithms::histogram(&stream, &xi, i64::MIN, i64::MAX, &mut bins).unwrap_err();
    assert!(matches!(e, Error::InvalidArgument(_)), "{e}");
    Ok(())
}

/// Sort keys: their order as the sort documents it, and random keys with many repeats
/// (stability shows) and, for floats, the special values.
trait SortKey: algorithms::Number {
    fn order(a: &Self, b: &Self) -> std::cmp::Ordering;
    fn key(r: &mut fastrand::Rng, repeats: bool) -> Self;
    fn bits(self) -> u64;
}
macro_rules! int_keys {
    ($($t:ty),*) => {$(impl SortKey for $t {
        fn order(a: &Self, b: &Self) -> std::cmp::Ordering { a.cmp(b) }
        fn key(r: &mut fastrand::Rng, repeats: bool) -> Self {
            if repeats { r.i64(-8..8) as $t } else { r.u64(..) as $t }
        }
        fn bits(self) -> u64 { self as u64 }
    })*};
}
int_keys!(i8, i16, i32, i64, isize, u8, u16, u32, u64, usize);
macro_rules! float_keys {
    ($($t:ty),*) => {$(impl SortKey for $t {
        fn order(a: &Self, b: &Self) -> std::cmp::Ordering { a.total_cmp(b) }
        fn key(r: &mut fastrand::Rng, repeats: bool) -> Self {
            const SPECIAL: [$t; 8] = [<$t>::NAN, -<$t>::NAN, <$t>::INFINITY, <$t>::NEG_INFINITY, 0.0, -0.0, <$t>::MIN_POSITIVE, -<$t>::MAX];
            match r.u32(0..20) {
                0 => SPECIAL[r.usize(0..8)],
                _ if repeats => r.i32(-8..8) as $t * 0.5,
                _ => (r.f64() - 0.5) as $t * 1e6,
            }
        }
        fn bits(self) -> u64 { self.to_bits() as u64 }
    })*};
}
float_keys!(f32, f64);

fn check_sort<K: SortKey>() -> cuprum::Result<()> {
    for dev in cuprum_testkit::backends()? {
        let stream = dev.default_stream();
        let mut r = fastrand::Rng::new();
        // Fewer lengths than `lengths()` on the simulator, where a sort of 70001 64-bit keys
        // takes a minute; 2^28 is run for u32 on its own.
        // 9000: three sort tiles (of 4096 keys, 3072 for 8-byte keys), so a tile looks back
        // past its predecessor.
        let mut lengths = lengths::<K>(&dev);
        lengths.push(9_000);
        for n in lengths
            .into_iter()
            .filter(|&n| n < 20_000_000 && (n < 10_000 || !dev.is_simulator()))
        {
            for repeats in [false, true] {
                let what = format!(
                    "{} {} n={n} repeats={repeats}",
                    dev.name(),
                    std::any::type_name::<K>()
                );
                let keys: Vec<K> = (0..n).map(|_| K::key(&mut r, repeats)).collect();
                let values: Vec<u32> = (0..n as u32).collect();
                let mut want: Vec<(K, u32)> =
                    keys.iter().copied().zip(values.iter().copied()).collect();
                want.sort_by(|a, b| K::order(&a.0, &b.0));
                // Keys only, in a view between two guard elements.
                let guard = K::key(&mut r, false);
                let mut padded = vec![guard];
                padded.extend(&keys);
                padded.push(guard);
                let mut dk = stream.to_device(&padded)?;
                algorithms::sort(&stream, &mut dk.slice_mut(1..n + 1))?;
                let got = stream.to_host(&dk)?;
                assert_eq!(got[0].bits(), guard.bits(), "{what}: guard before");
                assert_eq!(got[n + 1].bits(), guard.bits(), "{what}: guard after");
                for i in 0..n {
                    assert_eq!(got[i + 1].bits(), want[i].0.bits(), "{what}: key {i}");
                }
                // Pairs: the values are the original positions, so a stable sort is the
                // CPU's stable sort exactly.
                let mut dk = stream.to_device(&keys)?;
                let mut dv = stream.to_device(&values)?;
                algorithms::sort_pairs(&stream, &mut dk, &mut dv)?;
                let (gk, gv) = (stream.to_host(&dk)?, stream.to_host(&dv)?);
                for i in 0..n {
                    assert_eq!(gk[i].bits(), want[i].0.bits(), "{what}: pair key {i}");
                    assert_eq!(gv[i], want[i].1, "{what}: pair value {i} (stability)");
                }
            }
        }
    }
    Ok(())
}

macro_rules! sort_tests {
    ($($name:ident: $t:ty),*) => {$(
        #[test]
        fn $name() -> cuprum::Result<()> {
            check_sort::<$t>()
        }
    )*};
}
sort_tests!(sort_i8: i8, sort_i16: i16, sort_i32: i32, sort_i64: i64, sort_isize: isize,
    sort_u8: u8, sort_u16: u16, sort_u32: u32, sort_u64: u64, sort_usize: usize,
    sort_f32: f32, sort_f64: f64);

/// Sorts pairs and keys alone with each strategy forced (onesweep's look-back, the default for
/// `u32` keys with a payload, reading 1, 8 or 16 statuses per turn; tile counts, the default
/// for the others and for keys alone) against the CPU, for 1-, 4- and 8-byte keys. The switches
/// are global: tests running meanwhile sort with either strategy, both correct.
#[test]
fn sort_with_look_back() -> cuprum::Result<()> {
    fn check<K: SortKey>(stream: &Stream, n: usize, what: &str) -> cuprum::Result<()> {
        let mut r = fastrand::Rng::new();
        let keys: Vec<K> = (0..n)
            .map(|_| K::key(&mut r, n.is_multiple_of(2)))
            .collect();
        let values: Vec<u32> = (0..n as u32).collect();
        let mut want: Vec<(K, u32)> = keys.iter().copied().zip(values.iter().copied()).collect();
        want.sort_by(|a, b| K::order(&a.0, &b.0));
        let (mut dk, mut dv) = (stream.to_device(&keys)?, stream.to_device(&values)?);
        algorithms::sort_pairs(stream, &mut dk, &mut dv)?;
        let (gk, gv) = (stream.to_host(&dk)?, stream.to_host(&dv)?);
        for i in 0..n {
            assert_eq!(gk[i].bits(), want[i].0.bits(), "{what} n={n}: key {i}");
            assert_eq!(gv[i], want[i].1, "{what} n={n}: value {i}");
        }
        // Keys alone (the three-block keys-only kernels).
        let mut dk = stream.to_device(&keys)?;
        algorithms::sort(stream, &mut dk)?;
        let gk = stream.to_host(&dk)?;
        for i in 0..n {
            assert_eq!(
                gk[i].bits(),
                want[i].0.bits(),
                "{what} n={n}: keys alone, key {i}"
            );
        }
        Ok(())
    }
    for dev in cuprum_testkit::backends()? {
        let stream = dev.default_stream();
        let sizes: &[usize] = if cuprum_testkit::small_inputs(&dev) {
            &[9_000]
        } else {
            &[9_000, 4_000_037]
        };
        // Look-back with each turn reading 1, 8 (the default) and 16 statuses at once.
        for (forced, depth) in [
            (Some(true), Some(1)),
            (Some(true), None),
            (Some(true), Some(16)),
            (Some(false), None),
        ] {
            algorithms::__sort_with_lookback(forced);
            algorithms::__sort_lookback_depth(depth);
            let result = sizes.iter().try_for_each(|&n| {
                check::<u32>(&stream, n, "u32")?;
                check::<i32>(&stream, n, "i32")?;
                check::<f32>(&stream, n, "f32")?;
                check::<u8>(&stream, n, "u8")?;
                check::<i64>(&stream, n, "i64")?;
                check::<f64>(&stream, n, "f64")
            });
            algorithms::__sort_with_lookback(None);
            algorithms::__sort_lookback_depth(None);
            result?;
        }
    }
    Ok(())
}

/// Keys alone by the wide passes (384 threads, tiles of 5376 keys, look-back; the default for
/// 1- to 4-byte keys) forced on and off, and the look-back passes' two alternating status
/// buffers on and off (off: one buffer cleared before each pass), against the CPU's sort, for
/// every 1- to 4-byte key type and 8-byte `i64` and `f64` (8-byte keys never take the wide
/// passes: forcing them on changes nothing),
/// lengths around the wide tile and over several tiles (a tile looks back past its
/// predecessor), random keys with and without many repeats. The switches are global: tests
/// running meanwhile sort with either path, both correct.
#[test]
fn sort_keys_wide_and_alternating_statuses() -> cuprum::Result<()> {
    fn check<K: SortKey>(stream: &Stream, lengths: &[usize], what: &str) -> cuprum::Result<()> {
        let mut r = fastrand::Rng::new();
        for &n in lengths {
            for repeats in [false, true] {
                let keys: Vec<K> = (0..n).map(|_| K::key(&mut r, repeats)).collect();
                let mut want = keys.clone();
                want.sort_by(K::order);
                let mut dk = stream.to_device(&keys)?;
                algorithms::sort(stream, &mut dk)?;
                let got = stream.to_host(&dk)?;
                for i in 0..n {
                    assert_eq!(
                        got[i].bits(),
                        want[i].bits(),
                        "{what} {} n={n} repeats={repeats}: key {i}",
                        std::any::type_name::<K>()
                    );
                }
            }
        }
        Ok(())
    }
    fn every_type(stream: &Stream, lengths: &[usize], what: &str) -> cuprum::Result<()> {
        check::<u8>(stream, lengths, what)?;
        check::<i8>(stream, lengths, what)?;
        check::<u16>(stream, lengths, what)?;
        check::<i16>(stream, lengths, what)?;
        check::<u32>(stream, lengths, what)?;
        check::<i32>(stream, lengths, what)?;
        check::<f32>(stream, lengths, what)?;
        // 8-byte keys (the same passes for every 8-byte type, and the slowest on the
        // simulator): one integer and the float.
        check::<i64>(stream, lengths, what)?;
        check::<f64>(stream, lengths, what)
    }
    for dev in cuprum_testkit::backends()? {
        let stream = dev.default_stream();
        let mut lengths = vec![0, 1, 2, 383, 384, 5375, 5376, 5377, 13_001];
        if !cuprum_testkit::small_inputs(&dev) && !dev.is_simulator() {
            lengths.push(300_007);
        }
        for (wide, alternate, depth) in [
            (Some(true), None, None),
            (Some(true), None, Some(1)),
            (Some(true), Some(false), Some(16)),
            (Some(false), None, None),
            (Some(false), Some(false), None),
        ] {
            algorithms::__sort_keys_wide(wide);
            algorithms::__sort_alternate_statuses(alternate);
            algorithms::__sort_lookback_depth(depth);
            let what = format!(
                "{} wide={wide:?} alternate={alternate:?} depth={depth:?}",
                dev.name()
            );
            let result = every_type(&stream, &lengths, &what);
            algorithms::__sort_keys_wide(None);
            algorithms::__sort_alternate_statuses(None);
            algorithms::__sort_lookback_depth(None);
            result?;
        }
        // Pairs (look-back for `u32` keys by default) with either status scheme.
        for alternate in [Some(false), None] {
            algorithms::__sort_alternate_statuses(alternate);
            let result = (|| {
                let mut r = fastrand::Rng::new();
                for &n in &lengths {
                    let keys: Vec<u32> = (0..n).map(|_| r.u32(..1000)).collect();
                    let values: Vec<u32> = (0..n as u32).collect();
                    let mut want: Vec<(u32, u32)> = keys.iter().copied().zip(values).collect();
                    want.sort_by_key(|p| p.0);
                    let (mut dk, mut dv) = (
                        stream.to_device(&keys)?,
                        stream.to_device(&(0..n as u32).collect::<Vec<_>>())?,
                    );
                    algorithms::sort_pairs(&stream, &mut dk, &mut dv)?;
                    let got: Vec<(u32, u32)> = stream
                        .to_host(&dk)?
                        .into_iter()
                        .zip(stream.to_host(&dv)?)
                        .collect();
                    assert!(got == want, "pairs alternate={alternate:?} n={n}");
                }
                Ok::<(), Error>(())
            })();
            algorithms::__sort_alternate_statuses(None);
            result?;
        }
    }
    Ok(())
}

#[test]
fn sort_pairs_moves_every_value_type() -> cuprum::Result<()> {
    let dev = cuprum_testkit::device()?;
    let stream = dev.default_stream();
    let n = 3000;
    let keys: Vec<u16> = (0..n).map(|_| fastrand::u16(..100)).collect();
    let values: Vec<f64> = (0..n).map(|_| fastrand::f64()).collect();
    let mut want: Vec<(u16, f64)> = keys.iter().copied().zip(values.iter().copied()).collect();
    want.sort_by_key(|p| p.0);
    let (mut dk, mut dv) = (stream.to_device(&keys)?, stream.to_device(&values)?);
    algorithms::sort_pairs(&stream, &mut dk, &mut dv)?;
    let got: Vec<(u16, f64)> = stream
        .to_host(&dk)?
        .into_iter()
        .zip(stream.to_host(&dv)?)
        .collect();
    assert_eq!(got, want);
    let mut short = stream.alloc_zeros::<f64>(n - 1)?;
    let e = algorithms::sort_pairs(&stream, &mut dk, &mut short).unwrap_err();
    assert!(matches!(e, Error::LengthMismatch { .. }), "{e}");
    Ok(())
}

/// 2^28 keys and pairs (the benchmark's sizes), on the GPU only (2^20 with
/// `CUPRUM_SMALL_INPUTS=1`, as under compute-sanitizer).
#[test]
fn sort_u32_2_pow_28_on_the_gpu() -> cuprum::Result<()> {
    let dev = cuprum_testkit::device()?;
    if dev.is_simulator() {
        return Ok(());
    }
    let stream = dev.default_stream();
    let n = if cuprum_testkit::small_inputs(&dev) {
        1 << 20
    } else {
        1 << 28
    };
    let keys = cuprum_testkit::random_u32(n);
    let mut want = keys.clone();
    want.sort_unstable();
    let mut dk = stream.to_device(&keys)?;
    let mut dv = stream.to_device(&keys)?;
    algorithms::sort_pairs(&stream, &mut dk, &mut dv)?;
    assert!(stream.to_host(&dk)? == want, "keys");
    assert!(stream.to_host(&dv)? == want, "values");
    Ok(())
}

/// The sort passes never find a key's peers of its digit by `match_any_sync` (`MATCH.ANY` on
/// sm_90: 2^28 `u32` keys in 12.62 against 9.22 ms by ballots on the H200, bench/NOTES.md,
/// branch `sort`): the passes that move payloads, and those of 8-byte keys alone, take eight
/// ballots per row; the keys-alone passes of 1- to 4-byte keys one shared atomic-or per key
/// into their warp's digit masks (bench/NOTES.md, 2026-12-06 `orrank` and 2026-12-07); and
/// the kernels meant for three blocks per multiprocessor ask ptxas for them (80 registers;
/// `ptxas_accepts_every_algorithm_kernel` checks that they do not spill).
#[test]
fn sort_passes_rank_by_masks_or_ballots_and_keys_only_passes_fit_three_blocks() {
    let mut passes = 0;
    for (name, _, ptx) in algorithms::__kernels() {
        if !name.starts_with("pass_") {
            continue;
        }
        passes += 1;
        assert!(!ptx.contains("match.any"), "{name}: match.any in its PTX");
        let keys_alone = name.starts_with("pass_keys_");
        // Keys alone of up to 4 bytes by masks; 8-byte keys (their bits in a `u64`) by ballots.
        let masks = keys_alone && !name.contains("u64");
        assert_eq!(
            ptx.contains("atom.shared.or.b32"),
            masks,
            "{name}: ranking by masks"
        );
        assert_eq!(
            ptx.contains("vote.sync.ballot"),
            !masks,
            "{name}: ranking by ballots"
        );
        // The wide keys-alone passes: 384 threads, two blocks per multiprocessor (768 threads,
        // as three blocks of 256).
        let wide = name.starts_with("pass_keys_wide_");
        let three = !wide && (keys_alone || name.starts_with("pass_int32"));
        assert_eq!(
            ptx.contains(".minnctapersm 3"),
            three,
            "{name}: blocks per multiprocessor"
        );
        if wide {
            assert!(
                ptx.contains(".minnctapersm 2"),
                "{name}: blocks per multiprocessor"
            );
            assert!(ptx.contains(".reqntid 384, 1, 1"), "{name}: block shape");
        }
    }
    assert_eq!(passes, 18, "sort pass instances in __kernels()");
}

#[test]
fn ptxas_accepts_every_algorithm_kernel() {
    cuprum_testkit::assert_ptxas_accepts(&algorithms::__kernels());
}

/// The scan tile's shared-memory indices are proven in bounds (its thread number is taken
/// `% BLOCK`): in every `scan_sum` instance the tile's stores into shared memory after its
/// loads have no branch (a bounds check) between them. With the checks there, ptxas kept one
/// load in flight per warp (each load's store waited for it before the next check and load):
/// 1.33 against 0.71 ms for 2^28 `u32` on the H200 (bench/NOTES.md, branch `scantile`).
#[test]
fn scan_tiles_store_their_loads_to_shared_memory_unchecked() {
    let mut scans = 0;
    for (name, _, ptx) in algorithms::__kernels() {
        if !name.starts_with("scan_sum") {
            continue;
        }
        scans += 1;
        // Memory operations and branches, predicates dropped, in program order.
        let ops: Vec<&str> = ptx
            .lines()
            .map(|l| {
                let l = l.trim_start();
                match l.strip_prefix('@') {
                    Some(p) => p.split_once(' ').map_or(p, |(_, op)| op.trim_start()),
                    None => l,
                }
            })
            .filter(|l| {
                ["ld.global.nc", "st.shared", "bra"]
                    .iter()
                    .any(|o| l.starts_with(o))
            })
            .collect();
        let first_load = ops
            .iter()
            .position(|l| l.starts_with("ld.global.nc"))
            .unwrap_or_else(|| panic!("{name}: no ld.global.nc in\n{ptx}"));
        let stores: Vec<&str> = ops[first_load..]
            .iter()
            .skip_while(|l| !l.starts_with("st.shared"))
            .take(algorithms::device::ITEMS)
            .copied()
            .collect();
        assert!(
            stores.len() == algorithms::device::ITEMS
                && stores.iter().all(|l| l.starts_with("st.shared")),
            "{name}: the tile's stores to shared memory are interleaved with checks: {stores:?}"
        );
    }
    assert_eq!(scans, 24, "scan_sum instances");
}

/// The scan tile's stores of its results are proven in bounds where `y` is as long as the
/// input (the library's calls): in every `scan_sum` instance there is a run of the tile's
/// `ITEMS` global stores with at most one conditional branch (the guard `base + i < n`)
/// between consecutive ones. With each store's bounds check as well (a second branch, to the
/// panic path), every store waited for its shared-memory read before the next check: 0.777
/// against 0.699 ms for 2^28 `u32` on the H200 (bench/NOTES.md, branch `scan`). The
/// checks-first pass does not take that loop (the `narrow` call).
#[test]
fn scan_tiles_store_their_results_unchecked() {
    let mut scans = 0;
    for (name, _, ptx) in algorithms::__kernels() {
        if !name.starts_with("scan_sum") {
            continue;
        }
        scans += 1;
        // The longest run of global stores with at most one conditional branch between
        // consecutive ones.
        let (mut run, mut gap, mut longest) = (0usize, 0usize, 0usize);
        for l in ptx.lines() {
            let l = l.trim_start();
            let (conditional, op) = match l.strip_prefix('@') {
                Some(p) => (true, p.split_once(' ').map_or(p, |(_, op)| op.trim_start())),
                None => (false, l),
            };
            if op.starts_with("st.global") {
                run = if run > 0 && gap <= 1 { run + 1 } else { 1 };
                gap = 0;
                longest = longest.max(run);
            } else if conditional && op.starts_with("bra") {
                gap += 1;
            }
        }
        assert!(
            longest >= algorithms::device::ITEMS,
            "{name}: the tile's stores of its results are interleaved with checks (longest run {longest})"
        );
    }
    assert_eq!(scans, 24, "scan_sum instances");
}

#[allow(dead_code)]
#[path = "../examples/compaction.rs"]
mod compaction;

/// The compaction example's exact sequence of calls (`gpu::block` in its kernels, then
/// `exclusive_sum`, `sum`, `max` and `sort_pairs` of (f32, u32) in one stream, reusing the
/// algorithms' temporary storage), checked against the CPU, at sizes where the scan of the
/// block counts has one tile and several; on a GPU also at the example's 50 M, which stalled
/// on the H200. On a GPU, a step that does not finish ends the process (code 3, naming it)
/// instead of hanging the test. Each size runs queued as the example's code is written, then
/// with the host waiting after each step (which names a step that does not finish).
#[test]
fn compaction_example_sequence() -> cuprum::Result<()> {
    for dev in cuprum_testkit::backends()? {
        let sizes: &[usize] = if cuprum_testkit::small_inputs(&dev) {
            &[70_001, 600_017]
        } else {
            &[600_017, 4_000_037, 50_000_017]
        };
        for &n in sizes {
            for alone in [false, true] {
                let what = format!("{} n={n} each_step_alone={alone}", dev.name());
                match compaction::run_with(&dev, n, alone)? {
                    Ok(summary) => eprintln!("{what}: {summary}"),
                    Err(wrong) => panic!("{what}: {wrong}"),
                }
            }
        }
    }
    Ok(())
}

/// A user's single-pass scan on `algorithms::device::scan_tile_with`, at its own tile shape
/// (64 threads × 8 elements; `PADDED` = 512 · 33 / 32).
#[kernel]
pub fn user_scan(y: &mut [u32], x: &[u32], words: &mut [u64], values: &mut [u32]) {
    algorithms::device::scan_tile_with::<u32, u32, 64, 8, 528>(
        y,
        x,
        words,
        values,
        true,
        true,
        0,
        |v| v,
        |v| v,
        |a, b| a.wrapping_add(b),
        |v| v,
        |b| b,
    );
}

/// `scan_tile_with` in a user's kernel: right at its block size, and a failed assertion (not
/// a hang or a wrong answer: threads `t` and `t + 64` would both take tile numbers) when
/// launched with another block shape.
#[test]
fn scan_tile_with_in_a_user_kernel_checks_its_block_shape() -> cuprum::Result<()> {
    for dev in cuprum_testkit::backends()? {
        let stream = dev.new_stream()?;
        let mut r = fastrand::Rng::new();
        let n = 512 * 37 + r.usize(1..512);
        let tiles = n.div_ceil(512);
        let x: Vec<u32> = (0..n).map(|_| r.u32(..)).collect();
        let dx = stream.to_device(&x)?;
        let mut dy = stream.alloc_zeros::<u32>(n)?;
        let mut words = stream.alloc_zeros::<u64>(tiles + 1)?;
        let mut values = stream.alloc_zeros::<u32>(1)?;
        launch!(user_scan<<<tiles as u32, 64, stream>>>(&mut dy, &dx, &mut words, &mut values))?;
        let got = stream.to_host(&dy)?;
        let mut acc = 0u32;
        for (i, (&g, &v)) in got.iter().zip(&x).enumerate() {
            assert_eq!(g, acc, "{} element {i} of {n}", dev.name());
            acc = acc.wrapping_add(v);
        }
        let mut words = stream.alloc_zeros::<u64>(tiles + 1)?;
        launch!(user_scan<<<tiles as u32, 128, stream>>>(&mut dy, &dx, &mut words, &mut values))?;
        match stream.synchronize() {
            Err(cuprum::Error::KernelPanic(p)) => {
                assert!(p.message.contains("exactly BLOCK threads"), "{p}")
            }
            other => panic!("{}: a 128-thread launch gave {other:?}", dev.name()),
        }
    }
    Ok(())
}

/// `scan_tile_with` with an output of another length than the input (its store loop has a
/// fast copy for an output at least as long): a longer one gets the scan in its first `n`
/// elements and keeps the rest; a shorter one is a failed bounds check, as before the copy.
#[test]
fn scan_tile_with_stores_into_outputs_of_other_lengths() -> cuprum::Result<()> {
    for dev in cuprum_testkit::backends()? {
        let stream = dev.new_stream()?;
        let mut r = fastrand::Rng::new();
        let n = 512 * 9 + r.usize(1..512);
        let tiles = n.div_ceil(512);
        let x: Vec<u32> = (0..n).map(|_| r.u32(..)).collect();
        let dx = stream.to_device(&x)?;
        let mut values = stream.alloc_zeros::<u32>(1)?;
        let extra = r.usize(1..100);
        let mut dy = stream.to_device(&vec![7u32; n + extra])?;
        let mut words = stream.alloc_zeros::<u64>(tiles + 1)?;
        launch!(user_scan<<<tiles as u32, 64, stream>>>(&mut dy, &dx, &mut words, &mut values))?;
        let got = stream.to_host(&dy)?;
        let mut acc = 0u32;
        for (i, (&g, &v)) in got.iter().zip(&x).enumerate() {
            assert_eq!(g, acc, "{} element {i} of {n}", dev.name());
            acc = acc.wrapping_add(v);
        }
        assert!(
            got[n..].iter().all(|&g| g == 7),
            "{}: the tail of y changed",
            dev.name()
        );
        let mut short = stream.alloc_zeros::<u32>(n - r.usize(1..600))?;
        let mut words = stream.alloc_zeros::<u64>(tiles + 1)?;
        launch!(user_scan<<<tiles as u32, 64, stream>>>(&mut short, &dx, &mut words, &mut values))?;
        match stream.synchronize() {
            Err(cuprum::Error::KernelPanic(_)) => {}
            other => panic!("{}: a short output gave {other:?}", dev.name()),
        }
    }
    Ok(())
}
