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

/// LLVM is linked statically (see the workspace's `Cargo.toml`), so the link also names the
/// libraries LLVM uses (`llvm-config --system-libs --link-static`: `-lzstd`, `-lz`, ..). A
/// machine may have such a library's run-time file (`libzstd.so.1`, which LLVM's own packages
/// pull in) but not the development name the linker looks for (`libzstd.so`, from
/// `libzstd-dev`). For each of those, a link named so in `OUT_DIR` points at the run-time
/// file, and the folder joins the link's search path (for every crate that links LLVM).
fn link_names(config: &Path) {
    let Ok(out) = Command::new(config)
        .args(["--system-libs", "--link-static"])
        .output()
    else {
        return;
    };
    let (Some(out_dir), Ok(target)) = (std::env::var_os("OUT_DIR"), std::env::var("TARGET")) else {
        return;
    };
    // Debian's multiarch folder: x86_64-unknown-linux-gnu -> x86_64-linux-gnu.
    let multiarch = target.replace("-unknown-", "-");
    let dirs: Vec<PathBuf> = [
        format!("/usr/lib/{multiarch}"),
        format!("/lib/{multiarch}"),
        "/usr/lib64".into(),
        "/usr/lib".into(),
    ]
    .into_iter()
    .map(PathBuf::from)
    .collect();
    let shims = Path::new(&out_dir).join("link-names");
    let mut made = false;
    for flag in String::from_utf8_lossy(&out.stdout).split_whitespace() {
        let Some(name) = flag.strip_prefix("-l") else {
            continue;
        };
        let dev = format!("lib{name}.so");
        if dirs
            .iter()
            .any(|d| d.join(&dev).exists() || d.join(format!("lib{name}.a")).exists())
        {
            continue;
        }
        // The run-time file: `libNAME.so.N` (the shortest such name).
        let runtime = dirs
            .iter()
            .filter_map(|d| std::fs::read_dir(d).ok().map(|r| (d, r)))
            .flat_map(|(d, r)| {
                r.filter_map(|e| e.ok())
                    .map(|e| e.file_name().to_string_lossy().into_owned())
                    .filter(|f| f.starts_with(&format!("{dev}.")))
                    .map(|f| d.join(f))
                    .collect::<Vec<_>>()
            })
            .min_by_key(|p| p.as_os_str().len());
        if let Some(runtime) = runtime {
            let _ = std::fs::create_dir_all(&shims);
            let link = shims.join(&dev);
            let _ = std::fs::remove_file(&link);
            #[cfg(unix)]
            if std::os::unix::fs::symlink(&runtime, &link).is_ok() {
                made = true;
            }
        }
    }
    if made {
        println!("cargo:rustc-link-search=native={}", shims.display());
    }
}

fn main() {
    // Not PATH: it differs between shells and IDEs, and each change would rebuild every kernel.
    println!("cargo:rerun-if-env-changed={PREFIX_VAR}");
    if let Ok(prefix) = std::env::var(PREFIX_VAR) {
        // llvm-sys looks only here: anything else fails its build, so fail here first with
        // the fix.
        let config = Path::new(&prefix).join("bin").join("llvm-config");
        match version(&config) {
            Ok(v) if is_wanted(&v) => link_names(&config),
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
