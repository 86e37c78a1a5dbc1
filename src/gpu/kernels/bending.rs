//! shaders/bending.wgsl (CPU twin cpu/bending.rs): per hinge, the bending
//! channel's update, the hinge's force and linearisation, and Melo's
//! coupling forces.

use super::Build;
use crate::error::Result;
use crate::gpu::context::Module;
use crate::gpu::kernel::Kernel;

pub struct WgBending {
    pub main: Kernel,
}

impl WgBending {
    pub fn new(b: &Build, hinges: usize) -> Result<WgBending> {
        let module = Module::new(b.ctx, "bending")?;
        Ok(WgBending {
            main: b.kernel(&module, "main", hinges)?,
        })
    }
}
