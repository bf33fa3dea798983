use cuprum::prelude::*;

#[derive(Clone, Copy, DeviceCopy)]
#[repr(C)]
pub struct Body {
    pub pos: [f32; 3],
    pub mass: f32,
}

#[device]
impl Body {
    pub fn step(&mut self, dt: f32) {
        self.pos[0] += dt;
    }
}

#[kernel]
pub fn tuple_elements(xs: &[(f32, u32)], out: &mut [f32]) {
    out[0] = xs[0].0;
}

#[kernel]
pub fn nested_slices(xs: &[&[f32]], out: &mut [f32]) {
    out[0] = 0.0;
}

#[kernel]
pub fn field_of_read_only(ps: &[Body]) {
    ps[0].mass = 1.0;
}

#[kernel]
pub fn method_on_read_only(ps: &[Body], dt: f32) {
    ps[0].step(dt);
}

#[kernel]
pub fn element_as_scalar(ps: &mut [Body], out: &mut [f32]) {
    out[0] = ps[0];
}

#[kernel]
pub fn atomic_on_struct(ps: &mut [Body]) {
    gpu::atomic_add(&mut ps[0], 1.0);
}

#[kernel]
pub fn shared_tuples(out: &mut [f32]) {
    let s = gpu::shared_array::<(f32, f32), 4>();
    out[0] = s[0].0;
}

fn main() {}
