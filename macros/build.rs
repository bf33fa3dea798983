//! Bakes the build-time default GPU target into the macro crate, so that changing
//! `CUPRUM_TARGET` rebuilds the macros and re-expands every kernel.

fn main() {
    println!("cargo:rerun-if-env-changed=CUPRUM_TARGET");
    let target = std::env::var("CUPRUM_TARGET").unwrap_or_default();
    println!("cargo:rustc-env=CUPRUM_BUILD_TARGET={target}");
}
