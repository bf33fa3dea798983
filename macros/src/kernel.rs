//! `#[kernel]`: compile the function with `cuprum-codegen` and emit the kernel's type, its
//! PTX and its typed `launch`.

use std::panic::{catch_unwind, AssertUnwindSafe};

use cuprum_codegen::ir::CheckKind;
use cuprum_codegen::{compile_kernel, CompiledKernel, KernelOptions, Target};
use proc_macro2::TokenStream;
use quote::{format_ident, quote, quote_spanned};
use syn::spanned::Spanned;

/// Attributes that are passed on to the generated items unchanged.
const FORWARDED: &[&str] = &["doc", "cfg", "allow", "warn", "deny", "expect", "cfg_attr"];

pub fn expand(attr: TokenStream, item: TokenStream) -> TokenStream {
    let func: syn::ItemFn = match syn::parse2(item.clone()) {
        Ok(f) => f,
        Err(_) => {
            let span = item
                .clone()
                .into_iter()
                .next()
                .map(|t| t.span())
                .unwrap_or_else(proc_macro2::Span::call_site);
            return syn::Error::new(
                span,
                "`#[kernel]` goes on a function: `#[kernel] pub fn name(x: &mut [f32], ..) { .. }`",
            )
            .to_compile_error();
        }
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
        if FORWARDED.contains(&name.as_str()) {
            forwarded.push(a);
        } else {
            errors.push(syn::Error::new_spanned(
                a,
                format!("`#[{name}]` cannot be applied to a kernel"),
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
        // The kernel did not compile: the errors above say why. Keep the type and its
        // signature so that code using it reports nothing more.
        return quote! {
            #(#forwarded)*
            #[allow(non_camel_case_types)]
            #vis struct #name;
            #[allow(dead_code, unused_variables)]
            impl #name {
                /// The PTX of this kernel (empty: it did not compile).
                #vis const PTX: &'static str = "";
                #[doc = #doc_launch]
                #vis fn launch(__cuprum_stream: &::cuprum::Stream, __cuprum_config: impl ::core::convert::Into<::cuprum::LaunchConfig>, #(#signature),*) -> ::cuprum::Result<()> {
                    ::core::unreachable!()
                }
            }
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
    let mut sim_prepare = Vec::new();
    let mut sim_args = Vec::new();
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
                sim_prepare.push(quote!(let #local = __cuprum_sim.slice_mut(#name)?;));
                sim_args.push(quote!(#local));
            }
            HostParam::Slice {
                name,
                mutable: false,
                ..
            } => {
                prepare.push(quote!(let #local = __cuprum_gpu.slice(#name)?;));
                push.push(quote!(__cuprum_args.arg(&#local.view).arg(&#local.len);));
                sim_prepare.push(quote!(let #local = __cuprum_sim.slice(#name)?;));
                sim_args.push(quote!(#local));
            }
            HostParam::Scalar { name, .. } => {
                push.push(quote!(__cuprum_args.arg(&#name);));
                sim_args.push(quote!(#name));
            }
        }
    }
    let sim_body_name = format_ident!("__cuprum_sim_body");
    let sim_body = cuprum_codegen::sim::emit_body(&k.program, &sim_body_name);
    let cooperative = cuprum_codegen::sim::is_cooperative(&k.program);
    let shared_bytes = cuprum_codegen::sim::static_shared_bytes(&k.program)
        .into_iter()
        .map(|b| b as usize);
    let ptx_doc = format!("The PTX of `{name}`, compiled for {}.", k.target);
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
                cooperative: #cooperative,
                shared: &[#(::cuprum::gpu::sim::SharedDecl { bytes: #shared_bytes }),*],
            };

            #[doc = #doc_launch]
            #vis fn launch(
                __cuprum_stream: &::cuprum::Stream,
                __cuprum_config: impl ::core::convert::Into<::cuprum::LaunchConfig>,
                #(#signature),*
            ) -> ::cuprum::Result<()> {
                use ::cuprum::__private::PushKernelArg as _;
                #sim_body
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
                    ::cuprum::__private::Backend::Sim(__cuprum_sim) => {
                        #(#sim_prepare)*
                        __cuprum_sim.launch(&Self::INFO, &__cuprum_config, move |__cuprum_t| #sim_body_name(__cuprum_t, #(#sim_args),*))
                    }
                }
            }
        }
    }
}
