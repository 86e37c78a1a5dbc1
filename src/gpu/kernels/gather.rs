//! shaders/gather.wgsl (CPU twin cpu/gather.rs): per vertex, the total force
//! and the inverse diagonal block of the system.

use super::Build;
use crate::error::Result;
use crate::gpu::context::Module;
use crate::gpu::kernel::Kernel;

pub struct WgGather {
    pub main: Kernel,
}

impl WgGather {
    pub fn new(b: &Build, vertices: usize) -> Result<WgGather> {
        let module = Module::new(b.ctx, "gather")?;
        Ok(WgGather {
            main: b.kernel(&module, "main", vertices)?,
        })
    }
}
