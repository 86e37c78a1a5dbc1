//! The mannequin's skin: a closed triangle mesh of its implicit surface in
//! the rest pose (surface nets on a grid, every vertex then moved onto the
//! surface), skinned to the bones, and posed by dual-quaternion skinning
//! (Kavan et al. 2007), a projection onto the posed implicit surface, and,
//! where a bent joint folded triangles over, a local untangling along that
//! surface: the skin follows the joints without collapsing and without
//! crossing itself where they bend, and away from the joints each part
//! moves rigidly with its bone.

use super::shape::Shape;
use super::skeleton::{BONE_COUNT, Pose, Rigid};
use crate::collide::{SdfGrid, isosurface};
use crate::error::{Error, Result};
use glam::{DQuat, DVec3};
use rayon::prelude::*;

/// Bones that move a vertex, at most.
const INFLUENCES: usize = 4;

/// How much farther than the nearest bone's parts another bone's may be
/// and still move a vertex, m: the width of the blend at a joint.
const BLEND_WIDTH: f64 = 0.04;

/// The grid's cell, m: about 10K triangles.
const CELL: f64 = 0.021;

/// The box the rest (T) pose stands in, m.
const LO: DVec3 = DVec3::new(-1.0, -0.03, -0.2);
const HI: DVec3 = DVec3::new(1.0, 1.8, 0.25);

/// The skin: rest positions, triangles and each vertex's bones.
#[derive(Clone, Debug)]
pub struct Mannequin {
    pub shape: Shape,
    /// Vertices in the rest pose.
    pub rest: Vec<DVec3>,
    /// Counter-clockwise seen from outside.
    pub faces: Vec<[u32; 3]>,
    /// Per vertex, its bones and their weights (summing to 1).
    pub weights: Vec<[(usize, f64); INFLUENCES]>,
    /// Per vertex, the vertices it shares an edge with.
    neighbours: Vec<Vec<u32>>,
    /// Per vertex, the triangles around it.
    around: Vec<Vec<u32>>,
}

/// A rigid transform as a unit dual quaternion `(real, dual)`.
fn dual(t: &Rigid) -> (DQuat, DQuat) {
    let q = DQuat::from_xyzw(t.trans.x, t.trans.y, t.trans.z, 0.0);
    (t.rot, q * t.rot * 0.5)
}

impl Mannequin {
    /// Meshes the rest shape on a grid of [`CELL`].
    pub fn new() -> Result<Mannequin> {
        let shape = Shape::default();
        let grid = SdfGrid::bake(LO, HI, CELL, |p| shape.rest_distance(p))
            .map_err(|m| Error::Step(format!("the mannequin's grid: {m}")))?;
        let (points, faces) = isosurface::surface(&grid);
        let identity = [Rigid::IDENTITY; BONE_COUNT];
        let rest: Vec<DVec3> = points.par_iter().map(|p| shape.project(*p, &identity)).collect();
        let weights = rest.iter().map(|p| weights(&shape, *p)).collect();
        let mut neighbours = vec![Vec::new(); rest.len()];
        for f in &faces {
            for k in 0..3 {
                let (a, b) = (f[k], f[(k + 1) % 3]);
                neighbours[a as usize].push(b);
                neighbours[b as usize].push(a);
            }
        }
        for n in &mut neighbours {
            n.sort_unstable();
            n.dedup();
        }
        let mut around = vec![Vec::new(); rest.len()];
        for (t, f) in faces.iter().enumerate() {
            for &v in f {
                around[v as usize].push(t as u32);
            }
        }
        Ok(Mannequin {
            shape,
            rest,
            faces,
            weights,
            neighbours,
            around,
        })
    }

    /// The skin in `pose`.
    pub fn posed(&self, pose: &Pose) -> Vec<DVec3> {
        let transforms = pose.transforms();
        let duals = transforms.map(|t| dual(&t));
        let inverse = transforms.map(|t| t.inverse());
        let mut x: Vec<DVec3> = self
            .rest
            .par_iter()
            .zip(&self.weights)
            .map(|(p, w)| {
                // Dual quaternions blended on the first bone's hemisphere.
                let first = duals[w[0].0].0;
                let (mut real, mut du) = (
                    DQuat::from_xyzw(0.0, 0.0, 0.0, 0.0),
                    DQuat::from_xyzw(0.0, 0.0, 0.0, 0.0),
                );
                for &(bone, weight) in w {
                    let (r, d) = duals[bone];
                    let s = if r.dot(first) < 0.0 { -weight } else { weight };
                    real += r * s;
                    du += d * s;
                }
                let norm = real.length();
                let (real, du) = (real / norm, du / norm);
                let t = du * real.conjugate() * 2.0;
                let skinned = real * *p + DVec3::new(t.x, t.y, t.z);
                self.shape.project(skinned, &inverse)
            })
            .collect();
        self.untangle(&mut x, &inverse);
        x
    }

    /// Where the skin folded over itself (deep in a bent joint, skinning
    /// turns some triangles over before the projection lays them on the
    /// surface), slides those triangles' vertices and their neighbours
    /// along the surface towards their neighbours' centre until no
    /// triangle faces inward. Elsewhere nothing moves.
    fn untangle(&self, x: &mut [DVec3], inverse: &[Rigid; BONE_COUNT]) {
        // Every triangle at first, then those around what moved.
        let mut suspects: Vec<u32> = (0..self.faces.len() as u32).collect();
        for _ in 0..UNTANGLE_ROUNDS {
            let flipped: Vec<u32> = suspects
                .par_iter()
                .copied()
                .filter(|&t| {
                    let [a, b, c] = self.faces[t as usize].map(|v| x[v as usize]);
                    let n = (b - a).cross(c - a);
                    n.dot(self.shape.gradient((a + b + c) / 3.0, inverse)) <= 0.0
                })
                .collect();
            if flipped.is_empty() {
                return;
            }
            let mut moving: Vec<u32> = flipped.iter().flat_map(|&t| self.faces[t as usize]).collect();
            for _ in 0..2 {
                let ring: Vec<u32> = moving
                    .iter()
                    .flat_map(|&v| self.neighbours[v as usize].iter().copied())
                    .collect();
                moving.extend(ring);
                moving.sort_unstable();
                moving.dedup();
            }
            let moved: Vec<(u32, DVec3)> = moving
                .par_iter()
                .map(|&v| {
                    let p = x[v as usize];
                    let around = &self.neighbours[v as usize];
                    let centre = around.iter().map(|&u| x[u as usize]).sum::<DVec3>() / around.len() as f64;
                    let n = self.shape.gradient(p, inverse).normalize_or_zero();
                    let step = centre - p;
                    (v, self.shape.project(p + step - n * n.dot(step), inverse))
                })
                .collect();
            for (v, p) in moved {
                x[v as usize] = p;
            }
            suspects = moving
                .iter()
                .flat_map(|&v| self.around[v as usize].iter().copied())
                .collect();
            suspects.sort_unstable();
            suspects.dedup();
        }
    }
}

/// Most rounds of untangling a posed skin.
const UNTANGLE_ROUNDS: usize = 60;

/// A vertex's bones: every bone whose parts are within [`BLEND_WIDTH`] of
/// as near as the nearest bone's, weighted `(1 - excess / width)^2` by how
/// much farther they are (so a vertex away from a joint follows its bone
/// alone, rigidly), the strongest four kept.
fn weights(shape: &Shape, p: DVec3) -> [(usize, f64); INFLUENCES] {
    let d = shape.bone_distances(p);
    let nearest = d.iter().copied().fold(f64::INFINITY, f64::min);
    let mut all: Vec<(usize, f64)> = d
        .iter()
        .enumerate()
        .map(|(b, &db)| (b, (1.0 - (db - nearest) / BLEND_WIDTH).max(0.0).powi(2)))
        .collect();
    all.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
    let total: f64 = all[..INFLUENCES].iter().map(|w| w.1).sum();
    let mut out = [(0, 0.0); INFLUENCES];
    for (o, w) in out.iter_mut().zip(&all) {
        *o = (w.0, w.1 / total);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::figure::skeleton::{Bone, KNEE};

    #[test]
    fn the_skin_is_closed_lies_on_the_surface_and_follows_a_bent_knee() {
        let m = Mannequin::new().unwrap();
        println!("mannequin: {} vertices, {} triangles", m.rest.len(), m.faces.len());
        assert!((8_000..14_000).contains(&m.faces.len()), "{} triangles", m.faces.len());
        let mesh = crate::mesh::TriMesh {
            name: "mannequin".into(),
            positions: m.rest.clone(),
            faces: m.faces.clone(),
            uv: None,
            named_sets: Default::default(),
            polygons: None,
        };
        crate::collide::mesh_sdf::MeshSdf::new(&mesh).unwrap();
        for p in &m.rest {
            assert!(m.shape.rest_distance(*p).abs() < 1e-6, "{p} is off the surface");
        }
        // The rest pose gives the rest skin back.
        let same = m.posed(&Pose::default());
        let moved = same
            .iter()
            .zip(&m.rest)
            .map(|(a, b)| (*a - *b).length())
            .fold(0.0, f64::max);
        assert!(moved < 1e-6, "{moved}");
        // Knee bent 90 degrees: a point on the front of the shin, 20 cm
        // below the knee, swings back and up to 20 cm behind it.
        let mut pose = Pose::default();
        pose.rotations[Bone::ShinL.index()] = DQuat::from_rotation_x(std::f64::consts::FRAC_PI_2);
        let bent = m.posed(&pose);
        let probe = KNEE + DVec3::new(0.0, -0.2, 0.045);
        let k = (0..m.rest.len())
            .min_by(|&a, &b| (m.rest[a] - probe).length().total_cmp(&(m.rest[b] - probe).length()))
            .unwrap();
        let q = bent[k];
        assert!(
            (q.y - KNEE.y).abs() < 0.06 && q.z < KNEE.z - 0.15,
            "{} -> {q}",
            m.rest[k]
        );
    }
}
