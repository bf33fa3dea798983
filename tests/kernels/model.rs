//! User types and constants of one module, used by the kernels of another
//! (`kernels/imported.rs`) through `use`.

use cuprum::prelude::*;

/// How strongly a body is pulled back: used by kernels that import it by name.
pub const DT: f32 = 0.125;

/// A table the imported type's methods read.
pub const SPRING: [f32; 3] = [0.5, 1.0, 2.0];

/// What a body does each step.
#[derive(Clone, Copy, Debug, PartialEq, DeviceCopy)]
#[repr(u16)]
pub enum Mode {
    Still = 1,
    Drift = 2,
    Spring = 4,
}

/// A body on a line (position, velocity, mode, a spring index; 4 + 4 + 2 + 2 bytes).
#[derive(Clone, Copy, Debug, PartialEq, DeviceCopy)]
#[repr(C)]
pub struct Body {
    pub x: f32,
    pub v: f32,
    pub mode: Mode,
    pub spring: u16,
}

#[device]
impl Body {
    /// The body after one step of `dt`.
    pub fn stepped(&self, dt: f32) -> Body {
        let mut b = *self;
        match self.mode {
            Mode::Still => {}
            Mode::Drift => b.x += b.v * dt,
            Mode::Spring => {
                b.v -= SPRING[(self.spring % 3) as usize] * b.x * dt;
                b.x += b.v * dt;
            }
        }
        b
    }

    /// A body at rest at `x`.
    pub fn at(x: f32) -> Body {
        Body {
            x,
            v: 0.0,
            mode: Mode::Still,
            spring: 0,
        }
    }
}
