//! shaders/strain_limit.wgsl (CPU twin cpu/strain_limit.rs): Bridson 2003
//! §3 strain limiting, Jacobi sweeps over the edges through their CSR
//! incidence.

use super::Build;
use crate::cloth::Cloth;
use crate::error::Result;
use crate::gpu::buffers::{Buffers, storage, uniform, zeroed};
use crate::gpu::context::{GpuContext, Module};
use crate::gpu::kernel::Kernel;
use crate::gpu::layout::{LimitEdge, LimitParams};
use crate::step::StrainLimit;
use bytemuck::Zeroable;

pub struct WgStrainLimit {
    pub edge_request: Kernel,
    pub apply_requests: Kernel,
}

impl WgStrainLimit {
    /// Uploads the cloth's edges (`limit_edges`, with their rest vectors)
    /// and their incidence, and builds the kernels.
    pub fn new(ctx: &GpuContext, buffers: &mut Buffers, row: u32, cloth: &Cloth) -> Result<WgStrainLimit> {
        let topo = &cloth.topology;
        let rest = &cloth.mesh.positions;
        let edges: Vec<LimitEdge> = topo
            .edges
            .iter()
            .zip(&cloth.edge_rest)
            .map(|(&[a, b], &l)| {
                let d = rest[b as usize] - rest[a as usize];
                LimitEdge {
                    ends: [a, b, ((d.length_squared() - l * l) as f32).to_bits(), 0],
                    rest: [d.x as f32, d.y as f32, d.z as f32, l as f32],
                }
            })
            .collect();
        let entries: Vec<[u32; 2]> = topo.vertex_edges.entries.iter().map(|&(e, end)| [e, end]).collect();
        buffers.insert("limit_params", uniform(ctx, "limit_params", &LimitParams::zeroed()));
        buffers.insert("limit_edges", storage(ctx, "limit_edges", &edges)?);
        buffers.insert(
            "edge_offsets",
            storage(ctx, "edge_offsets", &topo.vertex_edges.offsets)?,
        );
        buffers.insert("edge_entries", storage(ctx, "edge_entries", &entries)?);
        buffers.insert(
            "limit_request",
            zeroed::<[f32; 4]>(ctx, "limit_request", topo.edges.len())?,
        );
        let module = Module::new(ctx, "strain_limit")?;
        let b = Build { ctx, buffers, row };
        Ok(WgStrainLimit {
            edge_request: b.kernel(&module, "edge_request", topo.edges.len())?,
            apply_requests: b.kernel(&module, "apply_requests", cloth.vertex_count())?,
        })
    }

    /// The step's bounds on the edges' lengths, for `edges` edges.
    pub fn params(limit: &StrainLimit, edges: usize) -> LimitParams {
        let (lower, upper) = limit.bounds();
        LimitParams {
            counts: [edges as u32, 0, 0, 0],
            // The squared bounds less 1, formed without cancellation.
            bounds: [
                lower,
                upper,
                limit.compression * (limit.compression - 2.0),
                limit.extension * (limit.extension + 2.0),
            ]
            .map(|b| b as f32),
        }
    }
}
