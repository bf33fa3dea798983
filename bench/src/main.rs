//! The benchmark harness: each kernel as Cuprum, as CUDA C++ compiled by `nvcc -O3` on the
//! GPU host, and as Numba (`bench/numba/driver.py`), on the same random data and launch shape,
//! interleaved, timed with CUDA events, medians. Prints a table. Run on a GPU machine, from
//! the repository root: `.gpu/run bench` after `gpu-pack`. The suite is specified in
//! `bench/SPEC.md`.
//!
//! `bench [ROUNDS]`: rounds of interleaved timing per kernel (default 30).
//! `bench ROUNDS first`: only first launch and cold start (to measure a `CUPRUM_SASS` build).
//! `bench --ptx DIR`: writes every suite kernel's PTX to `DIR/<kernel>.ptx` (for ptxas -v and
//! SASS comparisons, bench/NOTES.md) and exits; needs no GPU.
//! `bench --first`: the child that the first-launch measurement spawns.
//! `bench --cold`: the child that the cold-start measurement spawns (one saxpy, then exits).
//!
//! `BENCH_ONLY=convolve_cols,laplace bench [ROUNDS]`: only those suite kernels (and the copy
//! they are compared with), none of the host-side figures.

mod cases;
mod first;
mod graph;
mod kernels;
mod numba;
mod nvcc;
mod saxpy;
mod suite;
mod timing;
mod user_cases;

use std::process::ExitCode;

use cuprum::Device;

/// One line of the results table.
pub struct Row {
    kernel: String,
    contender: String,
    value: f64,
    unit: &'static str,
    /// `value` over the reference's (nvcc, raw cudarc): for throughput above 1 is faster,
    /// for a cost above 1 is dearer. `None` where there is no reference.
    ratio: Option<f64>,
    /// `value` over Numba's, the same way; `None` where Numba did not run.
    vs_numba: Option<f64>,
    /// Bytes read and written per second (10^9), where the row is a kernel's throughput.
    gbs: Option<f64>,
}

impl Row {
    fn new(
        kernel: &str,
        contender: &str,
        value: f64,
        unit: &'static str,
        reference: Option<f64>,
        numba: Option<f64>,
    ) -> Row {
        Row {
            kernel: kernel.into(),
            contender: contender.into(),
            value,
            unit,
            ratio: reference.map(|r| value / r),
            vs_numba: numba.map(|n| value / n),
            gbs: (unit == "GB/s").then_some(value),
        }
    }
}

fn ratio(r: Option<f64>) -> String {
    r.map_or_else(|| "—".into(), |r| format!("{r:.3}"))
}

/// The device-to-device copy (the bandwidth column's reference), then the kernels after
/// saxpy (bench/SPEC.md), each on its own: one that fails is
/// reported and the rest still run. Returns the throughput rows and whether any kernel
/// failed.
fn suite_rows(
    dev: &Device,
    arch: &str,
    rounds: usize,
    mut numba: Option<&mut numba::Numba>,
) -> Result<(Vec<Row>, bool), String> {
    let stream = dev.default_stream();
    let guard = timing::Guard::new(&stream, arch)?;
    let ctx = suite::Ctx {
        stream: &stream,
        guard: &guard,
        arch,
        rounds,
    };
    let (mut rows, mut failed) = (Vec::new(), false);
    match timing::copy_gbs(&stream, &guard, rounds) {
        Ok(gbs) => rows.push(Row::new(
            timing::COPY,
            "cudaMemcpy D2D",
            gbs,
            "GB/s",
            None,
            None,
        )),
        Err(e) => {
            eprintln!("bench {}: FAILED: {e}", timing::COPY);
            failed = true;
        }
    }
    for (name, case) in cases::CASES.iter().chain(&user_cases::CASES) {
        if !selected(name) {
            continue;
        }
        let t = std::time::Instant::now();
        match case(&ctx, numba.as_deref_mut()) {
            Ok(r) => {
                // As it comes, so that a run cut short still reports what it measured.
                let line: Vec<String> = r
                    .iter()
                    .map(|r| format!("{} {:.1}", r.contender, r.value))
                    .collect();
                eprintln!("bench {name}: {} ({})", line.join(", "), r[0].unit);
                rows.extend(r);
            }
            Err(e) => {
                eprintln!("bench {name}: FAILED: {e}");
                failed = true;
            }
        }
        eprintln!("bench {name}: {:.1} s", t.elapsed().as_secs_f64());
    }
    Ok((rows, failed))
}

/// The kernels `BENCH_ONLY` names (comma-separated), or all when it is unset.
fn only() -> Option<Vec<String>> {
    std::env::var("BENCH_ONLY")
        .ok()
        .map(|v| v.split(',').map(|s| s.trim().to_string()).collect())
}

fn selected(name: &str) -> bool {
    only().is_none_or(|names| names.iter().any(|n| n == name))
}

fn main() -> ExitCode {
    let arg = std::env::args().nth(1);
    if arg.as_deref() == Some("--cold") {
        return match saxpy::cold() {
            Ok(()) => ExitCode::SUCCESS,
            Err(e) => {
                eprintln!("bench --cold: {e}");
                ExitCode::FAILURE
            }
        };
    }
    if arg.as_deref() == Some("--first") {
        return match first::child() {
            Ok(()) => ExitCode::SUCCESS,
            Err(e) => {
                eprintln!("bench --first: {e}");
                ExitCode::FAILURE
            }
        };
    }
    if arg.as_deref() == Some("--ptx") {
        let dir = std::env::args().nth(2).unwrap_or_else(|| ".".into());
        return match kernels::write_ptx(std::path::Path::new(&dir)) {
            Ok(()) => ExitCode::SUCCESS,
            Err(e) => {
                eprintln!("bench --ptx: {e}");
                ExitCode::FAILURE
            }
        };
    }
    let rounds: usize = arg.and_then(|s| s.parse().ok()).unwrap_or(30);
    // `bench ROUNDS first`: only the first-launch figures (for a build with CUPRUM_SASS).
    let all = std::env::args().nth(2).as_deref() != Some("first");
    let some = only().is_some();
    let dev = match Device::gpu(0) {
        Ok(d) => d,
        Err(e) => {
            eprintln!("bench: needs a GPU: {e}");
            return ExitCode::FAILURE;
        }
    };
    let (major, minor) = dev.compute_capability();
    let arch = format!("sm_{major}{minor}");
    println!(
        "GPU: {} ({arch}, {} SMs); {}",
        dev.name(),
        dev.multiprocessor_count(),
        nvcc::version()
    );
    let mut failed = false;
    let mut numba = match all.then(numba::Numba::spawn).transpose() {
        Ok(Some(n)) => {
            println!("Numba: {}", n.version);
            Some(n)
        }
        Ok(None) => None,
        Err(e) => {
            eprintln!("bench: Numba unavailable, its column stays empty: {e}");
            failed = true;
            None
        }
    };
    let mut rows = Vec::new();
    let collect = |rows: &mut Vec<Row>,
                   failed: &mut bool,
                   name: &str,
                   result: Result<Vec<Row>, String>| match result {
        Ok(r) => rows.extend(r),
        Err(e) => {
            eprintln!("bench {name}: FAILED: {e}");
            *failed = true;
        }
    };
    if all && !some {
        collect(
            &mut rows,
            &mut failed,
            "saxpy",
            saxpy::throughput(&dev, &arch, rounds, numba.as_mut()),
        );
    }
    if all {
        match suite_rows(&dev, &arch, rounds, numba.as_mut()) {
            Ok((r, failures)) => {
                rows.extend(r);
                failed |= failures;
            }
            Err(e) => {
                eprintln!("bench suite: FAILED: {e}");
                failed = true;
            }
        }
    }
    if all && !some {
        collect(
            &mut rows,
            &mut failed,
            "launch cost",
            saxpy::launch_cost(&dev, 30, 500, numba.as_mut()),
        );
        collect(
            &mut rows,
            &mut failed,
            "graph launch cost",
            graph::launch_cost(&dev, 30, 100),
        );
    }
    if !some {
        collect(
            &mut rows,
            &mut failed,
            "first launch",
            first::first_launch(5),
        );
        collect(
            &mut rows,
            &mut failed,
            "cold start",
            saxpy::cold_start(3, numba.is_some()),
        );
    }
    if let Some(n) = numba {
        if let Err(e) = n.quit() {
            eprintln!("bench: {e}");
            failed = true;
        }
    }
    // The bandwidth column: each kernel's bytes read and written per second over the
    // device-to-device copy's, measured in this run.
    let copy = rows
        .iter()
        .find(|r| r.kernel == timing::COPY)
        .map(|r| r.value);
    println!(
        "\n| kernel | contender | value | unit | ratio to reference | vs Numba | GB/s moved | of D2D copy |"
    );
    println!("| --- | --- | ---: | --- | ---: | ---: | ---: | ---: |");
    for r in &rows {
        let of_copy = r.gbs.zip(copy).map(|(g, c)| g / c);
        println!(
            "| {} | {} | {:.2} | {} | {} | {} | {} | {} |",
            r.kernel,
            r.contender,
            r.value,
            r.unit,
            ratio(r.ratio),
            ratio(r.vs_numba),
            r.gbs.map_or_else(|| "—".into(), |g| format!("{g:.0}")),
            ratio(of_copy)
        );
    }
    if failed {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    }
}
