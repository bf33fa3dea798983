//! Cuprum's procedural macros: thin shells that parse, call `cuprum-codegen`, and emit tokens.
//! Use them through the `cuprum` crate (`use cuprum::prelude::*`).

#![deny(missing_docs)]

mod kernel;
mod launch;

use proc_macro::TokenStream;

/// Compiles a function to a GPU kernel at build time.
///
/// `#[kernel] pub fn saxpy(y: &mut [f32], x: &[f32], a: f32) { .. }` defines a type `saxpy`
/// with `saxpy::PTX` (the PTX text) and a typed `saxpy::launch(&stream, config, args..)`.
/// Options: `unchecked` (no bounds checks), `fastmath`, `max_threads = N`, `min_blocks = N`,
/// `target = "sm_90"`.
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
