//! `launch!(kernel<<<grid, block[, shared_bytes], stream>>>(args..))` → `kernel::launch(..)`.
//! The syntax is parsed by `cuprum_codegen::launch`; this module only emits the call.

use cuprum_codegen::launch::{parse_launch, LaunchCall};
use proc_macro2::TokenStream;
use quote::{quote, quote_spanned};
use syn::spanned::Spanned;

pub fn expand(input: TokenStream) -> TokenStream {
    match parse_launch(input) {
        Ok(call) => emit(&call),
        Err(e) => e.to_compile_error(),
    }
}

fn emit(call: &LaunchCall) -> TokenStream {
    let LaunchCall {
        kernel,
        grid,
        block,
        shared_bytes,
        stream,
        args,
        close,
    } = call;
    let rt = crate::private();
    let shared = shared_bytes
        .as_ref()
        .map(|s| quote!(.with_shared_bytes(#s)));
    // Each part keeps its own span, so that rustc reports a wrong stream, size or argument at
    // the part the user wrote.
    // `&#stream` directly in a `let` keeps a temporary such as `dev.default_stream()` alive
    // for the whole launch.
    let owner = quote_spanned!(stream.span()=> __cuprum_stream_owner);
    let method = quote_spanned!(*close=> launch);
    quote! {
        {
            let __cuprum_stream_owner = &#stream;
            let __cuprum_stream: &#rt::Stream = #rt::launch_stream(#owner);
            let __cuprum_config = #rt::LaunchConfig::new(#grid, #block) #shared;
            #kernel::__cuprum_launcher(__cuprum_stream, __cuprum_config).#method #args
        }
    }
}
