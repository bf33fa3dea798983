//! Bakes build-time facts into the macro crate: the default GPU target (`CUPRUM_TARGET`,
//! so that changing it rebuilds the macros and re-expands every kernel) and where libdevice
//! is installed (so that expanding a math kernel starts no python3 process to look for it).

#[path = "../codegen/src/libdevice_search.rs"]
mod libdevice_search;

fn main() {
    println!("cargo:rerun-if-env-changed=CUPRUM_TARGET");
    let target = std::env::var("CUPRUM_TARGET").unwrap_or_default();
    println!("cargo:rustc-env=CUPRUM_BUILD_TARGET={target}");
    for var in ["CUPRUM_LIBDEVICE", "CUDA_HOME"] {
        println!("cargo:rerun-if-env-changed={var}");
    }
    let libdevice = libdevice_search::search()
        .and_then(|p| p.to_str().map(str::to_owned))
        .unwrap_or_default();
    if !libdevice.is_empty() {
        println!("cargo:rerun-if-changed={libdevice}");
    }
    println!("cargo:rustc-env=CUPRUM_BUILD_LIBDEVICE={libdevice}");
}
