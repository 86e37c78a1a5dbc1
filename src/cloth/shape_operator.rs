//! The hinges' coupling for `bending_model: "shape-operator"`: the bending
//! energy of the vertex-averaged discrete shape operator, a quadratic form
//! in the hinge angles built once from the rest shape.
//!
//! A face's shape operator is `S_T = sum_i theta_i |e_i| / (2 A_T) t_i t_i^T`
//! over its three edges (Grinspun et al. 2006's hinge form): each hinge
//! gives half its bend `theta |e|` to each of its two faces, along the
//! edge's in-plane normal `t`. A vertex averages the faces around it,
//! `S_v = sum_T A_T S_T / A_v` (`A_v` the faces' area), and the energy is
//! the continuum's `B/2 |S|^2` over a third of that area:
//!
//! ```text
//! E = B/2 sum_v (A_v / 3) |S_v|^2 = B/2 theta^T K theta,
//! K_hg = sum_v sum_(T, T' at v; h in T, g in T')
//!        (|e_h| / 2) (|e_g| / 2) (t_h . t_g)^2 / (3 A_v).
//! ```
//!
//! Five per cent of the energy is instead the faces' own `B/2 sum_T A_T
//! |S_T|^2` ([`FACE`]): the vertex averages alone let a checkerboard of
//! bends on the alternating pattern through at 1/175 of the hinges'
//! stiffness (1/4.7 with the faces' part), at a cost of 2.5% across that
//! pattern's diagonals, where a face's own operator is 1.5 times the
//! continuum's.
//!
//! On a sheet wrapped onto a cylinder this is the continuum's energy in
//! every direction on the regular pattern, within 2.5% on the alternating
//! one and 5% on jittered ones (`tests/rigidity.rs`), where the paper's
//! per-hinge energy is 1 to 3 times it. Edges are read in each face's material
//! coordinates, which agree between faces of one texture chart.
//! `K` is a sum of squares, so positive semi-definite on any mesh.

use crate::mesh::{Topology, TriMesh};
use crate::model::membrane::MembraneRest;
use crate::util::merge;
use glam::DVec2;
use rayon::prelude::*;

/// `K` without the material's `bending`: its diagonal, and each hinge's
/// other entries in compressed rows (`other[start[h]..start[h + 1]]`,
/// sorted, with `weight` alongside).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ShapeOperator {
    pub diag: Vec<f64>,
    pub start: Vec<u32>,
    pub other: Vec<u32>,
    pub weight: Vec<f64>,
}

/// The share of the energy in the faces' own operators (the rest is the
/// vertex averages').
pub const FACE: f64 = 0.05;

/// No hinge on a face's edge (a boundary edge).
const NONE: u32 = u32::MAX;

impl ShapeOperator {
    pub fn new(mesh: &TriMesh, topology: &Topology, rest: &[MembraneRest]) -> ShapeOperator {
        // Each face's hinge on the edge opposite each corner.
        let mut face_hinge = vec![[NONE; 3]; mesh.faces.len()];
        for (h, hinge) in topology.hinges.iter().enumerate() {
            for (f, wing) in [(hinge.faces[0], hinge.v[2]), (hinge.faces[1], hinge.v[3])] {
                let corner = mesh.faces[f as usize].iter().position(|&v| v == wing).unwrap_or(0);
                face_hinge[f as usize][corner] = h as u32;
            }
        }
        // Face f's hinges (g, half the edge's length, its unit in-plane
        // normal along the opposite corner's shape-function gradient), and
        // hinge h's own arm in face f.
        let arms = |f: u32| {
            let r = &rest[f as usize];
            (face_hinge[f as usize].iter().enumerate())
                .filter(|&(_, &g)| g != NONE)
                .map(move |(c, &g)| (g, 0.5 * r.edge_len[(c + 1) % 3], r.beta[c].normalize_or_zero()))
        };
        let arm = |f: u32, h: usize| {
            arms(f)
                .find(|a| a.0 as usize == h)
                .map_or((0.0, DVec2::ZERO), |a| (a.1, a.2))
        };
        let star_area: Vec<f64> = (0..mesh.positions.len())
            .map(|v| {
                topology
                    .vertex_faces
                    .row(v)
                    .iter()
                    .map(|&(f, _)| rest[f as usize].area)
                    .sum()
            })
            .collect();
        let rows: Vec<Vec<(u32, f64)>> = topology
            .hinges
            .par_iter()
            .enumerate()
            .map(|(h, hinge)| {
                let mut row: Vec<(u32, f64)> = Vec::new();
                // Face f's contribution, weighted: the products of h's arm
                // there with every arm of `others`.
                let mut add = |weight: f64, f: u32, others: u32| {
                    let (wh, th) = arm(f, h);
                    row.extend(arms(others).map(|(g, wg, tg)| (g, weight * wh * wg * th.dot(tg).powi(2))));
                };
                for &v in &hinge.v {
                    let scale = (1.0 - FACE) / (3.0 * star_area[v as usize]);
                    let faces = topology.vertex_faces.row(v as usize);
                    // h's arms in the faces around v (one or both of its faces).
                    for &(f, _) in faces.iter().filter(|&&(f, _)| hinge.faces.contains(&f)) {
                        for &(g_face, _) in faces {
                            add(scale, f, g_face);
                        }
                    }
                }
                // Each face's own operator, which no bend pattern escapes.
                for f in hinge.faces {
                    add(FACE / rest[f as usize].area, f, f);
                }
                merge(row)
            })
            .collect();
        let mut op = ShapeOperator {
            diag: vec![0.0; rows.len()],
            start: Vec::with_capacity(rows.len() + 1),
            ..ShapeOperator::default()
        };
        op.start.push(0);
        for (h, row) in rows.into_iter().enumerate() {
            for (g, w) in row {
                if g as usize == h {
                    op.diag[h] = w;
                } else {
                    op.other.push(g);
                    op.weight.push(w);
                }
            }
            op.start.push(op.other.len() as u32);
        }
        op
    }

    /// Hinge `h`'s other entries: `(g, K_hg)`.
    pub fn row(&self, h: usize) -> impl Iterator<Item = (usize, f64)> + '_ {
        let (lo, hi) = (self.start[h] as usize, self.start[h + 1] as usize);
        self.other[lo..hi]
            .iter()
            .map(|&g| g as usize)
            .zip(self.weight[lo..hi].iter().copied())
    }

    /// `sum_g K_hg a_g` over `h`'s other entries.
    pub fn off_diagonal(&self, h: usize, a: &[f64]) -> f64 {
        self.row(h).map(|(g, w)| w * a[g]).sum()
    }

    /// `theta^T K theta / 2` (times `bending`: the elastic energy).
    pub fn energy(&self, theta: &[f64]) -> f64 {
        (0..self.diag.len())
            .map(|h| 0.5 * theta[h] * (self.diag[h] * theta[h] + self.off_diagonal(h, theta)))
            .sum()
    }
}
