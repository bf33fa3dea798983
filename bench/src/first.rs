//! First-launch latency: the host time of a kernel's first launch in a process (the driver
//! loading its module, which compiles the embedded PTX to SASS, then the launch) and of its
//! second launch, each through `synchronize`, on small inputs. Measured in a child process per
//! run (`bench --first`), with the driver's JIT cache off (`CUDA_CACHE_DISABLE=1`: what a
//! first run on a fresh machine pays) and on (what later runs pay once the cache holds the
//! kernel).

use std::process::Command;
use std::time::Instant;

use cuprum::prelude::*;

use crate::kernels::*;
use crate::timing::median;
use crate::Row;

/// One kernel's first and second launch, in milliseconds.
fn time_two(
    mut launch: impl FnMut() -> cuprum::Result<()>,
    stream: &Stream,
) -> Result<(f64, f64), String> {
    let mut ms = [0.0; 2];
    for m in &mut ms {
        let t = Instant::now();
        launch()
            .and_then(|()| stream.synchronize())
            .map_err(|e| e.to_string())?;
        *m = t.elapsed().as_secs_f64() * 1e3;
    }
    Ok((ms[0], ms[1]))
}

/// The child: prints `first <kernel> <first ms> <second ms>` for each suite kernel.
pub fn child() -> Result<(), String> {
    let err = |e: cuprum::Error| e.to_string();
    let dev = Device::gpu(0).map_err(err)?;
    let s = dev.default_stream();
    let mut rng = fastrand::Rng::new();
    let f32s = |n: usize, rng: &mut fastrand::Rng| -> Vec<f32> {
        (0..n).map(|_| 0.5 + rng.f32()).collect()
    };
    let u32s =
        |n: usize, rng: &mut fastrand::Rng| -> Vec<u32> { (0..n).map(|_| rng.u32(1..)).collect() };
    let (x, y) = (
        s.to_device(&f32s(1024, &mut rng)).map_err(err)?,
        s.to_device(&f32s(1024, &mut rng)).map_err(err)?,
    );
    let mut out = s.to_device(&f32s(1024, &mut rng)).map_err(err)?;
    let mut out2 = s.to_device(&f32s(1024, &mut rng)).map_err(err)?;
    let data = s.to_device(&u32s(1024, &mut rng)).map_err(err)?;
    let mut bins = s.alloc_zeros::<u32>(1024).map_err(err)?;
    let print = |name: &str, (a, b): (f64, f64)| println!("first {name} {a:.3} {b:.3}");
    print(
        "saxpy",
        time_two(
            || saxpy::launch(&s, LaunchConfig::new(4, 256), &mut out, &x, 1.5),
            &s,
        )?,
    );
    print(
        "reduce_sum",
        time_two(
            || reduce_sum::launch(&s, LaunchConfig::new(4, 256), &mut out, &x),
            &s,
        )?,
    );
    print(
        "histogram",
        time_two(
            || histogram::launch(&s, LaunchConfig::new(4, 256), &mut bins, &data),
            &s,
        )?,
    );
    print(
        "transpose",
        time_two(
            || transpose::launch(&s, LaunchConfig::new(1, (32, 8)), &mut out, &x, 32, 32),
            &s,
        )?,
    );
    print(
        "sgemm_tiled",
        time_two(
            || {
                sgemm::launch(
                    &s,
                    LaunchConfig::new(1, (32, 32)),
                    &mut out,
                    &x,
                    &y,
                    32,
                    32,
                    32,
                )
            },
            &s,
        )?,
    );
    print(
        "block_scan",
        time_two(
            || {
                block_scan::launch(
                    &s,
                    LaunchConfig::new(1, 512).with_shared_bytes(4096),
                    &mut bins,
                    &data,
                )
            },
            &s,
        )?,
    );
    print(
        "softmax_rows",
        time_two(
            || softmax::launch(&s, LaunchConfig::new(1, 256), &mut out, &x, 1024),
            &s,
        )?,
    );
    print(
        "jacobi_2d",
        time_two(
            || jacobi::launch(&s, LaunchConfig::new(1, (32, 8)), &mut out, &x, 32),
            &s,
        )?,
    );
    let (t, sp) = (&y, &x);
    print(
        "black_scholes",
        time_two(
            || {
                black_scholes::launch(
                    &s,
                    LaunchConfig::new(4, 256),
                    &mut out,
                    &mut out2,
                    sp,
                    sp,
                    t,
                    0.02,
                    0.3,
                )
            },
            &s,
        )?,
    );
    Ok(())
}

/// Runs the child `runs` times with the JIT cache off and `runs` times with it on (after one
/// run that fills it), and reports the medians per kernel.
pub fn first_launch(runs: usize) -> Result<Vec<Row>, String> {
    let exe = std::env::current_exe().map_err(|e| format!("finding this binary: {e}"))?;
    let cache_dir =
        std::env::temp_dir().join(format!("cuprum-bench-jit-cache-{}", std::process::id()));
    let run = |cache: bool| -> Result<Vec<(String, f64, f64)>, String> {
        let mut cmd = Command::new(&exe);
        cmd.arg("--first");
        if cache {
            cmd.env("CUDA_CACHE_PATH", &cache_dir)
                .env_remove("CUDA_CACHE_DISABLE");
        } else {
            cmd.env("CUDA_CACHE_DISABLE", "1");
        }
        let out = cmd
            .output()
            .map_err(|e| format!("running bench --first: {e}"))?;
        if !out.status.success() {
            return Err(format!(
                "bench --first failed: {}",
                String::from_utf8_lossy(&out.stderr)
            ));
        }
        let text = String::from_utf8_lossy(&out.stdout);
        Ok(text
            .lines()
            .filter_map(|l| {
                let mut w = l.split_whitespace();
                (w.next()? == "first").then_some(())?;
                Some((
                    w.next()?.to_string(),
                    w.next()?.parse().ok()?,
                    w.next()?.parse().ok()?,
                ))
            })
            .collect())
    };
    let mut cold: Vec<Vec<(String, f64, f64)>> = Vec::new();
    let mut warm = Vec::new();
    run(true)?; // fills the cache
    for _ in 0..runs {
        cold.push(run(false)?);
        warm.push(run(true)?);
    }
    let _ = std::fs::remove_dir_all(&cache_dir);
    let mut rows = Vec::new();
    let names: Vec<String> = cold[0].iter().map(|(n, _, _)| n.clone()).collect();
    for (k, name) in names.iter().enumerate() {
        let mut c: Vec<f64> = cold.iter().map(|r| r[k].1).collect();
        let mut w: Vec<f64> = warm.iter().map(|r| r[k].1).collect();
        let mut second: Vec<f64> = cold.iter().map(|r| r[k].2).collect();
        rows.push(Row::new(
            name,
            "Cuprum first launch, JIT cache off",
            median(&mut c),
            "ms",
            None,
            None,
        ));
        rows.push(Row::new(
            name,
            "Cuprum first launch, JIT cache warm",
            median(&mut w),
            "ms",
            None,
            None,
        ));
        rows.push(Row::new(
            name,
            "Cuprum second launch",
            median(&mut second),
            "ms",
            None,
            None,
        ));
    }
    Ok(rows)
}
