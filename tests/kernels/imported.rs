//! Kernels of one module using the `DeviceCopy` types, `#[device] impl` methods and
//! constants of another (`kernels/model.rs`) and of another crate (`cuprum-device-lib`),
//! imported with `use`.

use cuprum::prelude::*;
use cuprum_device_lib::{Pixel, Tone, GAMMA};

use super::model::{Body, Mode, DT};

/// Steps every body (an imported struct by slice index, by value, methods, an enum, a
/// constant of the type's module).
#[kernel]
pub fn step_bodies(xs: &mut [f32], vs: &mut [f32], modes: &[u16], springs: &[u16], steps: u32) {
    let i = gpu::global_id_x();
    if i < xs.len() {
        let mode = match modes[i] {
            1 => Mode::Still,
            2 => Mode::Drift,
            _ => Mode::Spring,
        };
        let mut b = Body {
            x: xs[i],
            v: vs[i],
            mode,
            spring: springs[i],
        };
        if b.mode == Mode::Still {
            b = Body::at(b.x + 1.0);
        }
        for _ in 0..steps {
            b = b.stepped(DT);
        }
        xs[i] = b.x + energy(b);
        vs[i] = b.v + b.mode as u16 as f32;
    }
}

/// A device function of this module taking an imported type (which it asks for itself, and
/// hands on to the kernels that call it).
#[device]
pub fn energy(b: Body) -> f32 {
    match b.mode {
        Mode::Still => 0.0,
        _ => 0.5 * b.v * b.v * DT,
    }
}

/// A struct and an enum of another crate, by value, with a method and a constant of theirs.
#[kernel]
pub fn shade(out: &mut [f32], xs: &[f32], p: Pixel, tone: Tone) {
    let i = gpu::global_id_x();
    if i < out.len() {
        let q = Pixel {
            r: p.r * xs[i],
            g: p.g,
            b: p.b + xs[i],
        };
        let t = match tone {
            Tone::Dark => 0.5,
            Tone::Light => 2.0,
        };
        out[i] = q.luma() * t + GAMMA;
    }
}
