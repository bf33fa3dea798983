//! `#[unchecked_twin]`: builds a kernel twice from one body, as written (bounds-checked, the
//! default) and `#[kernel(unchecked)]`, so that the benchmark measures the cost of the checks
//! on the examples' own kernels instead of on copies of them (one home per kernel).
//!
//! ```ignore
//! #[cuprum_testkit::unchecked_twin]
//! #[kernel]
//! pub fn transpose(out: &mut [f32], inp: &[f32], rows: u32, cols: u32) { /* … */ }
//! // also defines `pub mod transpose_unchecked { pub fn transpose … }`, built unchecked
//! ```
//!
//! The twin keeps the function's name and every token's span, inside a module named
//! `<name>_unchecked` that glob-imports its parent: `#[kernel]` finds a kernel's module-level
//! `const`s and `static`s by reading the source file at the name's span, so the twin compiles
//! against the same items as the original, and its PTX entry has the same name (two kernels
//! may share a name in different modules).

use proc_macro::TokenStream;
use quote::{format_ident, quote};
use syn::spanned::Spanned;

/// Emits the `#[kernel]` function unchanged, and beside it `mod <name>_unchecked` holding
/// the same function under `#[kernel(unchecked, <the original options>)]`. Place it directly
/// above `#[kernel]`.
#[proc_macro_attribute]
pub fn unchecked_twin(attr: TokenStream, item: TokenStream) -> TokenStream {
    let attr = proc_macro2::TokenStream::from(attr);
    if !attr.is_empty() {
        return syn::Error::new(attr.span(), "`#[unchecked_twin]` takes no arguments")
            .to_compile_error()
            .into();
    }
    let func = syn::parse_macro_input!(item as syn::ItemFn);
    match twin(&func) {
        Ok(twin) => quote!(#func #twin).into(),
        Err(e) => e.to_compile_error().into(),
    }
}

fn twin(func: &syn::ItemFn) -> syn::Result<proc_macro2::TokenStream> {
    let mut copy = func.clone();
    let Some(kernel) = copy.attrs.iter_mut().find(|a| {
        a.path()
            .segments
            .last()
            .is_some_and(|s| s.ident == "kernel")
    }) else {
        return Err(syn::Error::new(
            func.sig.ident.span(),
            "`#[unchecked_twin]` goes directly above `#[kernel]`",
        ));
    };
    let path = kernel.path().clone();
    let options = match &kernel.meta {
        syn::Meta::Path(_) => quote!(unchecked),
        syn::Meta::List(list) if list.tokens.is_empty() => quote!(unchecked),
        syn::Meta::List(list) => {
            let tokens = &list.tokens;
            quote!(unchecked, #tokens)
        }
        syn::Meta::NameValue(nv) => {
            return Err(syn::Error::new(nv.span(), "expected `#[kernel(...)]`"));
        }
    };
    *kernel = syn::parse_quote!(#[#path(#options)]);
    let name = &func.sig.ident;
    let module = format_ident!("{}_unchecked", name);
    let vis = &func.vis;
    let doc = format!("`{name}` built `#[kernel(unchecked)]` from the same body: the bench's baseline for the cost of its bounds checks.");
    Ok(quote! {
        #[doc = #doc]
        #[allow(unused_imports, clippy::too_many_arguments)]
        #vis mod #module {
            use super::*;
            #copy
        }
    })
}

#[cfg(test)]
mod tests {
    use super::twin;

    fn expand(item: &str) -> Result<String, String> {
        let func: syn::ItemFn = syn::parse_str(item).expect("a function");
        twin(&func)
            .map(|t| t.to_string())
            .map_err(|e| e.to_string())
    }

    #[test]
    fn the_twin_adds_unchecked_to_the_options_and_keeps_the_body() {
        let out = expand(
            "#[kernel(max_threads = 128)] pub fn f<const B: usize>(x: &mut [f32]) { x[0] = 1.0; }",
        )
        .unwrap();
        assert!(out.contains("pub mod f_unchecked"), "{out}");
        assert!(out.contains("use super :: * ;"), "{out}");
        assert!(
            out.contains("# [kernel (unchecked , max_threads = 128)]"),
            "{out}"
        );
        assert!(out.contains("pub fn f < const B : usize >"), "{out}");
        assert!(out.contains("x [0] = 1.0 ;"), "{out}");
        let plain = expand("#[cuprum::kernel] fn g() {}").unwrap();
        assert!(
            plain.contains("# [cuprum :: kernel (unchecked)]"),
            "{plain}"
        );
        assert!(plain.contains("mod g_unchecked"), "{plain}");
    }

    #[test]
    fn a_function_without_kernel_is_an_error() {
        let e = expand("#[device] pub fn h() {}").unwrap_err();
        assert!(e.contains("directly above `#[kernel]`"), "{e}");
    }
}
