//! `gpu::println!` and `gpu::print!`: the test runs a kernel that prints in a child process
//! (this test binary again, running only `child_prints`) and compares the child's standard
//! output with lines computed here. A child process, because the GPU's `printf` writes to the
//! process's C standard output, which a test cannot capture in-process; the simulator prints
//! through Rust's standard output and is checked the same way.
//!
//! Lines from different threads come in any order, so they are compared sorted.

use std::ffi::{c_char, c_int, CStr, CString};
use std::process::Command;

use cuprum::prelude::*;
use cuprum_testkit::device;

#[path = "kernels/report.rs"]
mod kernels;
use kernels::*;

/// The seed of the child's inputs.
const SEED_VAR: &str = "CUPRUM_TEST_PRINT_SEED";

/// The inputs of `print_values`, from a seed.
struct Inputs {
    a: Vec<i32>,
    f: Vec<f32>,
    flags: Vec<bool>,
    small: Vec<i8>,
    big: Vec<u64>,
}

impl Inputs {
    fn new(seed: u64) -> Inputs {
        let mut rng = fastrand::Rng::with_seed(seed);
        let n = 100 + rng.usize(0..200);
        Inputs {
            a: (0..n).map(|_| rng.i32(..)).collect(),
            f: (0..n)
                .map(|_| (rng.f32() - 0.5) * 10f32.powi(rng.i32(-6..8)))
                .collect(),
            flags: (0..n).map(|_| rng.bool()).collect(),
            small: (0..n).map(|_| rng.i8(..)).collect(),
            big: (0..n).map(|_| rng.u64(..)).collect(),
        }
    }
}

extern "C" {
    fn snprintf(buf: *mut c_char, size: usize, format: *const c_char, ...) -> c_int;
}

/// C's `printf` of one `double`: what the GPU prints for `{:e}` (`%e`) and for a float
/// without a precision (`%g`), which Rust has no format for.
fn c_double(format: &str, v: f64) -> String {
    let f = CString::new(format).unwrap();
    let mut buf = vec![0 as c_char; 128];
    // SAFETY: 128 bytes of buffer, snprintf writes at most that; the directive is a double's.
    unsafe {
        snprintf(buf.as_mut_ptr(), buf.len(), f.as_ptr(), v);
        CStr::from_ptr(buf.as_ptr()).to_string_lossy().into_owned()
    }
}

/// What `print_values` prints, line by line (Rust's own formatting wherever the GPU's
/// printf prints the same, C's for `%e` and `%g`).
fn expected(x: &Inputs) -> Vec<String> {
    let mut lines = Vec::new();
    for i in 0..x.a.len() {
        let (a, f, b, s, u) = (x.a[i], x.f[i], x.flags[i], x.small[i], x.big[i]);
        lines.push(format!(
            "out {i} a={a} hex={a:x} HEX={s:#X} f={f:.3} e={} g={} b={b:>6}|{b:<5}| {a:+05} {{ok}} 100%",
            c_double("%e", f as f64),
            c_double("%g", f as f64),
        ));
        lines.push(format!("out {i} u={u:>20} o={s:o} {u:?} {}", s as i16 * 2));
    }
    lines.push(format!("out single {}", x.a.len()));
    lines.sort();
    lines
}

#[test]
#[ignore = "run by `printed_lines_match` in a child process"]
fn child_prints() -> cuprum::Result<()> {
    // Run on its own (`--include-ignored`), it has no inputs to print: nothing to check.
    let Ok(seed) = std::env::var(SEED_VAR) else {
        eprintln!("child_prints: only printed_lines_match runs it (with {SEED_VAR} set)");
        return Ok(());
    };
    let seed: u64 = seed.parse().expect("a seed");
    let x = Inputs::new(seed);
    let dev = device()?;
    let stream = dev.default_stream();
    let a = stream.to_device(&x.a)?;
    let f = stream.to_device(&x.f)?;
    let flags = stream.to_device(&x.flags)?;
    let small = stream.to_device(&x.small)?;
    let big = stream.to_device(&x.big)?;
    let n = x.a.len() as u32;
    launch!(print_values<<<n.div_ceil(64), 64, stream>>>(&a, &f, &flags, &small, &big))?;
    launch!(print_in_pieces<<<1, 1, stream>>>(&a))?;
    // The GPU's printf buffer is written out at the synchronisation.
    stream.synchronize()
}

#[test]
fn printed_lines_match() {
    // On the GPU host the child runs once on the GPU and once on the simulator: both print
    // the same lines.
    for dev in cuprum_testkit::backends().expect("a device") {
        let which = if dev.is_simulator() { "sim" } else { "gpu" };
        printed_lines_match_on(which);
    }
}

/// Runs `child_prints` with `CUPRUM_DEVICE=which` and checks what it printed.
fn printed_lines_match_on(which: &str) {
    let seed = fastrand::u64(..);
    let exe = std::env::current_exe().expect("the test binary");
    let out = Command::new(exe)
        .args([
            "--exact",
            "child_prints",
            "--ignored",
            "--nocapture",
            "--test-threads=1",
        ])
        .env(SEED_VAR, seed.to_string())
        .env("CUPRUM_DEVICE", which)
        .output()
        .expect("the test binary runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "the child failed on {which}:\n{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // The harness's `test child_prints ... ` may precede the first printed line.
    let mut got: Vec<String> = stdout
        .lines()
        .filter_map(|l| l.find("out ").map(|k| l[k..].to_string()))
        .collect();
    got.sort();
    let want = expected(&Inputs::new(seed));
    assert_eq!(got.len(), want.len(), "{which}, seed {seed}:\n{stdout}");
    for (g, w) in got.iter().zip(&want) {
        assert_eq!(g, w, "{which}, seed {seed}");
    }
}
