//! shaders/collide.wgsl (CPU twin cpu/collide.rs): resting contacts for the
//! solve, their release, and the obstacles' response and settling on the
//! scene's signed-distance grids and the step's deforming bodies.

use super::Build;
use crate::collide::body::{BodyMesh, BodyStep, NO_FACE};
use crate::collide::bvh::Node;
use crate::collide::{Field, ObstacleStep, SdfGrid};
use crate::error::Result;
use crate::gpu::buffers::{Buffers, storage, zeroed};
use crate::gpu::context::{GpuContext, Module};
use crate::gpu::kernel::Kernel;
use crate::gpu::layout::{ObstacleGpu, SdfInfo};
use std::sync::Arc;

/// Where one body is in `body_tree` and `body_points` (entries, not bytes).
#[derive(Clone, Copy, Debug)]
struct BodyPlace {
    faces: u32,
    nodes: u32,
    points: u32,
}

pub struct WgCollide {
    /// The grids and body meshes uploaded (compared by pointer with each
    /// step's).
    pub grids: Vec<Arc<SdfGrid>>,
    bodies: Vec<Arc<BodyMesh>>,
    places: Vec<BodyPlace>,
    /// Where the node entries start in `body_tree`.
    node_section: u32,
    pub resting: Kernel,
    pub release: Kernel,
    pub respond: Kernel,
    pub settle: Kernel,
    pub depths: Kernel,
}

impl WgCollide {
    /// Uploads every grid of the scene into one buffer (`sdf`, indexed by
    /// `sdf_info`) and the triangles of the step's bodies (`body_tree`),
    /// with room for each obstacle's pose (`obstacles`) and each body's
    /// hierarchy and points, and the cloth's `edges` (sorted, by their
    /// lower end: `edge_start`, `edge_end`), then builds the kernels over
    /// `vertices`.
    pub fn new(
        ctx: &GpuContext,
        buffers: &mut Buffers,
        row: u32,
        grids: &[Arc<SdfGrid>],
        bodies: &[BodyStep],
        edges: &[[u32; 2]],
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
            zeroed::<ObstacleGpu>(ctx, "obstacles", (grids.len() + bodies.len()).max(1))?,
        );
        // Every body's triangles, then room for every body's nodes.
        let mut places = Vec::new();
        let (mut faces, mut nodes, mut points) = (0u32, 0u32, 0u32);
        for b in bodies {
            places.push(BodyPlace { faces, nodes, points });
            faces += 2 * b.mesh.faces.len() as u32;
            nodes += 2 * b.tree.nodes.len() as u32;
            points += 5 * b.mesh.vertices as u32;
        }
        let mut tree = vec![[0u32; 4]; (faces + nodes) as usize];
        for (b, place) in bodies.iter().zip(&places) {
            let across = |g: u32| if g == NO_FACE { NO_FACE } else { place.faces + 2 * g };
            for (f, (t, n)) in b.mesh.faces.iter().zip(&b.mesh.neighbors).enumerate() {
                let at = (place.faces + 2 * f as u32) as usize;
                tree[at] = [t[0], t[1], t[2], 0];
                tree[at + 1] = [across(n[0]), across(n[1]), across(n[2]), 0];
            }
        }
        buffers.insert("body_tree", storage(ctx, "body_tree", &tree)?);
        buffers.insert(
            "body_points",
            zeroed::<[f32; 4]>(ctx, "body_points", points.max(1) as usize)?,
        );
        let mut start = vec![0u32; vertices + 1];
        for e in edges {
            start[e[0] as usize + 1] += 1;
        }
        for i in 0..vertices {
            start[i + 1] += start[i];
        }
        let end: Vec<u32> = edges.iter().map(|e| e[1]).collect();
        buffers.insert("edge_start", storage(ctx, "edge_start", &start)?);
        buffers.insert("edge_end", storage(ctx, "edge_end", &end)?);
        let module = Module::new(ctx, "collide")?;
        let b = Build { ctx, buffers, row };
        let k = |entry: &str| b.kernel(&module, entry, vertices);
        Ok(WgCollide {
            grids: grids.to_vec(),
            bodies: bodies.iter().map(|b| Arc::clone(&b.mesh)).collect(),
            places,
            node_section: faces,
            resting: k("resting")?,
            release: k("release")?,
            respond: k("respond")?,
            settle: k("settle")?,
            depths: k("depths")?,
        })
    }

    /// Whether these kernels hold exactly `grids` and these bodies' meshes.
    pub fn holds(&self, grids: &[Arc<SdfGrid>], bodies: &[BodyStep]) -> bool {
        self.grids.len() == grids.len()
            && self.grids.iter().zip(grids).all(|(a, b)| Arc::ptr_eq(a, b))
            && self.bodies.len() == bodies.len()
            && self.bodies.iter().zip(bodies).all(|(a, b)| Arc::ptr_eq(a, &b.mesh))
    }

    /// Uploads the step's obstacles: their poses, and each body's refitted
    /// hierarchy, points and vertex velocities over the step of `h` seconds
    /// (taken in f64: a difference of f32 positions would lose them).
    pub fn upload(&self, ctx: &GpuContext, buffers: &Buffers, obstacles: &[ObstacleStep], bodies: &[BodyStep], h: f64) {
        let q = &ctx.queue;
        let gpu: Vec<ObstacleGpu> = obstacles
            .iter()
            .map(|o| match o.field {
                Field::Grid(_) => ObstacleGpu::new(o, [0; 4], 0.0),
                Field::Body(k) => {
                    let place = self.places[k];
                    let count = bodies[k].mesh.vertices as u32;
                    let root = self.node_section + place.nodes;
                    ObstacleGpu::new(o, [root, place.points, count, 0], bodies[k].reach)
                }
            })
            .collect();
        q.write_buffer(&buffers["obstacles"], 0, bytemuck::cast_slice(&gpu));
        for (b, place) in bodies.iter().zip(&self.places) {
            let bits = |v: glam::DVec3| [v.x, v.y, v.z].map(|c| (c as f32).to_bits());
            let entry = |n: &Node| {
                let first = match n.count {
                    0 => self.node_section + place.nodes + 2 * n.start,
                    _ => place.faces + 2 * n.start,
                };
                let [a, b, c] = bits(n.lo);
                let [d, e, f] = bits(n.hi);
                [[a, b, c, first], [d, e, f, n.count]]
            };
            let nodes: Vec<[[u32; 4]; 2]> = b.tree.nodes.iter().map(entry).collect();
            let at = 16 * (self.node_section + place.nodes) as u64;
            q.write_buffer(&buffers["body_tree"], at, bytemuck::cast_slice(&nodes));
            let point = |v: &glam::DVec3| [v.x as f32, v.y as f32, v.z as f32, 0.0];
            let velocity: Vec<glam::DVec3> = b.start.iter().zip(&b.end).map(|(a, e)| (*e - *a) / h).collect();
            let points: Vec<[f32; 4]> = [&b.start, &b.end, &b.normals[0], &b.normals[1], &velocity]
                .into_iter()
                .flat_map(|xs| xs.iter().map(point))
                .collect();
            q.write_buffer(
                &buffers["body_points"],
                16 * place.points as u64,
                bytemuck::cast_slice(&points),
            );
        }
    }
}
