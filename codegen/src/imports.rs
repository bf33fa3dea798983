//! The `use` items of a kernel's module, and which user types a kernel names that its module
//! imports rather than defines.
//!
//! A kernel reads its own module's items from its file (`crate::consts`). A `DeviceCopy`
//! type of another module or crate reaches it the way a `#[device]` function does: the
//! derive defines a macro named like the type that hands over the items of the type's module
//! (its definition, `#[device] impl` blocks, constants), and the kernel invokes it, by the
//! name it imports the type under, for each such type it names ([`foreign_type_names`]).

use syn::visit::Visit;

use crate::consts::ModuleItems;

/// A module's `use` items: the names they bring in and the modules they glob.
#[derive(Clone, Debug, Default)]
pub struct Imports {
    /// Imported under their own name: `use crate::model::Particle;`.
    names: Vec<String>,
    /// Imported under another name: (`Q`, `P`) for `use a::P as Q;`.
    renamed: Vec<(String, String)>,
    /// Whether a glob imports from a module other than Cuprum's or the standard library's.
    glob: bool,
    /// The items as written, for a `#[device]` function's bundle.
    items: Vec<syn::ItemUse>,
}

/// Path roots whose items are never user types.
const NOT_USER: &[&str] = &["cuprum", "std", "core", "alloc"];

impl Imports {
    /// Records the names `u` imports.
    pub fn add(&mut self, u: &syn::ItemUse) {
        self.tree(&u.tree, true);
        let mut u = u.clone();
        u.attrs.clear();
        self.items.push(u);
    }

    /// The `use` items as written (without attributes).
    pub fn items(&self) -> &[syn::ItemUse] {
        &self.items
    }

    fn tree(&mut self, t: &syn::UseTree, first: bool) {
        match t {
            syn::UseTree::Path(p) => {
                if first && NOT_USER.contains(&p.ident.to_string().as_str()) {
                    return;
                }
                self.tree(&p.tree, false)
            }
            syn::UseTree::Name(n) => self.names.push(n.ident.to_string()),
            syn::UseTree::Rename(r) => self
                .renamed
                .push((r.rename.to_string(), r.ident.to_string())),
            syn::UseTree::Glob(_) => self.glob = !first,
            syn::UseTree::Group(g) => {
                for t in &g.items {
                    self.tree(t, first);
                }
            }
        }
    }

    /// Whether `name` may come from another module: imported under its own name, or through
    /// a glob of a user module.
    pub fn names(&self, name: &str) -> bool {
        self.names.iter().any(|n| n == name) || self.glob
    }

    /// Whether `name` is imported under its own name by an explicit `use`.
    pub fn imports_by_name(&self, name: &str) -> bool {
        self.names.iter().any(|n| n == name)
    }

    /// The original name of a type imported as `name` under another name.
    pub fn renamed_from(&self, name: &str) -> Option<&str> {
        self.renamed
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, o)| o.as_str())
    }
}

/// The modules of the same file (inline `mod`s, or the file's top level) from which the
/// module `module` (an item list of `root`, the file's) imports items by name with a
/// relative path (`use super::TILE;`, `use config::{N, M};`, `use self::inner::K;`): their
/// constants are then read from this file like the module's own (rustc checks each value
/// read, `confirm_items`).
pub fn same_file_modules<'f>(
    root: &'f [syn::Item],
    module: &'f [syn::Item],
) -> Vec<&'f [syn::Item]> {
    // The chain of item lists from the file's top level down to `module`.
    fn chain<'f>(
        items: &'f [syn::Item],
        target: &'f [syn::Item],
        out: &mut Vec<&'f [syn::Item]>,
    ) -> bool {
        out.push(items);
        if std::ptr::eq(items, target) {
            return true;
        }
        for item in items {
            if let syn::Item::Mod(m) = item {
                if let Some((_, inner)) = &m.content {
                    if chain(inner, target, out) {
                        return true;
                    }
                }
            }
        }
        out.pop();
        false
    }
    // The module paths (all segments but the last) of the names `tree` imports.
    fn prefixes(tree: &syn::UseTree, prefix: &mut Vec<String>, out: &mut Vec<Vec<String>>) {
        match tree {
            syn::UseTree::Path(p) => {
                prefix.push(p.ident.to_string());
                prefixes(&p.tree, prefix, out);
                prefix.pop();
            }
            syn::UseTree::Name(_) => out.push(prefix.clone()),
            syn::UseTree::Group(g) => g.items.iter().for_each(|t| prefixes(t, prefix, out)),
            syn::UseTree::Rename(_) | syn::UseTree::Glob(_) => {}
        }
    }
    let mut ancestors = Vec::new();
    if !chain(root, module, &mut ancestors) {
        return Vec::new();
    }
    let mut paths = Vec::new();
    for item in module {
        if let syn::Item::Use(u) = item {
            if u.leading_colon.is_none() {
                prefixes(&u.tree, &mut Vec::new(), &mut paths);
            }
        }
    }
    let mut out: Vec<&'f [syn::Item]> = Vec::new();
    for path in paths {
        let mut at = ancestors.clone();
        let mut ok = !path.is_empty();
        for seg in &path {
            match seg.as_str() {
                "self" => {}
                "super" if at.len() > 1 => {
                    at.pop();
                }
                name => {
                    let here = *at.last().expect("a module");
                    let child = here.iter().find_map(|i| match i {
                        syn::Item::Mod(m) if m.ident == name => {
                            m.content.as_ref().map(|(_, c)| c.as_slice())
                        }
                        _ => None,
                    });
                    match child {
                        Some(c) => at.push(c),
                        None => {
                            ok = false;
                            break;
                        }
                    }
                }
            }
        }
        let target = *at.last().expect("a module");
        if ok && !std::ptr::eq(target, module) && !out.iter().any(|m| std::ptr::eq(*m, target)) {
            out.push(target);
        }
    }
    out
}

/// Names that are never user types of another module.
/// (With a glob of a user module in scope, any other name might be a type it brings.)
const NOT_TYPES: &[&str] = &[
    "Self",
    "Some",
    "None",
    "Ok",
    "Err",
    "Option",
    "Result",
    "Vec",
    "String",
    "Box",
    "Rc",
    "Arc",
    "Default",
    "Dim3",
    "SharedArray",
    "SharedArray2d",
    "DynamicShared",
    "Num",
    "Int",
    "Float",
];

/// The user types `item` names (in its signature, `let` annotations, casts, literals,
/// `T::NAME` and `T::f(..)` paths, patterns) that its module does not define but imports:
/// the names whose derive macros the kernel asks for their modules' items. `generics` are
/// the item's own type parameters.
pub fn foreign_type_names(item: &syn::ItemFn, module: &ModuleItems) -> Vec<String> {
    struct Names(Vec<String>);
    impl Names {
        fn add(&mut self, p: &syn::Path) {
            if p.leading_colon.is_some() {
                return;
            }
            if let Some(first) = p.segments.first() {
                let name = first.ident.to_string();
                let upper = name.starts_with(|c: char| c.is_ascii_uppercase());
                // `TILE` in `shared_array::<f32, TILE>` parses as a type: an all-capitals
                // name is a constant by Rust's conventions, never asked for as a type.
                let constant = name
                    .chars()
                    .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_');
                if upper && !constant && !self.0.contains(&name) {
                    self.0.push(name);
                }
            }
        }
    }
    impl<'ast> Visit<'ast> for Names {
        fn visit_type_path(&mut self, t: &'ast syn::TypePath) {
            if t.qself.is_none() && t.path.segments.len() == 1 {
                self.add(&t.path);
            }
            syn::visit::visit_type_path(self, t);
        }

        fn visit_expr_struct(&mut self, s: &'ast syn::ExprStruct) {
            if s.path.segments.len() == 1 {
                self.add(&s.path);
            }
            syn::visit::visit_expr_struct(self, s);
        }

        fn visit_expr_path(&mut self, p: &'ast syn::ExprPath) {
            // `Op::Add`, `P::N`, `P::new`: a type's item.
            if p.qself.is_none() && p.path.segments.len() == 2 {
                self.add(&p.path);
            }
            syn::visit::visit_expr_path(self, p);
        }

        fn visit_expr_call(&mut self, c: &'ast syn::ExprCall) {
            // `P(a, b)`: a tuple struct's constructor.
            if let syn::Expr::Path(p) = &*c.func {
                if p.qself.is_none() && p.path.segments.len() == 1 {
                    self.add(&p.path);
                }
            }
            syn::visit::visit_expr_call(self, c);
        }

        fn visit_pat_tuple_struct(&mut self, p: &'ast syn::PatTupleStruct) {
            self.add(&p.path);
            syn::visit::visit_pat_tuple_struct(self, p);
        }

        fn visit_pat_struct(&mut self, p: &'ast syn::PatStruct) {
            self.add(&p.path);
            syn::visit::visit_pat_struct(self, p);
        }

        // Items of the body (`const`s, nested functions) name their own types.
        fn visit_item(&mut self, i: &'ast syn::Item) {
            if let syn::Item::Const(c) = i {
                syn::visit::visit_item_const(self, c);
            }
        }
    }
    let mut names = Names(Vec::new());
    names.visit_item_fn(item);
    let generics: Vec<String> = item
        .sig
        .generics
        .params
        .iter()
        .filter_map(|g| match g {
            syn::GenericParam::Type(t) => Some(t.ident.to_string()),
            syn::GenericParam::Const(c) => Some(c.ident.to_string()),
            _ => None,
        })
        .collect();
    names
        .0
        .into_iter()
        .filter(|n| {
            !NOT_TYPES.contains(&n.as_str())
                && !generics.contains(n)
                && crate::ty::Scalar::from_name(n).is_none()
                && module.get_struct(n).is_none()
                && module.get_enum(n).is_none()
                && module.get(n).is_none()
                && module.imports().names(n)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn imported_type_names_only() {
        let file: syn::File = syn::parse_quote! {
            use cuprum::prelude::*;
            use crate::model::{Particle, Op, DT};
            use super::Local as Renamed;
            struct Own { x: f32 }
        };
        let module = ModuleItems::from_items(&file.items);
        let item: syn::ItemFn = syn::parse_quote! {
            fn k<T>(p: Particle, q: Own, r: Renamed, t: T) {
                let s = gpu::shared_array::<f32, DT>();
                let o = Op::Add;
                let n = Unknown::N;
                let x = DT;
                let y: Vec2 = Vec2(1.0, 2.0);
            }
        };
        assert_eq!(foreign_type_names(&item, &module), ["Particle", "Op"]);
        assert_eq!(module.imports().renamed_from("Renamed"), Some("Local"));
    }

    #[test]
    fn constants_imported_from_modules_of_the_same_file() {
        let src = r#"
const TOP: u32 = 1;
mod config {
    pub const N: u32 = 2;
    pub mod deep { pub const M: u32 = 3; }
}
mod kernels {
    use super::{TOP, config::N};
    use super::config::deep::M;
    use elsewhere::Q;
    #[kernel]
    fn k(x: &mut [u32]) {}
}
"#;
        let items = crate::consts::module_items(src, "k", "kernel", None);
        for (name, value) in [("TOP", "1"), ("N", "2"), ("M", "3")] {
            let item = items.get(name).unwrap_or_else(|| panic!("{name}"));
            assert_eq!(
                quote::ToTokens::to_token_stream(&*item.expr).to_string(),
                value
            );
        }
        assert!(items.get("Q").is_none());
    }
}
