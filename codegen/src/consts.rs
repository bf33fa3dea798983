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
    /// Defined more than once in the module (under different `#[cfg]`s): which one
    /// applies is rustc's to know, not the kernel compiler's.
    Ambiguous,
}

/// One `const` or `static` item.
#[derive(Clone, Debug)]
pub struct ModuleItem {
    /// Its name.
    pub name: String,
    /// What kind of item.
    pub kind: ItemKind,
    /// The declared type.
    pub ty: Rc<syn::Type>,
    /// The value as written.
    pub expr: Rc<syn::Expr>,
}

/// Whether `e` nests at most `limit` expressions deep. Deeper ones are not copied or
/// walked by the kernel compiler: that would run out of stack (a long `1 + 1 + ..` chain
/// is deep); the walk here stops at the limit.
pub(crate) fn shallow(e: &syn::Expr, limit: u32) -> bool {
    struct Depth {
        depth: u32,
        limit: u32,
        over: bool,
    }
    impl<'a> syn::visit::Visit<'a> for Depth {
        fn visit_expr(&mut self, e: &'a syn::Expr) {
            if self.over {
                return;
            }
            self.depth += 1;
            if self.depth > self.limit {
                self.over = true;
            } else {
                syn::visit::visit_expr(self, e);
            }
            self.depth -= 1;
        }
    }
    let mut d = Depth {
        depth: 0,
        limit,
        over: false,
    };
    syn::visit::Visit::visit_expr(&mut d, e);
    !d.over
}

/// How deep a constant's expression may nest (the checker's own limit).
pub(crate) const MAX_CONST_DEPTH: u32 = 256;

/// The `const` and `static` items of one module, by name, and its structs.
#[derive(Clone, Debug, Default)]
pub struct ModuleItems {
    items: Rc<Vec<ModuleItem>>,
    structs: Rc<Vec<ModuleStruct>>,
    enums: Rc<Vec<ModuleEnum>>,
    impls: Rc<Vec<Rc<syn::ItemImpl>>>,
    /// The module's `use` items (`crate::imports`).
    imports: Rc<crate::imports::Imports>,
    /// The items of the modules that define the `DeviceCopy` types this module imports
    /// (from their derives' bundles), searched after the module's own.
    foreign: Rc<Vec<(String, ModuleItems)>>,
}

/// A struct defined in the module: kernels may use it when it derives `DeviceCopy`.
#[derive(Clone, Debug)]
pub struct ModuleStruct {
    /// The definition as written.
    pub item: Rc<syn::ItemStruct>,
    /// Whether its `#[derive(..)]` lists `DeviceCopy`.
    pub device_copy: bool,
}

/// A field-less enum defined in the module: kernels may use it when it derives `DeviceCopy`.
#[derive(Clone, Debug)]
pub struct ModuleEnum {
    /// The definition as written.
    pub item: Rc<syn::ItemEnum>,
    /// Whether its `#[derive(..)]` lists `DeviceCopy`.
    pub device_copy: bool,
}

/// Whether `attrs` hold a `#[derive(..)]` that lists `DeviceCopy` (by any path).
fn derives_device_copy(attrs: &[syn::Attribute]) -> bool {
    derives(attrs, "DeviceCopy")
}

/// Whether `attrs` hold a `#[derive(..)]` that lists `name` (by any path).
pub fn derives(attrs: &[syn::Attribute], name: &str) -> bool {
    attrs.iter().any(|a| {
        a.path().is_ident("derive")
            && a.parse_args_with(
                syn::punctuated::Punctuated::<syn::Path, syn::Token![,]>::parse_terminated,
            )
            .is_ok_and(|paths| {
                paths
                    .iter()
                    .any(|p| p.segments.last().is_some_and(|s| s.ident == name))
            })
    })
}

impl ModuleItems {
    /// The items among `items` that are `const`s and `static`s (others are ignored).
    pub fn from_items<'i>(items: impl IntoIterator<Item = &'i syn::Item>) -> ModuleItems {
        let mut out = Vec::new();
        let mut structs = Vec::new();
        let mut enums = Vec::new();
        let mut impls = Vec::new();
        let mut imports = crate::imports::Imports::default();
        for item in items {
            match item {
                syn::Item::Impl(i)
                    if i.trait_.is_none()
                        && i.generics.params.is_empty()
                        && i.attrs.iter().any(|a| {
                            a.path()
                                .segments
                                .last()
                                .is_some_and(|s| s.ident == "device")
                        }) =>
                {
                    impls.push(Rc::new(i.clone()))
                }
                syn::Item::Struct(s) if s.generics.params.is_empty() => {
                    structs.push(ModuleStruct {
                        device_copy: derives_device_copy(&s.attrs),
                        item: Rc::new(s.clone()),
                    })
                }
                syn::Item::Use(u) => imports.add(u),
                syn::Item::Enum(e) if e.generics.params.is_empty() => enums.push(ModuleEnum {
                    device_copy: derives_device_copy(&e.attrs),
                    item: Rc::new(e.clone()),
                }),
                // Too deep to copy: left out (a use is then an unknown name).
                syn::Item::Const(c) if !shallow(&c.expr, MAX_CONST_DEPTH) => {}
                syn::Item::Static(s) if !shallow(&s.expr, MAX_CONST_DEPTH) => {}
                syn::Item::Const(c) if c.generics.params.is_empty() => out.push(ModuleItem {
                    name: c.ident.to_string(),
                    kind: ItemKind::Const,
                    ty: Rc::new((*c.ty).clone()),
                    expr: Rc::new((*c.expr).clone()),
                }),
                syn::Item::Static(s) => out.push(ModuleItem {
                    name: s.ident.to_string(),
                    kind: if matches!(s.mutability, syn::StaticMutability::Mut(_)) {
                        ItemKind::StaticMut
                    } else {
                        ItemKind::Static
                    },
                    ty: Rc::new((*s.ty).clone()),
                    expr: Rc::new((*s.expr).clone()),
                }),
                _ => {}
            }
        }
        let mut unique: Vec<ModuleItem> = Vec::new();
        for item in out {
            match unique.iter_mut().find(|u| u.name == item.name) {
                Some(u) => u.kind = ItemKind::Ambiguous,
                None => unique.push(item),
            }
        }
        ModuleItems {
            items: Rc::new(unique),
            structs: Rc::new(structs),
            enums: Rc::new(enums),
            impls: Rc::new(impls),
            imports: Rc::new(imports),
            foreign: Rc::new(Vec::new()),
        }
    }

    /// The method or associated function `name` of a `#[device] impl` of the struct `ty`.
    pub fn method(&self, ty: &str, name: &str) -> Option<&syn::ImplItemFn> {
        if self.get_own_type(ty) {
            return self.own_method(ty, name);
        }
        self.foreign
            .iter()
            .find_map(|(_, m)| m.get_own_type(ty).then(|| m.own_method(ty, name)).flatten())
    }

    /// Whether `other` is these items (not another module's read separately).
    pub fn same_module(&self, other: &ModuleItems) -> bool {
        Rc::ptr_eq(&self.items, &other.items)
    }

    /// The items of the module that defines the struct or enum `ty`: these, or an imported
    /// type's module's (where its methods' names resolve).
    pub fn module_of_type(&self, ty: &str) -> ModuleItems {
        if self.get_own_type(ty) {
            return self.clone();
        }
        self.foreign
            .iter()
            .find(|(_, m)| m.get_own_type(ty))
            .map_or_else(|| self.clone(), |(_, m)| m.clone())
    }

    /// Whether the module itself defines the struct or enum `name`.
    fn get_own_type(&self, name: &str) -> bool {
        self.structs.iter().any(|s| s.item.ident == name)
            || self.enums.iter().any(|e| e.item.ident == name)
    }

    fn own_method(&self, ty: &str, name: &str) -> Option<&syn::ImplItemFn> {
        self.impls
            .iter()
            .filter(|i| matches!(&*i.self_ty, syn::Type::Path(p) if p.path.is_ident(ty)))
            .flat_map(|i| &i.items)
            .find_map(|it| match it {
                syn::ImplItem::Fn(f) if f.sig.ident == name => Some(f),
                _ => None,
            })
    }

    /// The associated `const name: T = value;` of a `#[device] impl` of the struct `ty`.
    pub fn impl_const(&self, ty: &str, name: &str) -> Option<(Rc<syn::Type>, Rc<syn::Expr>)> {
        if !self.get_own_type(ty) {
            return self
                .foreign
                .iter()
                .find(|(_, m)| m.get_own_type(ty))
                .and_then(|(_, m)| m.impl_const(ty, name));
        }
        self.impls
            .iter()
            .filter(|i| matches!(&*i.self_ty, syn::Type::Path(p) if p.path.is_ident(ty)))
            .flat_map(|i| &i.items)
            .find_map(|it| match it {
                syn::ImplItem::Const(c) if c.ident == name && c.generics.params.is_empty() => {
                    Some((Rc::new(c.ty.clone()), Rc::new(c.expr.clone())))
                }
                _ => None,
            })
    }

    /// Whether some `#[device] impl` of the module has a method named `name`.
    pub fn has_method(&self, name: &str) -> bool {
        self.impls
            .iter()
            .flat_map(|i| &i.items)
            .any(|it| matches!(it, syn::ImplItem::Fn(f) if f.sig.ident == name))
            || self.foreign.iter().any(|(_, m)| m.has_method(name))
    }

    /// The struct named `name`: the module's own, or one of an imported type's module.
    pub fn get_struct(&self, name: &str) -> Option<&ModuleStruct> {
        self.structs
            .iter()
            .find(|s| s.item.ident == name)
            .or_else(|| self.foreign.iter().find_map(|(_, m)| m.get_struct(name)))
    }

    /// The enum named `name`: the module's own, or one of an imported type's module.
    pub fn get_enum(&self, name: &str) -> Option<&ModuleEnum> {
        self.enums
            .iter()
            .find(|e| e.item.ident == name)
            .or_else(|| self.foreign.iter().find_map(|(_, m)| m.get_enum(name)))
    }

    /// The module's `use` items.
    pub fn imports(&self) -> &crate::imports::Imports {
        &self.imports
    }

    /// Whether the kernel's module can name the user type `name` (the simulator's code and
    /// the layout assertions name it there): its own types, and those it imports.
    pub fn nameable(&self, name: &str) -> bool {
        self.get_own_type(name) || self.foreign.iter().any(|(n, _)| n == name)
    }

    /// These items with more modules to search after them: those of imported `DeviceCopy`
    /// types (by the name the type is imported under) and of the same file that the module
    /// imports from (by an empty name).
    pub fn with_foreign(&self, foreign: Vec<(String, ModuleItems)>) -> ModuleItems {
        ModuleItems {
            foreign: Rc::new(self.foreign.iter().cloned().chain(foreign).collect()),
            ..self.clone()
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
                    ty: Rc::new(syn::parse_quote!(#ty)),
                    expr: Rc::new(expr),
                }
            })
            .collect();
        out.extend(self.items.iter().cloned());
        ModuleItems {
            items: Rc::new(out),
            ..self.clone()
        }
    }

    /// Whether const generic parameters were given (see [`ModuleItems::with_params`]).
    pub fn has_params(&self) -> bool {
        self.items.iter().any(|i| i.kind == ItemKind::Param)
    }

    /// The item named `name`: the module's own, or one that the module imports by name
    /// (`use crate::model::DT;`) from the module of an imported `DeviceCopy` type (rustc
    /// checks the value read, as for the module's own, `confirm_items`).
    pub fn get(&self, name: &str) -> Option<&ModuleItem> {
        self.items.iter().find(|i| i.name == name).or_else(|| {
            if !self.imports.names(name) {
                return None;
            }
            self.foreign.iter().find_map(|(_, m)| m.get(name))
        })
    }

    /// True when there is none.
    pub fn is_empty(&self) -> bool {
        self.items.is_empty() && self.structs.is_empty() && self.enums.is_empty()
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
                ItemKind::Param | ItemKind::Ambiguous => continue,
            };
            item.to_tokens(&mut out);
        }
        // The `use` items (which constants and types the module imports), then the
        // `DeviceCopy` structs, without their attributes but `repr` and `derive` (a bundle is
        // re-parsed as items, never compiled).
        for u in self.imports.items() {
            u.to_tokens(&mut out);
        }
        for i in self.impls.iter() {
            i.to_tokens(&mut out);
        }
        for s in self.structs.iter().filter(|s| s.device_copy) {
            let mut item = (*s.item).clone();
            item.attrs
                .retain(|a| a.path().is_ident("derive") || a.path().is_ident("repr"));
            item.to_tokens(&mut out);
        }
        for e in self.enums.iter().filter(|e| e.device_copy) {
            let mut item = (*e.item).clone();
            item.attrs
                .retain(|a| a.path().is_ident("derive") || a.path().is_ident("repr"));
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
    match parse_file(source) {
        Some(file) => module_items_in(&file, source, name, attr, line),
        None => ModuleItems::default(),
    }
}

/// `source` parsed, when it parses and nests no deeper than the kernel compiler walks (the
/// file is the user's, not the kernel; rustc parsed it already).
pub fn parse_file(source: &str) -> Option<syn::File> {
    let tokens = source.parse::<TokenStream>().ok()?;
    crate::check::check_nesting(&tokens).ok()?;
    syn::parse2::<syn::File>(tokens).ok()
}

/// [`module_items`] of a file already parsed.
pub fn module_items_in(
    file: &syn::File,
    source: &str,
    name: &str,
    attr: &str,
    line: Option<usize>,
) -> ModuleItems {
    let mut found: Vec<&[syn::Item]> = Vec::new();
    find_fns(&file.items, name, attr, &mut found);
    let module = match found.len() {
        0 => return ModuleItems::default(),
        1 => found[0],
        // Several modules of this file define such a function: the k-th `fn name` in the
        // text is the k-th found (both go in source order).
        _ => {
            let lines = fn_lines(source, "fn", name);
            let k = line.and_then(|l| lines.iter().position(|&x| x == l));
            match k.and_then(|k| found.get(k)) {
                Some(m) if lines.len() == found.len() => m,
                _ => return ModuleItems::default(),
            }
        }
    };
    let own = ModuleItems::from_items(module);
    let layers = crate::imports::same_file_modules(&file.items, module)
        .into_iter()
        .map(|m| (String::new(), ModuleItems::from_items(m)))
        .collect();
    own.with_foreign(layers)
}

/// The items of the module, in the parsed file `file` (text `source`), that defines the
/// struct or enum `name` (whose name is on line `line`, which picks among several).
pub fn type_module_items(
    file: &syn::File,
    source: &str,
    name: &str,
    line: Option<usize>,
) -> ModuleItems {
    fn find<'f>(items: &'f [syn::Item], name: &str, out: &mut Vec<&'f [syn::Item]>) {
        for item in items {
            match item {
                syn::Item::Struct(s) if s.ident == name => out.push(items),
                syn::Item::Enum(e) if e.ident == name => out.push(items),
                syn::Item::Mod(m) => {
                    if let Some((_, inner)) = &m.content {
                        find(inner, name, out);
                    }
                }
                _ => {}
            }
        }
    }
    let mut found = Vec::new();
    find(&file.items, name, &mut found);
    let lines: Vec<usize> = fn_lines(source, "struct", name)
        .into_iter()
        .chain(fn_lines(source, "enum", name))
        .collect();
    let module = match found.len() {
        0 => return ModuleItems::default(),
        1 => found[0],
        _ => {
            let mut lines = lines;
            lines.sort_unstable();
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

/// The 1-based lines on which `keyword name` (`fn k`, `struct P`) appears in `source` (as
/// whole words).
fn fn_lines(source: &str, keyword: &str, name: &str) -> Vec<usize> {
    let mut lines = Vec::new();
    for (n, text) in source.lines().enumerate() {
        let mut words = text
            .split(|c: char| !(c.is_alphanumeric() || c == '_'))
            .filter(|w| !w.is_empty());
        let mut prev = None;
        for w in words.by_ref() {
            if prev == Some(keyword) && w == name {
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
