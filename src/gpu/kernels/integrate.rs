//! shaders/integrate.wgsl (CPU twin cpu/integrate.rs): the per-vertex steps
//! of the integrator around the solve.

use super::Build;
use crate::error::Result;
use crate::gpu::context::Module;
use crate::gpu::kernel::Kernel;

pub struct WgIntegrate {
    pub constrain: Kernel,
    pub hold_pinned: Kernel,
    pub right_hand_side: Kernel,
    pub reactions: Kernel,
    pub advance_velocity: Kernel,
    pub advance_position: Kernel,
    pub explicit_half: Kernel,
    pub carry: Kernel,
}

impl WgIntegrate {
    pub fn new(b: &Build, vertices: usize) -> Result<WgIntegrate> {
        let module = Module::new(b.ctx, "integrate")?;
        let k = |entry: &str| b.kernel(&module, entry, vertices);
        Ok(WgIntegrate {
            constrain: k("constrain")?,
            hold_pinned: k("hold_pinned")?,
            right_hand_side: k("right_hand_side")?,
            reactions: k("reactions")?,
            advance_velocity: k("advance_velocity")?,
            advance_position: k("advance_position")?,
            explicit_half: k("explicit_half")?,
            carry: k("carry")?,
        })
    }
}
