//! The benchmark harness: each kernel as Cuprum, as CUDA C++ compiled by `nvcc -O3` on the
//! GPU host, on the same random data and launch shape, interleaved, timed with CUDA events,
//! medians. Prints a table. Run on a GPU machine: `.gpu/run bench` after `gpu-pack`.
//!
//! `bench [ROUNDS]`: rounds of interleaved timing per kernel (default 30).

mod nvcc;
mod saxpy;
mod timing;

use std::process::ExitCode;

use cuprum::Device;

/// One line of the results table.
pub struct Row {
    kernel: String,
    contender: String,
    value: f64,
    unit: &'static str,
    /// Value relative to the reference (throughput: ours / reference; cost: ours / reference).
    ratio: f64,
}

impl Row {
    fn throughput(
        kernel: &str,
        contender: &str,
        value: f64,
        unit: &'static str,
        reference: f64,
    ) -> Row {
        Row {
            kernel: kernel.into(),
            contender: contender.into(),
            value,
            unit,
            ratio: value / reference,
        }
    }

    fn cost(kernel: &str, contender: &str, us: f64, reference: f64) -> Row {
        Row {
            kernel: kernel.into(),
            contender: contender.into(),
            value: us,
            unit: "us/launch",
            ratio: us / reference,
        }
    }
}

fn main() -> ExitCode {
    let rounds: usize = std::env::args()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(30);
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
    let mut rows = Vec::new();
    let mut failed = false;
    for (name, result) in [
        ("saxpy", saxpy::throughput(&dev, &arch, rounds)),
        ("launch cost", saxpy::launch_cost(&dev, 30, 500)),
    ] {
        match result {
            Ok(r) => rows.extend(r),
            Err(e) => {
                eprintln!("bench {name}: FAILED: {e}");
                failed = true;
            }
        }
    }
    println!("\n| kernel | contender | value | unit | ratio to reference |");
    println!("| --- | --- | ---: | --- | ---: |");
    for r in &rows {
        println!(
            "| {} | {} | {:.2} | {} | {:.3} |",
            r.kernel, r.contender, r.value, r.unit, r.ratio
        );
    }
    if failed {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    }
}
