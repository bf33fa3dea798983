//! Prints a compiled instance (codegen's `Artifact`) as the kernel's items: its `impl` (PTX,
//! `INFO`, the typed `launch` with a GPU and a simulator branch), the launcher `launch!`
//! calls, and the assertions that rustc agrees with the kernel compiler.

use cuprum_codegen::{Artifact, InstanceArg, KernelOptions, Scalar};
use proc_macro2::TokenStream;
use quote::{format_ident, quote, quote_spanned, ToTokens};
use syn::spanned::Spanned;
use syn::visit_mut::VisitMut;

use super::expand::{bind_instance, entry_name, Generic};

/// For each struct of the kernel's module that it uses, compile-time assertions that rustc
/// lays it out as the kernel compiler does (size, alignment and each field's offset).
fn confirm_layouts(compiled: &[(Vec<InstanceArg>, Option<Artifact>)]) -> TokenStream {
    let mut checks = Vec::new();
    // An enum: its size and every variant's discriminant as the kernel compiler read them.
    for d in once_by_name(compiled, |k| &k.enums, |d| &d.name) {
        let name = format_ident!("{}", d.name);
        let size = d.repr.bytes() as usize;
        let message = format!("the kernel compiler read `{}` differently from rustc: is it defined once in this module?", d.name);
        let variants = d.variants.iter().map(|(v, value)| {
            let v = format_ident!("{}", v);
            let value = proc_macro2::Literal::i128_unsuffixed(*value);
            quote!(&& (#name::#v as i128) == #value)
        });
        checks.push(quote!(::core::assert!(
            ::core::mem::size_of::<#name>() == #size #(#variants)*,
            #message
        );));
    }
    for d in once_by_name(compiled, |k| &k.structs, |d| &d.name) {
        let name = format_ident!("{}", d.name);
        let message = format!("the kernel compiler laid `{}` out differently from rustc: is it `#[repr(C)]`, and defined once in this module?", d.name);
        let (size, align) = (d.size as usize, d.align as usize);
        let offsets = d.fields.iter().map(|(f, o)| {
            let member: syn::Member = if d.tuple {
                syn::Member::Unnamed(syn::Index::from(f.parse::<usize>().unwrap_or(0)))
            } else {
                syn::Member::Named(format_ident!("{}", f))
            };
            let o = *o as usize;
            quote!(&& ::core::mem::offset_of!(#name, #member) == #o)
        });
        checks.push(quote!(::core::assert!(
            ::core::mem::size_of::<#name>() == #size
                && ::core::mem::align_of::<#name>() == #align
                #(#offsets)*,
            #message
        );));
    }
    if checks.is_empty() {
        return TokenStream::new();
    }
    quote!(const _: () = { #(#checks)* };)
}

/// For each `const`/`static` of the module that a kernel uses, a compile-time assertion that
/// rustc gives the scalar the value the kernel compiler computed (and, for every item, a use
/// that rustc sees: the kernel's own use is invisible to it).
fn confirm_items(compiled: &[(Vec<InstanceArg>, Option<Artifact>)]) -> TokenStream {
    let mut checks = Vec::new();
    for item in once_by_name(compiled, |k| &k.items, |i| &i.name) {
        let name = &item.name;
        let ident = format_ident!("{}", name, span = item.span);
        let message = format!("the kernel compiler read another value for `{name}` from this file than rustc computed (is it made by a macro?): define it as a plain `const` next to the kernel");
        // Every scalar of the value: a struct's fields, an array's elements (up to a bound).
        checks.push(quote!(let _ = &#ident;));
        checks.extend(
            item.checks
                .iter()
                .map(|c| quote!(::core::assert!(#c, #message);)),
        );
    }
    if checks.is_empty() {
        return TokenStream::new();
    }
    quote!(const _: () = { #(#checks)* };)
}

/// What `part` lists for every compiled instance, each name once (instances share their
/// structs and module items).
fn once_by_name<'a, T>(
    compiled: &'a [(Vec<InstanceArg>, Option<Artifact>)],
    part: impl Fn(&'a Artifact) -> &'a [T],
    name: impl Fn(&'a T) -> &'a str,
) -> Vec<&'a T> {
    let mut seen: Vec<&str> = Vec::new();
    let mut out = Vec::new();
    for x in compiled
        .iter()
        .filter_map(|(_, k)| k.as_ref())
        .flat_map(part)
    {
        if !seen.contains(&name(x)) {
            seen.push(name(x));
            out.push(x);
        }
    }
    out
}

/// An instance argument where a generic argument goes: `f32`, `256`, `{ -1 }`.
fn arg_tokens(a: InstanceArg) -> TokenStream {
    match a {
        InstanceArg::Type(s) => {
            let i = format_ident!("{}", s.name());
            quote!(#i)
        }
        InstanceArg::Const(v) if v < 0 => {
            let lit = proc_macro2::Literal::i128_unsuffixed(-v);
            quote!({ -#lit })
        }
        InstanceArg::Const(v) => proc_macro2::Literal::i128_unsuffixed(v).to_token_stream(),
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
                let rt = crate::private_at(elem.span());
                quote_spanned!(elem.span()=> #name: &mut (impl #rt::DeviceSliceMut<#elem> + ?::core::marker::Sized))
            }
            HostParam::Slice { name, elem, mutable: false } => {
                let rt = crate::private_at(elem.span());
                quote_spanned!(elem.span()=> #name: &(impl #rt::DeviceSlice<#elem> + ?::core::marker::Sized))
            }
            HostParam::Scalar { name, ty } => quote!(#name: #ty),
        })
        .collect()
}

pub(super) fn emit(
    func: &syn::ItemFn,
    forwarded: &[&syn::Attribute],
    options: &KernelOptions,
    kernel_generics: &[Generic],
    compiled: &[(Vec<InstanceArg>, Option<Artifact>)],
) -> TokenStream {
    let vis = &func.vis;
    let name = &func.sig.ident;
    let decls: Vec<TokenStream> = kernel_generics.iter().map(Generic::decl).collect();
    let generics: Vec<&syn::Ident> = kernel_generics.iter().map(Generic::ident).collect();
    // Type parameters must be used by the struct; const parameters need not be.
    let types: Vec<&syn::Ident> = kernel_generics
        .iter()
        .filter_map(|g| match g {
            Generic::Type(i) => Some(i),
            Generic::Const(..) => None,
        })
        .collect();
    let cfg: Vec<&syn::Attribute> = forwarded
        .iter()
        .copied()
        .filter(|a| a.path().is_ident("cfg") || a.path().is_ident("cfg_attr"))
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
            #vis struct #name<#(#decls),*>(::core::marker::PhantomData<(#(#types,)*)>);
        }
    };
    // What `launch!` calls: `kernel::__cuprum_launcher(stream, config).launch(args..)`, one
    // type for the kernel, generic like it, with a `launch` per instance.
    let launcher_name = format_ident!("__cuprum_launcher_{}", name);
    let rt = crate::private();
    let launcher_item = quote! {
        #(#cfg)*
        #[doc(hidden)]
        #[allow(non_camel_case_types, dead_code)]
        #vis struct #launcher_name<'s, #(#decls),*> {
            stream: &'s #rt::Stream,
            config: #rt::LaunchConfig,
            instance: ::core::marker::PhantomData<fn() -> (#(#types,)*)>,
        }
    };
    let impls = compiled.iter().map(|(instance_args, k)| {
        let subst: Vec<(String, Scalar)> = bind_instance(kernel_generics, instance_args)
            .map(|(types, _)| types)
            .unwrap_or_default();
        let (impl_generics, args): (TokenStream, Vec<TokenStream>) =
            if instance_args.is_empty() && !generics.is_empty() {
                // A generic kernel without `instances(..)` (the checker reports it): launching
                // any instance reports nothing more.
                (
                    quote!(<#(#decls),*>),
                    generics.iter().map(|g| g.to_token_stream()).collect(),
                )
            } else {
                let ts = instance_args.iter().map(|a| arg_tokens(*a)).collect();
                (TokenStream::new(), ts)
            };
        let self_ty = if args.is_empty() {
            quote!(#name)
        } else {
            quote!(#name<#(#args),*>)
        };
        let instance = Instance {
            entry: entry_name(name, instance_args),
            impl_generics,
            self_ty,
            launcher_ty: quote!(#launcher_name<'_, #(#args),*>),
            launcher_name: launcher_name.clone(),
        };
        emit_impl(
            func,
            &cfg,
            options,
            &instance,
            &host_params(func, &subst),
            k.as_ref(),
        )
    });
    let confirm = confirm_items(compiled);
    let layouts = confirm_layouts(compiled);
    quote!(#item #launcher_item #(#impls)* #confirm #layouts)
}

/// The docs of an instance's `launch`.
fn launch_doc(name: &syn::Ident, options: &KernelOptions) -> String {
    let mut doc = format!(
        "Launches `{name}` on `stream`: `launch!({name}<<<grid, block, stream>>>(..))` is the same call.\n\n\
         # Errors\nAn invalid configuration or a buffer from another device is an error before anything runs; \
         driver errors. A failed check inside the kernel is reported by the stream's next synchronisation."
    );
    if !options.checked {
        doc.push_str(UNCHECKED_SAFETY);
    }
    doc
}

/// The types the items of one instance are emitted for.
pub(super) struct Instance {
    /// Its PTX entry name.
    pub entry: String,
    /// `<T>` where the impls are generic (a generic kernel that did not name its instances).
    pub impl_generics: TokenStream,
    /// `saxpy` or `scale<f32>`.
    pub self_ty: TokenStream,
    /// `__cuprum_launcher_scale<'_, f32>`.
    pub launcher_ty: TokenStream,
    /// `__cuprum_launcher_scale`.
    pub launcher_name: syn::Ident,
}

fn emit_impl(
    func: &syn::ItemFn,
    cfg: &[&syn::Attribute],
    options: &KernelOptions,
    instance: &Instance,
    params: &[HostParam],
    compiled: Option<&Artifact>,
) -> TokenStream {
    let vis = &func.vis;
    let name = &func.sig.ident;
    let Instance {
        impl_generics,
        self_ty,
        ..
    } = instance;
    let signature = signature(params);
    let unsafety = launch_unsafety(options);
    let rt = crate::private();
    let doc_launch = launch_doc(name, options);
    let Some(k) = compiled else {
        return super::fallback::failed_impl(func, cfg, options, instance, &doc_launch);
    };
    let arg_names: Vec<&syn::Ident> = params
        .iter()
        .map(|p| match p {
            HostParam::Slice { name, .. } | HostParam::Scalar { name, .. } => name,
        })
        .collect();
    let launcher = launcher(func, cfg, options, instance, &signature, &arg_names);
    let ptx = with_debug_assertions(&k.build.ptx, k.release.as_ref().map(|r| &r.ptx));
    let fast_ptx = |b: &cuprum_codegen::Build| match &b.fast {
        Some((ptx, _)) => quote!(::core::option::Option::Some(#ptx)),
        None => quote!(::core::option::Option::None),
    };
    let fast_ptx = with_debug_assertions(fast_ptx(&k.build), k.release.as_ref().map(fast_ptx));
    let sim_body_name = format_ident!("{}", cuprum_codegen::SIM_BODY);
    let sim_body = &k.sim.body;
    let entry = &k.entry;
    let ptx_doc = format!("The PTX of `{entry}`, compiled for {}.", k.target);
    let info = info(k, options);
    let (locals, args) = arguments(params);
    let host_test = match host_test(k, params, &locals) {
        Ok(t) => t,
        Err(message) => {
            let e = cuprum_codegen::internal_error(name, &message);
            return e.to_compile_error();
        }
    };
    // The versioning flag: evaluated from the arguments as made for this backend, passed
    // after them (a `u32` on a GPU, a `bool` to the simulator's body).
    // On a GPU the flag also picks the module: the fast copy's own when the test held.
    let (gpu_flag, gpu_flag_arg, select, sim_flag, sim_flag_arg) = match &host_test {
        Some(eval) => (
            quote!(let __cuprum_host_test = #rt::Value(#eval);),
            quote!(&__cuprum_host_test),
            quote!(.select(__cuprum_host_test.0 != 0)),
            quote!(let __cuprum_host_test = #eval != 0;),
            quote!(__cuprum_host_test),
        ),
        None => Default::default(),
    };
    quote! {
        // A kernel that is only launched has unread constants, and `launch` takes the kernel's
        // parameters after the stream and configuration: neither is worth a warning.
        #(#cfg)*
        #[allow(dead_code, clippy::too_many_arguments, clippy::type_complexity)]
        impl #impl_generics #self_ty {
            #[doc = #ptx_doc]
            #vis const PTX: &'static str = #ptx;
            /// The PTX of the module the launch runs when the kernel's versioning test holds
            /// (its fast copy alone), when it has one.
            #vis const FAST_PTX: ::core::option::Option<&'static str> = #fast_ptx;
            /// The kernel's PTX entry name.
            #vis const NAME: &'static str = #entry;
            #[doc(hidden)]
            #vis const INFO: #rt::KernelInfo = #info;

            #[doc = #doc_launch]
            #vis #unsafety fn launch(
                __cuprum_stream: &#rt::Stream,
                __cuprum_config: impl ::core::convert::Into<#rt::LaunchConfig>,
                #(#signature),*
            ) -> #rt::Result<()> {
                #sim_body
                let __cuprum_config: #rt::LaunchConfig = __cuprum_config.into();
                match #rt::backend(__cuprum_stream) {
                    #rt::Backend::Gpu(__cuprum_gpu) => {
                        let ::core::option::Option::Some(__cuprum_launch) =
                            __cuprum_gpu.prepare(&Self::INFO, &__cuprum_config)?
                        else {
                            return ::core::result::Result::Ok(());
                        };
                        #(let #locals = __cuprum_gpu.arg(#args)?;)*
                        #gpu_flag
                        // SAFETY: the arguments are the kernel's parameters, in order, made
                        // from its checked signature on this launch's stream (then the
                        // versioning flag it takes, evaluated from them, which selects the
                        // fast module only when the test holds).
                        unsafe { __cuprum_launch #select .launch(&[#(&#locals,)* #gpu_flag_arg]) }
                    }
                    #rt::Backend::Sim(__cuprum_sim) => {
                        // SAFETY: the views are used only by the launch below, which runs the
                        // whole grid while the arguments are borrowed.
                        #(let #locals = unsafe { __cuprum_sim.arg(#args) }?;)*
                        #sim_flag
                        __cuprum_sim.launch(&Self::INFO, &__cuprum_config, move |__cuprum_t| #sim_body_name(__cuprum_t, #(#locals,)* #sim_flag_arg))
                    }
                }
            }
        }

        #launcher
    }
}

/// The expression of the versioning flag (`u32`) a kernel with a host-evaluated test takes:
/// the test (`cuprum_abi::versioning`) over the values of the launch's arguments (`locals`,
/// as the runtime made them for the backend: a slice's length is the one the kernel gets)
/// and of its configuration. An `Err` when the test names a parameter of another kind.
fn host_test(
    k: &Artifact,
    params: &[HostParam],
    locals: &[syn::Ident],
) -> Result<Option<TokenStream>, String> {
    let Some(t) = &k.host_test else {
        return Ok(None);
    };
    let rt = crate::private();
    let axis = |a: u8| format_ident!("{}", ["x", "y", "z"][a as usize % 3]);
    let mut values = Vec::new();
    for v in &t.values {
        values.push(match *v {
            cuprum_codegen::HostValue::Len(i) | cuprum_codegen::HostValue::Scalar(i) => {
                let slice = matches!(v, cuprum_codegen::HostValue::Len(_));
                match params.get(i) {
                    Some(HostParam::Slice { .. }) if slice => {}
                    Some(HostParam::Scalar { .. }) if !slice => {}
                    _ => {
                        return Err(format!(
                            "the versioning test reads parameter {i} as a {}, which it is not",
                            if slice { "slice" } else { "scalar" }
                        ))
                    }
                }
                let local = &locals[i];
                quote!(#rt::LaunchValue::launch_value(&#local))
            }
            cuprum_codegen::HostValue::GridDim(a) => {
                let a = axis(a);
                quote!(::core::primitive::u64::from(__cuprum_config.grid.#a))
            }
            cuprum_codegen::HostValue::BlockDim(a) => {
                let a = axis(a);
                quote!(::core::primitive::u64::from(__cuprum_config.block.#a))
            }
            cuprum_codegen::HostValue::Const(c) => {
                proc_macro2::Literal::u64_suffixed(c).to_token_stream()
            }
        });
    }
    let tests = t.tests.iter().map(|(terms, len)| {
        let terms = terms.iter().map(|(c, factors)| {
            let c = match c.checked_abs() {
                Some(a) if *c < 0 => {
                    let a = proc_macro2::Literal::i128_unsuffixed(a);
                    quote!(-#a)
                }
                Some(a) => proc_macro2::Literal::i128_unsuffixed(a).to_token_stream(),
                None => quote!(::core::primitive::i128::MIN),
            };
            quote!(#rt::versioning::Term { coefficient: #c, factors: &[#(#factors),*] })
        });
        quote!(#rt::versioning::Test { terms: &[#(#terms),*], len: #len })
    });
    Ok(Some(
        quote!(#rt::host_test(&[#(#tests),*], &[#(#values),*])),
    ))
}

/// The kernel's `KernelInfo`, as the expression of its `INFO`.
fn info(k: &Artifact, options: &KernelOptions) -> TokenStream {
    let rt = crate::private();
    let entry = &k.entry;
    let checked = k.records_failures;
    let max_threads = options.max_threads.unwrap_or(0);
    let [block_x, block_y, block_z] = options.block.unwrap_or([0; 3]);
    let sites = k.sites.iter().map(|s| {
        let kind = format_ident!("{}", s.kind);
        let message = match &s.message {
            Some(f) => quote!(::core::option::Option::Some(#f)),
            None => quote!(::core::option::Option::None),
        };
        let at = &s.location;
        let rt = crate::private_at(s.span);
        quote_spanned!(s.span=> #rt::Site {
            kind: #rt::CheckKind::#kind,
            #at,
            message: #message,
        })
    });
    let cooperative = k.sim.cooperative;
    let frame_bytes = k.sim.frame_bytes as usize;
    let grid_sync = options.cooperative;
    let shared_bytes = k.sim.shared.iter().map(|&b| b as usize);
    let cubins = |sass: &[(u32, Vec<u8>)]| {
        let each = sass.iter().map(|(cc, cubin)| {
            let bytes = proc_macro2::Literal::byte_string(cubin);
            quote!((#cc, #bytes))
        });
        quote!(&[#(#each),*])
    };
    let sass = with_debug_assertions(
        cubins(&k.build.sass),
        k.release.as_ref().map(|r| cubins(&r.sass)),
    );
    let ptx = with_debug_assertions(&k.build.ptx, k.release.as_ref().map(|r| &r.ptx));
    let fast_ptx = |b: &cuprum_codegen::Build| match &b.fast {
        Some((ptx, _)) => quote!(::core::option::Option::Some(#ptx)),
        None => quote!(::core::option::Option::None),
    };
    let fast_sass = |b: &cuprum_codegen::Build| match &b.fast {
        Some((_, sass)) => cubins(sass),
        None => quote!(&[]),
    };
    let fast = with_debug_assertions(fast_ptx(&k.build), k.release.as_ref().map(fast_ptx));
    let fast_sass = with_debug_assertions(fast_sass(&k.build), k.release.as_ref().map(fast_sass));
    quote!(#rt::KernelInfo {
        name: #entry,
        cache: {
            fn cache() -> &'static #rt::FunctionCache {
                static CACHE: #rt::FunctionCache = #rt::FunctionCache::new();
                &CACHE
            }
            cache
        },
        ptx: #ptx,
        checked: #checked,
        max_threads: #max_threads,
        block: [#block_x, #block_y, #block_z],
        sites: &[#(#sites),*],
        sass: #sass,
        fast_ptx: #fast,
        fast_sass: #fast_sass,
        cooperative: #cooperative,
        frame_bytes: #frame_bytes,
        grid_sync: #grid_sync,
        shared: &[#(#rt::sim::SharedDecl { bytes: #shared_bytes }),*],
    })
}

/// Each argument as the runtime's `KernelArg` for its parameter (which owns the calling
/// convention), with the local that holds it.
fn arguments(params: &[HostParam]) -> (Vec<syn::Ident>, Vec<TokenStream>) {
    let rt = crate::private();
    let mut args = Vec::new();
    let mut locals = Vec::new();
    for (i, p) in params.iter().enumerate() {
        locals.push(format_ident!("__cuprum_arg{}", i));
        args.push(match p {
            HostParam::Slice {
                name,
                mutable: true,
                ..
            } => quote!(#rt::SliceMut::new(#name)),
            HostParam::Slice {
                name,
                mutable: false,
                ..
            } => quote!(#rt::Slice::new(#name)),
            HostParam::Scalar { name, .. } => quote!(#rt::Value(#name)),
        });
    }
    (locals, args)
}

/// The safety contract of an `unchecked` kernel's launch, appended to its docs.
const UNCHECKED_SAFETY: &str = "\n\n# Safety\n\
    The kernel is `#[kernel(unchecked)]`: on a GPU its indexing, divisions and `step_by` are \
    not checked, so an index out of bounds reads or writes whatever memory lies there (another \
    buffer's elements, or a fault that ends the context). The caller promises that for these \
    arguments and this configuration every index the kernel computes is within its slice or \
    array, and no integer divisor and no `step_by` step is zero. (The simulator checks every \
    access of every kernel and reports a broken promise as `Error::KernelPanic`.)";

/// `unsafe` for the launch functions of an `unchecked` kernel: its launch can write out of
/// bounds, so only the caller's promise (`unsafe { launch!(..) }`) makes it sound.
pub(super) fn launch_unsafety(options: &KernelOptions) -> Option<TokenStream> {
    (!options.checked).then(|| quote!(unsafe))
}

/// A kernel with `debug_assert*!` has two builds: the user's crate picks one by its own
/// `debug_assertions` (a proc macro cannot see the profile of the crate it expands in).
fn with_debug_assertions(with: impl ToTokens, without: Option<impl ToTokens>) -> TokenStream {
    match without {
        Some(without) => quote!(if ::core::cfg!(debug_assertions) { #with } else { #without }),
        None => with.to_token_stream(),
    }
}

/// What `launch!` calls for one instance: `kernel::__cuprum_launcher(stream, config)` and the
/// launcher's `launch(args..)`, which takes exactly the kernel's parameters, so that rustc's
/// errors about the arguments of a `launch!` count and name only what the user wrote.
pub(super) fn launcher(
    func: &syn::ItemFn,
    cfg: &[&syn::Attribute],
    options: &KernelOptions,
    instance: &Instance,
    signature: &[TokenStream],
    args: &[&syn::Ident],
) -> TokenStream {
    let vis = &func.vis;
    let Instance {
        impl_generics,
        self_ty,
        launcher_ty,
        launcher_name,
        ..
    } = instance;
    let unsafety = launch_unsafety(options);
    let rt = crate::private();
    let (doc, call) = if options.checked {
        (
            "Launches the kernel with these arguments.".to_string(),
            quote!(<#self_ty>::launch(self.stream, self.config, #(#args),*)),
        )
    } else {
        (
            format!("Launches the kernel with these arguments.{UNCHECKED_SAFETY}"),
            // The caller of this `unsafe fn` made the kernel's promise.
            quote!(unsafe { <#self_ty>::launch(self.stream, self.config, #(#args),*) }),
        )
    };
    quote! {
        #(#cfg)*
        #[allow(dead_code)]
        impl #impl_generics #self_ty {
            #[doc(hidden)]
            #vis fn __cuprum_launcher(stream: &#rt::Stream, config: #rt::LaunchConfig) -> #launcher_ty {
                #launcher_name { stream, config, instance: ::core::marker::PhantomData }
            }
        }

        #(#cfg)*
        #[allow(dead_code, clippy::too_many_arguments, clippy::type_complexity)]
        impl #impl_generics #launcher_ty {
            #[doc = #doc]
            #vis #unsafety fn launch(self, #(#signature),*) -> #rt::Result<()> {
                #call
            }
        }
    }
}
