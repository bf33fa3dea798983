//! The macro never panics: codegen runs under `catch_unwind`, and a panic (a bug in Cuprum)
//! becomes an "internal error" diagnostic at the item.

use std::panic::{catch_unwind, AssertUnwindSafe};

/// Runs `f`, turning a panic into an error at `at`.
pub fn run<T>(at: &syn::Ident, f: impl FnOnce() -> syn::Result<T>) -> syn::Result<T> {
    match catch_unwind(AssertUnwindSafe(f)) {
        Ok(r) => r,
        Err(panic) => {
            let msg = panic
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| panic.downcast_ref::<&str>().map(|s| s.to_string()))
                .unwrap_or_default();
            Err(cuprum_codegen::internal_error(at, &msg))
        }
    }
}
