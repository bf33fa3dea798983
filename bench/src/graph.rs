//! CUDA graphs: the host time per launch of `N` small saxpy launches replayed from one graph,
//! against the same launches made one by one, each batch timed from the first launch to the
//! stream's end (interleaved, medians).

use std::time::Instant;

use cuprum::prelude::*;

use crate::kernels::saxpy;
use crate::timing::median;
use crate::Row;

/// Rows: one by one (the reference) and replayed from a graph, in µs per launch.
pub fn launch_cost(dev: &Device, batches: usize, per_graph: usize) -> Result<Vec<Row>, String> {
    let err = |e: cuprum::Error| e.to_string();
    let stream = dev.new_stream().map_err(err)?;
    let n = 1024;
    let mut rng = fastrand::Rng::new();
    let x: Vec<f32> = (0..n).map(|_| rng.f32() + 0.5).collect();
    let y: Vec<f32> = (0..n).map(|_| rng.f32() + 0.5).collect();
    let (a, cfg) = (1.0001f32, LaunchConfig::new(4, 256));
    let dx = stream.to_device(&x).map_err(err)?;
    let mut one = stream.to_device(&y).map_err(err)?;
    let mut replayed = stream.to_device(&y).map_err(err)?;
    let mut graph = stream
        .capture(|s| (0..per_graph).try_for_each(|_| saxpy::launch(s, cfg, &mut replayed, &dx, a)))
        .map_err(err)?;
    let (mut one_us, mut graph_us) = (Vec::new(), Vec::new());
    for batch in 0..batches + 2 {
        stream.synchronize().map_err(err)?;
        let t0 = Instant::now();
        for _ in 0..per_graph {
            saxpy::launch(&stream, cfg, &mut one, &dx, a).map_err(err)?;
        }
        stream.synchronize().map_err(err)?;
        let t1 = Instant::now();
        graph.launch().map_err(err)?;
        stream.synchronize().map_err(err)?;
        let t2 = Instant::now();
        if batch >= 2 {
            one_us.push((t1 - t0).as_secs_f64() * 1e6 / per_graph as f64);
            graph_us.push((t2 - t1).as_secs_f64() * 1e6 / per_graph as f64);
        }
    }
    drop(graph);
    // Never time zeros: both ran the same launches, so both hold the same values.
    if stream.to_host(&one).map_err(err)? != stream.to_host(&replayed).map_err(err)? {
        return Err("the graph's replays computed something else than the launches".into());
    }
    let (o, g) = (median(&mut one_us), median(&mut graph_us));
    let what = format!("launch cost, {per_graph} saxpy launches to completion");
    Ok(vec![
        Row::new(&what, "Cuprum, one by one", o, "us/launch", Some(o), None),
        Row::new(&what, "Cuprum, graph replay", g, "us/launch", Some(o), None),
    ])
}
