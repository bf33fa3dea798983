//! Checks that LLVM 22 is where llvm-sys will look for it, so that a missing or wrong LLVM is
//! reported in one line that says how to install it, next to (or instead of) llvm-sys's own
//! message. It looks where llvm-sys looks: only in `$LLVM_SYS_221_PREFIX/bin` when that is
//! set, else on `PATH`. A working build prints nothing.

use std::path::{Path, PathBuf};
use std::process::Command;

const PREFIX_VAR: &str = "LLVM_SYS_221_PREFIX";
const WANTED: &str = "22";
const HOW: &str = "`scripts/setup.sh` installs it (Debian's llvm-22-dev), and the workspace's `.cargo/config.toml` points llvm-sys at it with LLVM_SYS_221_PREFIX=/usr/lib/llvm-22";

/// `llvm-config --version`, or why there is none.
fn version(config: &Path) -> Result<String, String> {
    let out = Command::new(config)
        .arg("--version")
        .output()
        .map_err(|e| format!("cannot run {}: {e}", config.display()))?;
    Ok(String::from_utf8_lossy(&out.stdout).trim().to_string())
}

fn is_wanted(v: &str) -> bool {
    v.split('.').next() == Some(WANTED)
}

fn main() {
    // Not PATH: it differs between shells and IDEs, and each change would rebuild every kernel.
    println!("cargo:rerun-if-env-changed={PREFIX_VAR}");
    if let Ok(prefix) = std::env::var(PREFIX_VAR) {
        // llvm-sys looks only here: anything else fails its build, so fail here first with
        // the fix.
        let config = Path::new(&prefix).join("bin").join("llvm-config");
        match version(&config) {
            Ok(v) if is_wanted(&v) => {}
            Ok(v) => panic!(
                "Cuprum needs LLVM {WANTED}, but {PREFIX_VAR}={prefix} holds LLVM {v}; {HOW}"
            ),
            Err(e) => panic!(
                "Cuprum needs LLVM {WANTED}, but {PREFIX_VAR}={prefix} has no llvm-config ({e}); {HOW}"
            ),
        }
        return;
    }
    // Without the variable llvm-sys searches PATH for llvm-config and its versioned names; a
    // search that finds no LLVM 22 is only a warning here, in case llvm-sys knows a place
    // this check does not.
    let paths: Vec<PathBuf> = std::env::var_os("PATH")
        .map(|p| std::env::split_paths(&p).collect())
        .unwrap_or_default();
    let names = ["llvm-config".to_string(), format!("llvm-config-{WANTED}")];
    let found: Vec<(PathBuf, String)> = paths
        .iter()
        .flat_map(|dir| names.iter().map(move |n| dir.join(n)))
        .filter(|p| p.is_file())
        .filter_map(|p| version(&p).ok().map(|v| (p, v)))
        .collect();
    if !found.iter().any(|(_, v)| is_wanted(v)) {
        let seen: Vec<String> = found
            .iter()
            .map(|(p, v)| format!("LLVM {v} at {}", p.display()))
            .collect();
        let seen = if seen.is_empty() {
            "no llvm-config on PATH".to_string()
        } else {
            seen.join(", ")
        };
        println!(
            "cargo:warning=Cuprum needs LLVM {WANTED} and {PREFIX_VAR} is not set ({seen}); {HOW}"
        );
    }
}
