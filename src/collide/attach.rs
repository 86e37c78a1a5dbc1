//! Attachments: cloth vertices that ride on a deforming body (a waistband
//! on the hips, a cuff on a wrist). Each vertex is bound once to the body
//! triangle nearest it: the nearest point's barycentric weights, and the
//! vertex's offset from that point in the triangle's own frame (first edge,
//! normal, and their cross product). Wherever the body's vertices go, the
//! bound point is the same weights of the triangle's corners plus the same
//! offset turned with the triangle, so a vertex bound 3 mm outside the skin
//! stays 3 mm outside it as the skin moves, turns and stretches, and a
//! binding placed on the frame it was made on gives the vertex back exactly.

use super::body::{BodyMesh, barycentric};
use super::bvh::triangle_box;
use super::mesh_sdf::closest_on_triangle;
use super::{Pose, SdfGrid};
use glam::DVec3;

/// Farthest a vertex may be from the surface it is attached to, m: farther
/// than this, it is most likely the wrong vertex group.
pub const MAX_ATTACH_DISTANCE: f64 = 0.05;

/// One vertex bound to a body triangle.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Binding {
    /// The triangle, in the body mesh's own order ([`BodyMesh::faces`]).
    pub face: u32,
    /// Barycentric weights of the nearest point.
    pub weights: [f64; 3],
    /// The vertex minus the nearest point, along the triangle's first edge,
    /// its in-plane normal to that edge and its normal.
    pub offset: [f64; 3],
}

/// A triangle's frame: its first edge, the in-plane direction normal to
/// it, and its unit normal (zero vectors for a degenerate triangle).
fn frame(t: [DVec3; 3]) -> [DVec3; 3] {
    let e = (t[1] - t[0]).normalize_or_zero();
    let n = (t[1] - t[0]).cross(t[2] - t[0]).normalize_or_zero();
    [e, n.cross(e), n]
}

/// A body's skin at one moment: its triangles and where its vertices are.
pub struct Skin<'a> {
    pub mesh: &'a BodyMesh,
    pub x: &'a [DVec3],
}

impl Skin<'_> {
    fn triangle(&self, f: u32) -> [DVec3; 3] {
        self.mesh.faces[f as usize].map(|v| self.x[v as usize])
    }

    /// Binds each of `points` to its nearest triangle; with each binding,
    /// the point's distance from the surface.
    pub fn bind(&self, points: &[DVec3]) -> Vec<(Binding, f64)> {
        // The hierarchy refitted around the triangles where they are now.
        let mut tree = self.mesh.tree.clone();
        let boxes: Vec<(DVec3, DVec3)> = self
            .mesh
            .faces
            .iter()
            .map(|&t| triangle_box(&t.map(|v| self.x[v as usize])))
            .collect();
        tree.refit(&boxes);
        points
            .iter()
            .map(|&p| {
                let found = tree.nearest(p, f64::INFINITY, |f| {
                    let (q, _) = closest_on_triangle(p, self.triangle(f));
                    ((p - q).length_squared(), (f, q))
                });
                let (d2, (face, q)) = found.unwrap_or((f64::INFINITY, (0, p)));
                let t = self.triangle(face);
                let axes = frame(t);
                let d = p - q;
                let binding = Binding {
                    face,
                    weights: barycentric(q, t).to_array(),
                    offset: axes.map(|a| a.dot(d)),
                };
                (binding, d2.sqrt())
            })
            .collect()
    }

    /// Where the vertex bound by `b` is now.
    pub fn place(&self, b: &Binding) -> DVec3 {
        let t = self.triangle(b.face);
        let q = t[0] * b.weights[0] + t[1] * b.weights[1] + t[2] * b.weights[2];
        let axes = frame(t);
        q + axes[0] * b.offset[0] + axes[1] * b.offset[1] + axes[2] * b.offset[2]
    }
}

/// How a handle's vertices ride on their obstacle.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub enum Ride {
    /// Each bound to a triangle of a deforming body.
    Body(Vec<Binding>),
    /// Fixed in a rigid obstacle's frame: their positions there.
    Rigid(Vec<DVec3>),
}

/// An obstacle at one moment, as its riders see it.
pub enum Carrier<'a> {
    Body(Skin<'a>),
    /// A rigid obstacle at `pose`; its grid measures how far a rider is.
    Rigid {
        pose: Pose,
        grid: &'a SdfGrid,
    },
}

impl Carrier<'_> {
    /// Binds `points` where they are; with the ride, each point's distance
    /// from the surface.
    fn ride(&self, points: &[DVec3]) -> (Ride, Vec<f64>) {
        match self {
            Carrier::Body(skin) => {
                let (bindings, distances) = skin.bind(points).into_iter().unzip();
                (Ride::Body(bindings), distances)
            }
            Carrier::Rigid { pose, grid } => {
                let local: Vec<DVec3> = points.iter().map(|p| pose.to_local(*p)).collect();
                let distances = local.iter().map(|p| grid.sample(*p).0.abs()).collect();
                (Ride::Rigid(local), distances)
            }
        }
    }

    /// Binds `vertices` where they are in `x`; an error, the message, names
    /// the first one farther than [`MAX_ATTACH_DISTANCE`] from the surface.
    pub fn bind(&self, vertices: &[u32], x: &[DVec3]) -> Result<Ride, String> {
        let points: Vec<DVec3> = vertices.iter().map(|&v| x[v as usize]).collect();
        let (ride, distances) = self.ride(&points);
        match distances.iter().position(|d| d.is_nan() || *d > MAX_ATTACH_DISTANCE) {
            None => Ok(ride),
            Some(k) => Err(format!(
                "vertex {} (numbered from 1, as in an OBJ) is {:.4} m from the surface; an attached vertex must \
                 be within {MAX_ATTACH_DISTANCE} m of it",
                vertices[k] + 1,
                distances[k]
            )),
        }
    }

    /// Appends where the riders of `ride` are now.
    pub fn place(&self, ride: &Ride, out: &mut Vec<DVec3>) {
        match (self, ride) {
            (Carrier::Body(skin), Ride::Body(bindings)) => out.extend(bindings.iter().map(|b| skin.place(b))),
            (Carrier::Rigid { pose, .. }, Ride::Rigid(local)) => out.extend(local.iter().map(|p| pose.to_world(*p))),
            _ => unreachable!("a ride is made by a carrier of its own obstacle, whose kind never changes"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::collide::mesh_sdf::tests::uv_sphere;
    use glam::DQuat;

    #[test]
    fn a_binding_gives_its_point_back_and_follows_the_surface() {
        let mesh = uv_sphere(0.1, 20, 40);
        let body = BodyMesh::new(&mesh.positions, &mesh.faces);
        let rest = Skin {
            mesh: &body,
            x: &mesh.positions,
        };
        // Points 3 mm outside the sphere and 2 mm inside it.
        let points: Vec<DVec3> = (0..40)
            .map(|k| {
                let dir = DVec3::new((k as f64).sin(), (0.7 * k as f64).cos(), 0.3).normalize();
                dir * if k % 2 == 0 { 0.103 } else { 0.098 }
            })
            .collect();
        let bound = rest.bind(&points);
        for ((b, d), p) in bound.iter().zip(&points) {
            assert!((rest.place(b) - *p).length() < 1e-14, "{p}: {}", rest.place(b));
            // Within the polygonal sphere's sagitta (under 1 mm) of the round one.
            assert!((d - (p.length() - 0.1).abs()).abs() < 1e-3, "{p}: {d}");
            assert!(b.weights.iter().all(|w| *w >= -1e-12) && (b.weights.iter().sum::<f64>() - 1.0).abs() < 1e-12);
        }
        // Turned and moved rigidly, the points turn and move with it.
        let turn = DQuat::from_axis_angle(DVec3::new(1.0, 2.0, 0.5).normalize(), 0.8);
        let shift = DVec3::new(0.3, -0.1, 0.05);
        let moved: Vec<DVec3> = mesh.positions.iter().map(|p| turn * *p + shift).collect();
        let now = Skin { mesh: &body, x: &moved };
        for ((b, _), p) in bound.iter().zip(&points) {
            let want = turn * *p + shift;
            assert!((now.place(b) - want).length() < 1e-14, "{}", now.place(b) - want);
        }
        // Stretched along y, a point on the surface stays on it.
        let stretched: Vec<DVec3> = mesh.positions.iter().map(|p| *p * DVec3::new(1.0, 1.5, 1.0)).collect();
        let on = rest.bind(&[DVec3::new(0.0, 0.0, 0.1)]);
        let later = Skin {
            mesh: &body,
            x: &stretched,
        };
        let q = later.place(&on[0].0);
        let t = later.triangle(on[0].0.face);
        let n = frame(t)[2];
        assert!(
            (q - t[0]).dot(n).abs() < 1e-12,
            "off the plane by {}",
            (q - t[0]).dot(n)
        );
    }
}
