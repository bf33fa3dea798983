//! Kernels whose slices and shared arrays hold structs and arrays: `&mut [Body]` with
//! `&mut self` methods writing elements in place, field reads and writes through slices,
//! whole-element loads and stores, 16-byte elements (`[f32; 4]`, `[u32; 4]`, `[f64; 2]`, a
//! `repr(C, align(16))` struct), shared arrays of structs, local arrays of arrays, and device
//! functions taking slices of structs and sub-slices of them.

use cuprum::prelude::*;

/// A body: arrays and scalars (28 bytes, alignment 4).
#[derive(Clone, Copy, Debug, Default, PartialEq, DeviceCopy)]
#[repr(C)]
pub struct Body {
    pub pos: [f32; 3],
    pub vel: [f32; 3],
    pub mass: f32,
}

#[device]
impl Body {
    /// Kinetic energy.
    pub fn kinetic(&self) -> f32 {
        0.5 * self.mass
            * (self.vel[0] * self.vel[0] + self.vel[1] * self.vel[1] + self.vel[2] * self.vel[2])
    }

    /// Moves the body by `dt` in place.
    pub fn step(&mut self, dt: f32) {
        for k in 0..3 {
            self.pos[k] += dt * self.vel[k];
        }
    }
}

/// Fields of every width, a nested struct and a `bool` (no padding: 8 + 4 + 4 + 2 + 1 + 1 +
/// 12 = 32 bytes).
#[derive(Clone, Copy, Debug, Default, PartialEq, DeviceCopy)]
#[repr(C)]
pub struct Probe {
    pub wide: i64,
    pub x: f32,
    pub id: u32,
    pub half: u16,
    pub byte: u8,
    pub flag: bool,
    pub inner: Inner,
}

/// A nested struct.
#[derive(Clone, Copy, Debug, Default, PartialEq, DeviceCopy)]
#[repr(C)]
pub struct Inner {
    pub a: [u16; 2],
    pub b: f32,
    pub c: u32,
}

/// A 16-byte struct aligned to 16: read and written as single 128-bit accesses.
#[derive(Clone, Copy, Debug, Default, PartialEq, DeviceCopy)]
#[repr(C, align(16))]
pub struct Quad {
    pub xyz: [f32; 3],
    pub w: f32,
}

/// `ps[i].step(dt)` (a `&mut self` method writing the element in place), `ps[i].kinetic()`, a
/// field write through the slice (`ps[i].vel[1] = ..`) and a whole-element copy.
#[kernel]
pub fn advance(ps: &mut [Body], energy: &mut [f32], copy: &mut [Body], dt: f32) {
    let i = gpu::global_id_x();
    if i < ps.len() && i < energy.len() && i < copy.len() {
        ps[i].step(dt);
        energy[i] = ps[i].kinetic();
        ps[i].vel[1] = ps[i].vel[1] * 0.5 + ps[i].mass;
        ps[i].mass += 1.0;
        copy[i] = ps[i];
    }
}

/// Every field of a mixed struct written through the slice, from values of the index, and
/// read back from an input slice: the kernel's offsets and stride must be the host's.
#[kernel]
pub fn probe_fields(out: &mut [Probe], input: &[Probe]) {
    let i = gpu::global_id_x();
    if i < out.len() && i < input.len() {
        let k = i as u32;
        out[i].wide = -(i as i64) * 1_000_000_007 + input[i].wide;
        out[i].x = k as f32 * 0.5 + input[i].x;
        out[i].id = k ^ input[i].id;
        out[i].half = (k * 3) as u16 ^ input[i].half;
        out[i].byte = (k * 7) as u8 ^ input[i].byte;
        out[i].flag = (k % 3 == 0) != input[i].flag;
        out[i].inner.a[0] = (k + 1) as u16 ^ input[i].inner.a[1];
        out[i].inner.a[1] = (k + 2) as u16 ^ input[i].inner.a[0];
        out[i].inner.b = input[i].inner.b * 2.0;
        out[i].inner.c = input[i].inner.c.wrapping_add(k);
    }
}

/// 16-byte elements: `[f32; 4]` and a `repr(C, align(16))` struct loaded and stored whole,
/// `[u32; 4]` written lane by lane, `[f64; 2]` read whole.
#[kernel]
pub fn vec4(
    a: &[[f32; 4]],
    q: &[Quad],
    out: &mut [[f32; 4]],
    outq: &mut [Quad],
    bits: &mut [[u32; 4]],
    pairs: &[[f64; 2]],
    sums: &mut [f64],
    s: f32,
) {
    let i = gpu::global_id_x();
    if i < a.len() && i < q.len() && i < out.len() && i < outq.len() {
        let v = a[i];
        let w = q[i];
        out[i] = [
            v[0] * s + w.xyz[0],
            v[1] * s + w.xyz[1],
            v[2] * s + w.xyz[2],
            v[3] * s + w.w,
        ];
        outq[i] = Quad {
            xyz: [v[1], v[2], v[3]],
            w: v[0] + w.w,
        };
    }
    if i < bits.len() {
        let x = i as u32;
        bits[i] = [x, x * 2, x ^ 0xffff, !x];
        bits[i][2] += 1;
    }
    if i < pairs.len() && i < sums.len() {
        let p = pairs[i];
        sums[i] = p[0] * p[1] + p[1];
    }
}

/// A sum of the masses of `bodies` (a device function taking a slice of structs).
#[device]
pub fn total_mass(bodies: &[Body]) -> f32 {
    let mut m = 0.0f32;
    for b in bodies.iter() {
        m += b.mass;
    }
    m
}

/// Adds `d` to the first lane of every element (a device function writing through a slice of
/// arrays).
#[device]
pub fn bump(xs: &mut [[f32; 4]], d: f32) {
    for k in 0..xs.len() {
        xs[k][0] += d;
    }
}

/// Shared memory tiles of structs: each block loads a tile of bodies, then every thread sums
/// the tile's masses weighted by distance along x; device functions on sub-slices.
#[kernel]
pub fn tiles(bodies: &[Body], out: &mut [f32], acc: &mut [[f32; 4]]) {
    let tile = gpu::shared_array::<Body, 64>();
    let t = gpu::thread_idx().x as usize;
    let i = gpu::global_id_x();
    if i < bodies.len() {
        tile[t] = bodies[i];
    } else {
        tile[t] = Body {
            pos: [0.0; 3],
            vel: [0.0; 3],
            mass: 0.0,
        };
    }
    gpu::sync_threads();
    if i < bodies.len() && i < out.len() {
        let me = tile[t];
        let mut s = 0.0f32;
        for j in 0..64 {
            let dx = tile[j].pos[0] - me.pos[0];
            s += tile[j].mass * dx * dx;
        }
        let start = i - t;
        let end = if start + 64 < bodies.len() {
            start + 64
        } else {
            bodies.len()
        };
        out[i] = s + total_mass(&bodies[start..end]);
    }
    if i == 0 {
        bump(&mut acc[1..], 1.5);
    }
}

/// Local arrays of arrays: a 8 x 2 table written by rows and read by columns.
#[kernel]
pub fn local_grid(xs: &[f32], out: &mut [f32]) {
    let i = gpu::global_id_x();
    if i < xs.len() && i < out.len() {
        let mut m = [[0.0f32; 2]; 8];
        for r in 0..8 {
            m[r][0] = xs[i] + r as f32;
            m[r][1] = xs[i] * r as f32;
        }
        let row = m[(i % 8) as usize];
        let mut s = row[0] - row[1];
        for r in 0..8 {
            s += m[r][1] - m[r][0];
        }
        out[i] = s;
    }
}

/// Scales every lane of 16-byte elements (for the alignment check of foreign memory).
#[kernel]
pub fn scale4(xs: &mut [[f32; 4]], s: f32) {
    let i = gpu::global_id_x();
    if i < xs.len() {
        let v = xs[i];
        xs[i] = [v[0] * s, v[1] * s, v[2] * s, v[3] * s];
    }
}

/// Moves every body of `ps` (a device function iterating a sub-slice with `iter_mut`).
#[device]
pub fn step_all(ps: &mut [Body], dt: f32) {
    for p in ps.iter_mut() {
        p.step(dt);
    }
}

/// Pairs reversed within each block through dynamic shared memory of `[f32; 2]` (8-byte
/// elements: one `.v2` access each), lanes swapped; each thread moves its own body through
/// a one-element sub-slice.
#[kernel]
pub fn dyn_pairs(xs: &[[f32; 2]], out: &mut [[f32; 2]], ps: &mut [Body], dt: f32) {
    let s = gpu::dynamic_shared::<[f32; 2]>();
    let t = gpu::thread_idx().x as usize;
    let b = gpu::block_dim().x as usize;
    let i = gpu::global_id_x();
    if i < xs.len() {
        s[t] = xs[i];
    }
    gpu::sync_threads();
    if i < out.len() {
        let v = s[b - 1 - t];
        out[i] = [v[1], v[0]];
    }
    if i < ps.len() {
        step_all(&mut ps[i..i + 1], dt);
    }
}

/// Counts and sums per bin with atomics on a field of a struct element and on a lane of an
/// array element.
#[kernel]
pub fn field_atomics(xs: &[u32], bins: &mut [Probe], lanes: &mut [[u32; 4]]) {
    let i = gpu::global_id_x();
    if i < xs.len() && !bins.is_empty() && !lanes.is_empty() {
        let x = xs[i];
        let b = (x as usize) % bins.len();
        gpu::atomic_add(&mut bins[b].id, 1);
        gpu::atomic_add(&mut bins[b].inner.c, x & 0xff);
        gpu::atomic_max(&mut lanes[b % lanes.len()][(x % 4) as usize], x);
    }
}

/// Copies the three parts of `DeviceBuffer::as_vectors` back into one slice, in order: the
/// head's elements, each vector's lanes (read in one 16-byte access), the tail's elements.
#[kernel(instances(u32))]
pub fn join_parts4<T: gpu::Num>(out: &mut [T], head: &[T], v: &[[T; 4]], tail: &[T]) {
    let i = gpu::global_id_x();
    let body = head.len();
    let rest = body + 4 * v.len();
    if i < head.len() {
        out[i] = head[i];
    }
    if i < v.len() {
        let x = v[i];
        for k in 0..4 {
            out[body + 4 * i + k] = x[k];
        }
    }
    if i < tail.len() {
        out[rest + i] = tail[i];
    }
}

/// `join_parts4` for 8-byte scalars, two lanes a vector.
#[kernel(instances(f64))]
pub fn join_parts2<T: gpu::Num>(out: &mut [T], head: &[T], v: &[[T; 2]], tail: &[T]) {
    let i = gpu::global_id_x();
    let body = head.len();
    let rest = body + 2 * v.len();
    if i < head.len() {
        out[i] = head[i];
    }
    if i < v.len() {
        let x = v[i];
        for k in 0..2 {
            out[body + 2 * i + k] = x[k];
        }
    }
    if i < tail.len() {
        out[rest + i] = tail[i];
    }
}

/// Adds `d` to every element of the three writable parts of `DeviceBuffer::as_vectors_mut`:
/// each vector read and written back in one 16-byte access each.
#[kernel(instances(u32))]
pub fn bump_parts4<T: gpu::Num>(head: &mut [T], v: &mut [[T; 4]], tail: &mut [T], d: T) {
    let i = gpu::global_id_x();
    if i < head.len() {
        head[i] = head[i] + d;
    }
    if i < v.len() {
        let x = v[i];
        v[i] = [x[0] + d, x[1] + d, x[2] + d, x[3] + d];
    }
    if i < tail.len() {
        tail[i] = tail[i] + d;
    }
}

/// `bump_parts4` for 8-byte scalars, two lanes a vector.
#[kernel(instances(f64))]
pub fn bump_parts2<T: gpu::Num>(head: &mut [T], v: &mut [[T; 2]], tail: &mut [T], d: T) {
    let i = gpu::global_id_x();
    if i < head.len() {
        head[i] = head[i] + d;
    }
    if i < v.len() {
        let x = v[i];
        v[i] = [x[0] + d, x[1] + d];
    }
    if i < tail.len() {
        tail[i] = tail[i] + d;
    }
}
