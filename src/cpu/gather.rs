//! Per-vertex gathers through the CSR incidence lists: each vertex sums the
//! contributions of its faces and hinges in a fixed order, so there are no
//! atomics or locks and the result is the same whatever the thread count.

use super::bending::HingeStates;
use super::membrane::FaceStates;
use super::repulsion::Repulsion;
use crate::cloth::Cloth;
use crate::model::membrane::outer;
use glam::{DMat3, DVec3};
use rayon::prelude::*;

/// Total force on each vertex: gravity, membrane and bending.
pub fn forces(cloth: &Cloth, faces: &FaceStates, hinges: &HingeStates, gravity: DVec3, out: &mut [DVec3]) {
    let topo = &cloth.topology;
    out.par_iter_mut().with_min_len(256).enumerate().for_each(|(v, o)| {
        let mut f = gravity * cloth.mass[v];
        let (lo, hi) = topo.vertex_faces.range(v);
        for (&(face, _), b) in topo.vertex_faces.entries[lo..hi]
            .iter()
            .zip(&cloth.incidence_beta[lo..hi])
        {
            let s = &faces.stress[face as usize];
            f -= s[0] * b.x + s[1] * b.y;
        }
        for &(h, a) in topo.vertex_hinges.row(v) {
            f += hinges.grad[h as usize][a as usize] * hinges.force[h as usize];
        }
        *o = f;
    });
}

/// Inverse of each vertex's 3x3 diagonal block of the system matrix
/// `A = M + sum of element blocks` (the block-Jacobi preconditioner),
/// with the self-collision springs' blocks when there are any.
pub fn inverse_diagonal(
    cloth: &Cloth,
    faces: &FaceStates,
    hinges: &HingeStates,
    repulsion: Option<&Repulsion>,
    out: &mut [DMat3],
) {
    let topo = &cloth.topology;
    out.par_iter_mut().with_min_len(256).enumerate().for_each(|(v, o)| {
        let mut h = DMat3::ZERO;
        for &(face, a) in topo.vertex_faces.row(v) {
            let (f, a) = (face as usize, a as usize);
            h += faces.lin[f].block(&cloth.face_rest[f], a, a);
        }
        for &(hinge, a) in topo.vertex_hinges.row(v) {
            let g = hinges.grad[hinge as usize][a as usize];
            h += outer(g, g) * hinges.coef[hinge as usize];
        }
        if let Some(r) = repulsion {
            h += r.diagonal(v);
        }
        let block = DMat3::from_diagonal(DVec3::splat(cloth.mass[v])) + h;
        *o = block.inverse();
    });
}
