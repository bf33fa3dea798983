//! Looking at compiled kernels without running them: what `ptxas` says about a kernel's
//! registers, spills and shared memory (Numba's `get_regs_per_thread` and friends).

use std::path::PathBuf;
use std::process::Command;

use crate::error::{Error, Result};

/// What `ptxas -v` reports for one kernel entry.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Resources {
    /// The entry's name.
    pub kernel: String,
    /// Registers per thread.
    pub registers: u32,
    /// Bytes of static shared memory per block.
    pub shared_bytes: u32,
    /// Bytes of stack frame per thread.
    pub stack_bytes: u32,
    /// Bytes spilled to local memory (stores).
    pub spill_stores: u32,
    /// Bytes reloaded from local memory.
    pub spill_loads: u32,
}

/// Where `ptxas` is: `CUPRUM_PTXAS`, then `PATH`, `$CUDA_HOME/bin`, `/usr/local/cuda/bin`, then
/// the `nvidia-cuda-nvcc-cu12` Python wheel (`pip install nvidia-cuda-nvcc-cu12`).
pub fn find_ptxas() -> Option<PathBuf> {
    cuprum_toolkit::ptxas()
}

/// Runs `ptxas -arch=<arch> -v` on `ptx`; returns its error output when it rejects the PTX.
pub fn ptxas(ptx: &str, arch: &str) -> Result<String> {
    let exe = find_ptxas().ok_or_else(|| {
        Error::Tool("ptxas was not found; install it with `pip install nvidia-cuda-nvcc-cu12`, put it on PATH, or set CUPRUM_PTXAS".into())
    })?;
    let dir =
        std::env::temp_dir().join(format!("cuprum-ptxas-{}-{}", std::process::id(), unique()));
    std::fs::create_dir_all(&dir)
        .map_err(|e| Error::Tool(format!("cannot create {}: {e}", dir.display())))?;
    let input = dir.join("kernel.ptx");
    let result = (|| {
        std::fs::write(&input, ptx)
            .map_err(|e| Error::Tool(format!("cannot write {}: {e}", input.display())))?;
        let out = Command::new(&exe)
            .arg(format!("-arch={arch}"))
            .arg("-v")
            .arg(&input)
            .arg("-o")
            .arg(dir.join("kernel.cubin"))
            .output()
            .map_err(|e| Error::Tool(format!("cannot run {}: {e}", exe.display())))?;
        let log = String::from_utf8_lossy(&out.stderr).into_owned()
            + &String::from_utf8_lossy(&out.stdout);
        if out.status.success() {
            Ok(log)
        } else {
            Err(Error::Tool(format!(
                "ptxas rejected the PTX for {arch}:\n{log}"
            )))
        }
    })();
    let _ = std::fs::remove_dir_all(&dir);
    result
}

fn unique() -> u64 {
    use std::sync::atomic::{AtomicU64, Ordering};
    static N: AtomicU64 = AtomicU64::new(0);
    N.fetch_add(1, Ordering::Relaxed)
}

/// Registers, spills and shared memory of every kernel entry in `ptx`, compiled for `arch`
/// (e.g. `"sm_90"`) by `ptxas`.
///
/// # Errors
/// [`Error::Tool`] when `ptxas` is missing or rejects the PTX.
pub fn resources(ptx: &str, arch: &str) -> Result<Vec<Resources>> {
    let log = ptxas(ptx, arch)?;
    Ok(parse_ptxas_log(&log))
}

fn number_before(line: &str, unit: &str) -> Option<u32> {
    let at = line.find(unit)?;
    line[..at]
        .split(|c: char| !c.is_ascii_digit())
        .rfind(|s| !s.is_empty())?
        .parse()
        .ok()
}

/// Parses `ptxas -v` output into one entry per kernel (`.entry`), skipping `.func`s.
fn parse_ptxas_log(log: &str) -> Vec<Resources> {
    let mut out: Vec<Resources> = Vec::new();
    let mut current: Option<usize> = None;
    for line in log.lines() {
        if let Some(rest) = line.split("Compiling entry function '").nth(1) {
            let name = rest.split('\'').next().unwrap_or_default().to_string();
            out.push(Resources {
                kernel: name,
                ..Resources::default()
            });
            current = Some(out.len() - 1);
        } else if line.contains("Function properties for")
            && !line.contains(out.last().map(|r| r.kernel.as_str()).unwrap_or("\u{0}"))
        {
            current = None;
        }
        let Some(i) = current else { continue };
        let r = &mut out[i];
        if let Some(v) = number_before(line, " registers") {
            r.registers = v;
        }
        if let Some(v) = number_before(line, " bytes smem") {
            r.shared_bytes = v;
        }
        if let Some(v) = number_before(line, " bytes stack frame") {
            r.stack_bytes = v;
        }
        if let Some(v) = number_before(line, " bytes spill stores") {
            r.spill_stores = v;
        }
        if let Some(v) = number_before(line, " bytes spill loads") {
            r.spill_loads = v;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_a_ptxas_report() {
        let log = "ptxas info    : 0 bytes gmem\n\
ptxas info    : Function properties for __cuprum_panic\n    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads\n\
ptxas info    : Compiling entry function 'k' for 'sm_90'\n\
ptxas info    : Function properties for k\n    8 bytes stack frame, 4 bytes spill stores, 12 bytes spill loads\n\
ptxas info    : Used 15 registers, used 1 barriers, 1024 bytes smem\n";
        let r = parse_ptxas_log(log);
        assert_eq!(
            r,
            vec![Resources {
                kernel: "k".into(),
                registers: 15,
                shared_bytes: 1024,
                stack_bytes: 8,
                spill_stores: 4,
                spill_loads: 12
            }]
        );
    }
}
