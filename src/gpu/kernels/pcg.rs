//! shaders/pcg.wgsl (CPU twin cpu/pcg.rs): the per-vertex steps of the
//! Jacobi-preconditioned conjugate gradients, filtered by the prescribed
//! rows.

use super::Build;
use crate::error::Result;
use crate::gpu::context::Module;
use crate::gpu::kernel::Kernel;

pub struct WgPcg {
    pub pinned_guess: Kernel,
    pub reference_residual: Kernel,
    pub residual: Kernel,
    pub update: Kernel,
    pub direction: Kernel,
    pub filtered_sums: Kernel,
    pub first_direction: Kernel,
    pub zero_free: Kernel,
}

impl WgPcg {
    pub fn new(b: &Build, vertices: usize) -> Result<WgPcg> {
        let module = Module::new(b.ctx, "pcg")?;
        let k = |entry: &str| b.kernel(&module, entry, vertices);
        Ok(WgPcg {
            pinned_guess: k("pinned_guess")?,
            reference_residual: k("reference_residual")?,
            residual: k("residual")?,
            update: k("update")?,
            direction: k("direction")?,
            filtered_sums: k("filtered_sums")?,
            first_direction: k("first_direction")?,
            zero_free: k("zero_free")?,
        })
    }
}
