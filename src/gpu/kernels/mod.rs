//! One file per shader: its pipelines, bound to the backend's buffers by
//! name. The always-present kernels are built with the backend; those of
//! obstacles, self-collision and strain limiting when a step first needs
//! them (they own buffers of their own).

mod bending;
mod collide;
mod gather;
mod hessian;
mod integrate;
mod membrane;
mod multilevel;
mod pcg;
mod proximity;
mod reduce;
mod repulsion;
mod scan;
mod shape_operator;
mod strain_limit;

pub use bending::WgBending;
pub use collide::WgCollide;
pub use gather::WgGather;
pub use hessian::WgHessian;
pub use integrate::WgIntegrate;
pub use membrane::WgMembrane;
pub use multilevel::WgMultilevel;
pub use pcg::WgPcg;
pub use proximity::WgProximity;
pub use reduce::WgReduce;
pub use repulsion::WgRepulsion;
pub use shape_operator::WgShapeOperator;
pub use strain_limit::WgStrainLimit;

use super::buffers::Buffers;
use super::context::{GpuContext, Module};
use super::kernel::Kernel;
use crate::error::Result;

/// What building a kernel needs: the device, the buffers it binds, and the
/// dispatch row (workgroups along x before wrapping onto y).
pub struct Build<'a> {
    pub ctx: &'a GpuContext,
    pub buffers: &'a Buffers,
    pub row: u32,
}

impl Build<'_> {
    pub fn kernel(&self, module: &Module, entry: &str, threads: usize) -> Result<Kernel> {
        Kernel::new(self.ctx, module, entry, threads, self.row, self.buffers, &[])
    }

    /// A kernel bound like [`Build::kernel`], but with its `mode` uniform
    /// (the product's mode) the buffer named `mode`.
    pub fn product(&self, module: &Module, entry: &str, threads: usize, mode: &str) -> Result<Kernel> {
        let overrides = [("mode", &self.buffers[mode])];
        Kernel::new(self.ctx, module, entry, threads, self.row, self.buffers, &overrides)
    }
}

/// The product modes, in the order of `WgHessian::gather` and
/// `WgRepulsion::gather`: `S v`, plain `A p`, the PCG's filtered `A p`.
pub const MODES: [&str; 3] = ["mode_rhs", "mode_plain", "mode_pcg"];
pub const RHS: usize = 0;
pub const PLAIN: usize = 1;
pub const PCG: usize = 2;

/// The kernels every step runs.
pub struct Kernels {
    pub membrane: WgMembrane,
    pub bending: WgBending,
    pub gather: WgGather,
    pub hessian: WgHessian,
    pub pcg: WgPcg,
    pub reduce: WgReduce,
    pub integrate: WgIntegrate,
}

impl Kernels {
    /// `n` vertices, `nf` faces, `nh` hinges.
    pub fn new(b: &Build, n: usize, nf: usize, nh: usize) -> Result<Kernels> {
        Ok(Kernels {
            membrane: WgMembrane::new(b, nf)?,
            bending: WgBending::new(b, nh)?,
            gather: WgGather::new(b, n)?,
            hessian: WgHessian::new(b, n, nf, nh)?,
            pcg: WgPcg::new(b, n)?,
            reduce: WgReduce::new(b)?,
            integrate: WgIntegrate::new(b, n)?,
        })
    }
}
