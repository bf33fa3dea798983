//! libdevice, NVIDIA's bitcode library of math functions (`__nv_expf`, ...): where to find
//! it and how it is linked into a kernel that calls it.
//!
//! Search order: `CUPRUM_LIBDEVICE` (a file), `$CUDA_HOME/nvvm/libdevice/libdevice.10.bc`,
//! `/usr/local/cuda/nvvm/libdevice/libdevice.10.bc`, then the PyPI wheels
//! `nvidia-cuda-nvcc-cu12` (`nvidia/cuda_nvcc/nvvm/libdevice/`) and `nvidia-nvvm` for CUDA 13
//! (`nvidia/cu13/nvvm/libdevice/`) in python3's site-packages.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

use inkwell::context::Context;
use inkwell::module::{Linkage, Module};

/// The message when a kernel needs libdevice and it is not installed.
pub const MISSING: &str = "this math function needs NVIDIA's libdevice (libdevice.10.bc), which was not found; install it with `pip install nvidia-cuda-nvcc-cu12` (scripts/setup.sh does), or set CUPRUM_LIBDEVICE to the file";

const RELATIVE: &str = "nvvm/libdevice/libdevice.10.bc";

/// The path of libdevice, searched once per process.
pub fn find() -> Option<PathBuf> {
    static FOUND: OnceLock<Option<PathBuf>> = OnceLock::new();
    FOUND.get_or_init(search).clone()
}

fn search() -> Option<PathBuf> {
    if let Some(p) = std::env::var_os("CUPRUM_LIBDEVICE") {
        return Some(PathBuf::from(p)).filter(|p| p.is_file());
    }
    let mut candidates = Vec::new();
    if let Some(home) = std::env::var_os("CUDA_HOME") {
        candidates.push(Path::new(&home).join(RELATIVE));
    }
    candidates.push(Path::new("/usr/local/cuda").join(RELATIVE));
    for site in python_site_dirs() {
        candidates.push(site.join("nvidia/cuda_nvcc").join(RELATIVE));
        candidates.push(site.join("nvidia/cu13").join(RELATIVE));
    }
    candidates.into_iter().find(|p| p.is_file())
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

/// Links libdevice into `module` and makes its functions internal, so that optimisation keeps
/// only what the kernel calls (and inlines it).
pub fn link<'ctx>(ctx: &'ctx Context, module: &Module<'ctx>, path: &Path) -> Result<(), String> {
    let lib = Module::parse_bitcode_from_path(path, ctx)
        .map_err(|e| format!("cannot read libdevice at {}: {e}", path.display()))?;
    lib.set_triple(&module.get_triple());
    lib.set_data_layout(&module.get_data_layout());
    module
        .link_in_module(lib)
        .map_err(|e| format!("cannot link libdevice: {e}"))?;
    let mut f = module.get_first_function();
    while let Some(func) = f {
        if func.get_name().to_bytes().starts_with(b"__nv_") && func.count_basic_blocks() > 0 {
            func.set_linkage(Linkage::Internal);
        }
        f = func.get_next_function();
    }
    Ok(())
}
