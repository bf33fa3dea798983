//! `reduce!`, `inclusive_scan!`, `exclusive_scan!`: the algorithms with the user's operation,
//! a closure compiled into a kernel in the user's crate at build time (the kernel calls the
//! same `#[device]` halves as the library's own, `device.rs`).
//!
//! The closure's parameters carry their type (`|a: f32, b: f32| a.max(b)`): a proc macro
//! compiles the kernel before rustc knows the type of the buffer. Its body is kernel code: it
//! may use anything a kernel can, but not the host's variables (a kernel cannot capture them;
//! pass a value through the `init` argument or write it as a literal).

/// `op` over the elements of `x`, after `init`: `op(op(op(init, x[0]), x[1]), ..)` up to
/// associativity, `init` for empty input. `op` must be associative and commutative (blocks
/// combine their shares in an order of their own, as CUB's `DeviceReduce`).
///
/// ```
/// use cuprum::prelude::*;
/// # fn main() -> cuprum::Result<()> {
/// let dev = Device::default()?;
/// let stream = dev.default_stream();
/// let x = stream.to_device(&[3.0f32, -7.5, 2.0])?;
/// let largest_magnitude =
///     cuprum::algorithms::reduce!(&stream, &x, 0.0, |a: f32, b: f32| a.abs().max(b.abs()))?;
/// assert_eq!(largest_magnitude, 7.5);
/// # Ok(())
/// # }
/// ```
///
/// Element types: those warp shuffles move (`i32 u32 i64 u64 isize usize f32 f64`).
#[macro_export]
#[doc(hidden)]
macro_rules! __cuprum_reduce {
    ($stream:expr, $x:expr, $init:expr, |$a:ident : $t:ty, $b:ident : $t2:ty| $body:expr $(,)?) => {{
        #[::cuprum::kernel]
        fn user_reduce(out: &mut [$t], ticket: &mut [u32], x: &[$t], per_block: usize) {
            ::cuprum::algorithms::device::reduce_range(out, ticket, x, per_block, |v| v, |$a: $t, $b: $t| $body);
        }
        ::cuprum::algorithms::__reduce_with(
            $stream,
            $x,
            $init,
            |$a: $t, $b: $t| -> $t { $body },
            |s, c, out: &mut ::cuprum::DeviceViewMut<'_, $t>, ticket: &mut ::cuprum::DeviceViewMut<'_, u32>, x: &dyn ::cuprum::DeviceSlice<$t>, per| {
                user_reduce::launch(s, c, out, ticket, x, per)
            },
        )
    }};
    ($($rest:tt)*) => {
        ::core::compile_error!("write `reduce!(&stream, &x, init, |a: T, b: T| ..)`, with the closure's parameter types (the kernel is compiled before rustc knows them)")
    };
}

/// `y[i] = op(..op(op(x[0], x[1]), x[2]).., x[i])`, in one pass (decoupled look-back). `op`
/// must be associative; it need not be commutative (values are combined in index order).
/// `y` must be as long as `x` (else `Error::LengthMismatch`).
///
/// ```
/// use cuprum::prelude::*;
/// # fn main() -> cuprum::Result<()> {
/// let dev = Device::default()?;
/// let stream = dev.default_stream();
/// let x = stream.to_device(&[3i32, 1, 4, 1, 5])?;
/// let mut running_max = stream.alloc_zeros::<i32>(5)?;
/// cuprum::algorithms::inclusive_scan!(&stream, &x, &mut running_max, |a: i32, b: i32| a.max(b))?;
/// assert_eq!(stream.to_host(&running_max)?, [3, 3, 4, 4, 5]);
/// # Ok(())
/// # }
/// ```
#[macro_export]
#[doc(hidden)]
macro_rules! __cuprum_inclusive_scan {
    ($stream:expr, $x:expr, $y:expr, |$a:ident : $t:ty, $b:ident : $t2:ty| $body:expr $(,)?) => {
        $crate::__cuprum_scan!($stream, $x, $y, false, <$t as ::cuprum::gpu::Num>::ZERO, |$a: $t, $b: $t| $body)
    };
    ($($rest:tt)*) => {
        ::core::compile_error!("write `inclusive_scan!(&stream, &x, &mut y, |a: T, b: T| ..)`, with the closure's parameter types (the kernel is compiled before rustc knows them)")
    };
}

/// `y[0] = init`, `y[i] = op(..op(op(init, x[0]), x[1]).., x[i - 1])`, in one pass. `op`
/// must be associative; it need not be commutative. `y` must be as long as `x`.
///
/// ```
/// use cuprum::prelude::*;
/// # fn main() -> cuprum::Result<()> {
/// let dev = Device::default()?;
/// let stream = dev.default_stream();
/// let x = stream.to_device(&[2u64, 3, 4])?;
/// let mut products = stream.alloc_zeros::<u64>(3)?;
/// cuprum::algorithms::exclusive_scan!(&stream, &x, &mut products, 1, |a: u64, b: u64| a * b)?;
/// assert_eq!(stream.to_host(&products)?, [1, 2, 6]);
/// # Ok(())
/// # }
/// ```
#[macro_export]
#[doc(hidden)]
macro_rules! __cuprum_exclusive_scan {
    ($stream:expr, $x:expr, $y:expr, $init:expr, |$a:ident : $t:ty, $b:ident : $t2:ty| $body:expr $(,)?) => {
        $crate::__cuprum_scan!($stream, $x, $y, true, $init, |$a: $t, $b: $t| $body)
    };
    ($($rest:tt)*) => {
        ::core::compile_error!("write `exclusive_scan!(&stream, &x, &mut y, init, |a: T, b: T| ..)`, with the closure's parameter types (the kernel is compiled before rustc knows them)")
    };
}

/// The kernel and launch of both scans.
#[macro_export]
#[doc(hidden)]
macro_rules! __cuprum_scan {
    ($stream:expr, $x:expr, $y:expr, $exclusive:expr, $init:expr, |$a:ident : $t:ty, $b:ident : $t2:ty| $body:expr) => {{
        #[::cuprum::kernel]
        fn user_scan(
            y: &mut [$t],
            x: &[$t],
            words: &mut [u64],
            values: &mut [$t],
            packed: bool,
            exclusive: bool,
            init: $t,
        ) {
            ::cuprum::algorithms::device::scan_tile(
                y,
                x,
                words,
                values,
                packed,
                exclusive,
                init,
                |v| v,
                |v| v,
                |$a: $t, $b: $t| $body,
                |v| v as u32,
                |b| b as $t,
            );
        }
        let (x, y, init): (_, _, $t) = ($x, $y, $init);
        ::cuprum::algorithms::__scan_with(
            $stream,
            ::cuprum::DeviceSlice::len(x),
            ::cuprum::DeviceSlice::len(&*y),
            |s,
             c,
             words: &mut ::cuprum::DeviceViewMut<'_, u64>,
             values: &mut ::cuprum::DeviceViewMut<'_, $t>,
             packed: bool| {
                user_scan::launch(s, c, y, x, words, values, packed, $exclusive, init)
            },
        )
    }};
}
