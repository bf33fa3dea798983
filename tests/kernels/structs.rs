//! Kernels that use `#[derive(DeviceCopy)]` structs: parameters by value, locals, field reads
//! and writes, struct literals, and device functions that take and return them.

use cuprum::prelude::*;

/// A particle's state: arrays and scalars of two widths.
#[derive(Clone, Copy, Debug, PartialEq, DeviceCopy)]
#[repr(C)]
pub struct Particle {
    pub pos: [f32; 3],
    pub mass: f32,
    pub vel: [f64; 2],
    pub id: u32,
    pub flags: u32,
}

/// A tuple struct of mixed widths (no padding: 8 + 4 + 2 + 1 + 1).
#[derive(Clone, Copy, Debug, PartialEq, DeviceCopy)]
#[repr(C)]
pub struct Mixed(pub i64, pub f32, pub u16, pub u8, pub bool);

/// A struct parameter by value: every field read.
#[kernel]
pub fn struct_param(out: &mut [f64], p: Particle, m: Mixed) {
    let k = gpu::global_id_x();
    if k < out.len() {
        let i = (k % 3) as usize;
        out[k] = p.pos[i] as f64 * p.mass as f64
            + p.vel[k % 2] * p.id as f64
            + p.flags as f64
            + m.0 as f64
            + m.1 as f64 * (m.2 as f64 + m.3 as f64)
            + if m.4 { 1.0 } else { 0.0 }
            + k as f64;
    }
}

/// Moves the particle by `dt`, through a copy (a device function by value in, by value out).
#[device]
pub fn advanced(p: Particle, dt: f32) -> Particle {
    let mut q = p;
    q.pos[0] = p.pos[0] + p.vel[0] as f32 * dt;
    q.pos[1] = p.pos[1] + p.vel[1] as f32 * dt;
    q.id = p.id + 1;
    q
}

/// Builds a particle from plain arrays with a struct literal.
#[device]
pub fn make(x: f32, y: f32, m: f32, id: u32) -> Particle {
    Particle {
        pos: [x, y, x + y],
        mass: m,
        vel: [x as f64 * 0.5, y as f64 * -0.25],
        id,
        flags: 7,
    }
}

/// Locals, literals (named, numbered and tuple-struct constructors), field writes (`p.pos[0] = ..`) and device functions on structs.
#[kernel]
pub fn struct_locals(out: &mut [f32], ids: &mut [u32], xs: &[f32], ys: &[f32], dt: f32) {
    let k = gpu::global_id_x();
    if k < xs.len() && k < ys.len() && 3 * k + 2 < out.len() && k < ids.len() {
        let p = make(xs[k], ys[k], 2.0, k as u32);
        let mut q = advanced(p, dt);
        q.pos[2] = q.pos[2] * q.mass;
        q.flags = q.flags | 8;
        let z = Mixed {
            0: -3,
            1: 0.5,
            2: 2,
            3: 1,
            4: true,
        };
        out[3 * k] = q.pos[0];
        out[3 * k + 1] = q.pos[1];
        let w = Mixed(-3, 0.25, 1, 1, false);
        out[3 * k + 2] = q.pos[2] + z.1 + w.1;
        ids[k] = q.id * 16 + q.flags;
    }
}

/// A struct holding another struct and an array of them.
#[derive(Clone, Copy, Debug, PartialEq, DeviceCopy)]
#[repr(C)]
pub struct Body {
    pub centre: Particle,
    pub parts: [Mixed; 2],
    pub weight: f64,
}

/// Nested structs and local arrays of structs: fields of fields read and written.
#[kernel]
pub fn nested(out: &mut [f64], b: Body, xs: &[f32]) {
    let k = gpu::global_id_x();
    if k < out.len() && k < xs.len() {
        let mut local = b;
        local.centre.pos[k % 3] = xs[k];
        local.parts[k % 2].1 = xs[k] * 2.0;
        let mut ring = [b.parts[0], b.parts[1], local.parts[0]];
        ring[k % 3].0 = ring[k % 3].0 + k as i64;
        let mut acc = local.weight;
        for j in 0..3 {
            acc = acc + ring[j].0 as f64 + ring[j].1 as f64 + local.centre.pos[j] as f64;
        }
        out[k] = acc + local.parts[k % 2].1 as f64 + local.centre.vel[1];
    }
}

#[device]
impl Particle {
    /// How much of its speed a particle keeps per step.
    pub const KEEP: f64 = 1.0 - 1.0 / 64.0;
    /// Steps per launch.
    pub const STEPS: usize = 2 * 2;

    /// A particle at rest at `(x, y, 0)`.
    pub fn at(x: f32, y: f32, mass: f32) -> Self {
        Self {
            pos: [x, y, 0.0],
            mass,
            vel: [0.0, 0.0],
            id: 0,
            flags: 0,
        }
    }

    /// Kinetic energy.
    pub fn kinetic(&self) -> f64 {
        0.5 * self.mass as f64 * (self.vel[0] * self.vel[0] + self.vel[1] * self.vel[1])
    }

    /// Accelerates by `(ax, ay)` for `dt` and moves.
    pub fn step(&mut self, ax: f64, ay: f64, dt: f32) {
        self.vel[0] = self.vel[0] * Self::KEEP + ax * dt as f64;
        self.vel[1] = self.vel[1] * Self::KEEP + ay * dt as f64;
        self.pos[0] += self.vel[0] as f32 * dt;
        self.pos[1] += self.vel[1] as f32 * dt;
        self.id += 1;
    }

    /// The particle with its mass scaled (by value).
    pub fn scaled(self, k: f32) -> Particle {
        let mut q = self;
        q.mass *= k;
        q
    }
}

/// `#[device] impl` methods (`&self`, `&mut self`, `self`), an associated function and
/// associated constants.
#[kernel]
pub fn methods(out: &mut [f64], xs: &[f32], ys: &[f32], dt: f32) {
    let k = gpu::global_id_x();
    if 2 * k + 1 < out.len() && k < xs.len() && k < ys.len() {
        let mut p = Particle::at(xs[k], ys[k], 1.5).scaled(2.0);
        for _ in 0..Particle::STEPS {
            p.step(xs[k] as f64, -(ys[k] as f64), dt);
        }
        out[2 * k] = p.kinetic();
        out[2 * k + 1] = p.pos[0] as f64 + p.pos[1] as f64 + p.id as f64;
    }
}
