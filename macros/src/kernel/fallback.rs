//! The items of a kernel instance that did not compile (its errors say why): the type and a
//! `launch` with as many parameters, each taking anything, so that code using the kernel
//! reports nothing more (a parameter type that is not even a Rust type would otherwise be
//! reported a second time).

use cuprum_codegen::KernelOptions;
use proc_macro2::TokenStream;
use quote::{format_ident, quote, quote_spanned};
use syn::spanned::Spanned;

use super::emit::{launch_unsafety, launcher, Instance};

/// The `impl` of an instance that did not compile, and its launcher.
pub(super) fn failed_impl(
    func: &syn::ItemFn,
    cfg: &[&syn::Attribute],
    options: &KernelOptions,
    instance: &Instance,
    doc_launch: &str,
) -> TokenStream {
    let vis = &func.vis;
    let Instance {
        impl_generics,
        self_ty,
        ..
    } = instance;
    let unsafety = launch_unsafety(options);
    let rt = crate::private();
    // The kernel did not compile: the errors above say why. Keep the type and a `launch`
    // with as many parameters, each taking anything, so that code using the kernel
    // reports nothing more (a parameter type that is not even a Rust type would
    // otherwise be reported a second time here).
    let entry = &instance.entry;
    let args: Vec<syn::Ident> = (0..func.sig.inputs.len())
        .map(|i| format_ident!("__cuprum_arg{}", i))
        .collect();
    let signature: Vec<TokenStream> = func
        .sig
        .inputs
        .iter()
        .zip(&args)
        .filter_map(|(arg, local)| match arg {
            syn::FnArg::Typed(pt) => {
                Some(quote_spanned!(pt.span()=> #local: impl ::core::marker::Sized))
            }
            syn::FnArg::Receiver(_) => None,
        })
        .collect();
    let args: Vec<&syn::Ident> = func
        .sig
        .inputs
        .iter()
        .zip(&args)
        .filter(|(arg, _)| matches!(arg, syn::FnArg::Typed(_)))
        .map(|(_, local)| local)
        .collect();
    let launcher = launcher(func, cfg, options, instance, &signature, &args);
    quote! {
        #(#cfg)*
        #[allow(dead_code, unused_variables, clippy::too_many_arguments, clippy::type_complexity)]
        impl #impl_generics #self_ty {
            /// The PTX of this kernel (empty: it did not compile).
            #vis const PTX: &'static str = "";
            /// The PTX of its fast module (none: it did not compile).
            #vis const FAST_PTX: ::core::option::Option<&'static str> = ::core::option::Option::None;
            /// The kernel's PTX entry name.
            #vis const NAME: &'static str = #entry;
            #[doc = #doc_launch]
            #vis #unsafety fn launch(__cuprum_stream: &#rt::Stream, __cuprum_config: impl ::core::convert::Into<#rt::LaunchConfig>, #(#signature),*) -> #rt::Result<()> {
                ::core::unreachable!()
            }
        }
        #launcher
    }
}
