use cuprum::prelude::*;

#[kernel(target = "sm_99")]
pub fn future(out: &mut [f32]) {
    out[0] = 1.0;
}

#[kernel(target = sm_90)]
pub fn unquoted(out: &mut [f32]) {
    out[0] = 1.0;
}

fn main() {}
