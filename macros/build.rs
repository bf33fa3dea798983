//! Bakes build-time facts into the macro crate, so that changing them rebuilds the macros and
//! re-expands every kernel: the default GPU target (`CUPRUM_TARGET`), the architectures to
//! assemble SASS for ahead of time (`CUPRUM_SASS`, with the `ptxas` that does it), and where
//! libdevice is (so that expanding a math kernel starts no python3 process to look for it).

use cuprum_toolkit as toolkit;

fn main() {
    for var in [
        "CUPRUM_TARGET",
        "CUPRUM_SASS",
        "CUPRUM_PTXAS",
        "CUPRUM_LIBDEVICE",
        "CUDA_HOME",
    ] {
        println!("cargo:rerun-if-env-changed={var}");
    }
    let target = std::env::var("CUPRUM_TARGET").unwrap_or_default();
    println!("cargo:rustc-env=CUPRUM_BUILD_TARGET={target}");
    let path_of = |p: Option<std::path::PathBuf>| {
        let p = p
            .and_then(|p| p.to_str().map(str::to_owned))
            .unwrap_or_default();
        if !p.is_empty() {
            println!("cargo:rerun-if-changed={p}");
        }
        p
    };
    let libdevice = path_of(toolkit::libdevice());
    println!("cargo:rustc-env=CUPRUM_BUILD_LIBDEVICE={libdevice}");
    let sass = std::env::var("CUPRUM_SASS").unwrap_or_default();
    let ptxas = if sass.trim().is_empty() {
        String::new()
    } else {
        path_of(toolkit::ptxas())
    };
    println!("cargo:rustc-env=CUPRUM_BUILD_SASS={sass}");
    println!("cargo:rustc-env=CUPRUM_BUILD_PTXAS={ptxas}");
}
