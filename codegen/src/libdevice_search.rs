//! Where libdevice is installed: a std-only search shared by the codegen crate and the macro
//! crate's build script (which runs it once, at build time, so that expanding kernels does not
//! start a python3 process).
//!
//! Search order: `CUPRUM_LIBDEVICE` (a file), `$CUDA_HOME/nvvm/libdevice/libdevice.10.bc`,
//! `/usr/local/cuda/nvvm/libdevice/libdevice.10.bc`, then the PyPI wheels
//! `nvidia-cuda-nvcc-cu12` (`nvidia/cuda_nvcc/nvvm/libdevice/`) and `nvidia-nvvm` for CUDA 13
//! (`nvidia/cu13/nvvm/libdevice/`) in python3's site-packages.

use std::path::{Path, PathBuf};
use std::process::Command;

const RELATIVE: &str = "nvvm/libdevice/libdevice.10.bc";

/// Searches for libdevice; `None` when it is not installed.
pub fn search() -> Option<PathBuf> {
    if let Some(p) = std::env::var_os("CUPRUM_LIBDEVICE") {
        return Some(PathBuf::from(p)).filter(|p| p.is_file());
    }
    let mut candidates = Vec::new();
    if let Some(home) = std::env::var_os("CUDA_HOME") {
        candidates.push(Path::new(&home).join(RELATIVE));
    }
    candidates.push(Path::new("/usr/local/cuda").join(RELATIVE));
    if let Some(p) = candidates.iter().find(|p| p.is_file()) {
        return Some(p.clone());
    }
    python_site_dirs().into_iter().find_map(|site| {
        ["nvidia/cuda_nvcc", "nvidia/cu13"]
            .iter()
            .map(|wheel| site.join(wheel).join(RELATIVE))
            .find(|p| p.is_file())
    })
}

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
