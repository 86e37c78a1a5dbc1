//! Deforming triangle-mesh obstacles ("bodies": a character's skin, read
//! from the user's animation): probed directly every step instead of
//! through a baked grid, because a character's mesh is often open (no
//! caps at a cut-off leg or a neckline) and has parts thinner than any
//! grid cell a whole body affords (fingers, ears).
//!
//! A probe finds the body triangle nearest a cloth point through a
//! bounding-volume hierarchy built once on the first frame and refitted
//! every step around the triangles at the step's start and end. The
//! distance is signed by the angle-weighted pseudo-normal of the nearest
//! feature (Bærentzen & Aanæs 2005), which on an open mesh says which side
//! of the nearby surface a point is on; points farther than the body's
//! `reach` from it on either side are not seen (behind an open part, a
//! point is not "inside"). The outward direction is the gradient of the
//! distance, `(p - q) / |p - q|`, so edges and corners act rounded. The
//! body's velocity at the point is the nearest point's, interpolated from
//! the triangle's corners (docs/physics.md "Deforming bodies").
//! GPU twin: `body_probe` in shaders/collide.wgsl.

use super::bvh::{Bvh, triangle_box};
use super::mesh_sdf::{Feature, angle_weighted_normals, closest_on_triangle, unit_normal};
use glam::DVec3;
use std::collections::HashMap;
use std::sync::Arc;

/// No neighbour across a face's edge (a boundary or non-manifold edge).
pub const NO_FACE: u32 = u32::MAX;

/// Within this distance of the surface (m) the outward direction is the
/// feature's pseudo-normal, not the direction from the nearest point (the
/// same in shaders/collide.wgsl).
pub const ON_SURFACE: f64 = 1e-6;

/// A body's triangles, ordered leaf by leaf of its hierarchy.
#[derive(Debug)]
pub struct BodyMesh {
    pub faces: Vec<[u32; 3]>,
    /// Per face, per edge k (corner k to k+1): the face across it, or [`NO_FACE`].
    pub neighbors: Vec<[u32; 3]>,
    /// The hierarchy's shape on the first frame (`order` is the identity).
    pub tree: Bvh,
    pub vertices: usize,
}

impl BodyMesh {
    /// The hierarchy over `faces` at `positions` (indices checked by the
    /// mesh reader).
    pub fn new(positions: &[DVec3], faces: &[[u32; 3]]) -> BodyMesh {
        let triangles: Vec<[DVec3; 3]> = faces.iter().map(|t| t.map(|v| positions[v as usize])).collect();
        let mut tree = Bvh::build(&triangles);
        let faces: Vec<[u32; 3]> = tree.order.iter().map(|&f| faces[f as usize]).collect();
        tree.order = (0..faces.len() as u32).collect();
        let mut edge: HashMap<(u32, u32), Vec<(usize, usize)>> = HashMap::with_capacity(3 * faces.len());
        for (f, t) in faces.iter().enumerate() {
            for k in 0..3 {
                let (a, b) = (t[k], t[(k + 1) % 3]);
                edge.entry((a.min(b), a.max(b))).or_default().push((f, k));
            }
        }
        let mut neighbors = vec![[NO_FACE; 3]; faces.len()];
        for sides in edge.values() {
            if let [(f, k), (g, j)] = sides[..] {
                neighbors[f][k] = g as u32;
                neighbors[g][j] = f as u32;
            }
        }
        BodyMesh {
            faces,
            neighbors,
            tree,
            vertices: positions.len(),
        }
    }
}

/// What a probe found: the signed distance, the outward unit direction and
/// the body's velocity at the nearest point.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Probe {
    pub phi: f64,
    pub normal: DVec3,
    pub velocity: DVec3,
}

/// A body over one step: its vertices at the step's start and end.
#[derive(Clone, Debug)]
pub struct BodyStep {
    pub mesh: Arc<BodyMesh>,
    pub start: Vec<DVec3>,
    pub end: Vec<DVec3>,
    /// Angle-weighted vertex normals at the start and the end.
    pub normals: [Vec<DVec3>; 2],
    /// The hierarchy refitted around both poses.
    pub tree: Bvh,
    /// How far from the surface a probe looks: the body's reach plus the
    /// farthest any of its vertices moves in the step.
    pub reach: f64,
}

/// Barycentric weights of `q` (in the triangle's plane) in `t`.
pub(crate) fn barycentric(q: DVec3, t: [DVec3; 3]) -> DVec3 {
    let (e0, e1, e2) = (t[1] - t[0], t[2] - t[0], q - t[0]);
    let (d00, d01, d11) = (e0.dot(e0), e0.dot(e1), e1.dot(e1));
    let (d20, d21) = (e2.dot(e0), e2.dot(e1));
    let denom = d00 * d11 - d01 * d01;
    if denom <= 0.0 {
        return DVec3::X;
    }
    let v = (d11 * d20 - d01 * d21) / denom;
    let w = (d00 * d21 - d01 * d20) / denom;
    DVec3::new(1.0 - v - w, v, w)
}

impl BodyStep {
    /// The body moving from `start` to `end` over the step; `reach` is how
    /// far from its surface it acts.
    pub fn new(mesh: Arc<BodyMesh>, start: Vec<DVec3>, end: Vec<DVec3>, reach: f64) -> BodyStep {
        let travel = start
            .iter()
            .zip(&end)
            .map(|(a, b)| (*b - *a).length())
            .fold(0.0, f64::max);
        let boxes: Vec<(DVec3, DVec3)> = mesh
            .faces
            .iter()
            .map(|t| {
                let (a, b) = triangle_box(&t.map(|v| start[v as usize]));
                let (c, d) = triangle_box(&t.map(|v| end[v as usize]));
                (a.min(c), b.max(d))
            })
            .collect();
        let mut tree = mesh.tree.clone();
        tree.refit(&boxes);
        let normals = [
            angle_weighted_normals(&start, &mesh.faces),
            angle_weighted_normals(&end, &mesh.faces),
        ];
        BodyStep {
            mesh,
            start,
            end,
            normals,
            tree,
            reach: reach + travel,
        }
    }

    /// The body at `p`, at the step's start or end (`at_end`), if its
    /// surface is within reach; `h` is the step (for the velocity).
    pub fn probe(&self, p: DVec3, at_end: bool, h: f64) -> Option<Probe> {
        let (x, normals) = match at_end {
            false => (&self.start, &self.normals[0]),
            true => (&self.end, &self.normals[1]),
        };
        let faces = &self.mesh.faces;
        let triangle = |f: u32| faces[f as usize].map(|v| x[v as usize]);
        let (d2, (f, q, feature)) = self.tree.nearest(p, self.reach * self.reach, |f| {
            let (q, feature) = closest_on_triangle(p, triangle(f));
            ((p - q).length_squared(), (f, q, feature))
        })?;
        let t = faces[f as usize];
        let pseudo = match feature {
            Feature::Face => unit_normal(x, t),
            Feature::Edge(k) => {
                let across = self.mesh.neighbors[f as usize][k];
                let other = match across {
                    NO_FACE => DVec3::ZERO,
                    g => unit_normal(x, faces[g as usize]),
                };
                unit_normal(x, t) + other
            }
            Feature::Vertex(k) => normals[t[k] as usize],
        };
        let d = d2.sqrt();
        let sign = if (p - q).dot(pseudo) < 0.0 { -1.0 } else { 1.0 };
        let normal = match d > ON_SURFACE {
            true => (p - q) * (sign / d),
            false => pseudo.normalize_or_zero(),
        };
        let w = barycentric(q, triangle(f));
        let velocity = (0..3)
            .map(|k| (self.end[t[k] as usize] - self.start[t[k] as usize]) * w[k])
            .sum::<DVec3>()
            / h;
        Some(Probe {
            phi: sign * d,
            normal,
            velocity,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::collide::mesh_sdf::{MeshSdf, tests::uv_sphere};

    #[test]
    fn a_closed_body_probes_as_its_exact_signed_distance() {
        let mesh = uv_sphere(0.1, 12, 24);
        let body = Arc::new(BodyMesh::new(&mesh.positions, &mesh.faces));
        let sdf = MeshSdf::new(&mesh).unwrap();
        let step = BodyStep::new(body, mesh.positions.clone(), mesh.positions.clone(), 0.05);
        let points = crate::collide::shape::tests::points(DVec3::splat(-0.2), DVec3::splat(0.2), 3000);
        let mut seen = 0;
        for p in points {
            let exact = sdf.distance(p);
            match step.probe(p, false, 0.01) {
                Some(hit) => {
                    seen += 1;
                    assert!((hit.phi - exact).abs() < 1e-12, "{p}: {} vs {exact}", hit.phi);
                    assert!((hit.normal.length() - 1.0).abs() < 1e-9);
                    assert_eq!(hit.velocity, DVec3::ZERO);
                }
                None => assert!(exact.abs() >= 0.05 - 1e-12, "{p}: {exact} is within reach"),
            }
        }
        assert!(seen > 500, "{seen}");
    }

    #[test]
    fn an_open_sheet_has_sides_and_a_moving_one_carries_its_velocity() {
        // Two triangles: the unit square in xz at y = 0, facing +y, moving up
        // 1 cm and tilting over the step.
        let start = vec![
            DVec3::new(0.0, 0.0, 0.0),
            DVec3::new(0.0, 0.0, 1.0),
            DVec3::new(1.0, 0.0, 1.0),
            DVec3::new(1.0, 0.0, 0.0),
        ];
        let faces = [[0, 1, 2], [0, 2, 3]];
        let end: Vec<DVec3> = start
            .iter()
            .map(|p| *p + DVec3::new(0.0, 0.01 + 0.01 * p.x, 0.0))
            .collect();
        let step = BodyStep::new(Arc::new(BodyMesh::new(&start, &faces)), start, end, 0.1);
        let h = 0.01;
        let above = step.probe(DVec3::new(0.25, 0.03, 0.5), false, h).unwrap();
        assert!((above.phi - 0.03).abs() < 1e-12 && (above.normal - DVec3::Y).length() < 1e-12);
        // The corners' velocities are 1 m/s plus 1 m/s per metre of x.
        assert!(
            (above.velocity - DVec3::new(0.0, 1.25, 0.0)).length() < 1e-12,
            "{}",
            above.velocity
        );
        let below = step.probe(DVec3::new(0.5, -0.02, 0.5), false, h).unwrap();
        assert!((below.phi + 0.02).abs() < 1e-12 && (below.normal - DVec3::Y).length() < 1e-12);
        // Past the boundary edge: the distance to the edge, on the face's side.
        let beyond = step.probe(DVec3::new(-0.03, 0.04, 0.5), false, h).unwrap();
        assert!((beyond.phi - 0.05).abs() < 1e-12, "{}", beyond.phi);
        // At the end the sheet has moved up: the same point is 1.5 cm nearer.
        let later = step.probe(DVec3::new(0.5, 0.03, 0.5), true, h).unwrap();
        assert!((later.phi - 0.015).abs() < 1e-5, "{}", later.phi);
        // Out of reach on either side.
        assert_eq!(step.probe(DVec3::new(0.5, -0.2, 0.5), false, h), None);
    }
}
