//! A 2-D Jacobi solver split by rows over several devices: each rank owns a band of rows,
//! and before every step the ranks swap the rows next to their borders (halos) with NCCL
//! `send`/`recv` in one group. The result is checked bit for bit against the same solver run
//! on one device, and both are timed.
//!
//! One process over every GPU (two simulated devices without a GPU):
//!
//! ```text
//! cargo run --release --example jacobi_multi
//! ```
//!
//! One process per GPU (rank and rank count from the arguments, or from `RANK` and
//! `WORLD_SIZE`); rank 0 makes the communicator's id and hands it over through a file:
//!
//! ```text
//! scripts/nccl-run target/release/examples/jacobi_multi --rank 0 --ranks 2 --id-file /tmp/jacobi-$$ &
//! scripts/nccl-run target/release/examples/jacobi_multi --rank 1 --ranks 2 --id-file /tmp/jacobi-$$
//! ```
//!
//! Exits non-zero when the result is wrong.

use std::time::{Duration, Instant};

use cuprum::nccl::{Comm, Group, Id, ReduceOp};
use cuprum::prelude::*;

/// One Jacobi step on a band of `inp.len() / n` rows of an `n`-column grid of `total` rows,
/// whose first row is row `first` of the grid: interior points become the average of their
/// four neighbours (the rows above and below the band come from `above` and `below`), the
/// grid's boundary is copied. Block (32, 8).
#[kernel]
pub fn jacobi_band(
    out: &mut [f32],
    inp: &[f32],
    above: &[f32],
    below: &[f32],
    n: u32,
    first: u32,
    total: u32,
) {
    let j = (gpu::block_idx().x * 32 + gpu::thread_idx().x) as usize;
    let i = (gpu::block_idx().y * 8 + gpu::thread_idx().y) as usize;
    let n = n as usize;
    let rows = inp.len() / n;
    if i < rows && j < n {
        let g = first as usize + i;
        let idx = i * n + j;
        if g == 0 || j == 0 || g == total as usize - 1 || j == n - 1 {
            out[idx] = inp[idx];
        } else {
            let up = if i == 0 { above[j] } else { inp[idx - n] };
            let down = if i == rows - 1 {
                below[j]
            } else {
                inp[idx + n]
            };
            out[idx] = 0.25 * ((up + down) + (inp[idx - 1] + inp[idx + 1]));
        }
    }
}

/// One rank's band: its rows (current and next), its halo rows, and where it sits.
struct Band {
    cur: DeviceBuffer<f32>,
    next: DeviceBuffer<f32>,
    above: DeviceBuffer<f32>,
    below: DeviceBuffer<f32>,
    first: usize,
    rows: usize,
}

/// The problem: an `n × n` grid, `steps` Jacobi steps.
#[derive(Clone, Copy)]
struct Problem {
    n: usize,
    steps: usize,
}

impl Band {
    /// Rows `first..first + rows` of `grid`, on `stream`.
    fn new(stream: &Stream, grid: &[f32], n: usize, first: usize, rows: usize) -> Result<Band> {
        Ok(Band {
            cur: stream.to_device(&grid[first * n..(first + rows) * n])?,
            next: stream.alloc_zeros(rows * n)?,
            above: stream.alloc_zeros(n)?,
            below: stream.alloc_zeros(n)?,
            first,
            rows,
        })
    }

    /// Adds this rank's halo exchange to `group`: its first row to the rank above, its last
    /// row to the rank below, and theirs into `above` and `below`.
    fn exchange<'a>(&'a mut self, group: &mut Group<'a>, comm: &'a Comm, n: usize) -> Result<()> {
        let rank = comm.rank();
        let last = (self.rows - 1) * n;
        if rank > 0 {
            group.send(comm, self.cur.slice(..n), rank - 1)?;
            group.recv(comm, &mut self.above, rank - 1)?;
        }
        if rank + 1 < comm.size() {
            group.send(comm, self.cur.slice(last..), rank + 1)?;
            group.recv(comm, &mut self.below, rank + 1)?;
        }
        Ok(())
    }

    /// One step on `stream` (the halos are current).
    fn step(&mut self, stream: &Stream, p: Problem) -> Result<()> {
        let (n, rows) = (p.n as u32, self.rows as u32);
        launch!(jacobi_band<<<(n.div_ceil(32), rows.div_ceil(8)), (32, 8), stream>>>(
            &mut self.next, &self.cur, &self.above, &self.below, n, self.first as u32, p.n as u32
        ))?;
        std::mem::swap(&mut self.cur, &mut self.next);
        Ok(())
    }
}

/// The bands of `ranks` ranks: as equal as can be, in order.
fn split(n: usize, ranks: usize) -> Vec<(usize, usize)> {
    (0..ranks)
        .map(|r| (r * n / ranks, (r + 1) * n / ranks - r * n / ranks))
        .collect()
}

/// The solver on one device: the reference, and the time to beat.
fn one_device(stream: &Stream, grid: &[f32], p: Problem) -> Result<(Vec<f32>, Duration)> {
    let mut band = Band::new(stream, grid, p.n, 0, p.n)?;
    stream.synchronize()?;
    let start = Instant::now();
    for _ in 0..p.steps {
        band.step(stream, p)?;
    }
    stream.synchronize()?;
    let took = start.elapsed();
    Ok((stream.to_host(&band.cur)?, took))
}

/// The solver over `comms`, all ranks in this process, driven from this thread.
fn all_in_one_process(comms: &[Comm], grid: &[f32], p: Problem) -> Result<(Vec<f32>, Duration)> {
    let mut bands = split(p.n, comms.len())
        .into_iter()
        .zip(comms)
        .map(|((first, rows), c)| Band::new(c.stream(), grid, p.n, first, rows))
        .collect::<Result<Vec<_>>>()?;
    comms.iter().try_for_each(Comm::synchronize)?;
    let start = Instant::now();
    for _ in 0..p.steps {
        let mut group = Group::new();
        for (band, comm) in bands.iter_mut().zip(comms) {
            band.exchange(&mut group, comm, p.n)?;
        }
        group.end()?;
        for (band, comm) in bands.iter_mut().zip(comms) {
            band.step(comm.stream(), p)?;
        }
    }
    comms.iter().try_for_each(Comm::synchronize)?;
    let took = start.elapsed();
    let mut out = Vec::with_capacity(p.n * p.n);
    for (band, comm) in bands.iter().zip(comms) {
        out.extend(comm.stream().to_host(&band.cur)?);
    }
    Ok((out, took))
}

/// This process's rank of the solver; every rank ends with the whole grid (an all-gather).
fn one_rank(comm: &Comm, grid: &[f32], p: Problem) -> Result<(Vec<f32>, Duration)> {
    let (first, rows) = split(p.n, comm.size())[comm.rank()];
    let stream = comm.stream();
    let mut band = Band::new(stream, grid, p.n, first, rows)?;
    // A barrier, so that the clock starts when every rank is ready.
    let mut token = stream.to_device(&[1u32])?;
    comm.all_reduce_in_place(&mut token, ReduceOp::Sum)?;
    comm.synchronize()?;
    let start = Instant::now();
    for _ in 0..p.steps {
        let mut group = Group::new();
        band.exchange(&mut group, comm, p.n)?;
        group.end()?;
        band.step(stream, p)?;
    }
    comm.all_reduce_in_place(&mut token, ReduceOp::Sum)?;
    comm.synchronize()?;
    let took = start.elapsed();
    let mut all = stream.alloc_zeros::<f32>(p.n * p.n)?;
    comm.all_gather(&band.cur, &mut all)?;
    // Every rank has its copy before any process moves on (and may exit).
    comm.all_reduce_in_place(&mut token, ReduceOp::Sum)?;
    comm.synchronize()?;
    Ok((stream.to_host(&all)?, took))
}

/// Where `got` first differs from `want`, bit for bit.
fn check(got: &[f32], want: &[f32], n: usize) -> std::result::Result<(), String> {
    match got
        .iter()
        .zip(want)
        .position(|(g, w)| g.to_bits() != w.to_bits())
    {
        None if got.len() == want.len() => Ok(()),
        None => Err(format!("{} points, expected {}", got.len(), want.len())),
        Some(k) => Err(format!(
            "point ({}, {}): {}, but one device computed {}",
            k / n,
            k % n,
            got[k],
            want[k]
        )),
    }
}

/// `--rank R --ranks N [--id-file PATH]`, or `RANK` and `WORLD_SIZE`.
struct Args {
    rank: Option<usize>,
    ranks: Option<usize>,
    id_file: Option<String>,
}

fn args() -> std::result::Result<Args, String> {
    let mut a = Args {
        rank: std::env::var("RANK").ok().and_then(|v| v.parse().ok()),
        ranks: std::env::var("WORLD_SIZE")
            .ok()
            .and_then(|v| v.parse().ok()),
        id_file: None,
    };
    let mut it = std::env::args().skip(1);
    while let Some(flag) = it.next() {
        let value = it.next().ok_or(format!("{flag} needs a value"))?;
        let number = || {
            value
                .parse::<usize>()
                .map_err(|_| format!("{flag} {value}"))
        };
        match flag.as_str() {
            "--rank" => a.rank = Some(number()?),
            "--ranks" => a.ranks = Some(number()?),
            "--id-file" => a.id_file = Some(value),
            _ => return Err(format!("unknown argument {flag}")),
        }
    }
    Ok(a)
}

/// What a run found: a summary, or what was wrong.
type Verdict = std::result::Result<String, String>;

fn run(args: Args) -> Result<Verdict> {
    let dev = Device::default()?;
    let on_gpu = !dev.is_simulator();
    let large = !cuprum_testkit::small_inputs(&dev);
    let p = |ranks: usize| {
        let n = if large { 16384 } else { 96 };
        Problem {
            // Equal bands, so that an all-gather can put them together.
            n: n / ranks * ranks,
            steps: if large { 100 } else { 20 },
        }
    };
    let ms = |d: Duration| d.as_secs_f64() * 1e3;
    match (args.rank, args.ranks) {
        (Some(rank), Some(ranks)) => {
            if !on_gpu {
                return Ok(Err(
                    "one rank per process needs GPUs: simulated devices live in one process".into(),
                ));
            }
            let p = p(ranks);
            let gpu = Device::gpu(rank % Device::count())?;
            let path = args
                .id_file
                .unwrap_or_else(|| "/tmp/cuprum-jacobi-multi.id".into());
            let id = Id::share_through_file(&path, rank, &gpu, Duration::from_secs(60))?;
            let comm = Comm::from_rank(&gpu.new_stream()?, rank, ranks, &id)?;
            if rank == 0 {
                std::fs::remove_file(&path).ok();
            }
            let grid = shared_grid(&comm, p)?;
            let (got, took) = one_rank(&comm, &grid, p)?;
            if rank != 0 {
                return Ok(Ok(format!("rank {rank} of {ranks} done")));
            }
            let (want, one) = one_device(comm.stream(), &grid, p)?;
            Ok(check(&got, &want, p.n).map(|()| {
                format!(
                    "{ranks} processes, {n}×{n} grid, {s} steps, bit for bit with one GPU; 1 GPU {:.1} ms, {ranks} GPUs {:.1} ms, speedup {:.2}×",
                    ms(one),
                    ms(took),
                    one.as_secs_f64() / took.as_secs_f64(),
                    n = p.n,
                    s = p.steps
                )
            }))
        }
        (None, None) => {
            let devices: Vec<Device> = if on_gpu {
                (0..Device::count())
                    .map(Device::gpu)
                    .collect::<Result<_>>()?
            } else {
                (0..2).map(Device::simulated).collect()
            };
            let p = p(devices.len());
            let streams = devices
                .iter()
                .map(Device::new_stream)
                .collect::<Result<Vec<_>>>()?;
            let comms = Comm::from_devices(&streams)?;
            let grid = cuprum_testkit::random_f32(p.n * p.n, -1.0, 1.0);
            let (want, one) = one_device(&streams[0], &grid, p)?;
            let (got, took) = all_in_one_process(&comms, &grid, p)?;
            Ok(check(&got, &want, p.n).map(|()| {
                format!(
                    "{k} devices in one process, {n}×{n} grid, {s} steps, bit for bit with one device; 1 device {:.1} ms, {k} devices {:.1} ms, speedup {:.2}×",
                    ms(one),
                    ms(took),
                    one.as_secs_f64() / took.as_secs_f64(),
                    k = devices.len(),
                    n = p.n,
                    s = p.steps
                )
            }))
        }
        _ => Ok(Err(
            "give both --rank and --ranks (or RANK and WORLD_SIZE)".into()
        )),
    }
}

/// Rank 0's random grid, broadcast to every rank.
fn shared_grid(comm: &Comm, p: Problem) -> Result<Vec<f32>> {
    let mut grid = if comm.rank() == 0 {
        comm.stream()
            .to_device(&cuprum_testkit::random_f32(p.n * p.n, -1.0, 1.0))?
    } else {
        comm.stream().alloc_zeros(p.n * p.n)?
    };
    comm.broadcast(&mut grid, 0)?;
    comm.synchronize()?;
    comm.stream().to_host(&grid)
}

fn main() -> std::process::ExitCode {
    // NVLink multicast stays off unless the caller chose otherwise (set before any thread
    // starts, as changing the environment requires).
    if std::env::var_os("NCCL_NVLS_ENABLE").is_none() {
        std::env::set_var("NCCL_NVLS_ENABLE", "0");
    }
    let outcome = args()
        .map_err(|e| Error::Collective(format!("usage: {e}")))
        .and_then(run);
    match outcome {
        Ok(Ok(summary)) => {
            println!("jacobi_multi: OK: {summary}");
            std::process::ExitCode::SUCCESS
        }
        Ok(Err(wrong)) => {
            eprintln!("jacobi_multi: WRONG RESULT: {wrong}");
            std::process::ExitCode::FAILURE
        }
        Err(e) => {
            eprintln!("jacobi_multi: error: {e}");
            std::process::ExitCode::FAILURE
        }
    }
}
