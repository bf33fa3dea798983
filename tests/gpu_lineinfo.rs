//! Source lines in the PTX: `.loc` names the Rust line of each instruction, and on a GPU
//! compute-sanitizer's racecheck names the Rust file and line of a planted shared-memory race
//! (run in a child process: this test binary again, running only `child_races`).

use std::process::Command;

use cuprum::prelude::*;
use cuprum_testkit::{device, random_f32};

#[path = "kernels/race.rs"]
mod kernels;
use kernels::*;

/// The 1-based line of `kernels/race.rs` that contains `text`.
fn line_of(text: &str) -> usize {
    include_str!("kernels/race.rs")
        .lines()
        .position(|l| l.contains(text))
        .expect("the text is in the kernel source")
        + 1
}

const WRITE: &str = "tile[t] = x[i];";
const READ: &str = "out[i] = tile[(t + 1) % 128];";

#[test]
fn ptx_names_the_rust_file_and_lines() {
    let ptx = racy_neighbours::PTX;
    let file = ptx
        .lines()
        .find_map(|l| l.trim().strip_prefix(".file\t1 "))
        .expect("a .file directive");
    assert!(file.ends_with("kernels/race.rs\""), "{file}");
    assert!(!file.starts_with("\"/"), "a relative path: {file}");
    let locs: Vec<usize> = ptx
        .lines()
        .filter_map(|l| l.trim().strip_prefix(".loc\t1 "))
        .filter_map(|l| l.split_whitespace().next()?.parse().ok())
        .collect();
    for text in [WRITE, READ] {
        assert!(
            locs.contains(&line_of(text)),
            "no .loc for `{text}`: {locs:?}"
        );
    }
    // Only directives: no DWARF sections, and the target is not a debug one (which would
    // compile the kernel unoptimised).
    assert!(
        !ptx.contains(".debug_info") && !ptx.contains(", debug"),
        "{ptx}"
    );
}

#[test]
#[ignore = "run by `racecheck_names_the_rust_line` in a child process"]
fn child_races() -> cuprum::Result<()> {
    let dev = device()?;
    let stream = dev.default_stream();
    let n = 4 * 128;
    let x = stream.to_device(&random_f32(n, -1.0, 1.0))?;
    let mut out = stream.alloc_zeros::<f32>(n)?;
    launch!(racy_neighbours<<<4, 128, stream>>>(&mut out, &x))?;
    stream.synchronize()
}

#[test]
fn racecheck_names_the_rust_line() -> cuprum::Result<()> {
    let dev = device()?;
    if dev.is_simulator() {
        eprintln!("skipped: compute-sanitizer checks GPU code; the simulator runs this kernel's threads one after another (the PTX's lines are checked by ptx_names_the_rust_file_and_lines)");
        return Ok(());
    }
    let Some(sanitizer) = cuprum_toolkit::compute_sanitizer() else {
        panic!("compute-sanitizer was not found: install the CUDA toolkit or `pip install nvidia-cuda-sanitizer-api-cu12`, or set CUPRUM_COMPUTE_SANITIZER");
    };
    let exe = std::env::current_exe().expect("the test binary");
    let out = Command::new(sanitizer)
        .args(["--tool", "racecheck", "--racecheck-report", "all"])
        .arg(exe)
        .args([
            "--exact",
            "child_races",
            "--ignored",
            "--nocapture",
            "--test-threads=1",
        ])
        // The driver's JIT keeps the PTX's lines only when asked.
        .env("CUPRUM_LINEINFO", "1")
        .output()
        .expect("compute-sanitizer runs");
    let report = format!(
        "{}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(report.contains("racy_neighbours"), "{report}");
    for text in [WRITE, READ] {
        let at = format!("race.rs:{}", line_of(text));
        assert!(
            report.contains(&at),
            "the report does not name {at} (`{text}`):\n{report}"
        );
    }
    Ok(())
}
