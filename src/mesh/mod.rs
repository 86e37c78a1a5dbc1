//! Triangle meshes: the data, their topology, generators and OBJ input/output.

mod generate;
mod obj;
#[cfg(test)]
pub(crate) mod testing;
mod topology;

pub use generate::{Pattern, cylinder, grid};
pub use obj::{read_obj, write_obj};
pub use topology::{Csr, Hinge, Topology};

use glam::{DVec2, DVec3};
use std::collections::BTreeMap;

/// The most vertices a generated cloth may have: 2^24, a run that needs
/// tens of GB on the CPU and most of a large GPU. Sizes from a scene are
/// checked against it before anything is allocated.
pub const MAX_VERTICES: u64 = 1 << 24;

/// The most memory a run takes per cloth vertex, bytes, with block Jacobi
/// and with the multilevel preconditioner (its levels and their products):
/// measured peaks on the 111K-vertex twist, 3.7 and 10.8 KB a vertex, with
/// half as much again for what a scene adds (contacts, pairs, outputs).
pub const BYTES_PER_VERTEX: u64 = 6 * 1024;
pub const BYTES_PER_VERTEX_MULTILEVEL: u64 = 16 * 1024;
/// What `bending_model: "shape-operator"` adds a vertex, bytes: its hinge
/// coupling (about 30 entries a hinge) and the rows it is built from;
/// measured 5.9 KB a vertex more at the peak on a 90K-vertex sheet.
pub const BYTES_PER_VERTEX_SHAPE_OPERATOR: u64 = 8 * 1024;

/// An error message when a cloth of `vertices` at `per_vertex` bytes would
/// not fit in the memory this machine has free (none where that cannot be
/// read).
pub fn too_big_for_memory(vertices: u128, per_vertex: u64) -> Option<String> {
    let available = crate::util::memory::available()?;
    let need = vertices.saturating_mul(per_vertex as u128);
    (need > available as u128).then(|| {
        format!(
            "{vertices} vertices need about {} to run ({} KB a vertex), more than the {} this machine has free: use a coarser mesh",
            crate::util::memory::size(need.min(u64::MAX as u128) as u64),
            per_vertex / 1024,
            crate::util::memory::size(available)
        )
    })
}

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
    /// The polygons a file gave (`None` for generated meshes, whose
    /// triangles are their faces); `faces` fans each out into triangles.
    pub polygons: Option<Polygons>,
}

/// A file's polygons, kept for messages that name the user's faces and
/// for output that gives them back (quads stay quads).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Polygons {
    /// Corners of each polygon.
    pub counts: Vec<u32>,
    /// The corners' vertices, polygon after polygon.
    pub corners: Vec<u32>,
    /// The file's texture coordinates (`vt`, before any `uv_scale`).
    pub texcoords: Vec<DVec2>,
    /// Each corner's texture coordinate (an index into `texcoords`), when
    /// every corner has one.
    pub corner_texcoords: Option<Vec<u32>>,
    /// Each polygon's line in its file (1-based; empty for a generated
    /// mesh's polygons).
    pub lines: Vec<u32>,
}

impl Polygons {
    /// The polygon that triangle `t` fans out from.
    pub fn polygon_of(&self, t: usize) -> Option<usize> {
        let mut first = 0usize;
        for (k, &count) in self.counts.iter().enumerate() {
            first += count as usize - 2;
            if t < first {
                return Some(k);
            }
        }
        None
    }
}

impl TriMesh {
    /// The vertex groups (an OBJ's `o` and `g` lines, a groups file, a
    /// generated garment's), by name, with their sorted vertices.
    pub fn groups(&self) -> impl Iterator<Item = (&str, &Vec<u32>)> {
        self.named_sets
            .iter()
            .filter_map(|(k, v)| k.strip_prefix("group:").map(|name| (name, v)))
    }

    pub fn vertex_count(&self) -> usize {
        self.positions.len()
    }

    /// Triangle `t` as its user knows it: the OBJ face (by line) it fans
    /// out from, or its number from 1 in a generated mesh. Messages name
    /// vertices from 1 too, as an OBJ numbers them.
    pub fn face_label(&self, t: usize) -> String {
        if let Some(p) = &self.polygons
            && let Some(k) = p.polygon_of(t)
        {
            return match p.lines.get(k) {
                Some(line) => format!("the face on line {line}"),
                None => format!("polygon {}", k + 1),
            };
        }
        format!("triangle {}", t + 1)
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
