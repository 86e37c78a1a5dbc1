//! shaders/reduce.wgsl (CPU twin cpu/reduce.rs): the PCG's dot products,
//! summed from the workgroups' partial sums in a fixed order, and its
//! scalar updates and stopping test.

use super::Build;
use crate::error::Result;
use crate::gpu::context::Module;
use crate::gpu::kernel::Kernel;

pub struct WgReduce {
    pub reference: Kernel,
    pub start: Kernel,
    pub alpha: Kernel,
    pub beta: Kernel,
}

impl WgReduce {
    pub fn new(b: &Build) -> Result<WgReduce> {
        let module = Module::new(b.ctx, "reduce")?;
        let k = |entry: &str| b.kernel(&module, entry, 1);
        Ok(WgReduce {
            reference: k("reduce_reference")?,
            start: k("reduce_start")?,
            alpha: k("reduce_alpha")?,
            beta: k("reduce_beta")?,
        })
    }
}
