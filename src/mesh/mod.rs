//! Triangle meshes: the data, their topology, generators and OBJ input/output.

mod generate;
mod obj;
mod topology;

pub use generate::{Pattern, cylinder, grid};
pub use obj::{read_obj, write_obj};
pub use topology::{Csr, Hinge, Topology};

use glam::{DVec2, DVec3};
use std::collections::BTreeMap;

/// A triangle mesh with optional material coordinates.
#[derive(Clone, Debug)]
pub struct TriMesh {
    /// Where the mesh came from, for error messages ("grid", a file path...).
    pub name: String,
    pub positions: Vec<DVec3>,
    /// Counter-clockwise triangles (vertex indices).
    pub faces: Vec<[u32; 3]>,
    /// Material coordinates (metres) per face corner, so that seams (a
    /// cylinder's, an OBJ's texture seams) keep each face's own rest shape.
    pub uv: Option<Vec<[DVec2; 3]>>,
    /// Named vertex sets from a generator: `side:left`, `ring:top`, ...
    pub named_sets: BTreeMap<String, Vec<u32>>,
}

impl TriMesh {
    pub fn vertex_count(&self) -> usize {
        self.positions.len()
    }

    /// Axis-aligned bounding box (min, max) of the positions.
    pub fn bounds(&self) -> (DVec3, DVec3) {
        bounds(&self.positions)
    }
}

/// Axis-aligned bounding box of a point set; zero box for an empty set.
pub fn bounds(points: &[DVec3]) -> (DVec3, DVec3) {
    if points.is_empty() {
        return (DVec3::ZERO, DVec3::ZERO);
    }
    points.iter().fold(
        (DVec3::splat(f64::INFINITY), DVec3::splat(f64::NEG_INFINITY)),
        |(lo, hi), p| (lo.min(*p), hi.max(*p)),
    )
}
