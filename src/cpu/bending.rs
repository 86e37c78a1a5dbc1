//! Per-hinge kernel: dihedral angle and bending mode at the step's start
//! positions, the bending channel's friction/plastic update, the hinge force
//! and its coefficient in the implicit system (MODEL.md "Bending", "Internal
//! friction", "Plasticity"; the paper's Eq. 5-14).

use super::Scales;
use super::membrane::FaceStates;
use crate::cloth::Cloth;
use crate::model::bending::{BendingModel, bridson_factor, dihedral_gradient, elastic};
use crate::model::channel::ChannelState;
use crate::model::cosserat;
use crate::model::membrane::green_strain;
use glam::DVec3;
use rayon::prelude::*;

/// What the per-hinge kernel leaves for the gathers and the solver, one
/// array per quantity.
#[derive(Clone)]
pub struct HingeStates {
    /// `dtheta/dx` for the hinge's four vertices.
    pub grad: Vec<[DVec3; 4]>,
    /// Force coefficient: the hinge pushes vertex `a` with `force * grad[a]`.
    pub force: Vec<f64>,
    /// The hinge's block of the system matrix is `coef grad grad^T`.
    pub coef: Vec<f64>,
    /// Friction and plastic state of each hinge's bending channel.
    pub channel: Vec<ChannelState>,
    /// The strain `theta - theta_rest` of the last evaluation, unwrapped.
    pub strain: Vec<f64>,
    /// The stretch-bend coupling's forces on the hinge's four vertices
    /// (model/cosserat.rs; zero without coupling).
    pub coupling: Vec<[DVec3; 4]>,
}

impl HingeStates {
    pub fn new(cloth: &Cloth) -> HingeStates {
        let n = cloth.topology.hinges.len();
        HingeStates {
            grad: vec![[DVec3::ZERO; 4]; n],
            force: vec![0.0; n],
            coef: vec![0.0; n],
            channel: vec![cloth.material.bending_channel.initial_state(); n],
            strain: vec![0.0; n],
            coupling: vec![[DVec3::ZERO; 4]; n],
        }
    }
}

/// The angle `raw` plus the multiple of 2 pi nearest to `last`: a hinge
/// folded past flat-on-itself (pi) keeps counting instead of jumping to
/// -pi, so its force keeps opening it (a jump would reverse the force and
/// fold it further, feeding energy in).
pub fn unwrap(raw: f64, last: f64) -> f64 {
    let tau = std::f64::consts::TAU;
    raw + tau * ((last - raw) / tau).round()
}

/// Updates every hinge's channel at positions `x`, velocities `v`, then
/// its force `-(m + s_e friction stress) grad` and system coefficient
/// `elastic dm/dtheta + s_e (friction k_f + damping D) + damping k_d |E|`,
/// with the elastic magnitude `m` of the material's bending model
/// (model/bending.rs `elastic`) and Bridson's bending damping `k_d`; with
/// Melo's coupling, its explicit forces from the faces' deformation
/// gradients the membrane kernel left in `faces`.
pub fn bending(cloth: &Cloth, x: &[DVec3], v: &[DVec3], faces: &FaceStates, scales: &Scales, out: &mut HingeStates) {
    let m = &cloth.material;
    let kb = m.bending;
    out.grad
        .par_iter_mut()
        .zip(out.force.par_iter_mut())
        .zip(out.coef.par_iter_mut())
        .zip(out.channel.par_iter_mut())
        .zip(out.strain.par_iter_mut())
        .zip(out.coupling.par_iter_mut())
        .with_min_len(512)
        .enumerate()
        .for_each(|(h, (((((grad, force), coef), state), last), coupling))| {
            let rest = &cloth.hinge_rest[h];
            let idx = cloth.topology.hinges[h].v;
            let corners = idx.map(|i| x[i as usize]);
            let (theta, g) = dihedral_gradient(corners);
            let strain = unwrap(theta - rest.theta, *last);
            *last = strain;
            let rate: f64 = (0..4).map(|a| g[a].dot(v[idx[a] as usize])).sum();
            let c = m.bending_channel.update(
                &m.bending_models,
                state,
                strain,
                rate,
                kb,
                scales.dt,
                scales.material_dt,
            );
            let factor = match m.bending_model {
                BendingModel::DiscreteShell => rest.factor,
                BendingModel::Bridson => bridson_factor(corners),
            };
            let (elastic, stiffness) = elastic(m.bending_model, kb, factor, rest.theta, strain, c.eps_p);
            let k_d = m.bending_damping * (corners[1] - corners[0]).length();
            if m.coupling != 0.0 {
                let f = cloth.topology.hinges[h].faces.map(|f| {
                    let l = &faces.lin[f as usize];
                    (l.fu, l.fv)
                });
                let e = f.map(|(fu, fv)| green_strain(fu, fv));
                *coupling = cosserat::forces(&cloth.coupling[h], m.coupling, strain, g, e, f);
            }
            *grad = g;
            *force = -(elastic + rest.factor * c.stress);
            *coef = scales.elastic * stiffness
                + rest.factor * (scales.friction * c.stiffness + scales.damping * c.damping)
                + scales.damping * k_d;
        });
}

#[cfg(test)]
mod tests {
    use super::unwrap;
    use std::f64::consts::PI;

    #[test]
    fn a_hinge_folding_past_pi_keeps_counting() {
        // Fold from 3.0 rad on through pi in steps of 0.05 rad: the raw
        // dihedral wraps to -pi, the unwrapped strain does not.
        let mut last = 3.0;
        for k in 1..=8 {
            let angle = 3.0 + 0.05 * k as f64;
            let raw = (angle + PI).rem_euclid(2.0 * PI) - PI;
            last = unwrap(raw, last);
            assert!((last - angle).abs() < 1e-12, "{angle}: raw {raw} unwrapped to {last}");
        }
        assert_eq!(unwrap(0.3, 0.25), 0.3);
        assert_eq!(unwrap(-0.3, 0.0), -0.3);
    }
}
