//! `#[kernel]`: compile the function with `cuprum-codegen` and emit the kernel's type, its
//! PTX and its typed `launch` (one `impl` per instance of a generic kernel).

use cuprum_codegen::device::{device_calls, DeviceTable};
use cuprum_codegen::ir::CheckKind;
use cuprum_codegen::ty::Scalar;
use cuprum_codegen::{compile, CompiledKernel, KernelOptions, KernelSource, Target};
use proc_macro2::TokenStream;
use quote::{format_ident, quote, quote_spanned, ToTokens};
use syn::spanned::Spanned;
use syn::visit_mut::VisitMut;

use crate::collect::{self, Kind};
use crate::guard;

/// Attributes that are passed on to the generated items unchanged.
const FORWARDED: &[&str] = &["doc", "cfg", "allow", "warn", "deny", "expect", "cfg_attr"];

/// Stage one: a kernel that calls `#[device]` functions first collects their sources.
pub fn expand(attr: TokenStream, item: TokenStream) -> TokenStream {
    let func: syn::ItemFn = match syn::parse2(item.clone()) {
        Ok(f) => f,
        Err(_) => {
            let span = item
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
    let calls = device_calls(&func);
    if calls.is_empty() {
        return finish(attr, &func, DeviceTable::default());
    }
    collect::start(Kind::Kernel, attr, func.to_token_stream(), &calls)
}

/// Stage two: compile with the device functions found and emit the items.
pub fn finish(attr: TokenStream, func: &syn::ItemFn, devices: DeviceTable) -> TokenStream {
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
    cuprum_codegen::libdevice::set_hint(env!("CUPRUM_BUILD_LIBDEVICE"));
    let default_target = match build_target() {
        Ok(t) => t,
        Err(e) => {
            errors.push(syn::Error::new(func.sig.ident.span(), e));
            Target::default_target()
        }
    };
    let generic_names: Vec<String> = func
        .sig
        .generics
        .params
        .iter()
        .filter_map(|g| match g {
            syn::GenericParam::Type(t) => Some(t.ident.to_string()),
            _ => None,
        })
        .collect();
    let instances: Vec<Vec<Scalar>> = if generic_names.is_empty() {
        vec![Vec::new()]
    } else if options.instances.is_empty() {
        // The checker reports the missing `instances(..)`.
        vec![Vec::new()]
    } else {
        options.instances.clone()
    };
    let mut compiled = Vec::new();
    for types in &instances {
        if !types.is_empty() && types.len() != generic_names.len() {
            errors.push(syn::Error::new_spanned(
                &func.sig.generics,
                format!(
                    "each instance needs {} type(s), one per generic parameter",
                    generic_names.len()
                ),
            ));
            continue;
        }
        let entry = std::iter::once(func.sig.ident.to_string())
            .chain(types.iter().map(|s| s.name().to_string()))
            .collect::<Vec<_>>()
            .join("_");
        let source = KernelSource {
            item: func,
            devices: devices.clone(),
            generics: generic_names
                .iter()
                .cloned()
                .zip(types.iter().copied())
                .collect(),
            entry,
        };
        let started = std::time::Instant::now();
        let result = guard::run(&func.sig.ident, || {
            compile(&source, &options, &default_target)
        });
        record_build_time(&source.entry, started.elapsed());
        match result {
            Ok(k) => compiled.push((types.clone(), Some(k))),
            Err(e) => {
                errors.push(e);
                compiled.push((types.clone(), None));
            }
        }
        if errors.len() > 8 {
            break; // one instance's errors are usually every instance's
        }
    }
    let error_tokens: TokenStream = dedup(errors).iter().map(|e| e.to_compile_error()).collect();
    let items = emit(func, &forwarded, &options, &generic_names, &compiled);
    quote!(#error_tokens #items)
}

/// The same message at the same place, reported once (instances repeat each other's errors).
fn dedup(errors: Vec<syn::Error>) -> Vec<syn::Error> {
    let mut seen: Vec<(String, String)> = Vec::new();
    let mut out = Vec::new();
    for e in errors.into_iter().flat_map(|e| e.into_iter()) {
        let key = (e.to_string(), format!("{:?}", e.span()));
        if !seen.contains(&key) {
            seen.push(key);
            out.push(e);
        }
    }
    out
}

/// The target from `CUPRUM_TARGET` when the macros were built, else the default.
fn build_target() -> Result<Target, String> {
    match env!("CUPRUM_BUILD_TARGET") {
        "" => Ok(Target::default_target()),
        t => Target::parse(t).map_err(|e| format!("CUPRUM_TARGET: {e}")),
    }
}

/// One kernel parameter as the host sees it.
enum HostParam {
    Slice {
        name: syn::Ident,
        elem: syn::Type,
        mutable: bool,
    },
    Scalar {
        name: syn::Ident,
        ty: syn::Type,
    },
}

/// Replaces generic parameters by an instance's types.
struct Substitute<'a>(&'a [(String, Scalar)]);

impl VisitMut for Substitute<'_> {
    fn visit_type_mut(&mut self, t: &mut syn::Type) {
        if let syn::Type::Path(tp) = t {
            if let Some(i) = tp.path.get_ident() {
                if let Some((_, s)) = self.0.iter().find(|(g, _)| i == g) {
                    let ident = syn::Ident::new(s.name(), i.span());
                    *t = syn::parse_quote!(#ident);
                    return;
                }
            }
        }
        syn::visit_mut::visit_type_mut(self, t);
    }
}

fn host_params(func: &syn::ItemFn, subst: &[(String, Scalar)]) -> Vec<HostParam> {
    let mut out = Vec::new();
    for arg in &func.sig.inputs {
        let syn::FnArg::Typed(pt) = arg else { continue };
        let syn::Pat::Ident(pi) = &*pt.pat else {
            continue;
        };
        let name = pi.ident.clone();
        let mut ty = (*pt.ty).clone();
        Substitute(subst).visit_type_mut(&mut ty);
        while let syn::Type::Group(g) = ty {
            ty = *g.elem;
        }
        match ty {
            syn::Type::Reference(r) => {
                if let syn::Type::Slice(s) = *r.elem {
                    out.push(HostParam::Slice {
                        name,
                        elem: *s.elem,
                        mutable: r.mutability.is_some(),
                    });
                }
            }
            ty => out.push(HostParam::Scalar { name, ty }),
        }
    }
    out
}

fn signature(params: &[HostParam]) -> Vec<TokenStream> {
    params
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
        .collect()
}

fn emit(
    func: &syn::ItemFn,
    forwarded: &[&syn::Attribute],
    options: &KernelOptions,
    generic_names: &[String],
    compiled: &[(Vec<Scalar>, Option<CompiledKernel>)],
) -> TokenStream {
    let vis = &func.vis;
    let name = &func.sig.ident;
    let generics: Vec<syn::Ident> = generic_names
        .iter()
        .map(|g| format_ident!("{}", g))
        .collect();
    let item = if generics.is_empty() {
        quote! {
            #(#forwarded)*
            #[allow(non_camel_case_types)]
            #[derive(Clone, Copy, Debug)]
            #vis struct #name;
        }
    } else {
        let doc = format!("A generic kernel: launch an instance, `{name}::<f32>::launch(..)` or `launch!({name}::<f32><<<..>>>(..))`.");
        quote! {
            #(#forwarded)*
            #[doc = #doc]
            #[allow(non_camel_case_types)]
            #[derive(Clone, Copy, Debug)]
            #vis struct #name<#(#generics),*>(::core::marker::PhantomData<(#(#generics,)*)>);
        }
    };
    let impls = compiled.iter().map(|(types, k)| {
        let subst: Vec<(String, Scalar)> = generic_names
            .iter()
            .cloned()
            .zip(types.iter().copied())
            .collect();
        let self_ty = if types.is_empty() {
            quote!(#name)
        } else {
            let ts = types.iter().map(|s| format_ident!("{}", s.name()));
            quote!(#name<#(#ts),*>)
        };
        emit_impl(
            func,
            options,
            &self_ty,
            &host_params(func, &subst),
            k.as_ref(),
        )
    });
    quote!(#item #(#impls)*)
}

fn emit_impl(
    func: &syn::ItemFn,
    options: &KernelOptions,
    self_ty: &TokenStream,
    params: &[HostParam],
    compiled: Option<&CompiledKernel>,
) -> TokenStream {
    let vis = &func.vis;
    let name = &func.sig.ident;
    let signature = signature(params);
    let doc_launch = format!(
        "Launches `{name}` on `stream`: `launch!({name}<<<grid, block, stream>>>(..))` is the same call.\n\n\
         # Errors\nAn invalid configuration or a buffer from another device is an error before anything runs; \
         driver errors. A failed check inside the kernel is reported by the stream's next synchronisation."
    );
    let Some(k) = compiled else {
        // The kernel did not compile: the errors above say why. Keep the type and its
        // signature so that code using it reports nothing more.
        return quote! {
            #[allow(dead_code, unused_variables, clippy::too_many_arguments, clippy::type_complexity)]
            impl #self_ty {
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
    let ptx_doc = format!("The PTX of `{entry}`, compiled for {}.", k.target);
    quote! {
        // A kernel that is only launched has unread constants, and `launch` takes the kernel's
        // parameters after the stream and configuration: neither is worth a warning.
        #[allow(dead_code, clippy::too_many_arguments, clippy::type_complexity)]
        impl #self_ty {
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

/// With `CUPRUM_BUILD_TIMES=<file>` set while building, appends `<crate>::<kernel>\t<ms>`
/// for each kernel compiled (checking, lowering, LLVM's passes, PTX emission): the
/// build-time figure of BENCHMARKS.md, measured by `bench/build_times.sh`. Never fails the
/// build.
fn record_build_time(entry: &str, elapsed: std::time::Duration) {
    let Some(path) = std::env::var_os("CUPRUM_BUILD_TIMES") else {
        return;
    };
    use std::io::Write;
    if let Ok(mut f) = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
    {
        let krate = std::env::var("CARGO_CRATE_NAME").unwrap_or_default();
        let _ = writeln!(f, "{krate}::{entry}\t{:.3}", elapsed.as_secs_f64() * 1e3);
    }
}
