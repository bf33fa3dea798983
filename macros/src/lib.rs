//! Cuprum's procedural macros: thin shells that parse, call `cuprum-codegen`, and emit tokens.
//! Use them through the `cuprum` crate (`use cuprum::prelude::*`).

#![deny(missing_docs)]

mod collect;
mod derive;
mod device;
mod guard;
mod items;
mod kernel;
mod launch;

use proc_macro::TokenStream;

/// The one door of generated code into the runtime: every path an expansion names starts
/// here (`cuprum::__private`, which re-exports what expansions use), so that the contract
/// between the macros and the runtime is that module.
fn private() -> proc_macro2::TokenStream {
    private_at(proc_macro2::Span::call_site())
}

/// [`private`] at `span`, for tokens that rustc may show in a diagnostic at the user's code.
fn private_at(span: proc_macro2::Span) -> proc_macro2::TokenStream {
    quote::quote_spanned!(span=> ::cuprum::__private)
}

/// Compiles a function to a GPU kernel at build time.
///
/// `#[kernel] pub fn saxpy(y: &mut [f32], x: &[f32], a: f32) { .. }` defines a type `saxpy`
/// with `saxpy::PTX` (the PTX text) and a typed `saxpy::launch(&stream, config, args..)`.
/// Options: `unchecked` (no bounds checks), `fastmath`, `max_threads = N`, `min_blocks = N`,
/// `block = (X, Y, Z)` (the only block shape it is launched with), `target = "sm_90"`.
#[proc_macro_attribute]
pub fn kernel(attr: TokenStream, item: TokenStream) -> TokenStream {
    kernel::expand(attr.into(), item.into()).into()
}

/// Launches a kernel with CUDA's chevrons: `launch!(k<<<grid, block, stream>>>(args..))` or
/// `launch!(k<<<grid, block, shared_bytes, stream>>>(args..))`; returns `cuprum::Result<()>`.
#[proc_macro]
pub fn launch(input: TokenStream) -> TokenStream {
    launch::expand(input.into()).into()
}

/// Makes a function callable from kernels (it stays callable from host code too).
///
/// `#[device] fn sq(x: f32) -> f32 { x * x }` can be called from any `#[kernel]` or
/// `#[device]` function in the crate that can name it. Device functions may call each other
/// (not recursively) and be generic over `T: gpu::Float` or `T: gpu::Int`.
#[proc_macro_attribute]
pub fn device(attr: TokenStream, item: TokenStream) -> TokenStream {
    device::expand(attr.into(), item.into()).into()
}

/// Makes a `#[repr(C)]` struct of scalars, arrays and other `DeviceCopy` types, or a
/// field-less enum with an integer `#[repr(u8|..|i64)]`, usable in kernels: as a parameter
/// by value, a local, a field, a device function's parameter and result, in this module and
/// in every module or crate that imports it with `use` (the derive also defines a hidden
/// macro named like the type that hands its module's items to those kernels).
///
/// Refuses (with an error at the item, field or variant) a struct without `#[repr(C)]`,
/// generic types, fields that are references, pointers, heap types or tuples, structs with
/// padding bytes (add an explicit `_pad: [u8; N]` field), so that every byte a kernel reads
/// is initialised, and enums with fields or without an integer `repr`. A struct whose fields
/// all accept every bit pattern is also `AnyBitPattern`; an enum never is.
#[proc_macro_derive(DeviceCopy)]
pub fn derive_device_copy(item: TokenStream) -> TokenStream {
    derive::expand(item.into()).into()
}

/// Internal: collects `#[device]` function sources for a kernel. Not for direct use.
#[doc(hidden)]
#[proc_macro]
pub fn __collect(input: TokenStream) -> TokenStream {
    collect::expand(input.into()).into()
}
