use cuprum::prelude::*;

#[kernel]
pub fn reserved(__cuprum_args: &mut [f32]) {
    __cuprum_args[0] = 1.0;
}

#[kernel]
pub fn configured(out: &mut [f32], #[cfg(feature = "extra")] extra: f32) {
    out[0] = 1.0;
}

fn main() {}
