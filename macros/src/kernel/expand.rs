//! The driver of `#[kernel]`: stage one collects the kernel's `#[device]` functions, stage
//! two applies the attribute policy, compiles each instance through codegen's one entry point
//! ([`cuprum_codegen::build`]) and hands the artifacts to `emit` (or, for an instance that did
//! not compile, to `fallback`), with every error reported once.

use cuprum_codegen::device::{device_calls, DeviceTable};
use cuprum_codegen::{build, InstanceArg, KernelOptions, KernelSource, Scalar, Toolchain};
use proc_macro2::TokenStream;
use quote::{quote, ToTokens};

use super::emit::emit;
use crate::collect::{self, Kind};
use crate::guard;

/// Attributes that are passed on to the generated items unchanged.
const FORWARDED: &[&str] = &["doc", "cfg", "allow", "warn", "deny", "expect", "cfg_attr"];

/// Stage one: a kernel that calls `#[device]` functions first collects their sources.
pub fn expand(attr: TokenStream, item: TokenStream) -> TokenStream {
    for tokens in [&attr, &item] {
        if let Err(e) = cuprum_codegen::check_nesting(tokens) {
            return e.to_compile_error();
        }
    }
    let func: syn::ItemFn = match syn::parse2(item.clone()) {
        Ok(f) => f,
        Err(e) => return not_a_function(item, e).to_compile_error(),
    };
    let calls = crate::items::not_constructors(device_calls(&func));
    if calls.is_empty() {
        return finish(attr, &func, DeviceTable::default(), TokenStream::new());
    }
    collect::start(Kind::Kernel, attr, func.to_token_stream(), &calls)
}

/// Stage two: compile with the device functions found and emit the items. A kernel that
/// names user types its module imports first asks their derives for their modules' items
/// (`resolved` is what was collected so far).
pub fn finish(
    attr: TokenStream,
    func: &syn::ItemFn,
    devices: DeviceTable,
    resolved: TokenStream,
) -> TokenStream {
    let own = crate::items::of(&func.sig.ident, "kernel");
    let wanted: Vec<syn::Path> = cuprum_codegen::imports::foreign_type_names(func, &own)
        .into_iter()
        .filter(|n| !devices.has_type(n))
        .map(|n| quote::format_ident!("{}", n).into())
        .collect();
    if !wanted.is_empty() {
        let item = func.to_token_stream();
        return collect::resume(Kind::Kernel, attr, item, &wanted, resolved);
    }
    let consts = own.with_foreign(devices.types());
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
    let (toolchain, toolchain_error) = Toolchain::from_build(
        env!("CUPRUM_BUILD_TARGET"),
        env!("CUPRUM_BUILD_LIBDEVICE"),
        env!("CUPRUM_BUILD_SASS"),
        env!("CUPRUM_BUILD_PTXAS"),
    );
    if let Some(e) = toolchain_error {
        errors.push(syn::Error::new(func.sig.ident.span(), e));
    }
    let generics = kernel_generics(func);
    let instances: Vec<Vec<InstanceArg>> = if generics.is_empty() {
        vec![Vec::new()]
    } else if options.instances.is_empty() {
        // The checker reports the missing `instances(..)`.
        vec![Vec::new()]
    } else {
        options.instances.clone()
    };
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
        let result = guard::run(&func.sig.ident, || build(&source, &options, &toolchain));
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
    quote!(#error_tokens #items)
}

/// A generic parameter of a kernel: a type, or a constant of an integer type.
pub(super) enum Generic {
    Type(syn::Ident),
    Const(syn::Ident, Box<syn::Type>),
}

impl Generic {
    /// As declared: `T`, `const BLOCK: usize`.
    pub(super) fn decl(&self) -> TokenStream {
        match self {
            Generic::Type(i) => quote!(#i),
            Generic::Const(i, t) => quote!(const #i: #t),
        }
    }

    /// As used: `T`, `BLOCK`.
    pub(super) fn ident(&self) -> &syn::Ident {
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
pub(super) fn bind_instance(
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

/// The PTX entry of a kernel or one of its instances: the unraw'd name (`r#type` is `type`),
/// then the instance's types (`scale_f32`).
pub(super) fn entry_name(name: &syn::Ident, args: &[InstanceArg]) -> String {
    std::iter::once(syn::ext::IdentExt::unraw(name).to_string())
        .chain(args.iter().map(|a| a.text().replace('-', "m")))
        .collect::<Vec<_>>()
        .join("_")
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
