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

/// The calls among `calls` that are not constructors of tuple structs of the module holding
/// `ident` (`Pair(a, b)` is a struct literal, not a `#[device]` function to collect).
pub fn not_constructors(calls: Vec<syn::Path>, ident: &syn::Ident, attr: &str) -> Vec<syn::Path> {
    if calls.is_empty() {
        return calls;
    }
    let items = of(ident, attr);
    calls
        .into_iter()
        .filter(|p| {
            let first = p.segments.first().map(|s| s.ident.to_string());
            let own = match p.segments.len() {
                // `P(a, b)`, and `P::new(..)` / `Self::new(..)`: a `#[device] impl` function.
                1 | 2 => first.is_some_and(|f| f == "Self" || items.get_struct(&f).is_some()),
                _ => false,
            };
            !own
        })
        .collect()
}
