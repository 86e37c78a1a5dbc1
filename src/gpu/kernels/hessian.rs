//! shaders/hessian.wgsl (CPU twin cpu/hessian.rs): the matrix-free product
//! `q = A p`, per face and per hinge, then gathered per vertex in one of
//! the three modes.

use super::{Build, MODES};
use crate::error::Result;
use crate::gpu::context::Module;
use crate::gpu::kernel::Kernel;

pub struct WgHessian {
    pub face_product: Kernel,
    pub hinge_product: Kernel,
    /// The gather of a product, per mode ([`MODES`]).
    pub gather: [Kernel; 3],
}

impl WgHessian {
    pub fn new(b: &Build, vertices: usize, faces: usize, hinges: usize) -> Result<WgHessian> {
        let module = Module::new(b.ctx, "hessian")?;
        let gather = |mode: usize| b.product(&module, "gather_product", vertices, MODES[mode]);
        Ok(WgHessian {
            face_product: b.product(&module, "face_product", faces, MODES[1])?,
            hinge_product: b.product(&module, "hinge_product", hinges, MODES[1])?,
            gather: [gather(0)?, gather(1)?, gather(2)?],
        })
    }
}
