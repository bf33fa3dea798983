//! Compiling the CUDA C++ references with the GPU host's `nvcc` and loading them.

use std::path::PathBuf;
use std::process::Command;
use std::sync::Arc;

use cudarc::driver::{CudaContext, CudaFunction};

/// Finds `nvcc`: `PATH`, `$CUDA_HOME/bin`, `/usr/local/cuda/bin`.
pub fn nvcc() -> Result<PathBuf, String> {
    let mut candidates: Vec<PathBuf> = Vec::new();
    if let Some(path) = std::env::var_os("PATH") {
        candidates.extend(std::env::split_paths(&path).map(|d| d.join("nvcc")));
    }
    if let Some(home) = std::env::var_os("CUDA_HOME") {
        candidates.push(PathBuf::from(home).join("bin/nvcc"));
    }
    candidates.push(PathBuf::from("/usr/local/cuda/bin/nvcc"));
    candidates
        .into_iter()
        .find(|p| p.is_file())
        .ok_or_else(|| "nvcc not found (PATH, CUDA_HOME, /usr/local/cuda)".to_string())
}

/// `nvcc -O3 -arch=sm_<cc> -cubin` of `source`, loaded into `ctx`; returns the named functions.
pub fn compile(
    ctx: &Arc<CudaContext>,
    name: &str,
    source: &str,
    arch: &str,
    functions: &[&str],
) -> Result<Vec<CudaFunction>, String> {
    let dir = std::env::temp_dir().join(format!("cuprum-bench-{}", std::process::id()));
    std::fs::create_dir_all(&dir).map_err(|e| e.to_string())?;
    let cu = dir.join(format!("{name}.cu"));
    let cubin = dir.join(format!("{name}.cubin"));
    std::fs::write(&cu, source).map_err(|e| e.to_string())?;
    let out = Command::new(nvcc()?)
        .args(["-O3", &format!("-arch={arch}"), "-cubin", "-o"])
        .arg(&cubin)
        .arg(&cu)
        .output()
        .map_err(|e| format!("running nvcc: {e}"))?;
    if !out.status.success() {
        return Err(format!(
            "nvcc failed on {name}.cu:\n{}",
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    let module = ctx
        .load_module(cudarc::nvrtc::Ptx::from_file(&cubin))
        .map_err(|e| format!("loading {name}.cubin: {e}"))?;
    functions
        .iter()
        .map(|f| {
            module
                .load_function(f)
                .map_err(|e| format!("{name}.cubin has no {f}: {e}"))
        })
        .collect()
}

/// The version line of `nvcc --version`.
pub fn version() -> String {
    nvcc()
        .ok()
        .and_then(|p| Command::new(p).arg("--version").output().ok())
        .map(|o| {
            String::from_utf8_lossy(&o.stdout)
                .lines()
                .last()
                .unwrap_or_default()
                .trim()
                .to_string()
        })
        .unwrap_or_else(|| "nvcc not found".into())
}
