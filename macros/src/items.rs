//! The `const` and `static` items of the module that holds a kernel, a `#[device]` function
//! or a `DeviceCopy` type, read from its source file (a proc macro is handed only its own
//! item). The file is parsed at each use: tokens (and their spans) live only as long as one
//! macro invocation, so a parse cannot be kept for the next.

use cuprum_codegen::consts::{module_items_in, parse_file, type_module_items, ModuleItems};

/// The text of the file that holds `ident`, its parse, and the line of `ident` in it.
fn file_of(ident: &syn::Ident) -> Option<(String, syn::File, usize)> {
    // Outside a macro expansion (the macro crate's own unit tests) there is no file.
    if !proc_macro::is_available() {
        return None;
    }
    let span = ident.span().unwrap();
    let path = span.local_file()?;
    let text = std::fs::read_to_string(&path).ok()?;
    let file = parse_file(&text)?;
    Some((text, file, span.start().line()))
}

/// The items of the module in which `ident` (a function marked `#[attr]`) is defined: the
/// file is `Span::local_file()` of the name, the module is found by parsing it. Empty where
/// there is no file on disk (a function made by another macro, say).
pub fn of(ident: &syn::Ident, attr: &str) -> ModuleItems {
    match file_of(ident) {
        Some((text, file, line)) => {
            module_items_in(&file, &text, &ident.to_string(), attr, Some(line))
        }
        None => ModuleItems::default(),
    }
}

/// The items of the module that defines the struct or enum `ident`, for its bundle.
pub fn of_type(ident: &syn::Ident) -> ModuleItems {
    match file_of(ident) {
        Some((text, file, line)) => type_module_items(&file, &text, &ident.to_string(), Some(line)),
        None => ModuleItems::default(),
    }
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
