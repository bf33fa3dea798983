//! The `const` and `static` items of the module that holds a kernel or `#[device]` function.
//!
//! A proc macro sees only its own item, so `#[kernel]` cannot see `const TILE: usize = 32;`
//! written next to it. The macro reads the file the kernel is in (`Span::local_file`), and
//! [`module_items`] finds the module that holds the kernel (the file itself or an inline
//! `mod { .. }` in it) and takes that module's `const` and `static` items, exactly the ones
//! a plain name in the kernel resolves to. The checker evaluates them when the kernel uses
//! them (`check/consts.rs`).

use std::rc::Rc;

use proc_macro2::TokenStream;
use quote::ToTokens;

/// Whether an item is a `const`, a `static` or a `static mut`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ItemKind {
    /// `const NAME: T = value;`
    Const,
    /// `static NAME: T = value;` (a read-only table, placed in constant memory)
    Static,
    /// `static mut` (which kernels cannot use: every thread would race on it)
    StaticMut,
    /// A const generic parameter of a kernel instance (`const BLOCK: usize`, here 256).
    Param,
}

/// One `const` or `static` item.
#[derive(Clone, Debug)]
pub struct ModuleItem {
    /// Its name.
    pub name: String,
    /// What kind of item.
    pub kind: ItemKind,
    /// The declared type.
    pub ty: syn::Type,
    /// The value as written.
    pub expr: syn::Expr,
}

/// The `const` and `static` items of one module, by name.
#[derive(Clone, Debug, Default)]
pub struct ModuleItems {
    items: Rc<Vec<ModuleItem>>,
}

impl ModuleItems {
    /// The items among `items` that are `const`s and `static`s (others are ignored).
    pub fn from_items<'i>(items: impl IntoIterator<Item = &'i syn::Item>) -> ModuleItems {
        let mut out = Vec::new();
        for item in items {
            match item {
                syn::Item::Const(c) if c.generics.params.is_empty() => out.push(ModuleItem {
                    name: c.ident.to_string(),
                    kind: ItemKind::Const,
                    ty: (*c.ty).clone(),
                    expr: (*c.expr).clone(),
                }),
                syn::Item::Static(s) => out.push(ModuleItem {
                    name: s.ident.to_string(),
                    kind: if matches!(s.mutability, syn::StaticMutability::Mut(_)) {
                        ItemKind::StaticMut
                    } else {
                        ItemKind::Static
                    },
                    ty: (*s.ty).clone(),
                    expr: (*s.expr).clone(),
                }),
                _ => {}
            }
        }
        ModuleItems {
            items: Rc::new(out),
        }
    }

    /// These items with, ahead of them, the const generic parameters of one instance:
    /// name, type and value (`BLOCK`, `usize`, 256).
    pub fn with_params(&self, params: &[(String, crate::ty::Scalar, i128)]) -> ModuleItems {
        let mut out: Vec<ModuleItem> = params
            .iter()
            .map(|(name, s, v)| {
                let ty = syn::Ident::new(s.name(), proc_macro2::Span::call_site());
                let lit = proc_macro2::Literal::i128_unsuffixed(v.unsigned_abs() as i128);
                let expr = if *v < 0 {
                    syn::parse_quote!(-#lit)
                } else {
                    syn::parse_quote!(#lit)
                };
                ModuleItem {
                    name: name.clone(),
                    kind: ItemKind::Param,
                    ty: syn::parse_quote!(#ty),
                    expr,
                }
            })
            .collect();
        out.extend(self.items.iter().cloned());
        ModuleItems {
            items: Rc::new(out),
        }
    }

    /// Whether const generic parameters were given (see [`ModuleItems::with_params`]).
    pub fn has_params(&self) -> bool {
        self.items.iter().any(|i| i.kind == ItemKind::Param)
    }

    /// The item named `name`.
    pub fn get(&self, name: &str) -> Option<&ModuleItem> {
        self.items.iter().find(|i| i.name == name)
    }

    /// True when there is none.
    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }

    /// The items as Rust source tokens (`const A: T = v; static B: U = w;`), for a
    /// `#[device]` function's bundle.
    pub fn to_tokens(&self) -> TokenStream {
        let mut out = TokenStream::new();
        for i in self.items.iter() {
            let name = syn::Ident::new(&i.name, proc_macro2::Span::call_site());
            let (ty, expr) = (&i.ty, &i.expr);
            let item: TokenStream = match i.kind {
                ItemKind::Const => quote::quote!(const #name: #ty = #expr;),
                ItemKind::Static => quote::quote!(static #name: #ty = #expr;),
                ItemKind::StaticMut => quote::quote!(static mut #name: #ty = #expr;),
                ItemKind::Param => continue,
            };
            item.to_tokens(&mut out);
        }
        out
    }
}

/// The `const` and `static` items of the module, in the file `source`, that holds the
/// function `name` marked with an attribute whose last segment is `attr` (`kernel`,
/// `device`). `line` (1-based) is the line of the function's name, which picks among
/// several functions of that name in one file. Empty when the file does not parse or the
/// function is not found (a function made by a macro, say).
pub fn module_items(source: &str, name: &str, attr: &str, line: Option<usize>) -> ModuleItems {
    let Ok(file) = syn::parse_file(source) else {
        return ModuleItems::default();
    };
    let mut found: Vec<&[syn::Item]> = Vec::new();
    find_fns(&file.items, name, attr, &mut found);
    let module = match found.len() {
        0 => return ModuleItems::default(),
        1 => found[0],
        // Several modules of this file define such a function: the k-th `fn name` in the
        // text is the k-th found (both go in source order).
        _ => {
            let lines = fn_lines(source, name);
            let k = line.and_then(|l| lines.iter().position(|&x| x == l));
            match k.and_then(|k| found.get(k)) {
                Some(m) if lines.len() == found.len() => m,
                _ => return ModuleItems::default(),
            }
        }
    };
    ModuleItems::from_items(module)
}

/// Collects the item lists (modules) holding `fn name` with attribute `attr`, in order.
fn find_fns<'f>(items: &'f [syn::Item], name: &str, attr: &str, out: &mut Vec<&'f [syn::Item]>) {
    for item in items {
        match item {
            syn::Item::Fn(f)
                if f.sig.ident == name
                    && f.attrs
                        .iter()
                        .any(|a| a.path().segments.last().is_some_and(|s| s.ident == attr)) =>
            {
                out.push(items)
            }
            syn::Item::Mod(m) => {
                if let Some((_, inner)) = &m.content {
                    find_fns(inner, name, attr, out);
                }
            }
            _ => {}
        }
    }
}

/// The 1-based lines on which `fn name` appears in `source` (as a whole word).
fn fn_lines(source: &str, name: &str) -> Vec<usize> {
    let mut lines = Vec::new();
    for (n, text) in source.lines().enumerate() {
        let mut words = text
            .split(|c: char| !(c.is_alphanumeric() || c == '_'))
            .filter(|w| !w.is_empty());
        let mut prev = None;
        for w in words.by_ref() {
            if prev == Some("fn") && w == name {
                lines.push(n + 1);
                break;
            }
            prev = Some(w);
        }
    }
    lines
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_the_module_of_the_function() {
        let src = r#"
const A: usize = 1;
mod inner {
    const A: usize = 2;
    static T: [f32; 2] = [1.0, 2.0];
    #[kernel]
    fn k(x: &mut [f32]) {}
}
#[cuprum::kernel]
fn k(x: &mut [f32]) {}
"#;
        let inner = module_items(src, "k", "kernel", Some(7));
        assert_eq!(
            inner.get("A").map(|i| i.expr.to_token_stream().to_string()),
            Some("2".into())
        );
        assert_eq!(inner.get("T").map(|i| i.kind), Some(ItemKind::Static));
        let outer = module_items(src, "k", "kernel", Some(10));
        assert_eq!(
            outer.get("A").map(|i| i.expr.to_token_stream().to_string()),
            Some("1".into())
        );
        assert!(outer.get("T").is_none());
        assert!(module_items(src, "missing", "kernel", None).is_empty());
    }
}
