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
    /// Each hinge's elastic bend `theta - theta_rest - eps_p`, which its
    /// neighbours' forces read under the shape operator; and the
    /// scale of the elastic terms in the system (`Scales::elastic`), which
    /// the off-diagonal blocks `scale k_b K_hg grad_h grad_g^T` carry.
    pub bend: Vec<f64>,
    pub elastic_scale: f64,
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
            bend: vec![0.0; n],
            elastic_scale: 0.0,
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
/// gradients the membrane kernel left in `faces`. Under the shape operator
/// the elastic part is a second pass's (cpu/shape_operator.rs).
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
        .zip(out.bend.par_iter_mut())
        .with_min_len(512)
        .enumerate()
        .for_each(|(h, ((((((grad, force), coef), state), last), coupling), bend))| {
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
                h as u32,
            );
            let eps_p = c.eps_p / cs;
            // The shape operator's elastic part is its coupling's
            // (cpu/shape_operator.rs), from the bends left here.
            let factor = match m.bending_model {
                BendingModel::DiscreteShell => rest.factor,
                BendingModel::Bridson => bridson_factor(corners),
                BendingModel::ShapeOperator => 0.0,
            };
            *bend = strain - eps_p;
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
    out.elastic_scale = scales.elastic;
    if let Some(k) = &cloth.shape_operator {
        super::shape_operator::forces(k, kb, out);
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::patch;
    use super::*;
    use crate::model::bending::dihedral;
    use crate::model::material::preset;
    use crate::model::testing::Rng;

    /// Bridson et al. 2003's bending damping (§4.2: `F_i = -k_d |E|
    /// (dtheta/dt) u_i`), as this kernel puts it into the system: the
    /// hinge's block grows by `h k_d |E| grad grad^T`, so `-S v / h` is the
    /// damping force. On a crumpled, moving sheet that force equals
    /// Bridson's with the rate and gradient taken by finite differences of
    /// the angle, dissipates, and exerts no net force or torque.
    #[test]
    fn the_kernels_bending_damping_is_bridsons_force() {
        let mesh = patch(3, 2);
        let mut rng = Rng(29);
        let x: Vec<DVec3> = mesh.positions.iter().map(|p| *p + rng.vec3(0.006)).collect();
        let v: Vec<DVec3> = x.iter().map(|_| rng.vec3(0.5)).collect();
        let k_d = 0.3;
        let h = 1e-3;
        let coefs = |bending_damping: f64| {
            let mut material = preset("elastic").unwrap();
            material.bending_damping = bending_damping;
            let cloth = Cloth::new(mesh.clone(), material, 0.0, DVec3::X).unwrap();
            let scales = Scales::new(h, h, 0.0);
            let mut faces = FaceStates::new(&cloth);
            let mut hinges = HingeStates::new(&cloth);
            super::super::membrane::membrane(&cloth, &x, &v, &scales, &mut faces);
            bending(&cloth, &x, &v, &faces, &scales, &mut hinges);
            (cloth, hinges)
        };
        let (cloth, damped) = coefs(k_d);
        let (_, undamped) = coefs(0.0);
        assert!(cloth.topology.hinges.len() >= 10);
        let mut dissipation = 0.0;
        for (hinge, idx) in cloth.topology.hinges.iter().enumerate() {
            let idx = idx.v.map(|i| i as usize);
            let corners = idx.map(|i| x[i]);
            let g = damped.grad[hinge];
            let block = damped.coef[hinge] - undamped.coef[hinge];
            let rate: f64 = (0..4).map(|a| g[a].dot(v[idx[a]])).sum();
            let force = g.map(|g| g * (-block / h * rate));
            // Bridson's force from finite differences of the angle alone.
            let d = 1e-7;
            let at = |s: f64| dihedral([0, 1, 2, 3].map(|a| corners[a] + v[idx[a]] * s));
            let fd_rate = (at(d) - at(-d)) / (2.0 * d);
            let len = (corners[1] - corners[0]).length();
            for a in 0..4 {
                for axis in 0..3 {
                    let (mut p, mut m) = (corners, corners);
                    p[a][axis] += d;
                    m[a][axis] -= d;
                    let u = (dihedral(p) - dihedral(m)) / (2.0 * d);
                    let bridson = -k_d * len * fd_rate * u;
                    assert!(
                        (force[a][axis] - bridson).abs()
                            < 1e-5 * (k_d * len * fd_rate.abs() * g[a].length()).max(1e-12),
                        "hinge {hinge} vertex {a} axis {axis}: {} vs {bridson}",
                        force[a][axis]
                    );
                }
            }
            let sum: DVec3 = force.iter().sum();
            let torque: DVec3 = corners.iter().zip(&force).map(|(p, f)| p.cross(*f)).sum();
            let scale: f64 = force.iter().map(|f| f.length()).sum();
            assert!(scale > 0.0 && sum.length() < 1e-9 * scale && torque.length() < 1e-9 * scale);
            dissipation += (0..4).map(|a| force[a].dot(v[idx[a]])).sum::<f64>();
        }
        assert!(dissipation < 0.0, "damping must take energy out: {dissipation}");
    }
}
