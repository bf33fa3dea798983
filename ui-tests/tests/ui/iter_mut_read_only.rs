use cuprum::prelude::*;

#[kernel]
pub fn doubles(x: &[f32]) {
    if gpu::global_id_x() == 0 {
        for v in x.iter_mut() {
            *v *= 2.0;
        }
    }
}

fn main() {}
