//! Per-hinge kernel: dihedral angle and bending mode at the current
//! positions (MODEL.md "Bending: discrete shells").

use crate::cloth::Cloth;
use crate::model::bending::dihedral_gradient;
use glam::DVec3;
use rayon::prelude::*;

/// What the per-hinge kernel leaves for the gathers and the solver, one
/// array per quantity.
pub struct HingeStates {
    /// `dtheta/dx` for the hinge's four vertices.
    pub grad: Vec<[DVec3; 4]>,
    /// Force coefficient: the hinge pushes vertex `a` with `force * grad[a]`,
    /// `force = -k_b s_e (theta - theta_rest)`.
    pub force: Vec<f64>,
    /// Gauss-Newton stiffness `k_b s_e`: the Hessian is `stiffness grad grad^T`.
    pub stiffness: Vec<f64>,
}

impl HingeStates {
    pub fn new(hinges: usize) -> HingeStates {
        HingeStates {
            grad: vec![[DVec3::ZERO; 4]; hinges],
            force: vec![0.0; hinges],
            stiffness: vec![0.0; hinges],
        }
    }
}

pub fn bending(cloth: &Cloth, x: &[DVec3], out: &mut HingeStates) {
    let kb = cloth.material.bending;
    out.grad
        .par_iter_mut()
        .zip(out.force.par_iter_mut())
        .zip(out.stiffness.par_iter_mut())
        .with_min_len(512)
        .enumerate()
        .for_each(|(h, ((grad, force), stiffness))| {
            let rest = &cloth.hinge_rest[h];
            let (theta, g) = dihedral_gradient(cloth.topology.hinges[h].v.map(|v| x[v as usize]));
            *grad = g;
            *stiffness = kb * rest.factor;
            *force = -*stiffness * (theta - rest.theta);
        });
}
