// Launching with arguments made by hand is `unsafe`: nothing checks them against the
// kernel's parameters.
use cuprum::prelude::*;

#[kernel]
pub fn fill(y: &mut [u32]) {
    let i = gpu::global_id_x();
    if i < y.len() {
        y[i] = 1;
    }
}

fn main() {
    let stream = Device::simulator().default_stream();
    if let cuprum::__private::Backend::Gpu(gpu) = cuprum::__private::backend(&stream) {
        if let Ok(Some(launch)) = gpu.prepare(&fill::INFO, &LaunchConfig::new(1, 1)) {
            let _ = launch.launch(&[]);
        }
    }
}
