//! All-reduce bus bandwidth through `cuprum::nccl`, 1 MiB … 1 GiB, on every GPU of the
//! machine: one thread per GPU, each one rank (`Comm::from_rank`), as PyTorch runs one process
//! per GPU (`bench/nccl/allreduce_torch.py` measures the same with `torch.distributed`).
//!
//! Both kinds of communicator are measured: non-blocking (Cuprum's default) and blocking.
//! Each size: the result of one all-reduce is checked, then `ROUNDS` rounds of `iters`
//! back-to-back in-place `f32` sums are timed with CUDA events on each rank's stream, after a
//! barrier; a round's time is the slowest rank's, and the table shows the median round.
//! Bus bandwidth is NCCL's: bytes / time × 2 (n − 1) / n.
//!
//! Run on the GPU host through `scripts/nccl-run` (it makes NCCL loadable and keeps NVLink
//! multicast off): `scripts/nccl-run .gpu/bin/bench-bench_nccl [--max-mib 1024] [--rounds 5]`.
//! Prints a table and, for `allreduce_torch.py --cuprum FILE`, one `csv,` line per size.

use std::process::ExitCode;

use cuprum::nccl::{Comm, CommOptions, Id, ReduceOp};
use cuprum::{Device, Error, Result};

/// Median of `v` (not empty).
fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

/// What one rank measured: per size, each round's milliseconds.
fn rank_main(
    rank: usize,
    size: usize,
    id: Id,
    sizes: &[usize],
    rounds: usize,
    blocking: bool,
) -> Result<Vec<Vec<f64>>> {
    let dev = Device::gpu(rank)?;
    let stream = dev.new_stream()?;
    let options = CommOptions::default().blocking(blocking);
    let comm = Comm::from_rank_with(&stream, rank, size, &id, options)?;
    let max = *sizes.iter().max().expect("sizes") / 4;
    let mut buf = stream.to_device(&vec![(rank + 1) as f32; max])?;
    let mut token = stream.to_device(&[0u32])?;
    let mut times = Vec::new();
    for &bytes in sizes {
        let n = bytes / 4;
        // Correctness first: the ranks' values rank + 1 sum to size (size + 1) / 2.
        stream.copy_from_host(&mut buf.slice_mut(..n), &vec![(rank + 1) as f32; n])?;
        comm.all_reduce_in_place(&mut buf.slice_mut(..n), ReduceOp::Sum)?;
        comm.synchronize()?;
        let want = (size * (size + 1) / 2) as f32;
        for k in [0, n / 2, n - 1] {
            let got = stream.to_host(&buf.slice(k..k + 1))?[0];
            if got != want {
                return Err(Error::Nccl(format!(
                    "all_reduce of {bytes} bytes: element {k} is {got}, expected {want}"
                )));
            }
        }
        let iters = ((4usize << 30) / bytes).clamp(20, 500);
        let mut view = buf.slice_mut(..n);
        for _ in 0..5 {
            comm.all_reduce_in_place(&mut view, ReduceOp::Sum)?;
        }
        let mut per_round = Vec::new();
        for _ in 0..rounds {
            comm.all_reduce_in_place(&mut token, ReduceOp::Sum)?;
            comm.synchronize()?;
            let start = stream.record_event()?;
            for _ in 0..iters {
                comm.all_reduce_in_place(&mut view, ReduceOp::Sum)?;
            }
            let end = stream.record_event()?;
            comm.synchronize()?;
            per_round.push(start.elapsed_ms(&end)? as f64 / iters as f64);
        }
        times.push(per_round);
    }
    Ok(times)
}

fn run(max_mib: usize, rounds: usize) -> Result<ExitCode> {
    let gpus = Device::count();
    if gpus < 2 {
        println!("bench_nccl: SKIPPED: all-reduce needs at least 2 GPUs, this machine has {gpus}");
        return Ok(ExitCode::SUCCESS);
    }
    let version = cuprum::nccl::version()?;
    let dev0 = Device::gpu(0)?;
    let sizes: Vec<usize> = (20..=30)
        .map(|s| 1usize << s)
        .filter(|&b| b <= max_mib << 20)
        .collect();
    let mut csv = Vec::new();
    // Non-blocking communicators (Cuprum's default: every wait has a timeout) and blocking
    // ones (what PyTorch uses).
    for (blocking, tag) in [(false, "cuprum"), (true, "cuprum-blocking")] {
        let id = Id::new(&dev0)?;
        let results: Vec<Result<Vec<Vec<f64>>>> = std::thread::scope(|scope| {
            let handles: Vec<_> = (0..gpus)
                .map(|rank| {
                    let sizes = &sizes;
                    scope.spawn(move || rank_main(rank, gpus, id, sizes, rounds, blocking))
                })
                .collect();
            handles
                .into_iter()
                .map(|h| {
                    h.join()
                        .unwrap_or_else(|_| Err(Error::Nccl("a rank's thread panicked".into())))
                })
                .collect()
        });
        let per_rank = results.into_iter().collect::<Result<Vec<_>>>()?;
        println!(
            "bench_nccl: all_reduce (sum, f32, in place), Cuprum over NCCL {}.{}.{} ({} communicators), {gpus} × {}, NCCL_NVLS_ENABLE={}",
            version / 10000,
            (version / 100) % 100,
            version % 100,
            if blocking { "blocking" } else { "non-blocking" },
            dev0.name(),
            std::env::var("NCCL_NVLS_ENABLE").unwrap_or_default()
        );
        println!(
            "{:>10} {:>12} {:>14} {:>14}",
            "size", "time (us)", "algbw (GB/s)", "busbw (GB/s)"
        );
        let factor = 2.0 * (gpus - 1) as f64 / gpus as f64;
        for (i, &bytes) in sizes.iter().enumerate() {
            // A round takes as long as its slowest rank.
            let slowest: Vec<f64> = (0..rounds)
                .map(|r| per_rank.iter().map(|t| t[i][r]).fold(0.0, f64::max))
                .collect();
            let ms = median(slowest);
            let algbw = bytes as f64 / (ms * 1e-3) / 1e9;
            let busbw = algbw * factor;
            println!(
                "{:>6} MiB {:>12.1} {:>14.1} {:>14.1}",
                bytes >> 20,
                ms * 1e3,
                algbw,
                busbw
            );
            csv.push(format!(
                "csv,{tag},{gpus},{bytes},{:.3},{algbw:.2},{busbw:.2}",
                ms * 1e3
            ));
        }
    }
    csv.iter().for_each(|l| println!("{l}"));
    Ok(ExitCode::SUCCESS)
}

fn main() -> ExitCode {
    // NVLink multicast must stay off on the GPU host (set before any thread starts, as
    // changing the environment requires).
    std::env::set_var("NCCL_NVLS_ENABLE", "0");
    let mut max_mib = 1024;
    let mut rounds = 5;
    let args: Vec<String> = std::env::args().skip(1).collect();
    for pair in args.chunks(2) {
        let value = pair.get(1).and_then(|v| v.parse().ok());
        match (pair[0].as_str(), value) {
            ("--max-mib", Some(v)) => max_mib = v,
            ("--rounds", Some(v)) if v > 0 => rounds = v,
            _ => {
                eprintln!("usage: bench_nccl [--max-mib N] [--rounds N]");
                return ExitCode::FAILURE;
            }
        }
    }
    match run(max_mib, rounds) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("bench_nccl: error: {e}");
            ExitCode::FAILURE
        }
    }
}
