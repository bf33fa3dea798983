// Launching with arguments pushed by hand is `unsafe`: nothing checks them against the
// kernel's parameters.
use cuprum::prelude::*;

#[kernel]
pub fn fill(y: &mut [u32]) {
    let i = gpu::global_id_x();
    if i < y.len() {
        y[i] = 1;
    }
}

static CACHE: cuprum::__private::FunctionCache = cuprum::__private::FunctionCache::new();

fn main() {
    let stream = Device::simulator().default_stream();
    if let cuprum::__private::Backend::Gpu(gpu) = cuprum::__private::backend(&stream) {
        if let Ok(Some(launch)) = gpu.prepare(&CACHE, &fill::INFO, &LaunchConfig::new(1, 1)) {
            let args = launch.builder();
            let _ = launch.finish(args);
        }
    }
}
