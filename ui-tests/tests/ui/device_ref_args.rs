use cuprum::prelude::*;

#[device]
pub fn fill(v: &mut [f32], value: f32) {
    for e in v.iter_mut() {
        *e = value;
    }
}

#[device]
pub fn bump(m: &mut f32) {
    *m += 1.0;
}

#[kernel]
pub fn read_only_part(out: &mut [f32]) {
    let tile = gpu::shared_array::<f32, 64>();
    fill(&tile[..32], 1.0);
    out[0] = tile[0];
}

#[kernel]
pub fn not_mut(out: &mut [f32]) {
    let mut m = 0.0;
    bump(&m);
    out[0] = m;
}

fn main() {}
