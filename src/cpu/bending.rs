//! Per-hinge kernel: dihedral angle and bending mode at the step's start
//! positions, the bending channel's friction/plastic update, the hinge force
//! and its coefficient in the implicit system (docs/physics.md "Bending", "Internal
//! friction", "Plasticity"; the paper's Eq. 5-14).

use super::membrane::FaceStates;
use crate::cloth::Cloth;
use crate::model::bending::{BendingModel, bridson_factor, dihedral_gradient, elastic, unwrap};
use crate::model::channel::ChannelState;
use crate::model::cosserat;
use crate::model::membrane::green_strain;
use crate::step::Scales;
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
        let (channel, strain) = match &cloth.initial_channels {
            Some(ch) => (ch.hinges.clone(), ch.hinge_strain.clone()),
            None => (vec![cloth.material.bending_channel.initial_state(); n], vec![0.0; n]),
        };
        HingeStates {
            grad: vec![[DVec3::ZERO; 4]; n],
            force: vec![0.0; n],
            coef: vec![0.0; n],
            channel,
            strain,
            coupling: vec![[DVec3::ZERO; 4]; n],
        }
    }
}

/// Updates every hinge's channel at positions `x`, velocities `v`, then
/// its force `-(m + w friction stress) grad` and system coefficient
/// `elastic dm/dtheta + w c (friction k_f + damping D) + damping k_d |E|`,
/// where the channel's strain is `c theta` and `(c, w)` are `(1, s_e)` for
/// the angle and `(3 / h, |e|)` for Miguel's strain (`BendingStrain`),
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
            // The channel sees its own strain `c theta` (the angle, or
            // Miguel's `3 theta / h`) and pushes with `w` per unit stress.
            let (cs, w) = rest.channel_scales(m.bending_strain);
            let c = m.bending_channel.update(
                &m.bending_models,
                state,
                cs * strain,
                cs * rate,
                m.bending_channel_stiffness(),
                scales.dt,
                scales.material_dt,
            );
            let eps_p = c.eps_p / cs;
            let factor = match m.bending_model {
                BendingModel::DiscreteShell => rest.factor,
                BendingModel::Bridson => bridson_factor(corners),
            };
            let (elastic, stiffness) = elastic(m.bending_model, kb, factor, rest.theta, strain, eps_p);
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
            *force = -(elastic + w * c.stress);
            *coef = scales.elastic * stiffness
                + w * cs * (scales.friction * c.stiffness + scales.damping * c.damping)
                + scales.damping * k_d;
        });
}
