//! `#[kernel]`: compile the function with `cuprum-codegen` and emit the kernel's type, its
//! PTX and its typed `launch` (one `impl` per instance of a generic kernel).

use cuprum_codegen::device::{device_calls, DeviceTable};
use cuprum_codegen::options::InstanceArg;
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
    for tokens in [&attr, &item] {
        if let Err(e) = cuprum_codegen::check::check_nesting(tokens) {
            return e.to_compile_error();
        }
    }
    let func: syn::ItemFn = match syn::parse2(item.clone()) {
        Ok(f) => f,
        Err(e) => return not_a_function(item, e).to_compile_error(),
    };
    let calls = crate::items::not_constructors(device_calls(&func));
    if calls.is_empty() {
        return finish(attr, &func, DeviceTable::default());
    }
    collect::start(Kind::Kernel, attr, func.to_token_stream(), &calls)
}

/// Stage two: compile with the device functions found and emit the items.
pub fn finish(attr: TokenStream, func: &syn::ItemFn, devices: DeviceTable) -> TokenStream {
    let mut errors: Vec<syn::Error> = Vec::new();
    let mut options = KernelOptions::parse(attr).unwrap_or_else(|e| {
        errors.push(e);
        KernelOptions::default()
    });
    errors.append(&mut options.repeated);
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
    cuprum_codegen::libdevice::set_hint(env!("CUPRUM_BUILD_LIBDEVICE"));
    let default_target = match build_target() {
        Ok(t) => t,
        Err(e) => {
            errors.push(syn::Error::new(func.sig.ident.span(), e));
            Target::default_target()
        }
    };
    let generics = kernel_generics(func);
    let instances: Vec<Vec<InstanceArg>> = if generics.is_empty() {
        vec![Vec::new()]
    } else if options.instances.is_empty() {
        // The checker reports the missing `instances(..)`.
        vec![Vec::new()]
    } else {
        options.instances.clone()
    };
    let consts = crate::items::of(&func.sig.ident, "kernel");
    let mut compiled = Vec::new();
    for args in &instances {
        if !args.is_empty() && args.len() != generics.len() {
            errors.push(syn::Error::new_spanned(
                &func.sig.generics,
                format!(
                    "each instance needs {} argument(s), one per generic parameter",
                    generics.len()
                ),
            ));
            continue;
        }
        let (types, params) = match bind_instance(&generics, args) {
            Ok(bound) => bound,
            Err(msg) => {
                errors.push(syn::Error::new_spanned(&func.sig.generics, msg));
                continue;
            }
        };
        let entry = entry_name(&func.sig.ident, args);
        let source = KernelSource {
            item: func,
            devices: devices.clone(),
            consts: consts.with_params(&params),
            generics: types,
            entry,
        };
        let started = std::time::Instant::now();
        let result = guard::run(&func.sig.ident, || {
            compile(&source, &options, &default_target)
        })
        .and_then(|mut k| {
            let sass_error =
                |e| syn::Error::new(func.sig.ident.span(), format!("CUPRUM_SASS: {e}"));
            k.sass = ahead_of_time_sass(&k.ptx).map_err(sass_error)?;
            if let Some(r) = &mut k.release {
                r.sass = ahead_of_time_sass(&r.ptx).map_err(sass_error)?;
            }
            Ok(k)
        });
        record_build_time(&source.entry, started.elapsed());
        match result {
            Ok(k) => compiled.push((args.clone(), Some(k))),
            Err(e) => {
                errors.push(e);
                compiled.push((args.clone(), None));
            }
        }
        if errors.len() > 8 {
            break; // one instance's errors are usually every instance's
        }
    }
    let error_tokens: TokenStream = dedup(errors).iter().map(|e| e.to_compile_error()).collect();
    let items = emit(func, &forwarded, &options, &generics, &compiled);
    let confirm = confirm_items(&compiled);
    let layouts = confirm_layouts(&compiled, &consts);
    quote!(#error_tokens #items #confirm #layouts)
}

/// For each struct of the kernel's module that it uses, compile-time assertions that rustc
/// lays it out as the kernel compiler does (`ty::struct_layout`, which is also LLVM's layout
/// of the struct type): size, alignment and each field's offset. (A struct that reaches the
/// kernel only through a device function of another module may not be nameable here.)
fn confirm_layouts(
    compiled: &[(Vec<InstanceArg>, Option<CompiledKernel>)],
    module: &cuprum_codegen::consts::ModuleItems,
) -> TokenStream {
    use cuprum_codegen::ty::{struct_layout, StructDef, Ty};
    fn collect<'t>(ty: &'t Ty, out: &mut Vec<&'t StructDef>) {
        match ty {
            Ty::Array(t, _) => collect(t, out),
            Ty::Tuple(ts) => ts.iter().for_each(|t| collect(t, out)),
            Ty::Struct(d) if !out.iter().any(|s| s.name == d.name) => {
                out.push(d);
                d.fields.iter().for_each(|(_, t)| collect(t, out));
            }
            _ => {}
        }
    }
    let mut defs = Vec::new();
    for k in compiled.iter().filter_map(|(_, k)| k.as_ref()) {
        let p = &k.program;
        for f in std::iter::once(&p.kernel).chain(&p.functions) {
            for l in &f.locals {
                collect(&l.ty, &mut defs);
            }
            collect(&f.ret, &mut defs);
        }
    }
    let mut checks = Vec::new();
    for d in defs
        .into_iter()
        .filter(|d| module.get_struct(&d.name).is_some())
    {
        let Some(layout) = struct_layout(d) else {
            continue;
        };
        let name = format_ident!("{}", d.name);
        let message = format!("the kernel compiler laid `{}` out differently from rustc: is it `#[repr(C)]`, and defined once in this module?", d.name);
        let (size, align) = (layout.size as usize, layout.align as usize);
        let offsets = d.fields.iter().zip(&layout.offsets).map(|((f, _), o)| {
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
fn confirm_items(compiled: &[(Vec<InstanceArg>, Option<CompiledKernel>)]) -> TokenStream {
    use cuprum_codegen::ir::ExprKind;
    use cuprum_codegen::ty::Ty;
    let mut seen: Vec<&str> = Vec::new();
    let mut checks = Vec::new();
    for (name, value) in compiled
        .iter()
        .filter_map(|(_, k)| k.as_ref())
        .flat_map(|k| &k.program.items_used)
    {
        if seen.contains(&name.as_str()) {
            continue;
        }
        seen.push(name);
        let ident = format_ident!("{}", name, span = value.span);
        let message = format!("the kernel compiler read another value for `{name}` from this file than rustc computed (is it made by a macro?): define it as a plain `const` next to the kernel");
        checks.push(match (&value.kind, &value.ty) {
            (ExprKind::Int(v), Ty::Scalar(s)) => {
                let lit = proc_macro2::Literal::i128_unsuffixed(*v);
                let t = format_ident!("{}", s.name());
                quote!(::core::assert!(#ident == (#lit as #t), #message);)
            }
            (ExprKind::Bool(v), _) => quote!(::core::assert!(#ident == #v, #message);),
            (ExprKind::Float(v), Ty::Scalar(s)) => {
                let bits = if s.name() == "f32" {
                    proc_macro2::Literal::u64_unsuffixed((*v as f32).to_bits() as u64)
                } else {
                    proc_macro2::Literal::u64_unsuffixed(v.to_bits())
                };
                quote!(::core::assert!(#ident.to_bits() as u64 == #bits, #message);)
            }
            _ => quote!(let _ = &#ident;),
        });
    }
    if checks.is_empty() {
        return TokenStream::new();
    }
    quote!(const _: () = { #(#checks)* };)
}

/// A generic parameter of a kernel: a type, or a constant of an integer type.
enum Generic {
    Type(syn::Ident),
    Const(syn::Ident, Box<syn::Type>),
}

impl Generic {
    /// As declared: `T`, `const BLOCK: usize`.
    fn decl(&self) -> TokenStream {
        match self {
            Generic::Type(i) => quote!(#i),
            Generic::Const(i, t) => quote!(const #i: #t),
        }
    }

    /// As used: `T`, `BLOCK`.
    fn ident(&self) -> &syn::Ident {
        match self {
            Generic::Type(i) | Generic::Const(i, _) => i,
        }
    }
}

/// The kernel's type and const generic parameters, in order (lifetimes have no instances).
fn kernel_generics(func: &syn::ItemFn) -> Vec<Generic> {
    func.sig
        .generics
        .params
        .iter()
        .filter_map(|g| match g {
            syn::GenericParam::Type(t) => Some(Generic::Type(t.ident.clone())),
            syn::GenericParam::Const(c) => {
                Some(Generic::Const(c.ident.clone(), Box::new(c.ty.clone())))
            }
            syn::GenericParam::Lifetime(_) => None,
        })
        .collect()
}

/// The types of an instance's type parameters and the values of its const parameters, or
/// why the instance does not fit the parameters.
#[allow(clippy::type_complexity)]
fn bind_instance(
    generics: &[Generic],
    args: &[InstanceArg],
) -> Result<(Vec<(String, Scalar)>, Vec<(String, Scalar, i128)>), String> {
    let (mut types, mut consts) = (Vec::new(), Vec::new());
    for (g, a) in generics.iter().zip(args) {
        let name = g.ident().to_string();
        match (g, a) {
            (Generic::Type(_), InstanceArg::Type(s)) => types.push((name, *s)),
            (Generic::Const(_, t), InstanceArg::Const(v)) => {
                let text = t.to_token_stream().to_string();
                let Some(s) = Scalar::from_name(&text).filter(|s| s.is_int()) else {
                    return Err(format!("`{name}` is a `{text}`: const parameters of kernels are integers, like `const {name}: usize`"));
                };
                let (lo, hi) = s.int_range().expect("an integer type");
                if *v < lo || *v > hi {
                    return Err(format!("the instance's value {v} for `{name}` does not fit in `{text}`"));
                }
                consts.push((name, s, *v));
            }
            (Generic::Type(_), InstanceArg::Const(v)) => {
                return Err(format!("`{name}` is a type parameter, but the instance gives it the value {v}; write a type such as `f32`"))
            }
            (Generic::Const(..), InstanceArg::Type(s)) => {
                return Err(format!("`{name}` is a const parameter, but the instance gives it the type `{}`; write a number such as `256`", s.name()))
            }
        }
    }
    Ok((types, consts))
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
/// The cubins of `ptx` for the architectures in `CUPRUM_SASS` at build time (none when unset).
fn ahead_of_time_sass(ptx: &str) -> Result<Vec<(u32, Vec<u8>)>, String> {
    let archs = cuprum_codegen::sass::parse_archs(env!("CUPRUM_BUILD_SASS"))?;
    if archs.is_empty() {
        return Ok(Vec::new());
    }
    let ptxas = match env!("CUPRUM_BUILD_PTXAS") {
        "" => return Err("ptxas was not found when the macros were built; install it with `pip install nvidia-cuda-nvcc-cu12` (scripts/setup.sh does) or set CUPRUM_PTXAS, then rebuild".into()),
        p => std::path::Path::new(p),
    };
    archs
        .iter()
        .map(|a| Ok((a.cc, cuprum_codegen::sass::assemble(ptx, a, ptxas)?)))
        .collect()
}

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
    kernel_generics: &[Generic],
    compiled: &[(Vec<InstanceArg>, Option<CompiledKernel>)],
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
    let launcher_item = quote! {
        #(#cfg)*
        #[doc(hidden)]
        #[allow(non_camel_case_types, dead_code)]
        #vis struct #launcher_name<'s, #(#decls),*> {
            stream: &'s ::cuprum::Stream,
            config: ::cuprum::LaunchConfig,
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
    quote!(#item #launcher_item #(#impls)*)
}

/// The PTX entry of a kernel or one of its instances: the unraw'd name (`r#type` is `type`),
/// then the instance's types (`scale_f32`).
fn entry_name(name: &syn::Ident, args: &[InstanceArg]) -> String {
    std::iter::once(syn::ext::IdentExt::unraw(name).to_string())
        .chain(args.iter().map(|a| a.text().replace('-', "m")))
        .collect::<Vec<_>>()
        .join("_")
}

/// The types the items of one instance are emitted for.
struct Instance {
    /// Its PTX entry name.
    entry: String,
    /// `<T>` where the impls are generic (a generic kernel that did not name its instances).
    impl_generics: TokenStream,
    /// `saxpy` or `scale<f32>`.
    self_ty: TokenStream,
    /// `__cuprum_launcher_scale<'_, f32>`.
    launcher_ty: TokenStream,
    /// `__cuprum_launcher_scale`.
    launcher_name: syn::Ident,
}

fn emit_impl(
    func: &syn::ItemFn,
    cfg: &[&syn::Attribute],
    options: &KernelOptions,
    instance: &Instance,
    params: &[HostParam],
    compiled: Option<&CompiledKernel>,
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
    let mut doc_launch = format!(
        "Launches `{name}` on `stream`: `launch!({name}<<<grid, block, stream>>>(..))` is the same call.\n\n\
         # Errors\nAn invalid configuration or a buffer from another device is an error before anything runs; \
         driver errors. A failed check inside the kernel is reported by the stream's next synchronisation."
    );
    if !options.checked {
        doc_launch.push_str(UNCHECKED_SAFETY);
    }
    let Some(k) = compiled else {
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
        return quote! {
            #(#cfg)*
            #[allow(dead_code, unused_variables, clippy::too_many_arguments, clippy::type_complexity)]
            impl #impl_generics #self_ty {
                /// The PTX of this kernel (empty: it did not compile).
                #vis const PTX: &'static str = "";
                /// The kernel's PTX entry name.
                #vis const NAME: &'static str = #entry;
                #[doc = #doc_launch]
                #vis #unsafety fn launch(__cuprum_stream: &::cuprum::Stream, __cuprum_config: impl ::core::convert::Into<::cuprum::LaunchConfig>, #(#signature),*) -> ::cuprum::Result<()> {
                    ::core::unreachable!()
                }
            }
            #launcher
        };
    };
    let arg_names: Vec<&syn::Ident> = params
        .iter()
        .map(|p| match p {
            HostParam::Slice { name, .. } | HostParam::Scalar { name, .. } => name,
        })
        .collect();
    let launcher = launcher(func, cfg, options, instance, &signature, &arg_names);
    let ptx = with_debug_assertions(&k.ptx, k.release.as_ref().map(|r| &r.ptx));
    let entry = &k.name;
    let checked = k.program.records_failures(options.checked);
    let max_threads = options.max_threads.unwrap_or(0);
    let [block_x, block_y, block_z] = options.block.unwrap_or([0; 3]);
    let sites = k.program.sites.iter().map(|s| {
        let kind = format_ident!("{}", s.kind.name());
        let message = match &s.message {
            Some(m) => {
                let f = cuprum_codegen::sim::panic_formatter(m);
                quote!(::core::option::Option::Some(#f))
            }
            None => quote!(::core::option::Option::None),
        };
        let at = cuprum_codegen::sim::site_location(s.span);
        quote_spanned!(s.span=> ::cuprum::__private::Site {
            kind: ::cuprum::__private::CheckKind::#kind,
            #at,
            message: #message,
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
                // SAFETY (of the emitted call): the view is used only by the launch below, which
                // runs the whole grid while the argument is borrowed.
                sim_prepare.push(quote!(let #local = unsafe { __cuprum_sim.slice_mut(#name) }?;));
                sim_args.push(quote!(#local));
            }
            HostParam::Slice {
                name,
                mutable: false,
                ..
            } => {
                prepare.push(quote!(let #local = __cuprum_gpu.slice(#name)?;));
                push.push(quote!(__cuprum_args.arg(&#local.view).arg(&#local.len);));
                // SAFETY (of the emitted call): as for `slice_mut` above.
                sim_prepare.push(quote!(let #local = unsafe { __cuprum_sim.slice(#name) }?;));
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
    let frame_bytes = cuprum_codegen::sim::frame_bytes(&k.program) as usize;
    let grid_sync = options.cooperative;
    let shared_bytes = cuprum_codegen::sim::static_shared_bytes(&k.program)
        .into_iter()
        .map(|b| b as usize);
    let ptx_doc = format!("The PTX of `{entry}`, compiled for {}.", k.target);
    let cubins = |sass: &[(u32, Vec<u8>)]| {
        let each = sass.iter().map(|(cc, cubin)| {
            let bytes = proc_macro2::Literal::byte_string(cubin);
            quote!((#cc, #bytes))
        });
        quote!(&[#(#each),*])
    };
    let sass = with_debug_assertions(cubins(&k.sass), k.release.as_ref().map(|r| cubins(&r.sass)));
    quote! {
        // A kernel that is only launched has unread constants, and `launch` takes the kernel's
        // parameters after the stream and configuration: neither is worth a warning.
        #(#cfg)*
        #[allow(dead_code, clippy::too_many_arguments, clippy::type_complexity)]
        impl #impl_generics #self_ty {
            #[doc = #ptx_doc]
            #vis const PTX: &'static str = #ptx;
            /// The kernel's PTX entry name.
            #vis const NAME: &'static str = #entry;
            #[doc(hidden)]
            #vis const INFO: ::cuprum::__private::KernelInfo = ::cuprum::__private::KernelInfo {
                name: #entry,
                ptx: #ptx,
                checked: #checked,
                max_threads: #max_threads,
                block: [#block_x, #block_y, #block_z],
                sites: &[#(#sites),*],
                sass: #sass,
                cooperative: #cooperative,
                frame_bytes: #frame_bytes,
                grid_sync: #grid_sync,
                shared: &[#(::cuprum::gpu::sim::SharedDecl { bytes: #shared_bytes }),*],
            };

            #[doc = #doc_launch]
            #vis #unsafety fn launch(
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
                        // SAFETY: the arguments pushed above are the kernel's parameters, in
                        // order, from its checked signature.
                        unsafe { __cuprum_launch.finish(__cuprum_args) }
                    }
                    ::cuprum::__private::Backend::Sim(__cuprum_sim) => {
                        #(#sim_prepare)*
                        __cuprum_sim.launch(&Self::INFO, &__cuprum_config, move |__cuprum_t| #sim_body_name(__cuprum_t, #(#sim_args),*))
                    }
                }
            }
        }

        #launcher
    }
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
fn launch_unsafety(options: &KernelOptions) -> Option<TokenStream> {
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
fn launcher(
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
            #vis fn __cuprum_launcher(stream: &::cuprum::Stream, config: ::cuprum::LaunchConfig) -> #launcher_ty {
                #launcher_name { stream, config, instance: ::core::marker::PhantomData }
            }
        }

        #(#cfg)*
        #[allow(dead_code, clippy::too_many_arguments, clippy::type_complexity)]
        impl #impl_generics #launcher_ty {
            #[doc = #doc]
            #vis #unsafety fn launch(self, #(#signature),*) -> ::cuprum::Result<()> {
                #call
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
