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

/// Names that are never user types of another module.
const NOT_TYPES: &[&str] = &[
    "Self", "Some", "None", "Ok", "Err", "Option", "Result", "Vec", "String", "Box", "Rc", "Arc",
    "Default",
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
                if upper && !self.0.contains(&name) {
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
                let o = Op::Add;
                let n = Unknown::N;
                let x = DT;
                let y: Vec2 = Vec2(1.0, 2.0);
            }
        };
        assert_eq!(foreign_type_names(&item, &module), ["Particle", "Op"]);
        assert_eq!(module.imports().renamed_from("Renamed"), Some("Local"));
    }
}
