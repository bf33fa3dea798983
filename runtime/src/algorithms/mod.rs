//! Device-wide algorithms on buffers and views: reductions, single-pass prefix sums, radix
//! sort and histograms, stream-ordered, with their temporary device memory managed (kept and
//! reused between calls; [`release_temporary_storage`] frees it).
//!
//! ```
//! use cuprum::prelude::*;
//! # fn main() -> cuprum::Result<()> {
//! let dev = Device::default()?;
//! let stream = dev.default_stream();
//! let x = stream.to_device(&[3u32, 1, 4, 1, 5])?;
//! assert_eq!(cuprum::algorithms::sum(&stream, &x)?, 14);
//! assert_eq!(cuprum::algorithms::max(&stream, &x)?, Some(5));
//! let mut y = stream.alloc_zeros::<u32>(5)?;
//! cuprum::algorithms::exclusive_sum(&stream, &x, &mut y)?;
//! assert_eq!(stream.to_host(&y)?, [0, 3, 4, 8, 9]);
//! # Ok(())
//! # }
//! ```
//!
//! Every integer type and `f32`/`f64` ([`Number`]). Integer sums wrap, as in Rust release
//! builds; `i8`, `i16`, `u8` and `u16` are combined in 32 bits, which gives the same wrapped
//! results. Float sums are combined in an order of their own (as CUB's), so they may differ
//! from a sequential sum by rounding. Inputs are [`DeviceSlice`]s: buffers or views.

pub mod device;
mod kernels;
mod macros;
mod sort_device;
mod sort_kernels;
mod storage;

pub use storage::release_temporary_storage;

use crate::{
    gpu, DeviceBuffer, DeviceSlice, DeviceSliceMut, Element, Error, LaunchConfig, Result, Stream,
};
use device::{BLOCK, SCAN_BLOCK, TILE};

mod sealed {
    pub trait Sealed {}
}

/// The element types of the algorithms: every integer type, `f32` and `f64`.
pub trait Number: Element + gpu::Num + sealed::Sealed {
    #[doc(hidden)]
    /// The type blocks combine values in (`i32`/`u32` for the 8- and 16-bit types).
    type Wide: Element + gpu::Num;
    #[doc(hidden)]
    fn narrow(w: Self::Wide) -> Self;
    #[doc(hidden)]
    fn reduce_blocks(
        stream: &Stream,
        config: LaunchConfig,
        out: &mut (impl DeviceSliceMut<Self::Wide> + ?Sized),
        x: &(impl DeviceSlice<Self> + ?Sized),
        per_block: usize,
        op: u32,
    ) -> Result<()>;
    #[doc(hidden)]
    fn reduce_wide(
        stream: &Stream,
        config: LaunchConfig,
        out: &mut (impl DeviceSliceMut<Self::Wide> + ?Sized),
        x: &(impl DeviceSlice<Self::Wide> + ?Sized),
        per_block: usize,
        op: u32,
    ) -> Result<()>;
    #[doc(hidden)]
    #[allow(clippy::too_many_arguments)]
    fn scan_sum(
        stream: &Stream,
        config: LaunchConfig,
        y: &mut (impl DeviceSliceMut<Self> + ?Sized),
        x: &(impl DeviceSlice<Self> + ?Sized),
        words: &mut (impl DeviceSliceMut<u64> + ?Sized),
        values: &mut (impl DeviceSliceMut<Self::Wide> + ?Sized),
        packed: bool,
        exclusive: bool,
    ) -> Result<()>;
    #[doc(hidden)]
    /// 8-bit digits of the key.
    const PASSES: u32;
    #[doc(hidden)]
    fn sort_counts(
        stream: &Stream,
        config: LaunchConfig,
        hist: &mut (impl DeviceSliceMut<u32> + ?Sized),
        keys: &(impl DeviceSlice<Self> + ?Sized),
    ) -> Result<()>;
    #[doc(hidden)]
    #[allow(clippy::too_many_arguments)]
    fn sort_pass(
        stream: &Stream,
        config: LaunchConfig,
        keys_out: &mut (impl DeviceSliceMut<Self> + ?Sized),
        keys_in: &(impl DeviceSlice<Self> + ?Sized),
        order_out: &mut (impl DeviceSliceMut<u32> + ?Sized),
        order_in: &(impl DeviceSlice<u32> + ?Sized),
        status: &mut (impl DeviceSliceMut<u32> + ?Sized),
        offsets: &(impl DeviceSlice<u32> + ?Sized),
        pass: u32,
        with_order: bool,
    ) -> Result<()>;
    #[doc(hidden)]
    fn gather(
        stream: &Stream,
        config: LaunchConfig,
        out: &mut (impl DeviceSliceMut<Self> + ?Sized),
        values: &(impl DeviceSlice<Self> + ?Sized),
        order: &(impl DeviceSlice<u32> + ?Sized),
    ) -> Result<()>;
    #[doc(hidden)]
    /// Whether `lower..upper` split in `bins` is a range the histogram kernel bins exactly.
    fn check_range(lower: Self, upper: Self, bins: usize) -> Result<()>;
    #[doc(hidden)]
    fn histogram(
        stream: &Stream,
        config: LaunchConfig,
        bins: &mut (impl DeviceSliceMut<u32> + ?Sized),
        x: &(impl DeviceSlice<Self> + ?Sized),
        lower: Self,
        upper: Self,
    ) -> Result<()>;
}

macro_rules! numbers {
    ($($kind:ident $t:ty => $w:ty, $h:ty);*) => {$(
        impl sealed::Sealed for $t {}
        impl Number for $t {
            type Wide = $w;
            fn narrow(w: $w) -> $t {
                w as $t
            }
            fn reduce_blocks(
                stream: &Stream,
                config: LaunchConfig,
                out: &mut (impl DeviceSliceMut<$w> + ?Sized),
                x: &(impl DeviceSlice<$t> + ?Sized),
                per_block: usize,
                op: u32,
            ) -> Result<()> {
                kernels::reduce_blocks::<$t, $w>::launch(stream, config, out, x, per_block, op)
            }
            fn reduce_wide(
                stream: &Stream,
                config: LaunchConfig,
                out: &mut (impl DeviceSliceMut<$w> + ?Sized),
                x: &(impl DeviceSlice<$w> + ?Sized),
                per_block: usize,
                op: u32,
            ) -> Result<()> {
                kernels::reduce_blocks::<$w, $w>::launch(stream, config, out, x, per_block, op)
            }
            #[allow(clippy::too_many_arguments)]
            fn scan_sum(
                stream: &Stream,
                config: LaunchConfig,
                y: &mut (impl DeviceSliceMut<$t> + ?Sized),
                x: &(impl DeviceSlice<$t> + ?Sized),
                words: &mut (impl DeviceSliceMut<u64> + ?Sized),
                values: &mut (impl DeviceSliceMut<$w> + ?Sized),
                packed: bool,
                exclusive: bool,
            ) -> Result<()> {
                kernels::scan_sum::<$t, $w>::launch(
                    stream, config, y, x, words, values, packed, exclusive,
                )
            }
            const PASSES: u32 = std::mem::size_of::<$t>() as u32;
            fn sort_counts(
                stream: &Stream,
                config: LaunchConfig,
                hist: &mut (impl DeviceSliceMut<u32> + ?Sized),
                keys: &(impl DeviceSlice<$t> + ?Sized),
            ) -> Result<()> {
                numbers!(@counts $kind $t, stream, config, hist, keys, Self::PASSES)
            }
            fn sort_pass(
                stream: &Stream,
                config: LaunchConfig,
                keys_out: &mut (impl DeviceSliceMut<$t> + ?Sized),
                keys_in: &(impl DeviceSlice<$t> + ?Sized),
                order_out: &mut (impl DeviceSliceMut<u32> + ?Sized),
                order_in: &(impl DeviceSlice<u32> + ?Sized),
                status: &mut (impl DeviceSliceMut<u32> + ?Sized),
                offsets: &(impl DeviceSlice<u32> + ?Sized),
                pass: u32,
                with_order: bool,
            ) -> Result<()> {
                let (shift, first) = (8 * pass, pass == 0);
                numbers!(@pass $kind $t, stream, config, keys_out, keys_in, order_out, order_in,
                    status, offsets, shift, with_order, first)
            }
            fn gather(
                stream: &Stream,
                config: LaunchConfig,
                out: &mut (impl DeviceSliceMut<$t> + ?Sized),
                values: &(impl DeviceSlice<$t> + ?Sized),
                order: &(impl DeviceSlice<u32> + ?Sized),
            ) -> Result<()> {
                sort_kernels::gather::<$t>::launch(stream, config, out, values, order)
            }
            fn check_range(lower: $t, upper: $t, bins: usize) -> Result<()> {
                numbers!(@check $kind lower, upper, bins)
            }
            fn histogram(
                stream: &Stream,
                config: LaunchConfig,
                bins: &mut (impl DeviceSliceMut<u32> + ?Sized),
                x: &(impl DeviceSlice<$t> + ?Sized),
                lower: $t,
                upper: $t,
            ) -> Result<()> {
                numbers!(@histogram $kind $t, $h, stream, config, bins, x, lower, upper)
            }
        }
    )*};
    (@check int $lower:ident, $upper:ident, $bins:ident) => {{
        // Bins are `(v - lower) · bins / (upper - lower)` in 64 bits.
        let width = ($upper as i128 - $lower as i128) as u128;
        if width == 0 || $upper < $lower {
            Err(Error::InvalidArgument(format!("a histogram's range {}..{} is empty", $lower, $upper)))
        } else if width * $bins as u128 > u64::MAX as u128 {
            Err(Error::InvalidArgument(format!(
                "a histogram of {} bins over {}..{}: (upper - lower) × bins must fit in 64 bits",
                $bins, $lower, $upper
            )))
        } else {
            Ok(())
        }
    }};
    (@check float $lower:ident, $upper:ident, $bins:ident) => {{
        if $lower.partial_cmp(&$upper) != Some(std::cmp::Ordering::Less)
            || !($upper - $lower).is_finite()
        {
            Err(Error::InvalidArgument(format!(
                "a histogram's range {}..{} must be finite and not empty",
                $lower, $upper
            )))
        } else {
            let _ = $bins;
            Ok(())
        }
    }};
    (@counts int $t:ty, $($arg:expr),*) => {
        sort_kernels::counts_int::<$t, <$t as Bits>::U>::launch($($arg),*)
    };
    (@counts float $t:ty, $($arg:expr),*) => {
        sort_kernels::counts_float::<$t, <$t as Bits>::U>::launch($($arg),*)
    };
    (@pass int $t:ty, $($arg:expr),*) => {
        sort_kernels::pass_int::<$t, <$t as Bits>::U>::launch($($arg),*)
    };
    (@pass float $t:ty, $($arg:expr),*) => {
        sort_kernels::pass_float::<$t, <$t as Bits>::U>::launch($($arg),*)
    };
    (@histogram int $t:ty, $h:ty, $($arg:ident),*) => {
        kernels::histogram_int::<$t, $h>::launch($($arg),*)
    };
    (@histogram float $t:ty, $h:ty, $($arg:ident),*) => {
        kernels::histogram_float::<$t>::launch($($arg),*)
    };
}
numbers!(int i8 => i32, i64; int i16 => i32, i64; int i32 => i32, i64; int i64 => i64, i64;
    int isize => i64, i64; int u8 => u32, u64; int u16 => u32, u64; int u32 => u32, u64;
    int u64 => u64, u64; int usize => u64, u64; float f32 => f32, f32; float f64 => f64, f64);

/// The unsigned type of a key's bits (the sort kernels' second type).
trait Bits {
    type U;
}
macro_rules! bits {
    ($($t:ty => $u:ty),*) => {$( impl Bits for $t { type U = $u; } )*};
}
bits!(i8 => u8, i16 => u16, i32 => u32, i64 => u64, isize => u64, u8 => u8, u16 => u16,
    u32 => u32, u64 => u64, usize => u64, f32 => u32, f64 => u64);

const SUM: u32 = 0;
const MIN: u32 = 1;
const MAX: u32 = 2;

/// The most blocks of a histogram's or a sort's counting pass (about one wave of 256-thread
/// blocks on an H200).
const REDUCE_BLOCKS: usize = 1024;

/// Blocks and elements per block of a reduction of `n > 0` elements: at most one wave of
/// 256-thread blocks, eight per multiprocessor (so that every multiprocessor gets the same
/// share), each at least 16 elements per thread.
fn reduce_grid(stream: &Stream, n: usize) -> (usize, usize) {
    let wave = 8 * stream.device().multiprocessor_count().max(1) as usize;
    let per_block = n.div_ceil(wave).next_multiple_of(BLOCK).max(16 * BLOCK);
    (n.div_ceil(per_block), per_block)
}

/// Launches the two passes of a built-in reduction; `None` for empty input.
fn reduce_op<T: Number>(
    stream: &Stream,
    x: &(impl DeviceSlice<T> + ?Sized),
    op: u32,
) -> Result<Option<T>> {
    let n = x.len();
    if n == 0 {
        return Ok(None);
    }
    let (blocks, per_block) = reduce_grid(stream, n);
    let mut result = storage::take::<T::Wide>(stream, 1)?;
    let block = LaunchConfig::new(1u32, BLOCK as u32);
    if blocks == 1 {
        T::reduce_blocks(stream, block, &mut result.slice_mut(..1), x, per_block, op)?;
    } else {
        let mut partials = storage::take::<T::Wide>(stream, blocks)?;
        let grid = LaunchConfig::new(blocks as u32, BLOCK as u32);
        T::reduce_blocks(
            stream,
            grid,
            &mut partials.slice_mut(..blocks),
            x,
            per_block,
            op,
        )?;
        let p = partials.slice(..blocks);
        T::reduce_wide(stream, block, &mut result.slice_mut(..1), &p, blocks, op)?;
        storage::give(stream, partials);
    }
    let v = stream.to_host(&result.slice(..1))?[0];
    storage::give(stream, result);
    Ok(Some(T::narrow(v)))
}

/// The sum of `x` (zero for empty input); integers wrap.
pub fn sum<T: Number>(stream: &Stream, x: &(impl DeviceSlice<T> + ?Sized)) -> Result<T> {
    Ok(reduce_op(stream, x, SUM)?.unwrap_or(T::ZERO))
}

/// The smallest element of `x` (by `<`), `None` for empty input.
pub fn min<T: Number>(stream: &Stream, x: &(impl DeviceSlice<T> + ?Sized)) -> Result<Option<T>> {
    reduce_op(stream, x, MIN)
}

/// The largest element of `x` (by `>`), `None` for empty input.
pub fn max<T: Number>(stream: &Stream, x: &(impl DeviceSlice<T> + ?Sized)) -> Result<Option<T>> {
    reduce_op(stream, x, MAX)
}

/// The tile count of a scan of `n` elements, or an error when `y` is not as long as `x`.
fn scan_tiles(x: usize, y: usize) -> Result<usize> {
    if x != y {
        return Err(Error::LengthMismatch {
            expected: y,
            found: x,
        });
    }
    Ok(x.div_ceil(TILE))
}

/// Zeroed tile states for a scan of `tiles` tiles: `tiles + 1` words (the last is the tile
/// counter).
fn scan_words(stream: &Stream, tiles: usize) -> Result<DeviceBuffer<u64>> {
    let mut words = storage::take::<u64>(stream, tiles + 1)?;
    let config = LaunchConfig::for_elements(tiles + 1, BLOCK as u32);
    kernels::clear_words::launch(stream, config, &mut words.slice_mut(..tiles + 1))?;
    Ok(words)
}

/// Whether a scan in `W` keeps each tile's status and value in one word: `W` is `i32` or
/// `u32`, whose bits the scan kernels move through `as u32` unchanged.
fn packs<W: 'static>() -> bool {
    use std::any::TypeId;
    let w = TypeId::of::<W>();
    w == TypeId::of::<u32>() || w == TypeId::of::<i32>()
}

/// The tile states of a scan of `tiles` tiles in `W` (words, and values unless packed), the
/// kernel's launch configuration, and whether the states are packed.
struct ScanStates<W: Element> {
    words: DeviceBuffer<u64>,
    values: DeviceBuffer<W>,
    packed: bool,
    tiles: usize,
}

impl<W: Element> ScanStates<W> {
    fn take(stream: &Stream, tiles: usize) -> Result<Self> {
        let packed = packs::<W>();
        Ok(ScanStates {
            words: scan_words(stream, tiles)?,
            values: storage::take::<W>(stream, if packed { 1 } else { 2 * tiles })?,
            packed,
            tiles,
        })
    }

    fn config(&self) -> LaunchConfig {
        LaunchConfig::new(self.tiles as u32, SCAN_BLOCK as u32)
    }

    fn give(self, stream: &Stream) {
        storage::give(stream, self.words);
        storage::give(stream, self.values);
    }
}

fn prefix_sum<T: Number>(
    stream: &Stream,
    x: &(impl DeviceSlice<T> + ?Sized),
    y: &mut (impl DeviceSliceMut<T> + ?Sized),
    exclusive: bool,
) -> Result<()> {
    let tiles = scan_tiles(x.len(), y.len())?;
    if tiles == 0 {
        return Ok(());
    }
    let mut states = ScanStates::<T::Wide>::take(stream, tiles)?;
    let values = states.values.len();
    T::scan_sum(
        stream,
        states.config(),
        y,
        x,
        &mut states.words.slice_mut(..tiles + 1),
        &mut states.values.slice_mut(..values),
        states.packed,
        exclusive,
    )?;
    states.give(stream);
    Ok(())
}

/// `y[i] = x[0] + .. + x[i]`, in one pass over the data (decoupled look-back). `y` must be as
/// long as `x` (else [`Error::LengthMismatch`]).
pub fn inclusive_sum<T: Number>(
    stream: &Stream,
    x: &(impl DeviceSlice<T> + ?Sized),
    y: &mut (impl DeviceSliceMut<T> + ?Sized),
) -> Result<()> {
    prefix_sum(stream, x, y, false)
}

/// `y[i] = x[0] + .. + x[i - 1]` (`y[0]` is zero), in one pass over the data. `y` must be as
/// long as `x` (else [`Error::LengthMismatch`]).
pub fn exclusive_sum<T: Number>(
    stream: &Stream,
    x: &(impl DeviceSlice<T> + ?Sized),
    y: &mut (impl DeviceSliceMut<T> + ?Sized),
) -> Result<()> {
    prefix_sum(stream, x, y, true)
}

#[doc(inline)]
pub use crate::__cuprum_exclusive_scan as exclusive_scan;
#[doc(inline)]
pub use crate::__cuprum_inclusive_scan as inclusive_scan;
#[doc(inline)]
pub use crate::__cuprum_reduce as reduce;

/// What `reduce!` expands to: the two passes with the user's kernel, then `init` on the host.
#[doc(hidden)]
pub fn __reduce_with<T: Element + gpu::WarpValue>(
    stream: &Stream,
    x: &impl DeviceSlice<T>,
    init: T,
    op: impl Fn(T, T) -> T,
    launch: impl Fn(
        &Stream,
        LaunchConfig,
        &mut crate::DeviceViewMut<'_, T>,
        &dyn DeviceSlice<T>,
        usize,
    ) -> Result<()>,
) -> Result<T> {
    let n = x.len();
    if n == 0 {
        return Ok(init);
    }
    let (blocks, per_block) = reduce_grid(stream, n);
    let mut result = storage::take::<T>(stream, 1)?;
    let block = LaunchConfig::new(1u32, BLOCK as u32);
    if blocks == 1 {
        launch(stream, block, &mut result.slice_mut(..1), x, per_block)?;
    } else {
        let mut partials = storage::take::<T>(stream, blocks)?;
        let grid = LaunchConfig::new(blocks as u32, BLOCK as u32);
        launch(
            stream,
            grid,
            &mut partials.slice_mut(..blocks),
            x,
            per_block,
        )?;
        launch(
            stream,
            block,
            &mut result.slice_mut(..1),
            &partials.slice(..blocks),
            blocks,
        )?;
        storage::give(stream, partials);
    }
    let v = stream.to_host(&result.slice(..1))?[0];
    storage::give(stream, result);
    Ok(op(init, v))
}

/// What the scan macros expand to: the tile states, then the user's kernel.
#[doc(hidden)]
pub fn __scan_with<T: Element>(
    stream: &Stream,
    x_len: usize,
    y_len: usize,
    launch: impl FnOnce(
        &Stream,
        LaunchConfig,
        &mut crate::DeviceViewMut<'_, u64>,
        &mut crate::DeviceViewMut<'_, T>,
        bool,
    ) -> Result<()>,
) -> Result<()> {
    let tiles = scan_tiles(x_len, y_len)?;
    if tiles == 0 {
        return Ok(());
    }
    let mut states = ScanStates::<T>::take(stream, tiles)?;
    let values = states.values.len();
    launch(
        stream,
        states.config(),
        &mut states.words.slice_mut(..tiles + 1),
        &mut states.values.slice_mut(..values),
        states.packed,
    )?;
    states.give(stream);
    Ok(())
}

/// Counts the elements of `x` in `bins.len()` bins of equal width over `lower..upper`: bin
/// `k` counts the `v` with `lower + k·w <= v < lower + (k + 1)·w`, `w = (upper - lower) /
/// bins.len()` (integers: `(v - lower) · bins / (upper - lower)` exactly; floats:
/// `(v - lower) · (bins / (upper - lower))` in the element type, as CUB's `HistogramEven`).
/// Elements outside the range (and NaNs) are not counted. The counts replace what `bins`
/// held. An empty or infinite range is [`Error::InvalidArgument`], as is an integer range
/// whose width times the bin count passes 64 bits.
pub fn histogram<T: Number>(
    stream: &Stream,
    x: &(impl DeviceSlice<T> + ?Sized),
    lower: T,
    upper: T,
    bins: &mut (impl DeviceSliceMut<u32> + ?Sized),
) -> Result<()> {
    let n = bins.len();
    T::check_range(lower, upper, n)?;
    if n == 0 {
        return Ok(());
    }
    kernels::clear_flags::launch(stream, LaunchConfig::for_elements(n, BLOCK as u32), bins)?;
    if x.is_empty() {
        return Ok(());
    }
    let blocks = x.len().div_ceil(BLOCK * 16).min(REDUCE_BLOCKS);
    let config = LaunchConfig::new(blocks as u32, BLOCK as u32);
    T::histogram(stream, config, bins, x, lower, upper)
}

/// Keys per tile of a sort pass.
const SORT_TILE: usize = 2048;
/// The most keys a sort takes: tile counts carry a 2-bit state in 32 bits.
const SORT_MAX: usize = (1 << 30) - 1;

/// Sorts `keys`; with `with_order`, also returns where each sorted key came from (a buffer of
/// at least `keys.len()` indices, to give back to the storage).
fn sort_keys<K: Number>(
    stream: &Stream,
    keys: &mut (impl DeviceSliceMut<K> + ?Sized),
    with_order: bool,
) -> Result<Option<DeviceBuffer<u32>>> {
    let n = keys.len();
    if n > SORT_MAX {
        return Err(Error::InvalidArgument(format!(
            "cuprum::algorithms sorts at most {SORT_MAX} keys at once, not {n}"
        )));
    }
    if n <= 1 {
        return Ok(None);
    }
    let passes = K::PASSES as usize;
    let block = BLOCK as u32;
    let mut hist = storage::take::<u32>(stream, 256 * passes)?;
    let mut h = hist.slice_mut(..256 * passes);
    kernels::clear_flags::launch(
        stream,
        LaunchConfig::for_elements(256 * passes, block),
        &mut h,
    )?;
    let blocks = n.div_ceil(BLOCK * 16).min(REDUCE_BLOCKS) as u32;
    K::sort_counts(stream, LaunchConfig::new(blocks, block), &mut h, &*keys)?;
    sort_kernels::digit_starts::launch(stream, LaunchConfig::new(passes as u32, block), &mut h)?;
    let tiles = n.div_ceil(SORT_TILE);
    let mut status = storage::take::<u32>(stream, 256 * tiles + 1)?;
    let mut alt = storage::take::<K>(stream, n)?;
    let order_len = if with_order { n } else { 0 };
    let mut orders = [
        storage::take::<u32>(stream, order_len)?,
        storage::take::<u32>(stream, order_len)?,
    ];
    let config = LaunchConfig::new(tiles as u32, block);
    for p in 0..passes {
        let mut st = status.slice_mut(..256 * tiles + 1);
        kernels::clear_flags::launch(
            stream,
            LaunchConfig::for_elements(256 * tiles + 1, block),
            &mut st,
        )?;
        let offsets = hist.slice(256 * p..256 * (p + 1));
        let [a, b] = &mut orders;
        let (order_out, order_in) = if p % 2 == 0 { (a, b) } else { (b, a) };
        let (mut o_out, o_in) = (
            order_out.slice_mut(..order_len),
            order_in.slice(..order_len),
        );
        let pass = p as u32;
        if p % 2 == 0 {
            let mut to = alt.slice_mut(..n);
            K::sort_pass(
                stream, config, &mut to, &*keys, &mut o_out, &o_in, &mut st, &offsets, pass,
                with_order,
            )?;
        } else {
            let from = alt.slice(..n);
            K::sort_pass(
                stream, config, keys, &from, &mut o_out, &o_in, &mut st, &offsets, pass, with_order,
            )?;
        }
    }
    if passes % 2 == 1 {
        stream.copy(&alt.slice(..n), keys)?;
    }
    let [a, b] = orders;
    let (order, other) = if passes % 2 == 1 { (a, b) } else { (b, a) };
    for buffer in [hist, status] {
        storage::give(stream, buffer);
    }
    storage::give(stream, alt);
    storage::give(stream, other);
    if with_order {
        Ok(Some(order))
    } else {
        storage::give(stream, order);
        Ok(None)
    }
}

/// Sorts `keys` in ascending order: integers by value, floats in IEEE total order (`-NaN <
/// -inf < .. < -0.0 < +0.0 < .. < +inf < +NaN`, Rust's `f32::total_cmp`). A stable LSD radix
/// sort, one pass over the keys per 8-bit digit (onesweep: each tile's digit counts are
/// looked back for, as in the single-pass scans). At most 2^30 - 1 keys
/// ([`Error::InvalidArgument`] beyond).
pub fn sort<K: Number>(
    stream: &Stream,
    keys: &mut (impl DeviceSliceMut<K> + ?Sized),
) -> Result<()> {
    sort_keys(stream, keys, false).map(|_| ())
}

/// Sorts `keys` as [`sort`] does and moves `values[i]` with `keys[i]`. Stable: values of
/// equal keys keep their order. `values` must be as long as `keys` (else
/// [`Error::LengthMismatch`]).
pub fn sort_pairs<K: Number, V: Number>(
    stream: &Stream,
    keys: &mut (impl DeviceSliceMut<K> + ?Sized),
    values: &mut (impl DeviceSliceMut<V> + ?Sized),
) -> Result<()> {
    let n = keys.len();
    if values.len() != n {
        return Err(Error::LengthMismatch {
            expected: n,
            found: values.len(),
        });
    }
    let Some(order) = sort_keys(stream, keys, true)? else {
        return Ok(());
    };
    let mut moved = storage::take::<V>(stream, n)?;
    let blocks = n.div_ceil(BLOCK * 4).min(4 * REDUCE_BLOCKS) as u32;
    let config = LaunchConfig::new(blocks, BLOCK as u32);
    V::gather(
        stream,
        config,
        &mut moved.slice_mut(..n),
        &*values,
        &order.slice(..n),
    )?;
    stream.copy(&moved.slice(..n), values)?;
    storage::give(stream, moved);
    storage::give(stream, order);
    Ok(())
}

/// Every algorithm kernel instance as `(name, PTX entry, PTX)`, for the test that ptxas
/// accepts them all without spills (`tests/gpu_algorithms.rs`).
#[doc(hidden)]
pub fn __kernels() -> Vec<(&'static str, &'static str, &'static str)> {
    macro_rules! list {
        ($($k:path),* $(,)?) => { vec![$((stringify!($k), <$k>::NAME, <$k>::PTX)),*] };
    }
    use kernels::*;
    use sort_kernels::*;
    list![
        reduce_blocks<i8, i32>, reduce_blocks<i16, i32>, reduce_blocks<i32, i32>,
        reduce_blocks<i64, i64>, reduce_blocks<isize, i64>, reduce_blocks<u8, u32>,
        reduce_blocks<u16, u32>, reduce_blocks<u32, u32>, reduce_blocks<u64, u64>,
        reduce_blocks<usize, u64>, reduce_blocks<f32, f32>, reduce_blocks<f64, f64>,
        scan_sum<i8, i32>, scan_sum<i16, i32>, scan_sum<i32, i32>, scan_sum<i64, i64>,
        scan_sum<isize, i64>, scan_sum<u8, u32>, scan_sum<u16, u32>, scan_sum<u32, u32>,
        scan_sum<u64, u64>, scan_sum<usize, u64>, scan_sum<f32, f32>, scan_sum<f64, f64>,
        histogram_int<i8, i64>, histogram_int<i64, i64>, histogram_int<u8, u64>,
        histogram_int<u64, u64>, histogram_float<f32>, histogram_float<f64>,
        counts_int<u8, u8>, counts_int<i32, u32>, counts_int<u64, u64>,
        counts_float<f32, u32>, counts_float<f64, u64>,
        pass_int<u8, u8>, pass_int<i16, u16>, pass_int<u32, u32>, pass_int<i32, u32>,
        pass_int<u64, u64>, pass_int<i64, u64>, pass_float<f32, u32>, pass_float<f64, u64>,
        gather<u8>, gather<u32>, gather<f64>, digit_starts, clear_flags, clear_words,
    ]
}
