//! shaders/shape_operator.wgsl (CPU twins: the coupling passes of
//! cpu/bending.rs and cpu/hessian.rs): the shape operator's hinge coupling
//! in the forces and in the products, when the cloth's bending model is
//! the shape operator.

use super::Build;
use crate::error::Result;
use crate::gpu::context::Module;
use crate::gpu::kernel::Kernel;

pub struct WgShapeOperator {
    pub forces: Kernel,
    pub product: Kernel,
}

impl WgShapeOperator {
    pub fn new(b: &Build, hinges: usize) -> Result<WgShapeOperator> {
        let module = Module::new(b.ctx, "shape_operator")?;
        Ok(WgShapeOperator {
            forces: b.kernel(&module, "forces", hinges)?,
            product: b.kernel(&module, "product", hinges)?,
        })
    }
}
