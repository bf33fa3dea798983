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
pub trait Number: Element + gpu::Num + cudarc::driver::ValidAsZeroBits + sealed::Sealed {
    #[doc(hidden)]
    /// The type blocks combine values in (`i32`/`u32` for the 8- and 16-bit types).
    type Wide: Element + gpu::Num + cudarc::driver::ValidAsZeroBits;
    #[doc(hidden)]
    fn narrow(w: Self::Wide) -> Self;
    #[doc(hidden)]
    fn reduce_blocks(
        stream: &Stream,
        config: LaunchConfig,
        out: &mut (impl DeviceSliceMut<Self::Wide> + ?Sized),
        ticket: &mut (impl DeviceSliceMut<u32> + ?Sized),
        x: &(impl DeviceSlice<Self> + ?Sized),
        per_block: usize,
        op: u32,
    ) -> Result<()>;
    #[doc(hidden)]
    /// A built-in reduction over the input's 16-byte vectors (`DeviceBuffer::as_vectors`);
    /// `None` where the type has no vector kernel or the input no vectors.
    fn reduce_vectors(
        stream: &Stream,
        x: &(impl DeviceSlice<Self> + ?Sized),
        op: u32,
    ) -> Result<Option<Self::Wide>>;
    #[doc(hidden)]
    fn reduce_wide(
        stream: &Stream,
        config: LaunchConfig,
        out: &mut (impl DeviceSliceMut<Self::Wide> + ?Sized),
        ticket: &mut (impl DeviceSliceMut<u32> + ?Sized),
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
        per_block: usize,
    ) -> Result<()>;
    #[doc(hidden)]
    /// Keys per tile of a sort pass.
    const SORT_TILE: usize;
    #[doc(hidden)]
    /// Whether sorts that move a payload with these keys look back (onesweep) by default.
    const SORT_PAYLOAD_LOOKBACK: bool;
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
        next: &mut (impl DeviceSliceMut<u32> + ?Sized),
        offsets: &(impl DeviceSlice<u32> + ?Sized),
        pass: u32,
        payload: bool,
        first: bool,
        lookback: u32,
        wide: bool,
    ) -> Result<()>;
    #[doc(hidden)]
    /// Keys per tile of the wide keys-alone passes (384 threads, always look-back; `sort_pass`
    /// with `wide`), 0 for key types without them (8-byte keys).
    const SORT_WIDE_TILE: usize;
    #[doc(hidden)]
    fn sort_tile_counts(
        stream: &Stream,
        config: LaunchConfig,
        table: &mut (impl DeviceSliceMut<u32> + ?Sized),
        keys: &(impl DeviceSlice<Self> + ?Sized),
        pass: u32,
    ) -> Result<()>;
    #[doc(hidden)]
    /// `sort_pairs` with values of this type.
    fn sort_pairs_of<K: Number>(
        stream: &Stream,
        keys: &mut (impl DeviceSliceMut<K> + ?Sized),
        values: &mut (impl DeviceSliceMut<Self> + ?Sized),
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
    /// The histogram kernel over the input's 16-byte vectors; `false` (nothing launched)
    /// where the type has no vector kernel or the input no vectors.
    fn histogram_vectors(
        stream: &Stream,
        bins: &mut (impl DeviceSliceMut<u32> + ?Sized),
        x: &(impl DeviceSlice<Self> + ?Sized),
        lower: Self,
        upper: Self,
    ) -> Result<bool>;
    #[doc(hidden)]
    fn histogram(
        stream: &Stream,
        config: LaunchConfig,
        bins: &mut (impl DeviceSliceMut<u32> + ?Sized),
        x: &(impl DeviceSlice<Self> + ?Sized),
        per_block: usize,
        lower: Self,
        upper: Self,
    ) -> Result<()>;
}

macro_rules! numbers {
    ($($kind:ident $t:ty => $w:ty, $h:ty, $pairs:ident, $lanes:tt, $pass:ident,
        $wide:ident);*) => {$(
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
                ticket: &mut (impl DeviceSliceMut<u32> + ?Sized),
                x: &(impl DeviceSlice<$t> + ?Sized),
                per_block: usize,
                op: u32,
            ) -> Result<()> {
                kernels::reduce_blocks::<$t, $w>::launch(
                    stream, config, out, ticket, x, per_block, op,
                )
            }
            fn reduce_vectors(
                stream: &Stream,
                x: &(impl DeviceSlice<$t> + ?Sized),
                op: u32,
            ) -> Result<Option<$w>> {
                numbers!(@reduce_vectors $lanes $t, stream, x, op)
            }
            fn reduce_wide(
                stream: &Stream,
                config: LaunchConfig,
                out: &mut (impl DeviceSliceMut<$w> + ?Sized),
                ticket: &mut (impl DeviceSliceMut<u32> + ?Sized),
                x: &(impl DeviceSlice<$w> + ?Sized),
                per_block: usize,
                op: u32,
            ) -> Result<()> {
                kernels::reduce_blocks::<$w, $w>::launch(
                    stream, config, out, ticket, x, per_block, op,
                )
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
                if exclusive {
                    kernels::scan_sum::<$t, $w, 1>::launch(stream, config, y, x, words, values, packed)
                } else {
                    kernels::scan_sum::<$t, $w, 0>::launch(stream, config, y, x, words, values, packed)
                }
            }
            const PASSES: u32 = std::mem::size_of::<$t>() as u32;
            const SORT_TILE: usize = <$t as Bits>::TILE;
            const SORT_PAYLOAD_LOOKBACK: bool = numbers!(@lookback $pairs);
            fn sort_counts(
                stream: &Stream,
                config: LaunchConfig,
                hist: &mut (impl DeviceSliceMut<u32> + ?Sized),
                keys: &(impl DeviceSlice<$t> + ?Sized),
                per_block: usize,
            ) -> Result<()> {
                numbers!(@counts $kind $t, stream, config, hist, keys, per_block, Self::PASSES)
            }
            fn sort_pass(
                stream: &Stream,
                config: LaunchConfig,
                keys_out: &mut (impl DeviceSliceMut<$t> + ?Sized),
                keys_in: &(impl DeviceSlice<$t> + ?Sized),
                order_out: &mut (impl DeviceSliceMut<u32> + ?Sized),
                order_in: &(impl DeviceSlice<u32> + ?Sized),
                status: &mut (impl DeviceSliceMut<u32> + ?Sized),
                next: &mut (impl DeviceSliceMut<u32> + ?Sized),
                offsets: &(impl DeviceSlice<u32> + ?Sized),
                pass: u32,
                payload: bool,
                first: bool,
                lookback: u32,
                wide: bool,
            ) -> Result<()> {
                let shift = 8 * pass;
                if wide {
                    // Keys alone (`payload` is false): the wide kernels take no payload flags.
                    numbers!(@pass_wide $wide $kind $t, stream, config, keys_out, keys_in,
                        order_out, order_in, status, next, offsets, shift, lookback,
                        numbers!(@last $kind $t))
                } else if payload {
                    numbers!(@pass $pass $kind $t, stream, config, keys_out, keys_in, order_out,
                        order_in, status, next, offsets, shift, payload, first, lookback,
                        numbers!(@last $kind $t))
                } else {
                    numbers!(@pass_keys $kind $t, stream, config, keys_out, keys_in, order_out,
                        order_in, status, next, offsets, shift, payload, first, lookback,
                        numbers!(@last $kind $t))
                }
            }
            const SORT_WIDE_TILE: usize = numbers!(@wide_tile $wide);
            fn sort_tile_counts(
                stream: &Stream,
                config: LaunchConfig,
                table: &mut (impl DeviceSliceMut<u32> + ?Sized),
                keys: &(impl DeviceSlice<$t> + ?Sized),
                pass: u32,
            ) -> Result<()> {
                numbers!(@tile_counts $kind $t, stream, config, table, keys, 8 * pass)
            }
            fn sort_pairs_of<K: Number>(
                stream: &Stream,
                keys: &mut (impl DeviceSliceMut<K> + ?Sized),
                values: &mut (impl DeviceSliceMut<$t> + ?Sized),
            ) -> Result<()> {
                numbers!(@pairs $pairs stream, keys, values)
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
            fn histogram_vectors(
                stream: &Stream,
                bins: &mut (impl DeviceSliceMut<u32> + ?Sized),
                x: &(impl DeviceSlice<$t> + ?Sized),
                lower: $t,
                upper: $t,
            ) -> Result<bool> {
                numbers!(@histogram_vectors $kind $lanes $t, stream, bins, x, lower, upper)
            }
            fn histogram(
                stream: &Stream,
                config: LaunchConfig,
                bins: &mut (impl DeviceSliceMut<u32> + ?Sized),
                x: &(impl DeviceSlice<$t> + ?Sized),
                per_block: usize,
                lower: $t,
                upper: $t,
            ) -> Result<()> {
                numbers!(@histogram $kind $t, $h, stream, config, bins, x, per_block, lower, upper)
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
    // Look-back is the default only where it was measured faster: `u32` keys moving a `u32`
    // payload through the three-block pass (9.61 against 11.53 ms for 2^28 pairs on the H200,
    // eight statuses read per turn; bench/NOTES.md, branch `sortkeys`). Keys alone on the
    // 256-thread passes it is slower (8.35 against 7.38 ms); the other key types were not
    // measured with it. (Keys alone of 1- to 4-byte types take the wide passes instead, by
    // look-back: `SORT_KEYS_WIDE`, branch `sortkeys3`.)
    (@lookback direct) => { true };
    (@lookback gather) => { false };
    (@pass three int $t:ty, $($arg:expr),*) => {
        sort_kernels::pass_int32::<
            $t, <$t as Bits>::U, { <$t as Bits>::ITEMS }, { <$t as Bits>::TILE }
        >::launch($($arg),*)
    };
    (@pass two int $t:ty, $($arg:expr),*) => {
        sort_kernels::pass_int::<
            $t, <$t as Bits>::U, { <$t as Bits>::ITEMS }, { <$t as Bits>::TILE }
        >::launch($($arg),*)
    };
    (@pass $_w:ident float $t:ty, $($arg:expr),*) => {
        sort_kernels::pass_float::<
            $t, <$t as Bits>::U, { <$t as Bits>::ITEMS }, { <$t as Bits>::TILE }
        >::launch($($arg),*)
    };
    (@pass_keys int $t:ty, $($arg:expr),*) => {
        sort_kernels::pass_keys_int::<
            $t, <$t as Bits>::U, { <$t as Bits>::ITEMS }, { <$t as Bits>::TILE }
        >::launch($($arg),*)
    };
    (@pass_keys float $t:ty, $($arg:expr),*) => {
        sort_kernels::pass_keys_float::<
            $t, <$t as Bits>::U, { <$t as Bits>::ITEMS }, { <$t as Bits>::TILE }
        >::launch($($arg),*)
    };
    (@wide_tile wide) => { WIDE_BLOCK * WIDE_ITEMS };
    (@wide_tile narrow) => { 0 };
    (@pass_wide wide int $t:ty, $($arg:expr),*) => {
        sort_kernels::pass_keys_wide_int::<
            $t, <$t as Bits>::U, WIDE_ITEMS, { WIDE_BLOCK * WIDE_ITEMS }
        >::launch($($arg),*)
    };
    (@pass_wide wide float $t:ty, $($arg:expr),*) => {
        sort_kernels::pass_keys_wide_float::<
            $t, <$t as Bits>::U, WIDE_ITEMS, { WIDE_BLOCK * WIDE_ITEMS }
        >::launch($($arg),*)
    };
    (@pass_wide narrow $kind:ident $t:ty, $($arg:expr),*) => {{
        let _ = ($($arg),*);
        Err(Error::InvalidArgument(format!(
            "no wide sort pass for {} keys",
            std::any::type_name::<$t>()
        )))
    }};
    // The key whose every digit is 255 (in the order-preserving image of its bits).
    (@last int $t:ty) => { <$t>::MAX };
    (@last float $t:ty) => { <$t>::from_bits(<<$t as Bits>::U>::MAX >> 1) };
    (@tile_counts int $t:ty, $($arg:expr),*) => {
        sort_kernels::tile_counts_int::<$t, <$t as Bits>::U, { <$t as Bits>::ITEMS }>::launch(
            $($arg),*
        )
    };
    (@tile_counts float $t:ty, $($arg:expr),*) => {
        sort_kernels::tile_counts_float::<$t, <$t as Bits>::U, { <$t as Bits>::ITEMS }>::launch(
            $($arg),*
        )
    };
    (@pairs direct $stream:ident, $keys:ident, $values:ident) => {
        sort_keys($stream, $keys, Some($values), false).map(|_| ())
    };
    (@pairs gather $stream:ident, $keys:ident, $values:ident) => {
        pairs_by_gather($stream, $keys, $values)
    };
    (@reduce_kernel 4 $t:ty, $($arg:expr),* $(,)?) => { kernels::reduce_vectors4::<$t>::launch($($arg),*) };
    (@reduce_kernel 2 $t:ty, $($arg:expr),* $(,)?) => { kernels::reduce_vectors2::<$t>::launch($($arg),*) };
    (@histogram_kernel 4 $t:ty, $turn:tt, $($arg:expr),* $(,)?) => { kernels::histogram_vectors4::<$t, $turn>::launch($($arg),*) };
    (@histogram_kernel 2 $t:ty, $turn:tt, $($arg:expr),* $(,)?) => { kernels::histogram_vectors2::<$t, $turn>::launch($($arg),*) };
    (@reduce_vectors none $t:ty, $stream:ident, $x:ident, $op:ident) => {{
        let _ = ($stream, $x, $op);
        Ok(None)
    }};
    (@reduce_vectors $lanes:tt $t:ty, $stream:ident, $x:ident, $op:ident) => {{
        let (head, v, tail) = crate::buffer::vector_parts::<$t, $lanes>($x.__view());
        if v.is_empty() || !SUM_VECTORS.load(std::sync::atomic::Ordering::Relaxed) {
            Ok(None)
        } else {
            let grid = if REDUCE_ONE_WAVE.load(std::sync::atomic::Ordering::Relaxed) {
                range_grid(v.len(), resident_grid($stream, numbers!(@reduce_info $lanes $t)))
            } else {
                reduce_grid($stream, v.len())
            };
            built_in_reduction::<$t>($stream, grid, $op, |config, out, ticket, per_block| {
                numbers!(@reduce_kernel $lanes $t,
                    $stream, config, out, ticket, &v, &head, &tail, per_block, $op,
                )
            })
            .map(Some)
        }
    }};
    (@reduce_info 4 $t:ty) => { &kernels::reduce_vectors4::<$t>::INFO };
    (@reduce_info 2 $t:ty) => { &kernels::reduce_vectors2::<$t>::INFO };
    (@histogram_info 4 $t:ty) => { &kernels::histogram_vectors4::<$t, 2>::INFO };
    (@histogram_info 2 $t:ty) => { &kernels::histogram_vectors2::<$t, 4>::INFO };
    (@histogram_vectors int $lanes:tt $t:ty, $stream:ident, $bins:ident, $x:ident, $lower:ident, $upper:ident) => {{
        let _ = ($stream, $bins, $x, $lower, $upper);
        Ok(false)
    }};
    (@histogram_vectors float $lanes:tt $t:ty, $stream:ident, $bins:ident, $x:ident, $lower:ident, $upper:ident) => {{
        let (head, v, tail) = crate::buffer::vector_parts::<$t, $lanes>($x.__view());
        let shape = HISTOGRAM_SHAPE.load(std::sync::atomic::Ordering::Relaxed);
        if v.is_empty() || shape == 2 || shape == 3 {
            Ok(false)
        } else {
            let (blocks, per_block) = if shape == 4 {
                let info = numbers!(@histogram_info $lanes $t);
                range_grid(v.len(), resident_grid($stream, info))
            } else {
                reduce_grid($stream, v.len())
            };
            let config = LaunchConfig::new(blocks as u32, BLOCK as u32);
            if $lanes == 2 {
                numbers!(@histogram_kernel $lanes $t, 4,
                    $stream, config, $bins, &v, &head, &tail, per_block, $lower, $upper,
                )?;
            } else if shape == 1 {
                numbers!(@histogram_kernel $lanes $t, 4,
                    $stream, config, $bins, &v, &head, &tail, per_block, $lower, $upper,
                )?;
            } else {
                numbers!(@histogram_kernel $lanes $t, 2,
                    $stream, config, $bins, &v, &head, &tail, per_block, $lower, $upper,
                )?;
            }
            Ok(true)
        }
    }};
    (@histogram int $t:ty, $h:ty, $($arg:ident),*) => {
        kernels::histogram_int::<$t, $h>::launch($($arg),*)
    };
    (@histogram float $t:ty, $h:ty, $($arg:ident),*) => {
        kernels::histogram_float::<$t>::launch($($arg),*)
    };
}
// After the types: how `sort_pairs` moves values of the type (`direct`: as the sort passes'
// `u32` payload; `gather`: by an index payload, then one gather), and the lanes of the
// 16-byte vectors that reductions (and float histograms) read (`none`: element by element).
// Per type: kind, the wide type of sums, the histogram's, how `sort_pairs` moves values of this
// type, the vector lanes of sums, and the blocks per multiprocessor of its sort passes with
// payloads (`three`: `pass_int32`, 80 registers; `two`: the others, which spill at 80), and
// whether keys alone sort by the wide passes (`wide`: 1- to 4-byte keys; `narrow`: 8-byte keys,
// whose staged tile of 6144 would not fit 48 KiB of shared memory).
numbers!(int i8 => i32, i64, gather, none, two, wide; int i16 => i32, i64, gather, none, two, wide;
    int i32 => i32, i64, gather, 4, three, wide; int i64 => i64, i64, gather, 2, two, narrow;
    int isize => i64, i64, gather, none, two, narrow; int u8 => u32, u64, gather, none, two, wide;
    int u16 => u32, u64, gather, none, two, wide; int u32 => u32, u64, direct, 4, three, wide;
    int u64 => u64, u64, gather, 2, two, narrow; int usize => u64, u64, gather, none, two, narrow;
    float f32 => f32, f32, gather, 4, two, wide; float f64 => f64, f64, gather, 2, two, narrow);

/// Threads of the wide keys-alone sort passes, and keys per thread (`pass_keys_wide_*`): 14, so
/// that the staged tile (5376 keys), the warps' counts and their digit masks fit the 48 KiB of
/// static shared memory (48,272 bytes with the rest).
const WIDE_BLOCK: usize = 384;
const WIDE_ITEMS: usize = 14;

/// The unsigned type of a key's bits (the sort kernels' second type) and the keys per thread
/// and per tile of its sort passes (the pass kernels' instances).
trait Bits {
    type U;
    const ITEMS: usize;
    const TILE: usize;
}
macro_rules! bits {
    ($($t:ty => $u:ty, $items:literal),*) => {$(
        impl Bits for $t {
            type U = $u;
            const ITEMS: usize = $items;
            const TILE: usize = BLOCK * $items;
        }
    )*};
}
bits!(i8 => u8, 16, i16 => u16, 16, i32 => u32, 16, i64 => u64, 12, isize => u64, 12,
    u8 => u8, 16, u16 => u16, 16, u32 => u32, 16, u64 => u64, 12, usize => u64, 12,
    f32 => u32, 16, f64 => u64, 12);

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
    range_grid(
        n,
        8 * stream.device().multiprocessor_count().max(1) as usize,
    )
}

/// The blocks of `kernel` (of [`BLOCK`] threads, no dynamic shared memory) that the stream's
/// device keeps resident at once: one full wave.
fn resident_grid(stream: &Stream, kernel: &'static crate::KernelInfo) -> usize {
    let per_sm = crate::occupancy::max_active_blocks(stream.device(), kernel, BLOCK as u32, 0)
        .unwrap_or(8)
        .max(1);
    per_sm as usize * stream.device().multiprocessor_count().max(1) as usize
}

/// Resident blocks per multiprocessor of the 16-byte vector kernels of sums and histograms
/// (blocks of [`BLOCK`] threads), for the benchmark's record.
#[doc(hidden)]
pub fn __vector_occupancy(stream: &Stream) -> Result<Vec<(&'static str, u32)>> {
    let dev = stream.device();
    let blocks = |k: &'static crate::KernelInfo| {
        crate::occupancy::max_active_blocks(dev, k, BLOCK as u32, 0)
    };
    Ok(vec![
        (
            "reduce_vectors4<i32>",
            blocks(&kernels::reduce_vectors4::<i32>::INFO)?,
        ),
        (
            "reduce_blocks<i32, i32>",
            blocks(&kernels::reduce_blocks::<i32, i32>::INFO)?,
        ),
        (
            "histogram_vectors4<f32, 2>",
            blocks(&kernels::histogram_vectors4::<f32, 2>::INFO)?,
        ),
        (
            "histogram_vectors4<f32, 4>",
            blocks(&kernels::histogram_vectors4::<f32, 4>::INFO)?,
        ),
        (
            "histogram_float<f32>",
            blocks(&kernels::histogram_float::<f32>::INFO)?,
        ),
    ])
}

/// Blocks and elements per block of a histogram's or a sort's counting pass over `n > 0`
/// elements: at most [`REDUCE_BLOCKS`] blocks, each a contiguous range.
fn count_grid(n: usize) -> (usize, usize) {
    range_grid(n, REDUCE_BLOCKS)
}

/// Blocks and elements per block when each of at most `max_blocks` blocks takes one
/// contiguous range of `n > 0` elements: a multiple of the block size, at least 16 elements
/// per thread.
fn range_grid(n: usize, max_blocks: usize) -> (usize, usize) {
    let per_block = n
        .div_ceil(max_blocks)
        .next_multiple_of(BLOCK)
        .max(16 * BLOCK);
    (n.div_ceil(per_block), per_block)
}

/// A built-in reduction (`built_in_reduction`, over 16-byte vectors where it can); `None` for
/// empty input.
fn reduce_op<T: Number>(
    stream: &Stream,
    x: &(impl DeviceSlice<T> + ?Sized),
    op: u32,
) -> Result<Option<T>> {
    let n = x.len();
    if n == 0 {
        return Ok(None);
    }
    if let Some(v) = T::reduce_vectors(stream, x, op)? {
        return Ok(Some(T::narrow(v)));
    }
    let v = built_in_reduction::<T>(
        stream,
        reduce_grid(stream, n),
        op,
        |config, out, ticket, per_block| {
            T::reduce_blocks(stream, config, out, ticket, x, per_block, op)
        },
    )?;
    Ok(Some(T::narrow(v)))
}

/// The kernel of a reduction over `blocks` ranges of `per_block` units (elements or vectors;
/// `range_grid`'s grid): `first(config, out, ticket, per_block)` launches it, each block
/// writing its result to `out[b]`. In one launch (the default, [`one_launch`]): with a ticket
/// word, the last block combines the blocks' results into `out[blocks]`. In two (the form
/// before, for the benchmark's comparison: `__reduce_form(2)`): with an empty ticket, then one
/// block combines the results.
fn built_in_reduction<T: Number>(
    stream: &Stream,
    (blocks, per_block): (usize, usize),
    op: u32,
    first: impl FnOnce(
        LaunchConfig,
        &mut crate::DeviceViewMut<'_, T::Wide>,
        &mut crate::DeviceViewMut<'_, u32>,
        usize,
    ) -> Result<()>,
) -> Result<T::Wide> {
    let form = REDUCE_FORM.load(std::sync::atomic::Ordering::Relaxed);
    if form < 2 {
        return one_launch(stream, (blocks, per_block), form == 0, first);
    }
    let mut result = storage::take::<T::Wide>(stream, 1)?;
    let mut none = storage::take_ticket(stream)?;
    let block = LaunchConfig::new(1u32, BLOCK as u32);
    if blocks == 1 {
        first(
            block,
            &mut result.slice_mut(..1),
            &mut none.slice_mut(..0),
            per_block,
        )?;
    } else {
        let mut partials = storage::take::<T::Wide>(stream, blocks)?;
        let grid = LaunchConfig::new(blocks as u32, BLOCK as u32);
        first(
            grid,
            &mut partials.slice_mut(..blocks),
            &mut none.slice_mut(..0),
            per_block,
        )?;
        let p = partials.slice(..blocks);
        T::reduce_wide(
            stream,
            block,
            &mut result.slice_mut(..1),
            &mut none.slice_mut(..0),
            &p,
            blocks,
            op,
        )?;
        storage::give(stream, partials);
    }
    // Never touched: still zero.
    storage::give_ticket(stream, none);
    stream.synchronize()?; // the two waits of that form (see `one_launch`)
    let v = stream.to_host(&result.slice(..1))?[0];
    storage::give(stream, result);
    Ok(v)
}

/// A reduction in one launch of `blocks` blocks (`device::reduce_range`,
/// `device::combine_partials`): `launch(config, out, ticket, per_block)` gets `blocks + 1`
/// results (the blocks', then the whole) and a zero ticket word, which the kernel leaves at
/// zero; the ticket is kept for the next call only after the result came back. `one_wait`:
/// the result is copied by `to_host` alone, one wait for the GPU (else after a
/// `synchronize`, two waits: the form before 2026-12-02, for the benchmark).
fn one_launch<W: Element + cudarc::driver::ValidAsZeroBits>(
    stream: &Stream,
    (blocks, per_block): (usize, usize),
    one_wait: bool,
    launch: impl FnOnce(
        LaunchConfig,
        &mut crate::DeviceViewMut<'_, W>,
        &mut crate::DeviceViewMut<'_, u32>,
        usize,
    ) -> Result<()>,
) -> Result<W> {
    let mut out = storage::take::<W>(stream, blocks + 1)?;
    let mut ticket = storage::take_ticket(stream)?;
    let grid = LaunchConfig::new(blocks as u32, BLOCK as u32);
    launch(
        grid,
        &mut out.slice_mut(..blocks + 1),
        &mut ticket.slice_mut(..1),
        per_block,
    )?;
    let result = out.slice(blocks..blocks + 1);
    if !one_wait {
        // The form before `to_host` queued its copy first: wait, then copy and wait again.
        stream.synchronize()?;
    }
    let v = stream.to_host(&result)?[0];
    storage::give_ticket(stream, ticket);
    storage::give(stream, out);
    Ok(v)
}

/// The form of built-in reductions: 0 (the default) one launch (the last block combines the
/// blocks' results) and the result copied with one wait for the GPU (`to_host`); 1 one
/// launch, the result read after a `synchronize` (two waits); 2 two launches (a second of
/// one block combines the results), the form before 2026-12-02 (branch `cvtsum`).
static REDUCE_FORM: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);

/// Chooses the form of built-in reductions (see `REDUCE_FORM`): for the benchmark's
/// comparison.
#[doc(hidden)]
pub fn __reduce_form(form: u32) {
    REDUCE_FORM.store(form, std::sync::atomic::Ordering::Relaxed);
}

/// Whether the 16-byte vector reductions run in one wave of the blocks the device keeps
/// resident (the default; by the occupancy API), or in 8 blocks per multiprocessor.
static REDUCE_ONE_WAVE: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(true);

/// Chooses the grid of the 16-byte vector reductions (see `REDUCE_ONE_WAVE`): for the
/// benchmark's comparison.
#[doc(hidden)]
pub fn __reduce_one_wave(on: bool) {
    REDUCE_ONE_WAVE.store(on, std::sync::atomic::Ordering::Relaxed);
}

/// Whether built-in reductions read 16-byte vectors where they can (the default).
static SUM_VECTORS: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(true);

/// Chooses whether built-in reductions read 16-byte vectors (see `SUM_VECTORS`): for the
/// benchmark's comparison.
#[doc(hidden)]
pub fn __reduce_with_vectors(on: bool) {
    SUM_VECTORS.store(on, std::sync::atomic::Ordering::Relaxed);
}

/// The histogram kernel's shape (see `__histogram_shape`).
static HISTOGRAM_SHAPE: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);

/// Chooses the histogram kernel's shape, for the benchmark's comparison: 0 (the default)
/// 16-byte vectors, two per turn of a thread; 1 four per turn; 2 element by element, eight
/// per turn; 3 as 2 in at most 1024 blocks (the kernel before vectors); 4 as 0 in one wave of
/// the blocks the device keeps resident (by the occupancy API) instead of 8 per
/// multiprocessor.
#[doc(hidden)]
pub fn __histogram_shape(shape: u32) {
    HISTOGRAM_SHAPE.store(shape, std::sync::atomic::Ordering::Relaxed);
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

impl<W: Element + cudarc::driver::ValidAsZeroBits> ScanStates<W> {
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

/// What `reduce!` expands to: the user's kernel in one launch (`one_launch`), then `init` on
/// the host.
#[doc(hidden)]
pub fn __reduce_with<T: Element + gpu::WarpValue + cudarc::driver::ValidAsZeroBits>(
    stream: &Stream,
    x: &impl DeviceSlice<T>,
    init: T,
    op: impl Fn(T, T) -> T,
    launch: impl Fn(
        &Stream,
        LaunchConfig,
        &mut crate::DeviceViewMut<'_, T>,
        &mut crate::DeviceViewMut<'_, u32>,
        &dyn DeviceSlice<T>,
        usize,
    ) -> Result<()>,
) -> Result<T> {
    let n = x.len();
    if n == 0 {
        return Ok(init);
    }
    let v = one_launch(
        stream,
        reduce_grid(stream, n),
        true,
        |config, out, ticket, per_block| launch(stream, config, out, ticket, x, per_block),
    )?;
    Ok(op(init, v))
}

/// What the scan macros expand to: the tile states, then the user's kernel.
#[doc(hidden)]
pub fn __scan_with<T: Element + cudarc::driver::ValidAsZeroBits>(
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
/// whose width times the bin count passes 64 bits, and more than `u32::MAX` bins.
pub fn histogram<T: Number>(
    stream: &Stream,
    x: &(impl DeviceSlice<T> + ?Sized),
    lower: T,
    upper: T,
    bins: &mut (impl DeviceSliceMut<u32> + ?Sized),
) -> Result<()> {
    let n = bins.len();
    if n > u32::MAX as usize {
        return Err(Error::InvalidArgument(format!(
            "a histogram has at most {} bins, not {n}",
            u32::MAX
        )));
    }
    T::check_range(lower, upper, n)?;
    if n == 0 {
        return Ok(());
    }
    kernels::clear_flags::launch(stream, LaunchConfig::for_elements(n, BLOCK as u32), bins)?;
    if x.is_empty() || T::histogram_vectors(stream, bins, x, lower, upper)? {
        return Ok(());
    }
    let (blocks, per_block) = if HISTOGRAM_SHAPE.load(std::sync::atomic::Ordering::Relaxed) == 3 {
        count_grid(x.len())
    } else {
        reduce_grid(stream, x.len())
    };
    let config = LaunchConfig::new(blocks as u32, BLOCK as u32);
    T::histogram(stream, config, bins, x, per_block, lower, upper)
}

/// The most keys a sort takes: tile counts carry a 2-bit state in 32 bits.
const SORT_MAX: usize = (1 << 30) - 1;

/// Whether sort passes look back for earlier tiles' digit counts (onesweep), or count each
/// tile's digits first and place them by an exclusive sum of the counts (no look-back):
/// `SORT_DEFAULT` chooses by the key type and whether a payload moves
/// ([`Number::SORT_PAYLOAD_LOOKBACK`]), `SORT_OFF` and `SORT_ON` force one.
static SORT_LOOKBACK: std::sync::atomic::AtomicU8 = std::sync::atomic::AtomicU8::new(SORT_DEFAULT);
const SORT_DEFAULT: u8 = 0;
const SORT_OFF: u8 = 1;
const SORT_ON: u8 = 2;

/// Chooses the sort passes' strategy (see `SORT_LOOKBACK`; `None`: the default by key type
/// and payload): for the benchmark's comparison and the tests of both strategies.
#[doc(hidden)]
pub fn __sort_with_lookback(on: Option<bool>) {
    let v = match on {
        None => SORT_DEFAULT,
        Some(false) => SORT_OFF,
        Some(true) => SORT_ON,
    };
    SORT_LOOKBACK.store(v, std::sync::atomic::Ordering::Relaxed);
}

/// How many earlier tiles' statuses one turn of a sort pass's look-back reads at once (1 to
/// 16; the pass kernels' `lookback` argument); 0: the default, `SORT_DEPTH_DEFAULT` for the
/// 256-thread passes and `SORT_DEPTH_WIDE` for the wide keys-alone passes.
static SORT_DEPTH: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);
const SORT_DEPTH_DEFAULT: u32 = 8;
/// The wide keys-alone passes read 16 statuses per turn: 7.72 ms against 7.77 with 8 for 2^28
/// u32 keys on an H100, in two runs (bench/NOTES.md, 2026-12-06 sortkeys3); pairs gained
/// nothing from 16, so they keep 8.
const SORT_DEPTH_WIDE: u32 = 16;

/// Sets the look-back's statuses read at once (`None`: the defaults), for the benchmark.
#[doc(hidden)]
pub fn __sort_lookback_depth(depth: Option<u32>) {
    let v = depth.map_or(0, |d| d.clamp(1, 16));
    SORT_DEPTH.store(v, std::sync::atomic::Ordering::Relaxed);
}

/// Whether keys alone of 1- to 4-byte types sort by the wide passes (`pass_keys_wide_*`: 384
/// threads, tiles of 5376 keys, look-back): `SORT_DEFAULT` where `SORT_LOOKBACK` is also the
/// default (a forced strategy keeps the 256-thread passes it names), `SORT_OFF` and `SORT_ON`
/// force either (`SORT_ON` whatever `SORT_LOOKBACK` says; 8-byte keys and passes with payloads
/// never take them).
static SORT_KEYS_WIDE: std::sync::atomic::AtomicU8 = std::sync::atomic::AtomicU8::new(SORT_DEFAULT);

/// Chooses whether keys alone sort by the wide passes (see `SORT_KEYS_WIDE`; `None`: the
/// default), for the benchmark's comparison and the tests of both.
#[doc(hidden)]
pub fn __sort_keys_wide(on: Option<bool>) {
    let v = match on {
        None => SORT_DEFAULT,
        Some(false) => SORT_OFF,
        Some(true) => SORT_ON,
    };
    SORT_KEYS_WIDE.store(v, std::sync::atomic::Ordering::Relaxed);
}

/// Whether look-back passes alternate two status buffers, each pass clearing the next pass's
/// (the default), or clear one buffer with a `clear_flags` launch before each pass (`false`:
/// as before, for the benchmark's comparison).
static SORT_ALTERNATE: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(true);

/// Sets `SORT_ALTERNATE` (`None`: the default, alternating).
#[doc(hidden)]
pub fn __sort_alternate_statuses(on: Option<bool>) {
    SORT_ALTERNATE.store(on.unwrap_or(true), std::sync::atomic::Ordering::Relaxed);
}

/// Sorts `keys`; with `values`, moves them with their keys (as each pass's payload); with
/// `with_order` (and no `values`), also returns where each sorted key came from (a buffer of
/// at least `keys.len()` indices, to give back to the storage).
fn sort_keys<K: Number, P: DeviceSliceMut<u32> + ?Sized>(
    stream: &Stream,
    keys: &mut (impl DeviceSliceMut<K> + ?Sized),
    mut values: Option<&mut P>,
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
    let moves = values.is_some() || with_order;
    let strategy = SORT_LOOKBACK.load(std::sync::atomic::Ordering::Relaxed);
    // Keys alone of 1- to 4-byte types: the wide passes, always by look-back.
    let wide = K::SORT_WIDE_TILE > 0
        && !moves
        && match SORT_KEYS_WIDE.load(std::sync::atomic::Ordering::Relaxed) {
            SORT_OFF => false,
            SORT_ON => true,
            _ => strategy == SORT_DEFAULT,
        };
    let lookback = wide
        || match strategy {
            SORT_OFF => false,
            SORT_ON => true,
            _ => moves && K::SORT_PAYLOAD_LOOKBACK,
        };
    // The pass kernels' `lookback`: 0, or the statuses each turn of the look-back reads.
    let depth = match SORT_DEPTH.load(std::sync::atomic::Ordering::Relaxed) {
        _ if !lookback => 0,
        0 if wide => SORT_DEPTH_WIDE,
        0 => SORT_DEPTH_DEFAULT,
        d => d,
    };
    let mut hist = storage::take::<u32>(stream, 256 * passes)?;
    if lookback {
        let mut h = hist.slice_mut(..256 * passes);
        kernels::clear_flags::launch(
            stream,
            LaunchConfig::for_elements(256 * passes, block),
            &mut h,
        )?;
        let (blocks, per_block) = count_grid(n);
        K::sort_counts(
            stream,
            LaunchConfig::new(blocks as u32, block),
            &mut h,
            &*keys,
            per_block,
        )?;
        sort_kernels::digit_starts::launch(
            stream,
            LaunchConfig::new(passes as u32, block),
            &mut h,
        )?;
    }
    let tiles = n.div_ceil(if wide {
        K::SORT_WIDE_TILE
    } else {
        K::SORT_TILE
    });
    // Statuses: the tile counts' exclusive sum, or with look-back each tile's status per digit
    // and the tile counter (`words`). Look-back passes alternate two buffers: pass `p` reads
    // and writes `statuses[p % 2]` and clears the other for pass `p + 1` (the pass before
    // used it, and has finished: one stream), so only the first is cleared here.
    let words = 256 * tiles + 1;
    let alternate = lookback && SORT_ALTERNATE.load(std::sync::atomic::Ordering::Relaxed);
    let mut status = storage::take::<u32>(stream, words)?;
    let mut status2 = storage::take::<u32>(stream, if alternate { words } else { 0 })?;
    if alternate {
        kernels::clear_flags::launch(
            stream,
            LaunchConfig::for_elements(words, block),
            &mut status.slice_mut(..words),
        )?;
    }
    // Without look-back: each pass's tile counts, digit-major, before their exclusive sum.
    let mut table = storage::take::<u32>(stream, if lookback { 0 } else { 256 * tiles })?;
    let mut alt = storage::take::<K>(stream, n)?;
    let with_order = with_order && values.is_none();
    let payload = with_order || values.is_some();
    // The payloads' second buffer (values: the first is `values` itself).
    let order_len = if payload { n } else { 0 };
    let mut orders = [
        storage::take::<u32>(stream, order_len)?,
        storage::take::<u32>(stream, if with_order { n } else { 0 })?,
    ];
    let config = LaunchConfig::new(tiles as u32, if wide { WIDE_BLOCK as u32 } else { block });
    for p in 0..passes {
        let pass = p as u32;
        let (current, other) = if alternate && p % 2 == 1 {
            (&mut status2, &mut status)
        } else {
            (&mut status, &mut status2)
        };
        if lookback && !alternate {
            kernels::clear_flags::launch(
                stream,
                LaunchConfig::for_elements(words, block),
                &mut current.slice_mut(..words),
            )?;
        } else if !lookback {
            let mut tb = table.slice_mut(..256 * tiles);
            if p % 2 == 0 {
                K::sort_tile_counts(stream, config, &mut tb, &*keys, pass)?;
            } else {
                K::sort_tile_counts(stream, config, &mut tb, &alt.slice(..n), pass)?;
            }
            exclusive_sum(stream, &tb, &mut current.slice_mut(..256 * tiles))?;
        }
        let mut st = current.slice_mut(..words);
        // The next pass's statuses, which this pass clears (none after the last pass).
        let next_words = if alternate && p + 1 < passes {
            words
        } else {
            0
        };
        let mut nx = other.slice_mut(..next_words);
        let offsets = hist.slice(256 * p..256 * (p + 1));
        let [a, b] = &mut orders;
        // Even passes move the keys to `alt` and the payloads to `a`, odd passes back.
        match (values.as_deref_mut(), p % 2 == 0) {
            (Some(v), true) => K::sort_pass(
                stream,
                config,
                &mut alt.slice_mut(..n),
                &*keys,
                &mut a.slice_mut(..n),
                &*v,
                &mut st,
                &mut nx,
                &offsets,
                pass,
                true,
                false,
                depth,
                wide,
            )?,
            (Some(v), false) => K::sort_pass(
                stream,
                config,
                keys,
                &alt.slice(..n),
                v,
                &a.slice(..n),
                &mut st,
                &mut nx,
                &offsets,
                pass,
                true,
                false,
                depth,
                wide,
            )?,
            (None, true) => K::sort_pass(
                stream,
                config,
                &mut alt.slice_mut(..n),
                &*keys,
                &mut a.slice_mut(..order_len),
                &b.slice(..order_len),
                &mut st,
                &mut nx,
                &offsets,
                pass,
                with_order,
                p == 0,
                depth,
                wide,
            )?,
            (None, false) => K::sort_pass(
                stream,
                config,
                keys,
                &alt.slice(..n),
                &mut b.slice_mut(..order_len),
                &a.slice(..order_len),
                &mut st,
                &mut nx,
                &offsets,
                pass,
                with_order,
                false,
                depth,
                wide,
            )?,
        }
    }
    if passes % 2 == 1 {
        stream.copy(&alt.slice(..n), keys)?;
        if let Some(v) = values {
            stream.copy(&orders[0].slice(..n), v)?;
        }
    }
    let [a, b] = orders;
    let (order, other) = if passes % 2 == 1 { (a, b) } else { (b, a) };
    for buffer in [hist, status, status2, table] {
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
/// sort, one pass over the keys per 8-bit digit (each tile's digit counts, placed after the
/// earlier tiles' by an exclusive sum of every tile's counts or by looking back at the earlier
/// tiles' published counts, then the keys placed tile by tile). At most 2^30 - 1 keys
/// ([`Error::InvalidArgument`] beyond).
pub fn sort<K: Number>(
    stream: &Stream,
    keys: &mut (impl DeviceSliceMut<K> + ?Sized),
) -> Result<()> {
    sort_keys::<K, DeviceBuffer<u32>>(stream, keys, None, false).map(|_| ())
}

/// Sorts `keys` as [`sort`] does and moves `values[i]` with `keys[i]`. Stable: values of
/// equal keys keep their order. `u32` values move with their keys in each pass; other types
/// by the keys' original positions and one gather at the end. `values` must be as long as `keys` (else
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
    V::sort_pairs_of(stream, keys, values)
}

/// `sort_pairs` of `values` that do not ride as the passes' payload: the passes move each
/// key's index, then one gather moves the values.
fn pairs_by_gather<K: Number, V: Number>(
    stream: &Stream,
    keys: &mut (impl DeviceSliceMut<K> + ?Sized),
    values: &mut (impl DeviceSliceMut<V> + ?Sized),
) -> Result<()> {
    let n = keys.len();
    let Some(order) = sort_keys::<K, DeviceBuffer<u32>>(stream, keys, None, true)? else {
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
        scan_sum<i8, i32, 0>, scan_sum<i8, i32, 1>, scan_sum<i16, i32, 0>, scan_sum<i16, i32, 1>,
        scan_sum<i32, i32, 0>, scan_sum<i32, i32, 1>, scan_sum<i64, i64, 0>, scan_sum<i64, i64, 1>,
        scan_sum<isize, i64, 0>, scan_sum<isize, i64, 1>, scan_sum<u8, u32, 0>,
        scan_sum<u8, u32, 1>, scan_sum<u16, u32, 0>, scan_sum<u16, u32, 1>, scan_sum<u32, u32, 0>,
        scan_sum<u32, u32, 1>, scan_sum<u64, u64, 0>, scan_sum<u64, u64, 1>,
        scan_sum<usize, u64, 0>, scan_sum<usize, u64, 1>, scan_sum<f32, f32, 0>,
        scan_sum<f32, f32, 1>, scan_sum<f64, f64, 0>, scan_sum<f64, f64, 1>,
        histogram_int<i8, i64>, histogram_int<i64, i64>, histogram_int<u8, u64>,
        histogram_int<u64, u64>, histogram_float<f32>, histogram_float<f64>,
        histogram_vectors4<f32, 2>, histogram_vectors4<f32, 4>,
        histogram_vectors2<f64, 2>, histogram_vectors2<f64, 4>, reduce_vectors4<i32>,
        reduce_vectors4<u32>, reduce_vectors4<f32>, reduce_vectors2<i64>, reduce_vectors2<u64>,
        reduce_vectors2<f64>,
        counts_int<u8, u8>, counts_int<i32, u32>, counts_int<u64, u64>,
        counts_float<f32, u32>, counts_float<f64, u64>,
        pass_int<u8, u8, 16, 4096>, pass_int<i16, u16, 16, 4096>,
        pass_int32<u32, u32, 16, 4096>, pass_int32<i32, u32, 16, 4096>,
        pass_int<u64, u64, 12, 3072>, pass_int<i64, u64, 12, 3072>,
        pass_float<f32, u32, 16, 4096>, pass_float<f64, u64, 12, 3072>,
        pass_keys_int<u8, u8, 16, 4096>, pass_keys_int<u32, u32, 16, 4096>,
        pass_keys_int<i64, u64, 12, 3072>, pass_keys_float<f32, u32, 16, 4096>,
        pass_keys_float<f64, u64, 12, 3072>, pass_keys_wide_int<u8, u8, 14, 5376>,
        pass_keys_wide_int<i16, u16, 14, 5376>, pass_keys_wide_int<u32, u32, 14, 5376>,
        pass_keys_wide_int<i32, u32, 14, 5376>, pass_keys_wide_float<f32, u32, 14, 5376>,
        tile_counts_int<u8, u8, 16>, tile_counts_int<u32, u32, 16>, tile_counts_int<i64, u64, 12>,
        tile_counts_float<f32, u32, 16>, tile_counts_float<f64, u64, 12>,
        gather<u8>, gather<u32>, gather<f64>, digit_starts, clear_flags, clear_words,
    ]
}
