//! `#[device]`: the function stays an ordinary Rust function (callable from host code), and a
//! `macro_rules!` named like it carries its source to the kernels that call it.

use cuprum_codegen::device::{device_calls, encode_bundle_with_items, DeviceTable};
use proc_macro2::{Span, TokenStream, TokenTree};
use quote::{format_ident, quote, ToTokens};

use crate::collect::{self, Kind};
use crate::guard;

pub fn expand(attr: TokenStream, item: TokenStream) -> TokenStream {
    // `#[device] impl P { .. }`: the methods stay host methods; kernels of the module read
    // them from the source file (`consts::ModuleItems`) and check them where called.
    if let Ok(imp) = syn::parse2::<syn::ItemImpl>(item.clone()) {
        // Methods only kernels call are not dead (rustc does not see the kernels' calls).
        return quote!(#[allow(dead_code)] #imp);
    }
    let func: syn::ItemFn = match syn::parse2(item.clone()) {
        Ok(f) => f,
        Err(_) => {
            let span = item
                .into_iter()
                .next()
                .map(|t| t.span())
                .unwrap_or_else(Span::call_site);
            return syn::Error::new(
                span,
                "`#[device]` goes on a function: `#[device] fn name(x: f32) -> f32 { .. }`",
            )
            .to_compile_error();
        }
    };
    let mut errors = TokenStream::new();
    if let Some(t) = attr.clone().into_iter().next() {
        errors
            .extend(syn::Error::new(t.span(), "`#[device]` takes no arguments").to_compile_error());
    }
    let calls = crate::items::not_constructors(device_calls(&func));
    let name = &func.sig.ident;
    if let Some(own) = calls.iter().find(|p| p.is_ident(name)) {
        errors.extend(
            syn::Error::new_spanned(
                own,
                format!("`{name}` calls itself: recursion is not supported on the GPU"),
            )
            .to_compile_error(),
        );
        return quote!(#errors #func);
    }
    let tokens = func.to_token_stream();
    // The host copy: kernels' calls are invisible to rustc, GPU code indexes by design, and
    // swaps by hand (`std::mem::swap` is not available in kernels).
    let host = quote! {
        #[allow(dead_code, clippy::needless_range_loop, clippy::manual_swap)]
        #func
    };
    let rest = if calls.is_empty() {
        finish(&func, tokens, TokenStream::new(), DeviceTable::default())
    } else {
        collect::start(Kind::Device, TokenStream::new(), tokens, &calls)
    };
    quote!(#errors #host #rest)
}

/// Every call path has answered: check the function (when it is not generic) and define the
/// macro that hands its bundle to callers.
pub fn finish(
    func: &syn::ItemFn,
    item: TokenStream,
    resolved: TokenStream,
    table: DeviceTable,
) -> TokenStream {
    let name = &func.sig.ident;
    let mut errors = TokenStream::new();
    let own = crate::items::of(name, "device");
    // The user types the function names that its module imports: their modules' items
    // first (they travel in the bundle, as its dependencies).
    let wanted: Vec<syn::Path> = cuprum_codegen::imports::foreign_type_names(func, &own)
        .into_iter()
        .filter(|n| !table.has_type(n))
        .map(|n| format_ident!("{}", n).into())
        .collect();
    if !wanted.is_empty() {
        return collect::resume(Kind::Device, TokenStream::new(), item, &wanted, resolved);
    }
    let consts = own.with_foreign(table.types());
    if func.sig.generics.params.is_empty() {
        if let Err(e) = guard::run(name, || {
            cuprum_codegen::check_device_in(func, &table, &consts)
        }) {
            errors = e.to_compile_error();
        }
    }
    let deps: Vec<(TokenStream, TokenStream)> = {
        let t: Vec<TokenTree> = resolved.into_iter().collect();
        t.chunks(2)
            .filter_map(|c| match (&c[0], c.get(1)) {
                (TokenTree::Group(p), Some(b)) => Some((p.stream(), b.to_token_stream())),
                _ => None,
            })
            .collect()
    };
    let bundle = encode_bundle_with_items(&item, &deps, &consts.to_tokens());
    let public = matches!(func.vis, syn::Visibility::Public(_));
    let mac = bundle_macro(name, "device", &bundle, public);
    quote!(#errors #mac)
}

/// The `macro_rules!` that hands `bundle` to whoever invokes it, re-exported under `name` in
/// the macro namespace (`kind` is `device` or `type`). A `pub` item's macro is usable from
/// other crates: exported (at the crate's root, under a name no other item of the crate
/// shares) and re-exported next to the item, so that `other::module::f(..)` in a kernel finds
/// `other::module::f!`. The re-export names the macro by one segment: an absolute path
/// (`crate::..`) to a macro-expanded exported macro is an error in its own crate.
pub fn bundle_macro(
    name: &syn::Ident,
    kind: &str,
    bundle: &TokenStream,
    public: bool,
) -> TokenStream {
    let rt = crate::private();
    if !public {
        let mac = format_ident!("__cuprum_{}_{}", kind, name);
        return quote! {
            #[doc(hidden)]
            #[allow(unused_macros)]
            macro_rules! #mac {
                ($($state:tt)*) => { #rt::collect! { $($state)* #bundle } };
            }
            #[doc(hidden)]
            #[allow(unused_imports)]
            pub(crate) use #mac as #name;
        };
    }
    static COUNT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let n = COUNT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let unique = bundle
        .to_string()
        .bytes()
        .fold(0xcbf2_9ce4_8422_2325u64 ^ n, |h, b| {
            (h ^ b as u64).wrapping_mul(0x0000_0100_0000_01b3)
        });
    let mac = format_ident!("__cuprum_{}_{}_{:016x}", kind, name, unique);
    quote! {
        #[doc(hidden)]
        #[macro_export]
        // The bundle is the function's source as data: its `crate::` paths are not code here.
        #[allow(clippy::crate_in_macro_def)]
        macro_rules! #mac {
            ($($state:tt)*) => { #rt::collect! { $($state)* #bundle } };
        }
        #[doc(hidden)]
        #[allow(unused_imports)]
        pub use #mac as #name;
    }
}
