//! The cloth's static data in flat arrays, built once from a mesh and a
//! material and shared by both backends: rest shapes, lumped masses, hinge
//! rest angles and stiffness factors, and the topology for gathers.

pub mod shape_operator;

use crate::error::{Error, Result};
use crate::mesh::{Topology, TriMesh};
use crate::model::bending::{self, BendingModel, BendingStrain};
use crate::model::cosserat::{self, Coupling};
use crate::model::material::Material;
use crate::model::membrane::MembraneRest;
use glam::{DVec2, DVec3};
use shape_operator::ShapeOperator;

/// Rest data of one hinge.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct HingeRest {
    /// Rest dihedral angle, from the initial geometry (a curved mesh starts
    /// unstressed).
    pub theta: f64,
    /// `s_e = |e_rest|^2 / (A0 + A1)`.
    pub factor: f64,
    /// The edge's rest length `|e_rest|`.
    pub len: f64,
}

impl HingeRest {
    /// The bending channel's strain per radian and torque per unit channel
    /// stress on `strain` (`BendingStrain::scales`): `(1, s_e)` for the angle.
    pub fn channel_scales(&self, strain: BendingStrain) -> (f64, f64) {
        strain.scales(self.factor, self.len)
    }

    /// A channel's plastic strain on `strain` as an angle, rad.
    pub fn plastic_angle(&self, strain: BendingStrain, eps_p: f64) -> f64 {
        eps_p / self.channel_scales(strain).0
    }
}

#[derive(Clone, Debug)]
pub struct Cloth {
    pub mesh: TriMesh,
    pub topology: Topology,
    pub material: Material,
    /// Stiffness-proportional damping coefficient alpha, seconds.
    pub damping: f64,
    pub face_rest: Vec<MembraneRest>,
    pub hinge_rest: Vec<HingeRest>,
    /// Rest length of each edge of `topology.edges` (in material
    /// coordinates; strain limiting keeps edges near it).
    pub edge_rest: Vec<f64>,
    /// Each hinge's rest data for the stretch-bend coupling
    /// (model/cosserat.rs; used when `material.coupling` is not 0).
    pub coupling: Vec<Coupling>,
    /// Lumped vertex masses `rho * sum(A_f) / 3`.
    pub mass: Vec<f64>,
    /// The hinges' coupling under `bending_model: "shape-operator"`
    /// (shape_operator.rs); `None` under the other models.
    pub shape_operator: Option<ShapeOperator>,
    /// The shape-function gradient `beta` of each vertex-face incidence, in
    /// the order of `topology.vertex_faces.entries`, so per-vertex gathers
    /// stream it instead of reading whole rest records.
    pub incidence_beta: Vec<DVec2>,
    /// The channels' state at the start, when the cloth starts deformed
    /// with a history (a rolled strip: scene/roll.rs); `None`: the
    /// material's initial state.
    pub initial_channels: Option<crate::model::channel::Channels>,
    /// Hinges of the scene's measurement region (a fold, say), whose bends
    /// the `region_*` metrics report; `None`: all hinges.
    pub region_hinges: Option<Vec<u32>>,
}

impl Cloth {
    /// Vertex `v`'s lumped area `m_v / rho` (a third of its faces').
    pub fn lumped_area(&self, v: usize) -> f64 {
        self.mass[v] / self.material.density
    }

    /// Builds the rest state. Faces without material coordinates take their
    /// own rest shape with the u (warp) axis along `warp` projected into the
    /// face plane.
    pub fn new(mesh: TriMesh, material: Material, damping: f64, warp: DVec3) -> Result<Cloth> {
        let topology = Topology::build(&mesh)?;
        let mut face_rest = Vec::with_capacity(mesh.faces.len());
        for (f, face) in mesh.faces.iter().enumerate() {
            let uv = match &mesh.uv {
                Some(uv) => uv[f],
                None => own_rest_shape(face.map(|v| mesh.positions[v as usize]), warp),
            };
            let rest = MembraneRest::new(uv).ok_or_else(|| {
                let x = face.map(|v| mesh.positions[v as usize]);
                let area = (x[1] - x[0]).cross(x[2] - x[0]).length() + (uv[1] - uv[0]).perp_dot(uv[2] - uv[0]);
                let why = match area.is_finite() {
                    true => "has (near) zero rest area: remove or repair the degenerate triangle",
                    false => "has a rest area too large for the numbers (coordinates are metres): scale the mesh down",
                };
                Error::mesh(
                    &mesh.name,
                    format!(
                        "{} (vertices {}, {}, {}) {why}",
                        mesh.face_label(f),
                        face[0] + 1,
                        face[1] + 1,
                        face[2] + 1
                    ),
                )
            })?;
            face_rest.push(rest);
        }
        let hinge_rest: Vec<HingeRest> = topology
            .hinges
            .iter()
            .map(|h| {
                let x = h.v.map(|v| mesh.positions[v as usize]);
                let (fa, fb) = (h.faces[0] as usize, h.faces[1] as usize);
                // The edge x0 -> x1 is some edge k of face A; take its rest length there.
                let k = (0..3).find(|&k| mesh.faces[fa][k] == h.v[0]).unwrap_or(0);
                let len = face_rest[fa].edge_len[k];
                HingeRest {
                    theta: bending::dihedral(x),
                    factor: bending::stiffness_factor(len, face_rest[fa].area, face_rest[fb].area),
                    len,
                }
            })
            .collect();
        // Each edge's rest length from the first face (in face order) that has it.
        let mut edge_rest = vec![f64::NAN; topology.edges.len()];
        for (face, rest) in mesh.faces.iter().zip(&face_rest) {
            for k in 0..3 {
                let (a, b) = (face[k], face[(k + 1) % 3]);
                if let Ok(e) = topology.edges.binary_search(&[a.min(b), a.max(b)])
                    && edge_rest[e].is_nan()
                {
                    edge_rest[e] = rest.edge_len[k];
                }
            }
        }
        // Each face's shape-function gradient at a vertex, and the edge's
        // in-plane normal along the wing corner's gradient.
        let coupling = topology
            .hinges
            .iter()
            .zip(&hinge_rest)
            .map(|(h, rest)| {
                let corner = |f: u32, v: u32| (0..3).find(|&k| mesh.faces[f as usize][k] == v).unwrap_or(0);
                let beta = |f: u32, v: u32| face_rest[f as usize].beta[corner(f, v)];
                let [fa, fb] = h.faces;
                Coupling {
                    half_len: 0.5 * rest.len,
                    weights: [cosserat::weights(beta(fa, h.v[2])), cosserat::weights(beta(fb, h.v[3]))],
                    beta: [
                        [h.v[0], h.v[1], h.v[2]].map(|v| beta(fa, v)),
                        [h.v[0], h.v[1], h.v[3]].map(|v| beta(fb, v)),
                    ],
                }
            })
            .collect();
        let mut mass = vec![0.0; mesh.positions.len()];
        for (face, rest) in mesh.faces.iter().zip(&face_rest) {
            for &v in face {
                mass[v as usize] += material.density * rest.area / 3.0;
            }
        }
        let incidence_beta = topology
            .vertex_faces
            .entries
            .iter()
            .map(|&(f, a)| face_rest[f as usize].beta[a as usize])
            .collect();
        let shape_operator = (material.bending_model == BendingModel::ShapeOperator)
            .then(|| ShapeOperator::new(&mesh, &topology, &face_rest));
        Ok(Cloth {
            shape_operator,
            incidence_beta,
            region_hinges: None,
            initial_channels: None,
            mesh,
            topology,
            material,
            damping,
            face_rest,
            hinge_rest,
            edge_rest,
            coupling,
            mass,
        })
    }

    pub fn vertex_count(&self) -> usize {
        self.mesh.positions.len()
    }

    /// Length of the initial bounding-box diagonal, the cloth's size scale.
    pub fn diagonal(&self) -> f64 {
        let (lo, hi) = self.mesh.bounds();
        (hi - lo).length()
    }
}

/// Material coordinates of a triangle laid flat in its own plane, u along the
/// projection of `warp` (or the first edge where warp is normal to the face).
fn own_rest_shape(x: [DVec3; 3], warp: DVec3) -> [DVec2; 3] {
    let n = (x[1] - x[0]).cross(x[2] - x[0]).normalize_or_zero();
    let mut u = (warp - n * warp.dot(n)).normalize_or_zero();
    if u == DVec3::ZERO {
        u = (x[1] - x[0]).normalize_or_zero();
    }
    let v = n.cross(u);
    x.map(|p| DVec2::new((p - x[0]).dot(u), (p - x[0]).dot(v)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mesh::{Pattern, grid};
    use crate::model::material::preset;

    #[test]
    fn masses_sum_to_density_times_area() {
        let mesh = grid(0.5, 0.2, 5, 4, Pattern::Alternating, DVec3::ZERO, (DVec3::X, DVec3::Y));
        let m = preset("cotton").unwrap();
        let cloth = Cloth::new(mesh, m, 0.0, DVec3::X).unwrap();
        let total: f64 = cloth.mass.iter().sum();
        assert!((total - 0.06 * 0.1).abs() < 1e-15);
        assert!(cloth.hinge_rest.iter().all(|h| h.theta == 0.0 && h.factor > 0.0));
        // 5 x 4 quads of 0.1 x 0.05: edges of 0.1, 0.05 and diagonals.
        let diagonal = (0.1f64.powi(2) + 0.05f64.powi(2)).sqrt();
        assert!(
            cloth
                .edge_rest
                .iter()
                .all(|&l| [0.1, 0.05, diagonal].iter().any(|d| (l - d).abs() < 1e-12))
        );
    }

    #[test]
    fn own_rest_shape_matches_the_triangle() {
        let x = [DVec3::ZERO, DVec3::new(0.1, 0.0, 0.0), DVec3::new(0.0, 0.1, 0.02)];
        let uv = own_rest_shape(x, DVec3::X);
        for k in 0..3 {
            let l3 = (x[(k + 1) % 3] - x[k]).length();
            let l2 = (uv[(k + 1) % 3] - uv[k]).length();
            assert!((l3 - l2).abs() < 1e-15);
        }
        // Warp (x) lies in this face's plane: it is the u axis.
        assert!(uv[1].x > 0.0 && uv[1].y.abs() < 1e-15);
    }

    #[test]
    fn degenerate_face_is_named() {
        let mut mesh = grid(0.5, 0.2, 2, 1, Pattern::Regular, DVec3::ZERO, (DVec3::X, DVec3::Y));
        mesh.uv = None;
        // Face 0 is (0, 1, 4): put vertex 4 on the segment 0-1.
        mesh.positions[4] = (mesh.positions[0] + mesh.positions[1]) * 0.5;
        let e = Cloth::new(mesh, preset("cotton").unwrap(), 0.0, DVec3::X)
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("triangle 1 (vertices") && e.contains("zero rest area"),
            "{e}"
        );
    }

    /// A face whose area overflows (coordinates of 1e200 m) is said to be
    /// too large, not degenerate.
    #[test]
    fn an_overflowing_face_is_too_large_not_degenerate() {
        let mut mesh = grid(0.5, 0.2, 2, 1, Pattern::Regular, DVec3::ZERO, (DVec3::X, DVec3::Y));
        mesh.uv = None;
        mesh.positions.iter_mut().for_each(|p| *p *= 1e200);
        let e = Cloth::new(mesh, preset("cotton").unwrap(), 0.0, DVec3::X)
            .unwrap_err()
            .to_string();
        assert!(e.contains("triangle 1 (vertices") && e.contains("too large"), "{e}");
    }
}
