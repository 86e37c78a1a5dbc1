//! shaders/collide.wgsl (CPU twin cpu/collide.rs): resting contacts for the
//! solve, their release, and the obstacles' response and settling on the
//! scene's signed-distance grids.

use super::Build;
use crate::collide::SdfGrid;
use crate::error::Result;
use crate::gpu::buffers::{Buffers, storage, zeroed};
use crate::gpu::context::{GpuContext, Module};
use crate::gpu::kernel::Kernel;
use crate::gpu::layout::{ObstacleGpu, SdfInfo};
use std::sync::Arc;

pub struct WgCollide {
    /// The grids uploaded (compared by pointer with each step's).
    pub grids: Vec<Arc<SdfGrid>>,
    pub resting: Kernel,
    pub release: Kernel,
    pub respond: Kernel,
    pub settle: Kernel,
}

impl WgCollide {
    /// Uploads every grid of the scene into one buffer (`sdf`, indexed by
    /// `sdf_info`) with room for each obstacle's pose (`obstacles`), then
    /// builds the kernels over `vertices`.
    pub fn new(
        ctx: &GpuContext,
        buffers: &mut Buffers,
        row: u32,
        grids: &[Arc<SdfGrid>],
        vertices: usize,
    ) -> Result<WgCollide> {
        let mut values = Vec::new();
        let mut infos = Vec::new();
        for g in grids {
            let o = g.origin;
            infos.push(SdfInfo {
                origin: [o.x as f32, o.y as f32, o.z as f32, g.cell as f32],
                dims: [g.dims[0], g.dims[1], g.dims[2], values.len() as u32],
            });
            values.extend_from_slice(&g.values);
        }
        buffers.insert("sdf", storage(ctx, "sdf", &values)?);
        buffers.insert("sdf_info", storage(ctx, "sdf_info", &infos)?);
        buffers.insert(
            "obstacles",
            zeroed::<ObstacleGpu>(ctx, "obstacles", grids.len().max(1))?,
        );
        let module = Module::new(ctx, "collide")?;
        let b = Build { ctx, buffers, row };
        let k = |entry: &str| b.kernel(&module, entry, vertices);
        Ok(WgCollide {
            grids: grids.to_vec(),
            resting: k("resting")?,
            release: k("release")?,
            respond: k("respond")?,
            settle: k("settle")?,
        })
    }

    /// Whether these kernels hold exactly `grids`.
    pub fn holds(&self, grids: &[Arc<SdfGrid>]) -> bool {
        self.grids.len() == grids.len() && self.grids.iter().zip(grids).all(|(a, b)| Arc::ptr_eq(a, b))
    }
}
