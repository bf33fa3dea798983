//! The `const` and `static` items of the module that holds a kernel or `#[device]` function,
//! read from its source file (a proc macro is handed only its own item).

use cuprum_codegen::consts::{module_items, ModuleItems};

/// The items of the module in which `ident` (a function marked `#[attr]`) is defined: the
/// file is `Span::local_file()` of the name, the module is found by parsing it. Empty where
/// there is no file on disk (a function made by another macro, say).
pub fn of(ident: &syn::Ident, attr: &str) -> ModuleItems {
    // Outside a macro expansion (the macro crate's own unit tests) there is no file.
    if !proc_macro::is_available() {
        return ModuleItems::default();
    }
    let span = ident.span().unwrap();
    let Some(path) = span.local_file() else {
        return ModuleItems::default();
    };
    let Ok(text) = std::fs::read_to_string(&path) else {
        return ModuleItems::default();
    };
    let line = span.start().line();
    module_items(&text, &ident.to_string(), attr, Some(line))
}

/// The calls among `calls` that can be `#[device]` functions: not `P(a, b)`, `P::new(..)` or
/// `Self::new(..)`, which name a struct (a tuple struct's constructor, a `#[device] impl`
/// function) that the checker finds among the module's items. Told apart by the case of the
/// first name, without reading the file again (parsing it once more per kernel here made
/// clippy-driver crash); a function named in upper case is then reported by the checker.
pub fn not_constructors(calls: Vec<syn::Path>) -> Vec<syn::Path> {
    calls
        .into_iter()
        .filter(|p| {
            let upper = p.segments.first().is_some_and(|s| {
                s.ident
                    .to_string()
                    .starts_with(|c: char| c.is_ascii_uppercase())
            });
            !(upper && p.segments.len() <= 2)
        })
        .collect()
}
