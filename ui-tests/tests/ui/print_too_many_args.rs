use cuprum::prelude::*;

#[kernel]
pub fn show(x: &[u32]) {
    let v = x[0];
    gpu::println!(
        "{} {} {} {} {} {} {} {} {} {} {} {} {} {} {} {} {} {} {} {} {} {} {} {} {} {} {} {} {} {} {} {} {}",
        v, v, v, v, v, v, v, v, v, v, v, v, v, v, v, v, v, v, v, v, v, v, v, v, v, v, v, v, v, v, v, v, x[1]
    );
}

fn main() {}
