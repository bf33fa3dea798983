//! `#[device]` functions: which calls in a body need one, and the "bundle" in which a device
//! function's source (and, recursively, the sources of the device functions it calls)
//! travels to every kernel that calls it.
//!
//! A bundle is `{ { ITEM } [ (PATH) BUNDLE ... ] }`: the function's tokens, then for each call
//! path in its body the bundle that path resolved to. `#[device]` expands to a `macro_rules!`
//! (re-exported under the function's own name in the macro namespace) that hands its bundle
//! to whoever invokes it; `#[kernel]` invokes the macro of each function it calls, by the same
//! path as the call, so the paths resolve exactly as the calls do.

use std::rc::Rc;

use proc_macro2::{Delimiter, Group, TokenStream, TokenTree};
use quote::{quote, ToTokens};
use syn::visit::Visit;

use crate::check::GPU_FUNCTIONS;
use crate::ty::Scalar;

/// A device function's source, with the device functions its calls resolve to.
#[derive(Debug)]
pub struct DeviceFn {
    /// The function as written.
    pub item: syn::ItemFn,
    /// What its call paths resolve to.
    pub deps: DeviceTable,
    /// The `const` and `static` items of its module.
    pub consts: crate::consts::ModuleItems,
}

/// Call paths → device functions, and imported type names → their modules' items.
#[derive(Debug, Default, Clone)]
pub struct DeviceTable {
    entries: Vec<(String, Rc<DeviceFn>)>,
    types: Rc<Vec<(String, crate::consts::ModuleItems)>>,
}

/// The first token of a type's bundle (a `#[derive(DeviceCopy)]` macro's answer), which
/// tells it from a device function's.
pub const TYPE_BUNDLE: &str = "__cuprum_type";

/// Encodes a type's bundle: the items of the module that defines it (as source).
pub fn encode_type_bundle(items: &TokenStream) -> TokenStream {
    let marker = proc_macro2::Ident::new(TYPE_BUNDLE, proc_macro2::Span::call_site());
    quote!({ #marker { #items } })
}

/// Decodes a type's bundle; `None` when `bundle` is a device function's.
pub fn decode_type_bundle(bundle: &Group) -> Option<syn::Result<crate::consts::ModuleItems>> {
    let inner: Vec<TokenTree> = bundle.stream().into_iter().collect();
    match inner.first() {
        Some(TokenTree::Ident(i)) if i == TYPE_BUNDLE => {}
        _ => return None,
    }
    let items = group(inner.get(1), Delimiter::Brace)?;
    Some(
        syn::parse2::<syn::File>(items.stream())
            .map(|f| crate::consts::ModuleItems::from_items(&f.items)),
    )
}

impl DeviceTable {
    /// The device function a call path resolves to.
    pub fn get(&self, path: &syn::Path) -> Option<&Rc<DeviceFn>> {
        let mut path = path.clone();
        for seg in &mut path.segments {
            seg.arguments = syn::PathArguments::None;
        }
        let key = path_key(&path);
        self.entries.iter().find(|(k, _)| *k == key).map(|(_, f)| f)
    }

    /// Adds what `path` resolves to.
    pub fn insert(&mut self, path: &str, f: DeviceFn) {
        self.entries.push((path.to_string(), Rc::new(f)));
    }

    /// True when no call path is known.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Adds the items of the module of the type imported as `name`.
    pub fn insert_type(&mut self, name: &str, items: crate::consts::ModuleItems) {
        Rc::make_mut(&mut self.types).push((name.to_string(), items));
    }

    /// Whether the type imported as `name` was asked for already.
    pub fn has_type(&self, name: &str) -> bool {
        self.types.iter().any(|(n, _)| n == name)
    }

    /// The imported types' modules' items, by the name each type is imported under.
    pub fn types(&self) -> Vec<(String, crate::consts::ModuleItems)> {
        self.types.to_vec()
    }
}

/// The key of a call path: its tokens without spaces (`math::sq`).
pub fn path_key(path: &syn::Path) -> String {
    path.to_token_stream().to_string().replace(' ', "")
}

/// Whether a call path names a `cuprum::gpu` function (`gpu::x`, `cuprum::gpu::x`, a bare `x`).
fn is_gpu_call(path: &syn::Path) -> bool {
    let segs: Vec<String> = path.segments.iter().map(|s| s.ident.to_string()).collect();
    let Some((last, prefix)) = segs.split_last() else {
        return false;
    };
    let prefix: Vec<&str> = prefix.iter().map(String::as_str).collect();
    let known = GPU_FUNCTIONS.contains(&last.as_str())
        || last
            .strip_suffix("_block")
            .or_else(|| last.strip_suffix("_system"))
            .is_some_and(|b| GPU_FUNCTIONS.contains(&b));
    match prefix.as_slice() {
        ["gpu"] | ["cuprum", "gpu"] | ["gpu", "fast"] | ["cuprum", "gpu", "fast"] => true,
        [] => known,
        _ => false,
    }
}

/// Call paths that cannot name a `#[device]` function: the standard library, heap types,
/// `Option`/`Result` constructors. They are left to the checker, which says what to write
/// instead (collecting them would only give rustc's "cannot find macro").
fn is_never_device(path: &syn::Path) -> bool {
    const HEAP: &[&str] = &[
        "Vec", "String", "Box", "Rc", "Arc", "HashMap", "HashSet", "BTreeMap", "VecDeque",
    ];
    let segs: Vec<String> = path.segments.iter().map(|s| s.ident.to_string()).collect();
    let first = segs.first().map(String::as_str);
    matches!(first, Some("std" | "core" | "alloc"))
        || segs.iter().any(|s| HEAP.contains(&s.as_str()))
        || matches!(segs.as_slice(), [one] if matches!(one.as_str(), "Some" | "None" | "Ok" | "Err"))
}

/// Whether a path written as a call argument may name a `#[device]` function passed by name:
/// its last segment is a lower-case name (so not a constant, a type or an enum variant) and it
/// is not a `cuprum::gpu` function, a scalar type's item, `self` or a path that can never be a
/// device function.
fn may_name_function(path: &syn::Path) -> bool {
    let Some(last) = path.segments.last() else {
        return false;
    };
    let name = last.ident.to_string();
    let first = path.segments[0].ident.to_string();
    name.starts_with(|c: char| c.is_ascii_lowercase())
        && first != "Self"
        && !(path.segments.len() == 1 && first == "self")
        && Scalar::from_name(&first).is_none()
        && !is_gpu_call(path)
        && !is_never_device(path)
}

/// The distinct call paths in `item`'s body that need a `#[device]` function: everything
/// called by path that is not a `cuprum::gpu` function, a scalar type's function, a
/// parameter (a local value, which the checker reports) or a path that cannot be a device
/// function (see `is_never_device`).
pub fn device_calls(item: &syn::ItemFn) -> Vec<syn::Path> {
    /// Call paths; names bound to closures; paths passed as call arguments (functions passed
    /// by name, `apply(x, square)`); every name a pattern binds.
    struct Calls(Vec<syn::Path>, Vec<String>, Vec<syn::Path>, Vec<String>);
    impl<'ast> Visit<'ast> for Calls {
        fn visit_pat_ident(&mut self, p: &'ast syn::PatIdent) {
            self.3.push(p.ident.to_string());
            syn::visit::visit_pat_ident(self, p);
        }

        // `let f = |..| ..;`: calls of `f` call the closure.
        // `let f = square;`: `square` may be a function named by `f`, and calls of `f` call it.
        fn visit_local(&mut self, l: &'ast syn::Local) {
            if let (syn::Pat::Ident(pi), Some(init)) = (&l.pat, &l.init) {
                match &*init.expr {
                    syn::Expr::Closure(_) => self.1.push(pi.ident.to_string()),
                    syn::Expr::Path(p) if p.qself.is_none() && may_name_function(&p.path) => {
                        self.1.push(pi.ident.to_string());
                        let mut path = p.path.clone();
                        for seg in &mut path.segments {
                            seg.arguments = syn::PathArguments::None;
                        }
                        self.2.push(path);
                    }
                    _ => {}
                }
            }
            syn::visit::visit_local(self, l);
        }

        fn visit_expr_call(&mut self, c: &'ast syn::ExprCall) {
            let mut f = &*c.func;
            while let syn::Expr::Paren(p) = f {
                f = &p.expr;
            }
            while let syn::Expr::Group(g) = f {
                f = &g.expr;
            }
            for a in &c.args {
                let mut a = a;
                loop {
                    match a {
                        syn::Expr::Reference(r) => a = &r.expr,
                        syn::Expr::Paren(p) => a = &p.expr,
                        syn::Expr::Group(g) => a = &g.expr,
                        _ => break,
                    }
                }
                if let syn::Expr::Path(p) = a {
                    if p.qself.is_none() && may_name_function(&p.path) {
                        let mut path = p.path.clone();
                        for seg in &mut path.segments {
                            seg.arguments = syn::PathArguments::None;
                        }
                        self.2.push(path);
                    }
                }
            }
            if let syn::Expr::Path(p) = f {
                let first_is_scalar = p
                    .path
                    .segments
                    .first()
                    .is_some_and(|s| Scalar::from_name(&s.ident.to_string()).is_some());
                if p.qself.is_none()
                    && !first_is_scalar
                    && !is_gpu_call(&p.path)
                    && !is_never_device(&p.path)
                    && !self.0.iter().any(|q| path_key(q) == path_key(&p.path))
                {
                    let mut path = p.path.clone();
                    // The macro is found by the same path; generic arguments belong to the call.
                    for seg in &mut path.segments {
                        seg.arguments = syn::PathArguments::None;
                    }
                    if !self.0.iter().any(|q| path_key(q) == path_key(&path)) {
                        self.0.push(path);
                    }
                }
            }
            syn::visit::visit_expr_call(self, c);
        }

        /// The arguments of `gpu::println!`, `assert!` and the like are expressions that may
        /// call device functions.
        fn visit_macro(&mut self, m: &'ast syn::Macro) {
            use syn::punctuated::Punctuated;
            if let Ok(args) =
                m.parse_body_with(Punctuated::<syn::Expr, syn::Token![,]>::parse_terminated)
            {
                for a in &args {
                    self.visit_expr(a);
                }
            }
        }
        // A nested item (a body `const`, say) is not the function's code: its calls are
        // the checker's to report.
        fn visit_item(&mut self, _: &'ast syn::Item) {}
    }
    let generics: Vec<String> = item
        .sig
        .generics
        .params
        .iter()
        .filter_map(|g| match g {
            syn::GenericParam::Type(t) => Some(t.ident.to_string()),
            _ => None,
        })
        .collect();
    let mut calls = Calls(Vec::new(), Vec::new(), Vec::new(), Vec::new());
    calls.visit_block(&item.block);
    // A name passed as an argument that no pattern of the body binds may be a function passed
    // by name: its bundle is collected like a call's.
    let bound = std::mem::take(&mut calls.3);
    for p in std::mem::take(&mut calls.2) {
        let local = p
            .get_ident()
            .is_some_and(|i| bound.contains(&i.to_string()));
        if !local && !calls.0.iter().any(|q| path_key(q) == path_key(&p)) {
            calls.0.push(p);
        }
    }
    let closures = std::mem::take(&mut calls.1);
    calls.0.retain(|p| {
        !p.get_ident()
            .is_some_and(|i| closures.contains(&i.to_string()))
    });
    // `T::from_f64(..)` is a function of a generic parameter, not a device function.
    calls
        .0
        .retain(|p| p.segments.len() < 2 || !generics.contains(&p.segments[0].ident.to_string()));
    // A parameter is in scope in the whole body and hides any function of its name.
    let params: Vec<String> = item
        .sig
        .inputs
        .iter()
        .filter_map(|a| match a {
            syn::FnArg::Typed(pt) => match &*pt.pat {
                syn::Pat::Ident(pi) => Some(pi.ident.to_string()),
                _ => None,
            },
            syn::FnArg::Receiver(_) => None,
        })
        .collect();
    calls.0.retain(|p| {
        !p.get_ident()
            .is_some_and(|i| params.contains(&i.to_string()))
    });
    calls.0
}

/// Encodes a bundle: the function's tokens and, for each of its call paths, its bundle.
pub fn encode_bundle(item: &TokenStream, deps: &[(TokenStream, TokenStream)]) -> TokenStream {
    encode_bundle_with_items(item, deps, &TokenStream::new())
}

/// Encodes a bundle that also carries the `const` and `static` items of the function's
/// module (`items`, as source), which its body may name.
pub fn encode_bundle_with_items(
    item: &TokenStream,
    deps: &[(TokenStream, TokenStream)],
    items: &TokenStream,
) -> TokenStream {
    let deps = deps.iter().map(|(path, bundle)| quote!((#path) #bundle));
    quote!({ { #item } [ #(#deps)* ] { #items } })
}

fn group(t: Option<&TokenTree>, d: Delimiter) -> Option<&Group> {
    match t {
        Some(TokenTree::Group(g)) if g.delimiter() == d => Some(g),
        _ => None,
    }
}

/// Decodes a bundle made by [`encode_bundle`].
pub fn decode_bundle(bundle: &Group) -> syn::Result<DeviceFn> {
    let bad = || {
        syn::Error::new(
            bundle.span(),
            "internal error in Cuprum: malformed device-function bundle",
        )
    };
    let inner: Vec<TokenTree> = bundle.stream().into_iter().collect();
    let item_group = group(inner.first(), Delimiter::Brace).ok_or_else(bad)?;
    let deps_group = group(inner.get(1), Delimiter::Bracket).ok_or_else(bad)?;
    let item: syn::ItemFn = syn::parse2(item_group.stream())?;
    let mut deps = DeviceTable::default();
    let dep_tokens: Vec<TokenTree> = deps_group.stream().into_iter().collect();
    for pair in dep_tokens.chunks(2) {
        let path = group(pair.first(), Delimiter::Parenthesis).ok_or_else(bad)?;
        let b = group(pair.get(1), Delimiter::Brace).ok_or_else(bad)?;
        let path: syn::Path = syn::parse2(path.stream())?;
        if let Some(items) = decode_type_bundle(b) {
            deps.insert_type(&path_key(&path), items?);
            continue;
        }
        deps.insert(&path_key(&path), decode_bundle(b)?);
    }
    let consts = match group(inner.get(2), Delimiter::Brace) {
        Some(g) => {
            let file: syn::File = syn::parse2(g.stream())?;
            crate::consts::ModuleItems::from_items(&file.items)
        }
        None => crate::consts::ModuleItems::default(),
    };
    // The modules of the types the function's module imports, which it asked for.
    let consts = consts.with_foreign(deps.types());
    Ok(DeviceFn { item, deps, consts })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_device_calls_only() {
        let item: syn::ItemFn = syn::parse_quote! {
            fn k(o: &mut [f32]) {
                let i = gpu::global_id_x();
                let a = helper(1.0) + math::sq::<f32>(2.0) + f32::max(1.0, 2.0) + <f32>::from_bits(1);
                gpu::atomic_add_block(&mut o[0], a);
                sync_threads();
                o[i] = helper(a);
            }
        };
        let calls: Vec<String> = device_calls(&item).iter().map(path_key).collect();
        assert_eq!(calls, vec!["helper", "math::sq"]);
    }

    #[test]
    fn bundles_round_trip() {
        let leaf = encode_bundle(
            &quote!(
                fn sq(x: f32) -> f32 {
                    x * x
                }
            ),
            &[],
        );
        let top = encode_bundle(
            &quote!(
                fn norm(x: f32) -> f32 {
                    sq(x)
                }
            ),
            &[(quote!(sq), leaf)],
        );
        let TokenTree::Group(g) = top.into_iter().next().unwrap() else {
            panic!()
        };
        let f = decode_bundle(&g).unwrap();
        assert_eq!(f.item.sig.ident, "norm");
        let sq = f.deps.get(&syn::parse_quote!(sq)).unwrap();
        assert_eq!(sq.item.sig.ident, "sq");
    }

    #[test]
    fn calls_that_cannot_be_device_functions_are_not_collected() {
        let item: syn::ItemFn = syn::parse_quote! {
            fn k(o: &mut [f32], f: f32) {
                o[0] = helpers::sq(f) + sq(f) + f(1.0) + std::cmp::max(1, 2) as f32;
                let b = Box::new(1.0f32);
                let v = Vec::<f32>::new();
                let s = Some(1);
                let x = f32::sqrt(2.0) + gpu::rsqrt(2.0) + sq(3.0);
            }
        };
        let calls: Vec<String> = device_calls(&item).iter().map(path_key).collect();
        assert_eq!(calls, ["helpers::sq", "sq"]);
    }
}
