//! Collecting `#[device]` function sources across macro invocations.
//!
//! A kernel (or device function) that calls `helper` expands to `helper! { STATE }`; the
//! `macro_rules!` that `#[device] fn helper` defined (re-exported under the name `helper`)
//! expands to `::cuprum::__private::collect! { STATE BUNDLE }`, appending its bundle. Once
//! every call path has answered, `collect!` finishes the item. The state is
//! `KIND (ATTR) { ITEM } [ (PATH)... remaining ] [ (PATH) BUNDLE ... resolved ] (PENDING)`.

use cuprum_codegen::device::{decode_bundle, decode_type_bundle, DeviceTable};
use proc_macro2::{Delimiter, Group, Ident, Span, TokenStream, TokenTree};
use quote::{quote, ToTokens};

/// What is being collected for.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// A `#[kernel]`.
    Kernel,
    /// A `#[device]` function.
    Device,
}

/// Starts collecting the device functions behind `calls`.
pub fn start(kind: Kind, attr: TokenStream, item: TokenStream, calls: &[syn::Path]) -> TokenStream {
    resume(kind, attr, item, calls, TokenStream::new())
}

/// Asks `paths` for their bundles after those already `resolved` (a second round, for the
/// types the item imports, which are known once its module's items are read).
pub fn resume(
    kind: Kind,
    attr: TokenStream,
    item: TokenStream,
    paths: &[syn::Path],
    resolved: TokenStream,
) -> TokenStream {
    let remaining: Vec<TokenStream> = paths.iter().map(|p| quote!((#p))).collect();
    step(kind, attr, item, &remaining, resolved)
}

/// Asks the next call path for its bundle, or finishes.
fn step(
    kind: Kind,
    attr: TokenStream,
    item: TokenStream,
    remaining: &[TokenStream],
    resolved: TokenStream,
) -> TokenStream {
    let kind_ident = Ident::new(
        if kind == Kind::Kernel {
            "kernel"
        } else {
            "device"
        },
        Span::call_site(),
    );
    match remaining.split_first() {
        Some((next, rest)) => {
            let path: TokenStream = match next.clone().into_iter().next() {
                Some(TokenTree::Group(g)) => g.stream(),
                _ => TokenStream::new(),
            };
            quote!(#path! { #kind_ident (#attr) { #item } [ #(#rest)* ] [ #resolved ] #next })
        }
        None => finish(kind, attr, item, resolved),
    }
}

fn groups(input: TokenStream) -> Vec<TokenTree> {
    input.into_iter().collect()
}

fn group(t: &TokenTree, d: Delimiter) -> Option<&Group> {
    match t {
        TokenTree::Group(g) if g.delimiter() == d => Some(g),
        _ => None,
    }
}

/// `collect! { STATE [BUNDLE] }`: records the bundle for the pending path and goes on.
pub fn expand(input: TokenStream) -> TokenStream {
    let t = groups(input);
    let bad = || {
        syn::Error::new(
            Span::call_site(),
            "internal error in Cuprum: malformed device-function collection",
        )
        .to_compile_error()
    };
    let kind = match t.first() {
        Some(TokenTree::Ident(i)) if i == "kernel" => Kind::Kernel,
        Some(TokenTree::Ident(i)) if i == "device" => Kind::Device,
        _ => return bad(),
    };
    let (Some(attr), Some(item), Some(remaining), Some(resolved), Some(pending)) = (
        t.get(1).and_then(|t| group(t, Delimiter::Parenthesis)),
        t.get(2).and_then(|t| group(t, Delimiter::Brace)),
        t.get(3).and_then(|t| group(t, Delimiter::Bracket)),
        t.get(4).and_then(|t| group(t, Delimiter::Bracket)),
        t.get(5).and_then(|t| group(t, Delimiter::Parenthesis)),
    ) else {
        return bad();
    };
    let mut resolved = resolved.stream();
    if let Some(bundle) = t.get(6) {
        resolved.extend(pending.to_token_stream());
        resolved.extend(bundle.to_token_stream());
    }
    let rest: Vec<TokenStream> = remaining
        .stream()
        .into_iter()
        .map(|t| t.to_token_stream())
        .collect();
    step(kind, attr.stream(), item.stream(), &rest, resolved)
}

/// Every path has answered: decode the table and finish the item.
fn finish(kind: Kind, attr: TokenStream, item: TokenStream, resolved: TokenStream) -> TokenStream {
    let func: syn::ItemFn = match syn::parse2(item.clone()) {
        Ok(f) => f,
        Err(e) => return e.to_compile_error(),
    };
    let pairs = groups(resolved.clone());
    let mut table = DeviceTable::default();
    for pair in pairs.chunks(2) {
        let (Some(path), Some(bundle)) = (
            group(&pair[0], Delimiter::Parenthesis),
            pair.get(1).and_then(|b| group(b, Delimiter::Brace)),
        ) else {
            return syn::Error::new(
                Span::call_site(),
                "internal error in Cuprum: malformed device-function table",
            )
            .to_compile_error();
        };
        let key = path.stream().to_string().replace(' ', "");
        if let Some(items) = decode_type_bundle(bundle) {
            match items {
                Ok(items) => table.insert_type(&key, items),
                Err(e) => return e.to_compile_error(),
            }
            continue;
        }
        match decode_bundle(bundle) {
            Ok(f) => table.insert(&key, f),
            Err(e) => return e.to_compile_error(),
        }
    }
    match kind {
        Kind::Kernel => crate::kernel::finish(attr, &func, table, resolved),
        Kind::Device => crate::device::finish(&func, item, resolved, table),
    }
}
