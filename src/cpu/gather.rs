//! Per-vertex gathers through the CSR incidence lists: each vertex sums the
//! contributions of its faces and hinges in a fixed order, so there are no
//! atomics or locks and the result is the same whatever the thread count.

use super::bending::HingeState;
use super::membrane::FaceState;
use crate::cloth::Cloth;
use glam::{DMat3, DVec3};
use rayon::prelude::*;

/// Total force on each vertex: gravity, membrane and bending.
pub fn forces(
    cloth: &Cloth,
    faces: &[FaceState],
    hinges: &[HingeState],
    gravity: DVec3,
    out: &mut [DVec3],
) {
    let topo = &cloth.topology;
    out.par_iter_mut()
        .with_min_len(256)
        .enumerate()
        .for_each(|(v, o)| {
            let mut f = gravity * cloth.mass[v];
            for &(face, a) in topo.vertex_faces.row(v) {
                let b = cloth.face_rest[face as usize].beta[a as usize];
                let s = &faces[face as usize].stress;
                f -= s[0] * b.x + s[1] * b.y;
            }
            for &(h, a) in topo.vertex_hinges.row(v) {
                let hs = &hinges[h as usize];
                f += hs.grad[a as usize] * hs.force;
            }
            *o = f;
        });
}

/// Inverse of each vertex's 3x3 diagonal block of `A = M + scale H` (the
/// block-Jacobi preconditioner).
pub fn inverse_diagonal(
    cloth: &Cloth,
    faces: &[FaceState],
    hinges: &[HingeState],
    scale: f64,
    out: &mut [DMat3],
) {
    let topo = &cloth.topology;
    let c = cloth.material.stretching.stiffness();
    out.par_iter_mut()
        .with_min_len(256)
        .enumerate()
        .for_each(|(v, o)| {
            let mut h = DMat3::ZERO;
            for &(face, a) in topo.vertex_faces.row(v) {
                let (f, a) = (face as usize, a as usize);
                h += faces[f].lin.block(&cloth.face_rest[f], &c, a, a);
            }
            for &(hinge, a) in topo.vertex_hinges.row(v) {
                let hs = &hinges[hinge as usize];
                let g = hs.grad[a as usize];
                h += crate::model::membrane::outer(g, g) * hs.stiffness;
            }
            let block = DMat3::from_diagonal(DVec3::splat(cloth.mass[v])) + h * scale;
            *o = block.inverse();
        });
}
