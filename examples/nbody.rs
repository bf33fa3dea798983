//! All-pairs N-body: one step of gravitational motion for `Particle`s, a `#[derive(DeviceCopy)]`
//! struct with `#[device] impl` methods. Each block loads tiles of particles into shared memory
//! (`gpu::shared_array::<Particle, TILE>()`) and every thread sums the pull of the tile on its
//! own particle, with a softening length per kind of particle from a constant table; then
//! `dst[i].step(acc, dt)` moves the particle in place, and a second kernel computes the
//! kinetic energies.
//!
//! Run: `cargo run --release --example nbody`. Exits non-zero when the result is wrong.

use cuprum::prelude::*;

/// Particles per shared-memory tile (and threads per block).
const TILE: usize = 128;

/// The squared softening length of each kind of particle (a table in constant memory).
static SOFTENING: [f32; 4] = [0.01, 0.02, 0.04, 0.08];

/// A particle: position and mass first (16 bytes), then velocity and kind.
#[derive(Clone, Copy, Debug, Default, PartialEq, DeviceCopy)]
#[repr(C)]
pub struct Particle {
    pub pos: [f32; 3],
    pub mass: f32,
    pub vel: [f32; 3],
    pub kind: u32,
}

#[device]
impl Particle {
    /// The acceleration `other` causes on `self`, softened by `eps2`.
    pub fn pull(&self, other: &Particle, eps2: f32) -> [f32; 3] {
        let d = [
            other.pos[0] - self.pos[0],
            other.pos[1] - self.pos[1],
            other.pos[2] - self.pos[2],
        ];
        let r2 = d[0] * d[0] + d[1] * d[1] + d[2] * d[2] + eps2;
        let inv = 1.0 / r2.sqrt();
        let s = other.mass * inv * inv * inv;
        [d[0] * s, d[1] * s, d[2] * s]
    }

    /// Moves the particle for `dt` under acceleration `acc` (semi-implicit Euler).
    pub fn step(&mut self, acc: [f32; 3], dt: f32) {
        self.vel[0] += acc[0] * dt;
        self.vel[1] += acc[1] * dt;
        self.vel[2] += acc[2] * dt;
        self.pos[0] += self.vel[0] * dt;
        self.pos[1] += self.vel[1] * dt;
        self.pos[2] += self.vel[2] * dt;
    }

    /// Kinetic energy.
    pub fn kinetic(&self) -> f32 {
        0.5 * self.mass
            * (self.vel[0] * self.vel[0] + self.vel[1] * self.vel[1] + self.vel[2] * self.vel[2])
    }
}

/// One step: `dst[i]` is `src[i]` moved by the pull of every particle of `src`.
#[kernel]
pub fn nbody_step(dst: &mut [Particle], src: &[Particle], dt: f32) {
    let tile = gpu::shared_array::<Particle, TILE>();
    let t = gpu::thread_idx().x as usize;
    let i = gpu::global_id_x();
    let n = src.len();
    let none = Particle {
        pos: [0.0; 3],
        mass: 0.0,
        vel: [0.0; 3],
        kind: 0,
    };
    let me = if i < n { src[i] } else { none };
    let eps2 = SOFTENING[(me.kind % 4) as usize];
    let mut acc = [0.0f32; 3];
    let mut base = 0;
    while base < n {
        // Past the end the tile holds massless particles, which pull nothing.
        tile[t] = if base + t < n { src[base + t] } else { none };
        gpu::sync_threads();
        for k in 0..TILE {
            let a = me.pull(&tile[k], eps2);
            acc[0] += a[0];
            acc[1] += a[1];
            acc[2] += a[2];
        }
        gpu::sync_threads();
        base += TILE;
    }
    if i < n && i < dst.len() {
        dst[i] = me;
        dst[i].step(acc, dt);
    }
}

/// The kinetic energy of each particle.
#[kernel]
pub fn kinetic_energy(energy: &mut [f32], ps: &[Particle]) {
    let i = gpu::global_id_x();
    if i < ps.len() && i < energy.len() {
        energy[i] = ps[i].kinetic();
    }
}

/// Random particles in a unit cube, at rest-ish, of four kinds.
pub fn inputs(dev: &Device) -> Vec<Particle> {
    let n = if dev.is_simulator() { 1000 } else { 32768 };
    let mut r = fastrand::Rng::new();
    (0..n)
        .map(|_| Particle {
            pos: [
                r.f32() * 2.0 - 1.0,
                r.f32() * 2.0 - 1.0,
                r.f32() * 2.0 - 1.0,
            ],
            mass: r.f32() / n as f32 + 1e-4,
            vel: [
                r.f32() * 0.2 - 0.1,
                r.f32() * 0.2 - 0.1,
                r.f32() * 0.2 - 0.1,
            ],
            kind: r.u32(0..4),
        })
        .collect()
}

/// The time step.
pub const DT: f32 = 0.01;

/// One step and the energies afterwards, on `stream`'s device.
pub fn compute(stream: &Stream, ps: &[Particle]) -> Result<(Vec<Particle>, Vec<f32>)> {
    let src = stream.to_device(ps)?;
    let mut dst = stream.alloc_zeros::<Particle>(ps.len())?;
    let blocks = ps.len().div_ceil(TILE) as u32;
    launch!(nbody_step<<<blocks, TILE as u32, stream>>>(&mut dst, &src, DT))?;
    let mut energy = stream.alloc_zeros::<f32>(ps.len())?;
    launch!(kinetic_energy<<<blocks, TILE as u32, stream>>>(&mut energy, &dst))?;
    Ok((stream.to_host(&dst)?, stream.to_host(&energy)?))
}

/// Checks one step and the energies against an f64 reference on the host. The sum of `n`
/// pulls in f32 (in another order, with fused multiply-adds) is within a few `n`-scaled
/// units in the last place of the sum of their magnitudes; each particle's velocity is held
/// to that, times `dt`, and its position to that times `dt²`.
pub fn check(
    ps: &[Particle],
    got: &[Particle],
    energy: &[f32],
) -> std::result::Result<String, String> {
    let n = ps.len();
    if got.len() != n || energy.len() != n {
        return Err(format!(
            "{} particles and {} energies for {n}",
            got.len(),
            energy.len()
        ));
    }
    let dt = DT as f64;
    for (i, me) in ps.iter().enumerate() {
        let eps2 = SOFTENING[(me.kind % 4) as usize] as f64;
        let (mut acc, mut scale) = ([0.0f64; 3], 0.0f64);
        for o in ps {
            let d: Vec<f64> = (0..3).map(|k| o.pos[k] as f64 - me.pos[k] as f64).collect();
            let r2 = d[0] * d[0] + d[1] * d[1] + d[2] * d[2] + eps2;
            let s = o.mass as f64 / (r2 * r2.sqrt());
            for k in 0..3 {
                acc[k] += d[k] * s;
                scale += (d[k] * s).abs();
            }
        }
        let tol_v = 1e-6 * (n as f64).sqrt() * scale * dt + 1e-6;
        let g = &got[i];
        let mut vel = [0.0f64; 3];
        for k in 0..3 {
            vel[k] = me.vel[k] as f64 + acc[k] * dt;
            let pos = me.pos[k] as f64 + vel[k] * dt;
            if (g.vel[k] as f64 - vel[k]).abs() > tol_v {
                return Err(format!(
                    "particle {i}: velocity {k} is {}, expected {}",
                    g.vel[k], vel[k]
                ));
            }
            if (g.pos[k] as f64 - pos).abs() > tol_v * dt + 1e-6 * (1.0 + pos.abs()) {
                return Err(format!(
                    "particle {i}: position {k} is {}, expected {pos}",
                    g.pos[k]
                ));
            }
        }
        if (g.mass, g.kind) != (me.mass, me.kind) {
            return Err(format!("particle {i}: mass or kind changed: {g:?}"));
        }
        let e = 0.5 * g.mass as f64 * g.vel.iter().map(|&v| v as f64 * v as f64).sum::<f64>();
        if (energy[i] as f64 - e).abs() > 1e-5 * e + 1e-12 {
            return Err(format!(
                "particle {i}: kinetic energy {}, expected {e}",
                energy[i]
            ));
        }
    }
    Ok(format!("{n} particles, one step"))
}

/// Runs the example on `dev`.
pub fn run(dev: &Device) -> Result<std::result::Result<String, String>> {
    let ps = inputs(dev);
    let (got, energy) = compute(&dev.default_stream(), &ps)?;
    Ok(check(&ps, &got, &energy))
}

fn main() -> std::process::ExitCode {
    cuprum_testkit::example_main("nbody", run)
}
