//! Where NVIDIA's tools are installed: libdevice and ptxas. A std-only crate, shared by the
//! compiler (`cuprum-codegen`), the runtime (`cuprum::inspect`) and the macro crate's build
//! script (which runs the searches once, at build time, so that expanding kernels starts no
//! python3 process to look for them).
//!
//! libdevice: `CUPRUM_LIBDEVICE` (a file), `$CUDA_HOME/nvvm/libdevice/libdevice.10.bc`,
//! `/usr/local/cuda/nvvm/libdevice/libdevice.10.bc`, then the PyPI wheels
//! `nvidia-cuda-nvcc-cu12` (`nvidia/cuda_nvcc/nvvm/libdevice/`) and `nvidia-nvvm` for CUDA 13
//! (`nvidia/cu13/nvvm/libdevice/`) in python3's site-packages.
//!
//! ptxas: `CUPRUM_PTXAS` (a file), `PATH`, `$CUDA_HOME/bin`, `/usr/local/cuda/bin`, then the
//! `nvidia-cuda-nvcc-cu12` wheel (`nvidia/cuda_nvcc/bin/ptxas`).
//!
//! compute-sanitizer (for tests and the README's debugging section): the same places with
//! `CUPRUM_COMPUTE_SANITIZER`, then the `nvidia-cuda-sanitizer-api-cu12` wheel
//! (`nvidia/cuda_sanitizer_api/bin/compute-sanitizer`).

#![deny(missing_docs)]

use std::path::{Path, PathBuf};
use std::process::Command;

const LIBDEVICE: &str = "nvvm/libdevice/libdevice.10.bc";

/// Searches for libdevice; `None` when it is not installed.
pub fn libdevice() -> Option<PathBuf> {
    if let Some(p) = std::env::var_os("CUPRUM_LIBDEVICE") {
        return Some(PathBuf::from(p)).filter(|p| p.is_file());
    }
    let mut candidates = Vec::new();
    if let Some(home) = std::env::var_os("CUDA_HOME") {
        candidates.push(Path::new(&home).join(LIBDEVICE));
    }
    candidates.push(Path::new("/usr/local/cuda").join(LIBDEVICE));
    if let Some(p) = candidates.iter().find(|p| p.is_file()) {
        return Some(p.clone());
    }
    python_site_dirs().into_iter().find_map(|site| {
        ["nvidia/cuda_nvcc", "nvidia/cu13"]
            .iter()
            .map(|wheel| site.join(wheel).join(LIBDEVICE))
            .find(|p| p.is_file())
    })
}

/// Searches for ptxas; `None` when it is not installed.
pub fn ptxas() -> Option<PathBuf> {
    find_tool("CUPRUM_PTXAS", "ptxas", "nvidia/cuda_nvcc/bin/ptxas")
}

/// Searches for compute-sanitizer; `None` when it is not installed.
pub fn compute_sanitizer() -> Option<PathBuf> {
    find_tool(
        "CUPRUM_COMPUTE_SANITIZER",
        "compute-sanitizer",
        "nvidia/cuda_sanitizer_api/bin/compute-sanitizer",
    )
}

/// A CUDA tool: the file the variable `env` names, `name` on `PATH`, in `$CUDA_HOME/bin` and
/// `/usr/local/cuda/bin`, then at `wheel` in python3's site-packages.
fn find_tool(env: &str, name: &str, wheel: &str) -> Option<PathBuf> {
    if let Some(p) = std::env::var_os(env) {
        return Some(PathBuf::from(p)).filter(|p| p.is_file());
    }
    let mut candidates: Vec<PathBuf> = Vec::new();
    if let Some(path) = std::env::var_os("PATH") {
        candidates.extend(std::env::split_paths(&path).map(|d| d.join(name)));
    }
    if let Some(home) = std::env::var_os("CUDA_HOME") {
        candidates.push(Path::new(&home).join("bin").join(name));
    }
    candidates.push(Path::new("/usr/local/cuda/bin").join(name));
    if let Some(p) = candidates.iter().find(|p| p.is_file()) {
        return Some(p.clone());
    }
    python_site_dirs()
        .into_iter()
        .map(|d| d.join(wheel))
        .find(|p| p.is_file())
}

/// Python's site-packages folders, asked of `python3` itself.
fn python_site_dirs() -> Vec<PathBuf> {
    let script = "import site, sysconfig; print('\\n'.join([sysconfig.get_paths()['purelib']] + site.getsitepackages() + [site.getusersitepackages()]))";
    match Command::new("python3").arg("-c").arg(script).output() {
        Ok(out) if out.status.success() => String::from_utf8_lossy(&out.stdout)
            .lines()
            .map(PathBuf::from)
            .collect(),
        _ => Vec::new(),
    }
}
