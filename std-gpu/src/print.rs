//! `gpu::print!` and `gpu::println!`.
//!
//! Inside a `#[kernel]` (or a `#[device]` function called from one) the kernel compiler reads
//! these calls itself: on the GPU they become `printf` (`vprintf`) calls whose output appears
//! at the stream's next synchronisation; on the simulator they print as the thread runs, with
//! the same formatting. The macros below are what the host copy of a `#[device]` function
//! calls: they print with `std`'s macros.

/// Prints from a kernel, with a newline: `gpu::println!("i = {}, x = {:.3}", i, x)`.
///
/// Format strings are Rust's, checked when the kernel compiles: `{}`, `{:?}`, `{:x}`, `{:X}`,
/// `{:o}`, `{:e}`, width, precision, `+`, `0`, `#`, `<`/`>`, positional and named arguments,
/// captured locals (`{i}`), at most 32 values, each a scalar or `bool`. The GPU's `printf`
/// formats them, so a float without a precision prints as C's `%g` (six significant digits)
/// and `{:e}` prints C's exponent (`1.500000e+00`).
#[macro_export]
macro_rules! println {
    ($($arg:tt)*) => { ::std::println!($($arg)*) };
}

/// Prints from a kernel, without a newline (see [`println!`](crate::println)).
#[macro_export]
macro_rules! print {
    ($($arg:tt)*) => { ::std::print!($($arg)*) };
}
