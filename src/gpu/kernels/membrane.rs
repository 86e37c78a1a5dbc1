//! shaders/membrane.wgsl (CPU twin cpu/membrane.rs): per face, the in-plane
//! channels' update and the StVK stress and linearisation.

use super::Build;
use crate::error::Result;
use crate::gpu::context::Module;
use crate::gpu::kernel::Kernel;

pub struct WgMembrane {
    pub main: Kernel,
}

impl WgMembrane {
    pub fn new(b: &Build, faces: usize) -> Result<WgMembrane> {
        let module = Module::new(b.ctx, "membrane")?;
        Ok(WgMembrane {
            main: b.kernel(&module, "main", faces)?,
        })
    }
}
