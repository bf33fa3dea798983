//! `launch!(kernel<<<grid, block[, shared_bytes], stream>>>(args..))` → `kernel::launch(..)`.
//! The syntax is parsed by `cuprum_codegen::launch`; this module only emits the call.

use cuprum_codegen::launch::{parse_launch, LaunchCall};
use proc_macro2::TokenStream;
use quote::{quote, quote_spanned};

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
    } = call;
    let shared = shared_bytes
        .as_ref()
        .map(|s| quote!(.with_shared_bytes(#s)));
    let call_args = args.stream();
    let call =
        quote_spanned!(args.span()=> #kernel::launch(__cuprum_stream, __cuprum_config, #call_args));
    quote! {
        {
            let __cuprum_stream: &::cuprum::Stream = &#stream;
            let __cuprum_config = ::cuprum::LaunchConfig::new(#grid, #block) #shared;
            #call
        }
    }
}
