use cuprum::prelude::*;

#[kernel]
pub fn syntax(out: &mut [f32], n: u32) {
    match n {
        0 => out[0] = 1.0,
        _ => {}
    }
    println!("n = {}", n);
    let s = "text";
    let r = &out[0];
}

fn main() {}
