//! Per-vertex gathers through the CSR incidence lists: each vertex sums the
//! contributions of its faces and hinges in a fixed order, so there are no
//! atomics or locks and the result is the same whatever the thread count.

use super::bending::HingeStates;
use super::membrane::FaceStates;
use super::repulsion::Repulsion;
use crate::cloth::Cloth;
use crate::model::air::Air;
use crate::model::membrane::outer;
use crate::step::Scales;
use crate::step::{StepInput, VertexLoad};
use glam::{DMat3, DVec3};
use rayon::prelude::*;

/// Total force on each vertex: gravity, membrane and bending (with Melo's
/// coupling when the material has it).
pub fn forces(cloth: &Cloth, faces: &FaceStates, hinges: &HingeStates, gravity: DVec3, out: &mut [DVec3]) {
    let topo = &cloth.topology;
    let coupled = cloth.material.coupling != 0.0;
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
            if coupled {
                f += hinges.coupling[h as usize][a as usize];
            }
        }
        *o = f;
    });
}

/// Per-vertex blocks of the system beyond the mass: the air's damping
/// (model/air.rs; each vertex's unit normal, system factor `h`) and the
/// sticking springs (`stick[v]` N/m, system factor `h^2`, like the
/// elastic forces').
pub struct VertexBlocks<'a> {
    pub air: Option<(Air, &'a [DVec3])>,
    pub damping: f64,
    pub stick: &'a [f64],
    pub spring: f64,
}

impl<'a> VertexBlocks<'a> {
    /// The step's blocks, if it has air or sticking springs.
    pub fn of(input: &StepInput, scales: &Scales, stick: &'a [f64], normals: &'a [DVec3]) -> Option<Self> {
        (input.air.acts() || !input.sticks.is_empty()).then(|| VertexBlocks {
            air: input.air.acts().then_some((input.air, normals)),
            damping: scales.damping,
            stick,
            spring: scales.friction,
        })
    }

    /// The vertex's block of the system: `h D_v + h^2 k_v I`.
    pub fn block(&self, cloth: &Cloth, v: usize) -> DMat3 {
        let spring = DMat3::from_diagonal(DVec3::splat(self.stick[v] * self.spring));
        match &self.air {
            Some((air, normals)) => air.damping(cloth.lumped_area(v), normals[v]) * self.damping + spring,
            None => spring,
        }
    }
}

/// The scene loads' shares added to `force` (constant forces: nothing
/// enters the system's matrix).
pub fn loads(loads: &[VertexLoad], force: &mut [DVec3]) {
    for l in loads {
        force[l.vertex as usize] += l.force;
    }
}

/// The sticking springs' forces `k (target - x)` added to `force`.
pub fn sticks(stick: &[f64], target: &[DVec3], x: &[DVec3], force: &mut [DVec3]) {
    for (((f, k), t), x) in force.iter_mut().zip(stick).zip(target).zip(x) {
        if *k != 0.0 {
            *f += (*t - *x) * *k;
        }
    }
}

/// Each vertex's unit normal: the sum of its faces' `A_f (F_u x F_v)` (the
/// deformed tangents of the membrane kernel), normalised; then the wind's
/// force on the vertex (lumped area `m / rho`) is added to `force`.
pub fn air(cloth: &Cloth, faces: &FaceStates, air: &Air, normals: &mut [DVec3], force: &mut [DVec3]) {
    let topo = &cloth.topology;
    normals
        .par_iter_mut()
        .zip(force.par_iter_mut())
        .with_min_len(256)
        .enumerate()
        .for_each(|(v, (n, f))| {
            let mut sum = DVec3::ZERO;
            for &(face, _) in topo.vertex_faces.row(v) {
                let l = &faces.lin[face as usize];
                sum += l.fu.cross(l.fv) * cloth.face_rest[face as usize].area;
            }
            *n = sum.normalize_or_zero();
            *f += air.wind_force(cloth.lumped_area(v), *n);
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
    blocks: Option<&VertexBlocks>,
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
        if let Some(b) = blocks {
            h += b.block(cloth, v);
        }
        let block = DMat3::from_diagonal(DVec3::splat(cloth.mass[v])) + h;
        *o = block.inverse();
    });
}
