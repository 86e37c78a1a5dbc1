//! shaders/repulsion.wgsl (CPU twin cpu/repulsion.rs): self-collision, the
//! proximity pairs' springs in the forces, the preconditioner and the PCG's
//! products, and the impulses after the solve.

use super::{Build, MODES};
use crate::error::Result;
use crate::gpu::buffers::{Buffers, uniform, zeroed};
use crate::gpu::context::{GpuContext, Module};
use crate::gpu::kernel::Kernel;
use crate::gpu::layout::{PairGpu, RepulsionParams};
use crate::step::SelfCollision;
use bytemuck::Zeroable;

pub struct WgRepulsion {
    pub pairs_capacity: usize,
    pub forces: Kernel,
    pub precondition: Kernel,
    pub pair_product: Kernel,
    /// The gather of a product, per mode ([`MODES`]).
    pub gather: [Kernel; 3],
    pub pair_impulse: Kernel,
    pub apply_impulses: Kernel,
}

impl WgRepulsion {
    /// Buffers for at least `pairs` pairs (a power of two, and no fewer
    /// than the vertices or 1024) and their incidences, and the kernels.
    pub fn new(
        ctx: &GpuContext,
        buffers: &mut Buffers,
        row: u32,
        vertices: usize,
        pairs: usize,
    ) -> Result<WgRepulsion> {
        let pairs_capacity = pairs.max(vertices).max(1024).next_power_of_two();
        buffers.insert("repulsion", uniform(ctx, "repulsion", &RepulsionParams::zeroed()));
        buffers.insert("pairs", zeroed::<PairGpu>(ctx, "pairs", pairs_capacity)?);
        buffers.insert("pair_offsets", zeroed::<u32>(ctx, "pair_offsets", vertices + 1)?);
        buffers.insert(
            "pair_entries",
            zeroed::<[u32; 2]>(ctx, "pair_entries", 4 * pairs_capacity)?,
        );
        buffers.insert("pair_s", zeroed::<f32>(ctx, "pair_s", pairs_capacity)?);
        buffers.insert("impulse", zeroed::<[f32; 4]>(ctx, "impulse", pairs_capacity)?);
        let module = Module::new(ctx, "repulsion")?;
        let b = Build { ctx, buffers, row };
        let k = |entry: &str, threads: usize| b.product(&module, entry, threads, MODES[1]);
        let gather = |mode: usize| b.product(&module, "gather_product", vertices, MODES[mode]);
        Ok(WgRepulsion {
            pairs_capacity,
            forces: k("forces", vertices)?,
            precondition: k("precondition", vertices)?,
            pair_product: k("pair_product", pairs_capacity)?,
            gather: [gather(0)?, gather(1)?, gather(2)?],
            pair_impulse: k("pair_impulse", pairs_capacity)?,
            apply_impulses: k("apply_impulses", vertices)?,
        })
    }

    /// Uploads a step's springs: `pairs` found (by `WgProximity`),
    /// their constants (`sc`, system factor `scale`), and whether
    /// obstacle-held vertices are immovable (`held`).
    pub fn upload(ctx: &GpuContext, buffers: &Buffers, pairs: usize, sc: &SelfCollision, scale: f64, held: bool) {
        let params = RepulsionParams {
            counts: [pairs as u32, held as u32, 0, 0],
            coef: [
                sc.stiffness as f32,
                sc.thickness as f32,
                sc.friction as f32,
                scale as f32,
            ],
        };
        ctx.queue
            .write_buffer(&buffers["repulsion"], 0, bytemuck::bytes_of(&params));
    }
}
