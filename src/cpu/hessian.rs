//! Matrix-free products with the implicit system matrix
//! `A = mass_scale M + stiffness_scale H` (H = -df/dx, the PSD element
//! Hessians): per-element products into scratch buffers, then a per-vertex
//! gather. No global matrix is ever assembled.

use super::bending::HingeState;
use super::membrane::FaceState;
use crate::cloth::Cloth;
use glam::{DMat3, DVec3};
use rayon::prelude::*;

/// Per-element scratch of a product.
#[derive(Default)]
pub struct Scratch {
    /// Per face: `A (dP_u, dP_v)`.
    face: Vec<[DVec3; 2]>,
    /// Per hinge: `k_b s_e (grad . p)`.
    hinge: Vec<f64>,
}

impl Scratch {
    pub fn new(cloth: &Cloth) -> Scratch {
        Scratch {
            face: vec![[DVec3::ZERO; 2]; cloth.mesh.faces.len()],
            hinge: vec![0.0; cloth.topology.hinges.len()],
        }
    }
}

pub struct Operator<'a> {
    pub cloth: &'a Cloth,
    pub faces: &'a [FaceState],
    pub hinges: &'a [HingeState],
    /// Membrane channel stiffness `d2W/de2 / A`.
    pub c: DMat3,
    pub mass_scale: f64,
    pub stiffness_scale: f64,
}

impl Operator<'_> {
    /// `out = A p`.
    pub fn apply(&self, scratch: &mut Scratch, p: &[DVec3], out: &mut [DVec3]) {
        let cloth = self.cloth;
        let (face_out, hinge_out) = (&mut scratch.face, &mut scratch.hinge);
        rayon::join(
            || {
                face_out
                    .par_iter_mut()
                    .with_min_len(512)
                    .enumerate()
                    .for_each(|(f, o)| {
                        let dx = cloth.mesh.faces[f].map(|v| p[v as usize]);
                        *o =
                            self.faces[f]
                                .lin
                                .stress_differential(&cloth.face_rest[f], &self.c, dx);
                    })
            },
            || {
                hinge_out
                    .par_iter_mut()
                    .with_min_len(512)
                    .enumerate()
                    .for_each(|(h, o)| {
                        let hs = &self.hinges[h];
                        let v = cloth.topology.hinges[h].v;
                        let gp: f64 = (0..4).map(|a| hs.grad[a].dot(p[v[a] as usize])).sum();
                        *o = hs.stiffness * gp;
                    })
            },
        );
        let (face_out, hinge_out) = (&scratch.face, &scratch.hinge);
        let topo = &cloth.topology;
        out.par_iter_mut()
            .with_min_len(256)
            .enumerate()
            .for_each(|(v, o)| {
                let mut hp = DVec3::ZERO;
                for &(face, a) in topo.vertex_faces.row(v) {
                    let b = cloth.face_rest[face as usize].beta[a as usize];
                    let d = &face_out[face as usize];
                    hp += d[0] * b.x + d[1] * b.y;
                }
                for &(h, a) in topo.vertex_hinges.row(v) {
                    hp += self.hinges[h as usize].grad[a as usize] * hinge_out[h as usize];
                }
                *o = p[v] * (self.mass_scale * cloth.mass[v]) + hp * self.stiffness_scale;
            });
    }
}
