//! `#[kernel]`: compile the function with `cuprum-codegen` and emit the kernel's type, its
//! PTX and its typed `launch`.

use std::panic::{catch_unwind, AssertUnwindSafe};

use cuprum_codegen::ir::CheckKind;
use cuprum_codegen::{compile_kernel, CompiledKernel, KernelOptions, Target};
use proc_macro2::TokenStream;
use quote::ToTokens;
use quote::{format_ident, quote, quote_spanned};
use syn::spanned::Spanned;

/// Attributes that are passed on to the generated items unchanged.
const FORWARDED: &[&str] = &["doc", "cfg", "allow", "warn", "deny", "expect", "cfg_attr"];

pub fn expand(attr: TokenStream, item: TokenStream) -> TokenStream {
    for tokens in [&attr, &item] {
        if let Err(e) = cuprum_codegen::check::check_nesting(tokens) {
            return e.to_compile_error();
        }
    }
    let func: syn::ItemFn = match syn::parse2(item.clone()) {
        Ok(f) => f,
        Err(e) => return not_a_function(item, e).to_compile_error(),
    };
    let mut errors: Vec<syn::Error> = Vec::new();
    let options = KernelOptions::parse(attr).unwrap_or_else(|e| {
        errors.push(e);
        KernelOptions::default()
    });
    let mut forwarded = Vec::new();
    for a in &func.attrs {
        let name = a
            .path()
            .get_ident()
            .map(|i| i.to_string())
            .unwrap_or_default();
        let last = a.path().segments.last().map(|s| s.ident.to_string());
        if FORWARDED.contains(&name.as_str()) {
            forwarded.push(a);
        } else if matches!(last.as_deref(), Some("kernel" | "device")) {
            errors.push(syn::Error::new_spanned(
                a,
                "a function is either one kernel or a `#[device]` function: remove this attribute",
            ));
        } else {
            let path = a.path().to_token_stream().to_string().replace(' ', "");
            errors.push(syn::Error::new_spanned(
                a,
                format!("`#[{path}]` cannot be applied to a kernel; kernels keep only `doc`, `cfg`, `cfg_attr` and lint attributes (`allow`, `warn`, `deny`, `expect`)"),
            ));
        }
    }
    let default_target = match build_target() {
        Ok(t) => t,
        Err(e) => {
            errors.push(syn::Error::new(func.sig.ident.span(), e));
            Target::default_target()
        }
    };
    let compiled = match catch_unwind(AssertUnwindSafe(|| {
        compile_kernel(&func, &options, &default_target)
    })) {
        Ok(Ok(k)) => Some(k),
        Ok(Err(e)) => {
            errors.push(e);
            None
        }
        Err(panic) => {
            let msg = panic
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| panic.downcast_ref::<&str>().map(|s| s.to_string()))
                .unwrap_or_default();
            errors.push(cuprum_codegen::internal_error(&func.sig.ident, &msg));
            None
        }
    };
    let error_tokens: TokenStream = errors.iter().map(|e| e.to_compile_error()).collect();
    let items = emit(&func, &forwarded, &options, compiled.as_ref());
    quote!(#error_tokens #items)
}

/// The error for `#[kernel]` on something that is not a function: at the item's keyword and
/// name, saying what the item is.
fn not_a_function(item: TokenStream, parse_error: syn::Error) -> syn::Error {
    const USE: &str =
        "`#[kernel]` goes on a function: `#[kernel] pub fn name(x: &mut [f32], ..) { .. }`";
    let Ok(parsed) = syn::parse2::<syn::Item>(item) else {
        // Not an item syn knows; rustc reports the syntax itself, this says what was expected.
        let mut e = syn::Error::new(parse_error.span(), USE);
        e.combine(parse_error);
        return e;
    };
    let (what, keyword, name): (&str, TokenStream, Option<&syn::Ident>) = match &parsed {
        syn::Item::Struct(i) => ("a struct", i.struct_token.to_token_stream(), Some(&i.ident)),
        syn::Item::Enum(i) => ("an enum", i.enum_token.to_token_stream(), Some(&i.ident)),
        syn::Item::Union(i) => ("a union", i.union_token.to_token_stream(), Some(&i.ident)),
        syn::Item::Const(i) => (
            "a constant",
            i.const_token.to_token_stream(),
            Some(&i.ident),
        ),
        syn::Item::Static(i) => ("a static", i.static_token.to_token_stream(), Some(&i.ident)),
        syn::Item::Trait(i) => ("a trait", i.trait_token.to_token_stream(), Some(&i.ident)),
        syn::Item::Type(i) => (
            "a type alias",
            i.type_token.to_token_stream(),
            Some(&i.ident),
        ),
        syn::Item::Mod(i) => ("a module", i.mod_token.to_token_stream(), Some(&i.ident)),
        syn::Item::Impl(i) => ("an `impl` block", i.impl_token.to_token_stream(), None),
        syn::Item::Use(i) => ("a `use`", i.use_token.to_token_stream(), None),
        syn::Item::Verbatim(v) if v.clone().into_iter().any(|t| t.to_string() == "fn") => {
            ("a function without a body", v.clone(), None)
        }
        other => ("this item", other.to_token_stream(), None),
    };
    let at = quote!(#keyword #name);
    let mut msg = format!("{USE}, not on {what}");
    if matches!(parsed, syn::Item::Impl(_) | syn::Item::Trait(_)) {
        msg.push_str("; kernels are free functions, so write it outside the block");
    }
    syn::Error::new_spanned(at, msg)
}

/// The target from `CUPRUM_TARGET` when the macros were built, else the default.
fn build_target() -> Result<Target, String> {
    match env!("CUPRUM_BUILD_TARGET") {
        "" => Ok(Target::default_target()),
        t => Target::parse(t).map_err(|e| format!("CUPRUM_TARGET: {e}")),
    }
}

/// One kernel parameter as the host sees it.
enum HostParam<'a> {
    Slice {
        name: &'a syn::Ident,
        elem: &'a syn::Type,
        mutable: bool,
    },
    Scalar {
        name: &'a syn::Ident,
        ty: &'a syn::Type,
    },
}

fn host_params(func: &syn::ItemFn) -> Vec<HostParam<'_>> {
    let mut out = Vec::new();
    for arg in &func.sig.inputs {
        let syn::FnArg::Typed(pt) = arg else { continue };
        let syn::Pat::Ident(pi) = &*pt.pat else {
            continue;
        };
        let name = &pi.ident;
        let mut ty = &*pt.ty;
        while let syn::Type::Group(g) = ty {
            ty = &g.elem;
        }
        match ty {
            syn::Type::Reference(r) => {
                if let syn::Type::Slice(s) = &*r.elem {
                    out.push(HostParam::Slice {
                        name,
                        elem: &s.elem,
                        mutable: r.mutability.is_some(),
                    });
                }
            }
            ty => out.push(HostParam::Scalar { name, ty }),
        }
    }
    out
}

fn emit(
    func: &syn::ItemFn,
    forwarded: &[&syn::Attribute],
    options: &KernelOptions,
    compiled: Option<&CompiledKernel>,
) -> TokenStream {
    let vis = &func.vis;
    let name = &func.sig.ident;
    let params = host_params(func);
    let signature: Vec<TokenStream> = params
        .iter()
        .map(|p| match p {
            HostParam::Slice { name, elem, mutable: true } => {
                quote_spanned!(elem.span()=> #name: &mut (impl ::cuprum::DeviceSliceMut<#elem> + ?::core::marker::Sized))
            }
            HostParam::Slice { name, elem, mutable: false } => {
                quote_spanned!(elem.span()=> #name: &(impl ::cuprum::DeviceSlice<#elem> + ?::core::marker::Sized))
            }
            HostParam::Scalar { name, ty } => quote!(#name: #ty),
        })
        .collect();
    let doc_launch = format!(
        "Launches `{name}` on `stream`: `launch!({name}<<<grid, block, stream>>>(..))` is the same call.\n\n\
         # Errors\nAn invalid configuration or a buffer from another device is an error before anything runs; \
         driver errors. A failed check inside the kernel is reported by the stream's next synchronisation."
    );
    let Some(k) = compiled else {
        // The kernel did not compile: the errors above say why. Keep the type and a `launch`
        // with as many parameters, each taking anything, so that code using the kernel
        // reports nothing more (a parameter type that is not even a Rust type would
        // otherwise be reported a second time here).
        let entry = name.to_string();
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
        let launcher = launcher(func, forwarded, &signature, &args);
        return quote! {
            #(#forwarded)*
            #[allow(non_camel_case_types)]
            #vis struct #name;
            #[allow(dead_code, unused_variables)]
            impl #name {
                /// The PTX of this kernel (empty: it did not compile).
                #vis const PTX: &'static str = "";
                /// The kernel's PTX entry name.
                #vis const NAME: &'static str = #entry;
                #[doc = #doc_launch]
                #vis fn launch(__cuprum_stream: &::cuprum::Stream, __cuprum_config: impl ::core::convert::Into<::cuprum::LaunchConfig>, #(#signature),*) -> ::cuprum::Result<()> {
                    ::core::unreachable!()
                }
            }
            #launcher
        };
    };
    let ptx = &k.ptx;
    let entry = &k.name;
    let tag = cuprum_codegen::lower::kernel_tag(entry);
    let checked = options.checked;
    let max_threads = options.max_threads.unwrap_or(0);
    let sites = k.program.sites.iter().map(|s| {
        let kind = match s.kind {
            CheckKind::Index => quote!(Index),
            CheckKind::DivZero => quote!(DivZero),
            CheckKind::StepZero => quote!(StepZero),
        };
        quote_spanned!(s.span=> ::cuprum::__private::Site {
            kind: ::cuprum::__private::SiteKind::#kind,
            file: ::core::file!(),
            line: ::core::line!(),
            column: ::core::column!(),
        })
    });
    let mut prepare = Vec::new();
    let mut push = Vec::new();
    for (i, p) in params.iter().enumerate() {
        let local = format_ident!("__cuprum_arg{}", i);
        match p {
            HostParam::Slice {
                name,
                mutable: true,
                ..
            } => {
                prepare.push(quote!(let mut #local = __cuprum_gpu.slice_mut(#name)?;));
                push.push(quote!(__cuprum_args.arg(&mut #local.view).arg(&#local.len);));
            }
            HostParam::Slice {
                name,
                mutable: false,
                ..
            } => {
                prepare.push(quote!(let #local = __cuprum_gpu.slice(#name)?;));
                push.push(quote!(__cuprum_args.arg(&#local.view).arg(&#local.len);));
            }
            HostParam::Scalar { name, .. } => push.push(quote!(__cuprum_args.arg(&#name);)),
        }
    }
    let ptx_doc = format!("The PTX of `{name}`, compiled for {}.", k.target);
    let arg_names: Vec<&syn::Ident> = params
        .iter()
        .map(|p| match p {
            HostParam::Slice { name, .. } | HostParam::Scalar { name, .. } => *name,
        })
        .collect();
    let launcher = launcher(func, forwarded, &signature, &arg_names);
    quote! {
        #(#forwarded)*
        #[allow(non_camel_case_types)]
        #[derive(Clone, Copy, Debug)]
        #vis struct #name;

        // A kernel that is only launched has unread constants; that is not worth a warning.
        #[allow(dead_code)]
        impl #name {
            #[doc = #ptx_doc]
            #vis const PTX: &'static str = #ptx;
            /// The kernel's PTX entry name.
            #vis const NAME: &'static str = #entry;
            #[doc(hidden)]
            #vis const INFO: ::cuprum::__private::KernelInfo = ::cuprum::__private::KernelInfo {
                name: #entry,
                ptx: #ptx,
                tag: #tag,
                checked: #checked,
                max_threads: #max_threads,
                sites: &[#(#sites),*],
            };

            #[doc = #doc_launch]
            #vis fn launch(
                __cuprum_stream: &::cuprum::Stream,
                __cuprum_config: impl ::core::convert::Into<::cuprum::LaunchConfig>,
                #(#signature),*
            ) -> ::cuprum::Result<()> {
                use ::cuprum::__private::PushKernelArg as _;
                static __CUPRUM_CACHE: ::cuprum::__private::FunctionCache = ::cuprum::__private::FunctionCache::new();
                let __cuprum_config: ::cuprum::LaunchConfig = __cuprum_config.into();
                match ::cuprum::__private::backend(__cuprum_stream) {
                    ::cuprum::__private::Backend::Gpu(__cuprum_gpu) => {
                        let ::core::option::Option::Some(__cuprum_launch) =
                            __cuprum_gpu.prepare(&__CUPRUM_CACHE, &Self::INFO, &__cuprum_config)?
                        else {
                            return ::core::result::Result::Ok(());
                        };
                        #(#prepare)*
                        let mut __cuprum_args = __cuprum_launch.builder();
                        #(#push)*
                        __cuprum_launch.finish(__cuprum_args)
                    }
                }
            }
        }

        #launcher
    }
}

/// What `launch!` calls: `kernel::__cuprum_launcher(stream, config).launch(args..)`. Its
/// `launch` takes exactly the kernel's parameters, so that rustc's errors about the arguments
/// of a `launch!` count and name only what the user wrote.
fn launcher(
    func: &syn::ItemFn,
    forwarded: &[&syn::Attribute],
    signature: &[TokenStream],
    args: &[&syn::Ident],
) -> TokenStream {
    let vis = &func.vis;
    let name = &func.sig.ident;
    let launcher = format_ident!("__cuprum_launcher_{}", name);
    let cfg: Vec<&&syn::Attribute> = forwarded
        .iter()
        .filter(|a| a.path().is_ident("cfg") || a.path().is_ident("cfg_attr"))
        .collect();
    quote! {
        #(#cfg)*
        #[doc(hidden)]
        #[allow(non_camel_case_types)]
        #vis struct #launcher<'s> {
            stream: &'s ::cuprum::Stream,
            config: ::cuprum::LaunchConfig,
        }

        #(#cfg)*
        #[allow(dead_code)]
        impl #name {
            #[doc(hidden)]
            #vis fn __cuprum_launcher(stream: &::cuprum::Stream, config: ::cuprum::LaunchConfig) -> #launcher<'_> {
                #launcher { stream, config }
            }
        }

        #(#cfg)*
        impl #launcher<'_> {
            /// Launches the kernel with these arguments.
            #vis fn launch(self, #(#signature),*) -> ::cuprum::Result<()> {
                #name::launch(self.stream, self.config, #(#args),*)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The messages of the `compile_error!`s in an expansion.
    fn errors(attr: TokenStream, item: TokenStream) -> Vec<String> {
        let out = expand(attr, item).to_string();
        out.split("compile_error !")
            .skip(1)
            .map(|s| s.split('"').nth(1).unwrap_or_default().to_string())
            .collect()
    }

    #[test]
    fn odd_items_and_attributes_give_errors_not_panics() {
        let cases: Vec<(TokenStream, TokenStream)> = vec![
            (
                quote!(),
                quote!(
                    struct S;
                ),
            ),
            (
                quote!(),
                quote!(
                    enum E {
                        A,
                    }
                ),
            ),
            (quote!(), quote!(impl S { fn f() {} })),
            (
                quote!(),
                quote!(
                    fn f();
                ),
            ),
            (
                quote!(),
                quote!(
                    fn r#type(o: &mut [f32]) {
                        o[0] = 1.0;
                    }
                ),
            ),
            (
                quote!(),
                quote!(
                    fn f(&self) {}
                ),
            ),
            (
                quote!(),
                quote!(
                    fn f<T>(x: T) {}
                ),
            ),
            (
                quote!(),
                quote!(
                    extern "C" fn f() {}
                ),
            ),
            (
                quote!(),
                quote!(
                    #[kernel]
                    fn f() {}
                ),
            ),
            (
                quote!(),
                quote!(
                    #[inline]
                    #[cuprum::device]
                    fn f() {}
                ),
            ),
            (
                quote!(),
                quote!(
                    fn f((a, b): (f32, f32), _: u32) {}
                ),
            ),
            (
                quote!(=),
                quote!(
                    fn f() {}
                ),
            ),
            (
                quote!(target),
                quote!(
                    fn f() {}
                ),
            ),
            (
                quote!(max_threads(3)),
                quote!(
                    fn f() {}
                ),
            ),
            (
                quote!(max_threads = 99999999999999),
                quote!(
                    fn f() {}
                ),
            ),
            (
                quote!(target = "sm_90", target = 3),
                quote!(
                    fn f() {}
                ),
            ),
            (quote!(), quote!()),
        ];
        for (attr, item) in cases {
            let text = format!("#[kernel({attr})] {item}");
            let errors = errors(attr, item);
            if text.contains("r#type") {
                assert!(errors.is_empty(), "{text}: {errors:?}");
            } else {
                assert!(!errors.is_empty(), "{text} compiled");
            }
            assert!(
                errors.iter().all(|e| !e.contains("internal error")),
                "{text}: {errors:?}"
            );
        }
    }

    #[test]
    fn three_mistakes_are_three_errors() {
        let errors = errors(
            quote!(fast_math),
            quote!(
                fn k(o: &mut [f32], v: Vec<f32>) {
                    o[0] = 2;
                }
            ),
        );
        assert_eq!(errors.len(), 3, "{errors:?}");
    }
}
