//! Ahead-of-time SASS: a kernel's PTX assembled by `ptxas` at build time for the GPU
//! architectures named in `CUPRUM_SASS` (e.g. `sm_90` or `sm_80,sm_90`), embedded next to the
//! PTX. The runtime loads the cubin whose architecture matches the device exactly, so the
//! driver compiles nothing on first launch; any other device gets the PTX, as without
//! `CUPRUM_SASS`.

use std::path::Path;
use std::process::Command;

/// One architecture: `sm_90` → (90, "sm_90").
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Arch {
    /// Compute capability as major × 10 + minor (what the runtime compares with the device).
    pub cc: u32,
    /// The `ptxas -arch` name.
    pub name: String,
}

/// Parses a comma-separated list such as `sm_80,sm_90` (spaces allowed, empty → none).
pub fn parse_archs(list: &str) -> Result<Vec<Arch>, String> {
    let mut out: Vec<Arch> = Vec::new();
    for item in list.split(',').map(str::trim).filter(|s| !s.is_empty()) {
        let digits = item.strip_prefix("sm_").unwrap_or("");
        let cc: u32 = digits
            .parse()
            .ok()
            .filter(|cc| (50..=200).contains(cc) && digits.len() >= 2)
            .ok_or_else(|| {
                format!("`{item}` in CUPRUM_SASS is not an architecture: write names like `sm_90`, separated by commas")
            })?;
        if !out.iter().any(|a| a.cc == cc) {
            out.push(Arch {
                cc,
                name: item.to_string(),
            });
        }
    }
    Ok(out)
}

/// Assembles `ptx` for `arch` with the `ptxas` at `ptxas` (`-O3`, and `-lineinfo`, which keeps
/// the PTX's source lines for compute-sanitizer and Nsight Compute without changing the code);
/// returns the cubin.
pub fn assemble(ptx: &str, arch: &Arch, ptxas: &Path) -> Result<Vec<u8>, String> {
    use std::sync::atomic::{AtomicU64, Ordering};
    static N: AtomicU64 = AtomicU64::new(0);
    let dir = std::env::temp_dir().join(format!(
        "cuprum-sass-{}-{}",
        std::process::id(),
        N.fetch_add(1, Ordering::Relaxed)
    ));
    std::fs::create_dir_all(&dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    let result = (|| {
        let (input, output) = (dir.join("kernel.ptx"), dir.join("kernel.cubin"));
        std::fs::write(&input, ptx)
            .map_err(|e| format!("cannot write {}: {e}", input.display()))?;
        let out = Command::new(ptxas)
            .arg(format!("-arch={}", arch.name))
            .arg("-O3")
            .arg("-lineinfo")
            .arg(&input)
            .arg("-o")
            .arg(&output)
            .output()
            .map_err(|e| format!("cannot run {}: {e}", ptxas.display()))?;
        if !out.status.success() {
            return Err(format!(
                "ptxas rejected the kernel's PTX for {}: {}",
                arch.name,
                String::from_utf8_lossy(&out.stderr).trim()
            ));
        }
        std::fs::read(&output).map_err(|e| format!("cannot read {}: {e}", output.display()))
    })();
    let _ = std::fs::remove_dir_all(&dir);
    result
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn architecture_lists() {
        let a = parse_archs(" sm_80, sm_90,sm_90 ,").unwrap();
        assert_eq!(a.iter().map(|a| a.cc).collect::<Vec<_>>(), [80, 90]);
        assert!(parse_archs("").unwrap().is_empty());
        for bad in ["90", "sm_", "sm_9", "compute_90", "sm_x0"] {
            let e = parse_archs(bad).unwrap_err();
            assert!(e.contains(bad) && e.contains("sm_90"), "{e}");
        }
    }
}
