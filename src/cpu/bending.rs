//! Per-hinge kernel: dihedral angle and bending mode at the current
//! positions (MODEL.md "Bending: discrete shells").

use crate::cloth::Cloth;
use crate::model::bending::dihedral_gradient;
use glam::DVec3;
use rayon::prelude::*;

/// What the per-hinge kernel leaves for the gathers and the solver.
#[derive(Clone, Copy, Debug, Default)]
pub struct HingeState {
    pub theta: f64,
    /// `dtheta/dx` for the hinge's four vertices.
    pub grad: [DVec3; 4],
    /// Force coefficient: the hinge pushes vertex `a` with `force * grad[a]`,
    /// `force = -k_b s_e (theta - theta_rest)`.
    pub force: f64,
    /// Gauss-Newton stiffness `k_b s_e`: the hinge's Hessian is
    /// `stiffness * grad grad^T`.
    pub stiffness: f64,
}

pub fn bending(cloth: &Cloth, x: &[DVec3], out: &mut [HingeState]) {
    let kb = cloth.material.bending;
    out.par_iter_mut()
        .with_min_len(512)
        .enumerate()
        .for_each(|(h, o)| {
            let hinge = &cloth.topology.hinges[h];
            let rest = &cloth.hinge_rest[h];
            let (theta, grad) = dihedral_gradient(hinge.v.map(|v| x[v as usize]));
            let stiffness = kb * rest.factor;
            *o = HingeState {
                theta,
                grad,
                force: -stiffness * (theta - rest.theta),
                stiffness,
            };
        });
}
