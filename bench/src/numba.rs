//! The Numba contender: one long-lived `python3 bench/numba/driver.py` process driven over
//! its line protocol (documented in that file), and [`DataDir`], the inputs it reads.
//!
//! The driver is found relative to the current directory (the repository root, where the
//! harness runs on the GPU host) or, failing that, next to this crate's sources.

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Instant;

use cuprum::LaunchConfig;

const DRIVER: &str = "bench/numba/driver.py";

/// The directory to run the driver from (the repository root) and the script's path in it.
fn driver_location() -> Result<(PathBuf, PathBuf), String> {
    let cwd = std::env::current_dir().map_err(|e| format!("current directory: {e}"))?;
    let source_root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    [cwd.clone(), source_root]
        .into_iter()
        .find(|root| root.join(DRIVER).is_file())
        .map(|root| (root, PathBuf::from(DRIVER)))
        .ok_or_else(|| {
            format!(
                "{DRIVER} not found under {}: run the bench from the repository root",
                cwd.display()
            )
        })
}

fn python(args: &[&str]) -> Result<Command, String> {
    let (root, script) = driver_location()?;
    let mut cmd = Command::new("python3");
    cmd.arg(script).args(args).current_dir(root);
    Ok(cmd)
}

fn spawn_error(e: std::io::Error) -> String {
    if e.kind() == std::io::ErrorKind::NotFound {
        "python3 not found on PATH: the Numba contender needs python3 with numba-cuda".into()
    } else {
        format!("starting python3: {e}")
    }
}

/// A distinct scratch path under the system temp directory.
fn scratch_path(what: &str) -> PathBuf {
    static COUNTER: AtomicUsize = AtomicUsize::new(0);
    std::env::temp_dir().join(format!(
        "cuprum-bench-{}-{what}-{}",
        std::process::id(),
        COUNTER.fetch_add(1, Ordering::Relaxed)
    ))
}

/// The running driver process.
pub struct Numba {
    child: Child,
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
    stderr_log: PathBuf,
    /// What the driver said on start: `numba-cuda <version> <GPU name>`.
    pub version: String,
}

impl Numba {
    /// Starts the driver and waits for its `ready` line (numba imported, GPU seen).
    pub fn spawn() -> Result<Numba, String> {
        let stderr_log = scratch_path("numba-stderr.log");
        let log = std::fs::File::create(&stderr_log)
            .map_err(|e| format!("creating {}: {e}", stderr_log.display()))?;
        let mut child = python(&[])?
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(log)
            .spawn()
            .map_err(spawn_error)?;
        let stdin = child.stdin.take().ok_or("driver has no stdin")?;
        let stdout = BufReader::new(child.stdout.take().ok_or("driver has no stdout")?);
        let mut numba = Numba {
            child,
            stdin,
            stdout,
            stderr_log,
            version: String::new(),
        };
        let hello = numba.read_reply()?;
        match hello.strip_prefix("ready ") {
            Some(version) => {
                numba.version = version.to_string();
                Ok(numba)
            }
            None => Err(format!("Numba driver did not start: {hello}")),
        }
    }

    /// Loads `dir`'s inputs, runs `kernel` once and checks its outputs against the expected
    /// ones in `dir` (Cuprum's). `dir` may be deleted when this returns.
    pub fn setup(&mut self, kernel: &str, dir: &DataDir) -> Result<(), String> {
        dir.write_params()?;
        let reply = self.ask(&format!("setup {kernel} {}", dir.path.display()))?;
        if reply == "ok" {
            Ok(())
        } else {
            Err(format!("Numba {kernel}: {reply}"))
        }
    }

    /// Device milliseconds of one run of the set-up `kernel` (CUDA events, after the guard).
    pub fn time_ms(&mut self, kernel: &str) -> Result<f64, String> {
        self.ask_number(&format!("time {kernel}"))
    }

    /// Host microseconds per launch over `iters` back-to-back launches of `kernel`'s tiny
    /// variant (saxpy: 1024 elements, grid 4, block 256).
    pub fn launch_cost_us(&mut self, kernel: &str, iters: usize) -> Result<f64, String> {
        self.ask_number(&format!("launchcost {kernel} {iters}"))
    }

    /// Asks the driver to exit and waits for it.
    pub fn quit(mut self) -> Result<(), String> {
        let reply = self.ask("quit")?;
        self.child
            .wait()
            .map_err(|e| format!("waiting for the Numba driver: {e}"))?;
        if reply == "bye" {
            Ok(())
        } else {
            Err(format!("Numba driver answered quit with {reply}"))
        }
    }

    fn ask_number(&mut self, command: &str) -> Result<f64, String> {
        let reply = self.ask(command)?;
        reply
            .parse()
            .map_err(|_| format!("Numba `{command}`: {reply}"))
    }

    fn ask(&mut self, command: &str) -> Result<String, String> {
        writeln!(self.stdin, "{command}")
            .and_then(|()| self.stdin.flush())
            .map_err(|e| format!("writing to the Numba driver: {e}{}", self.stderr_tail()))?;
        self.read_reply()
    }

    fn read_reply(&mut self) -> Result<String, String> {
        let mut line = String::new();
        match self.stdout.read_line(&mut line) {
            Ok(0) => Err(format!("the Numba driver exited{}", self.stderr_tail())),
            Ok(_) => Ok(line.trim_end().to_string()),
            Err(e) => Err(format!("reading from the Numba driver: {e}")),
        }
    }

    /// The end of the driver's stderr, for error messages.
    fn stderr_tail(&self) -> String {
        let log = std::fs::read_to_string(&self.stderr_log).unwrap_or_default();
        let lines: Vec<&str> = log.lines().collect();
        if lines.is_empty() {
            String::new()
        } else {
            format!(
                "; its stderr ends:\n{}",
                lines[lines.len().saturating_sub(15)..].join("\n")
            )
        }
    }
}

impl Drop for Numba {
    fn drop(&mut self) {
        if let Ok(None) = self.child.try_wait() {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
        let _ = std::fs::remove_file(&self.stderr_log);
    }
}

/// Milliseconds from spawning `cmd` to its printing the line `first-kernel-done` (the
/// process then has to exit successfully).
pub fn spawn_to_first_kernel_ms(mut cmd: Command) -> Result<f64, String> {
    let t0 = Instant::now();
    let mut child = cmd
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(spawn_error)?;
    let stdout = child.stdout.take().ok_or("child has no stdout")?;
    let mut ms = None;
    let mut seen = Vec::new();
    for line in BufReader::new(stdout).lines() {
        let line = line.map_err(|e| format!("reading the child's output: {e}"))?;
        if ms.is_none() && line.trim() == "first-kernel-done" {
            ms = Some(t0.elapsed().as_secs_f64() * 1e3);
        } else {
            seen.push(line);
        }
    }
    let out = child
        .wait_with_output()
        .map_err(|e| format!("waiting for the child: {e}"))?;
    match ms {
        Some(ms) if out.status.success() => Ok(ms),
        _ => Err(format!(
            "{:?} failed ({}): {}{}",
            cmd.get_program(),
            out.status,
            seen.join(" | "),
            String::from_utf8_lossy(&out.stderr)
        )),
    }
}

/// Cold start of Numba: a fresh `python3 driver.py --cold` (import numba, JIT-compile and run
/// saxpy once, synchronize), from process spawn to its `first-kernel-done`, in milliseconds.
pub fn cold_start_ms() -> Result<f64, String> {
    spawn_to_first_kernel_ms(python(&["--cold"])?)
}

/// An element type the driver can read: its `params.json` name and little-endian bytes.
pub trait RawElement: Copy {
    /// The dtype name in `params.json`.
    const DTYPE: &'static str;
    /// Appends the little-endian bytes of `self`.
    fn put_le(self, out: &mut Vec<u8>);
    /// A JSON object's fields for a scalar: `"value": …` and, for floats, the exact `"bits"`.
    fn json_fields(self) -> String;
}

macro_rules! raw_int {
    ($($t:ty => $name:literal),*) => {$(
        impl RawElement for $t {
            const DTYPE: &'static str = $name;
            fn put_le(self, out: &mut Vec<u8>) {
                out.extend_from_slice(&self.to_le_bytes());
            }
            fn json_fields(self) -> String {
                format!("\"value\": {self}")
            }
        }
    )*};
}
raw_int!(u32 => "u32", i32 => "i32", u64 => "u64", i64 => "i64");

macro_rules! raw_float {
    ($($t:ty => $name:literal),*) => {$(
        impl RawElement for $t {
            const DTYPE: &'static str = $name;
            fn put_le(self, out: &mut Vec<u8>) {
                out.extend_from_slice(&self.to_le_bytes());
            }
            fn json_fields(self) -> String {
                let value = if self.is_finite() { format!("{self:?}") } else { "null".into() };
                format!("\"value\": {value}, \"bits\": {}", self.to_bits())
            }
        }
    )*};
}
raw_float!(f32 => "f32", f64 => "f64");

/// The inputs of one kernel for the driver's `setup`: a scratch directory holding each array
/// as `<name>.bin`, the expected outputs as `expected_<name>.bin`, and `params.json` (the
/// launch shape, array sizes, scalars, arrays to restore before each run, tolerances).
/// Removed on drop.
pub struct DataDir {
    path: PathBuf,
    kernel: String,
    launch: Option<LaunchConfig>,
    arrays: Vec<String>,
    scalars: Vec<String>,
    restore: Vec<String>,
    checks: Vec<String>,
}

impl DataDir {
    /// A fresh, empty directory for `kernel`.
    pub fn new(kernel: &str) -> Result<DataDir, String> {
        let path = scratch_path(kernel);
        std::fs::create_dir_all(&path).map_err(|e| format!("creating {}: {e}", path.display()))?;
        Ok(DataDir {
            path,
            kernel: kernel.into(),
            launch: None,
            arrays: Vec::new(),
            scalars: Vec::new(),
            restore: Vec::new(),
            checks: Vec::new(),
        })
    }

    /// The launch shape (grid, block, dynamic shared bytes).
    pub fn launch(&mut self, cfg: LaunchConfig) -> &mut Self {
        self.launch = Some(cfg);
        self
    }

    /// An array argument with its initial contents.
    pub fn array<T: RawElement>(&mut self, name: &str, data: &[T]) -> Result<&mut Self, String> {
        self.write(&format!("{name}.bin"), data)?;
        self.arrays.push(format!(
            "{{\"name\": \"{name}\", \"dtype\": \"{}\", \"len\": {}}}",
            T::DTYPE,
            data.len()
        ));
        Ok(self)
    }

    /// A scalar argument.
    pub fn scalar<T: RawElement>(&mut self, name: &str, value: T) -> &mut Self {
        self.scalars.push(format!(
            "{{\"name\": \"{name}\", \"dtype\": \"{}\", {}}}",
            T::DTYPE,
            value.json_fields()
        ));
        self
    }

    /// An array that the kernel updates in place (or accumulates into): reset to its initial
    /// contents before every run.
    pub fn restore(&mut self, name: &str) -> &mut Self {
        self.restore.push(format!("\"{name}\""));
        self
    }

    /// The expected contents of output array `name` after one run: element-wise
    /// `|numba - expected| <= atol + rtol * |expected|` (integers: equal).
    pub fn expected<T: RawElement>(
        &mut self,
        name: &str,
        data: &[T],
        rtol: f64,
        atol: f64,
    ) -> Result<&mut Self, String> {
        self.write(&format!("expected_{name}.bin"), data)?;
        self.checks.push(format!(
            "{{\"name\": \"{name}\", \"rtol\": {rtol:e}, \"atol\": {atol:e}}}"
        ));
        Ok(self)
    }

    fn write<T: RawElement>(&self, file: &str, data: &[T]) -> Result<(), String> {
        let mut bytes = Vec::with_capacity(std::mem::size_of_val(data));
        for &v in data {
            v.put_le(&mut bytes);
        }
        let path = self.path.join(file);
        std::fs::write(&path, bytes).map_err(|e| format!("writing {}: {e}", path.display()))
    }

    fn write_params(&self) -> Result<(), String> {
        let cfg = self
            .launch
            .ok_or_else(|| format!("{}: no launch shape given", self.kernel))?;
        let dim = |d: cuprum::Dim3| format!("[{}, {}, {}]", d.x, d.y, d.z);
        let json = format!(
            "{{\"kernel\": \"{}\", \"grid\": {}, \"block\": {}, \"shared_bytes\": {},\n \
             \"arrays\": [{}],\n \"scalars\": [{}],\n \"restore\": [{}],\n \"check\": [{}]}}\n",
            self.kernel,
            dim(cfg.grid),
            dim(cfg.block),
            cfg.shared_bytes,
            self.arrays.join(", "),
            self.scalars.join(", "),
            self.restore.join(", "),
            self.checks.join(", "),
        );
        let path = self.path.join("params.json");
        std::fs::write(&path, json).map_err(|e| format!("writing {}: {e}", path.display()))
    }
}

impl Drop for DataDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.path);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn params_and_arrays_are_written_as_the_driver_reads_them() {
        let mut dir = DataDir::new("saxpy").unwrap();
        dir.launch(LaunchConfig::new(4, 256))
            .array("y", &[1.5f32, -2.0])
            .unwrap()
            .scalar("a", 0.1f32)
            .scalar("n", 7u32)
            .restore("y")
            .expected("y", &[3u32], 0.0, 0.0)
            .unwrap();
        dir.write_params().unwrap();
        let y = std::fs::read(dir.path.join("y.bin")).unwrap();
        assert_eq!(y, [1.5f32.to_le_bytes(), (-2.0f32).to_le_bytes()].concat());
        let params = std::fs::read_to_string(dir.path.join("params.json")).unwrap();
        assert!(params.contains("\"grid\": [4, 1, 1], \"block\": [256, 1, 1]"));
        assert!(params.contains("{\"name\": \"y\", \"dtype\": \"f32\", \"len\": 2}"));
        assert!(params.contains(&format!(
            "{{\"name\": \"a\", \"dtype\": \"f32\", \"value\": 0.1, \"bits\": {}}}",
            0.1f32.to_bits()
        )));
        assert!(params.contains("{\"name\": \"n\", \"dtype\": \"u32\", \"value\": 7}"));
        assert!(params.contains("\"restore\": [\"y\"]"));
        assert!(params.contains("{\"name\": \"y\", \"rtol\": 0e0, \"atol\": 0e0}"));
        let path = dir.path.clone();
        drop(dir);
        assert!(!path.exists());
    }

    /// The whole protocol on a small saxpy. Needs python3 with numba-cuda and a GPU (or
    /// Numba's simulator: NUMBA_ENABLE_CUDASIM=1, which has no timings, so only their form
    /// is checked): `cargo test -p cuprum-bench -- --ignored`.
    #[test]
    #[ignore = "needs python3 with numba-cuda"]
    fn driver_round_trip() {
        let mut numba = Numba::spawn().unwrap();
        assert!(
            numba.version.starts_with("numba-cuda "),
            "{}",
            numba.version
        );
        let n = 1000;
        let x: Vec<f32> = (0..n).map(|i| 0.25 + i as f32 / n as f32).collect();
        let y: Vec<f32> = (0..n).map(|i| 1.0 - i as f32 / 7.0).collect();
        let a = 1.5f32;
        let want: Vec<f32> = x.iter().zip(&y).map(|(x, y)| a.mul_add(*x, *y)).collect();
        let mut dir = DataDir::new("saxpy").unwrap();
        dir.launch(LaunchConfig::for_elements(n, 256))
            .array("y", &y)
            .unwrap()
            .array("x", &x)
            .unwrap()
            .scalar("a", a)
            .restore("y")
            .expected("y", &want, 1e-6, 1e-6)
            .unwrap();
        numba.setup("saxpy", &dir).unwrap();
        assert!(numba.time_ms("saxpy").unwrap().is_finite());
        assert!(numba.launch_cost_us("saxpy", 3).unwrap() > 0.0);

        let wrong: Vec<f32> = want.iter().map(|v| v + 1.0).collect();
        let mut dir = DataDir::new("saxpy").unwrap();
        dir.launch(LaunchConfig::for_elements(n, 256))
            .array("y", &y)
            .unwrap()
            .array("x", &x)
            .unwrap()
            .scalar("a", a)
            .expected("y", &wrong, 1e-6, 1e-6)
            .unwrap();
        let e = numba.setup("saxpy", &dir).unwrap_err();
        assert!(e.contains("differ"), "{e}");
        let e = numba.time_ms("histogram").unwrap_err();
        assert!(e.contains("not set up"), "{e}");
        numba.quit().unwrap();
        assert!(cold_start_ms().unwrap() > 0.0);
    }
}
