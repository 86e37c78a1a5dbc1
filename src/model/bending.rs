//! Discrete-shell bending on one hinge (docs/physics.md "Bending"; the paper's
//! Eq. 5-6; Bridson et al. 2003 §4 for the bending mode).
//!
//! Hinge `x = [x0, x1, x2, x3]`: edge x0 -> x1, face A = (x0, x1, x2) and face
//! B = (x1, x0, x3), with area-weighted normals `nA = (x1-x0) x (x2-x0)`,
//! `nB = (x0-x1) x (x3-x1)`. The signed dihedral angle is
//! `theta = atan2((nA x nB) . e_hat, nA . nB)`: 0 when flat, positive when the
//! wings fold towards -nA (a "mountain" seen from the normal side).
//!
//! Its gradient is Bridson's bending mode `u`: lifting a wing by `d` along its
//! unit normal turns its face by `d / h` (h = the wing's height over the edge),
//! so `dtheta/dx2 = -|e| nA / |nA|^2`, `dtheta/dx3 = -|e| nB / |nB|^2`, and the
//! edge vertices share the opposite of these according to where the wings
//! project onto the edge (`alpha = (x_w - x0).e / |e|^2`), which makes the
//! mode free of translation and rotation.
//!
//! Two elastic forces act along that mode, `-m dtheta/dx` (`elastic`):
//! the discrete shell's `m = k_b s_e (theta - theta_bar)` (docs/physics.md, Eq. 5),
//! and Bridson et al. 2003 §4's `m = k_e |E|^2 / (|N1| + |N2|) (sin(theta/2) -
//! sin(theta_bar/2))` with the current edge and normals, which stays bounded
//! as a hinge folds flat. Here `theta_bar` is the rest angle plus the
//! plastic strain, and `k_e = 4 k_b`, so both agree for small bends
//! (`2 |E|^2 / (|N1| + |N2|)` is `s_e` at rest). Bridson's damping
//! `-k_d |E| (dtheta/dt) u` can be added to either (`cpu/bending.rs`).

use glam::DVec3;

/// The elastic bending force of a cloth (`cloth.material.bending_model`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum BendingModel {
    /// The paper's discrete shell, linear in the angle (Eq. 5).
    #[default]
    DiscreteShell,
    /// Bridson, Marino & Fedkiw 2003 §4: `sin(theta/2)`, current geometry.
    Bridson,
    /// The vertex-averaged discrete shape operator's energy
    /// (cloth/shape_operator.rs): linear in the angles like the shell's,
    /// but coupling the hinges around each vertex, so that the sheet's
    /// rigidity is `bending` whatever the triangulation and direction.
    /// A hinge's own part is the shell's with `factor` its diagonal entry.
    ShapeOperator,
}

/// What a hinge's friction and plasticity channel measures
/// (`cloth.material.bending_strain`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum BendingStrain {
    /// The dihedral angle `theta - theta_rest` (rad), with the channel's
    /// stress acting through `s_e` like `k_b` (the paper's Eq. 5-14).
    #[default]
    Angle,
    /// Miguel et al. 2013 §2.1's discrete-shells strain
    /// `eps = 3 (theta - theta_rest) / h` (1/m), `h = (A0 + A1) / |e|` the
    /// hinge's mean height, with the force `A sigma grad eps` of the hinge's
    /// area `A = |e| h / 3`: a torque `|e| sigma` about the hinge. Stresses
    /// are then per unit width (N), as `crease fit bending` reports them,
    /// and independent of the mesh.
    Curvature,
}

impl BendingStrain {
    /// The channel strain per radian `c` and the torque per unit channel
    /// stress `w` of a hinge with stiffness factor `s_e` and rest edge
    /// length `len`: angle `(1, s_e)`, curvature `(3 s_e / |e|, |e|)`.
    pub fn scales(self, factor: f64, len: f64) -> (f64, f64) {
        match self {
            BendingStrain::Angle => (1.0, factor),
            BendingStrain::Curvature => (3.0 * factor / len, len),
        }
    }

    /// `k_b` over the channel's own elastic stiffness (the stiffness that
    /// plasticity's hardening ratio compares with): 1 for the angle, 3 for
    /// Miguel's strain (their `T_elastic = 3 k w kappa`: `k_b = 3 k`).
    pub fn stiffness_ratio(self) -> f64 {
        match self {
            BendingStrain::Angle => 1.0,
            BendingStrain::Curvature => 3.0,
        }
    }
}

/// Bridson's geometric factor `2 |E|^2 / (|N1| + |N2|)` of a hinge at `x`
/// (`N` the area-weighted normals): the stiffness factor `s_e` at the
/// current shape.
pub fn bridson_factor(x: [DVec3; 4]) -> f64 {
    let e = x[1] - x[0];
    let na = e.cross(x[2] - x[0]);
    let nb = (x[0] - x[1]).cross(x[3] - x[1]);
    2.0 * e.length_squared() / (na.length() + nb.length())
}

/// The elastic force magnitude `m` (the hinge pushes its vertices with
/// `-m dtheta/dx`) and `dm/dtheta`, the coefficient of the hinge's
/// Gauss-Newton block `dm/dtheta g g^T`. `strain = theta - theta_rest`;
/// `factor` is `s_e` at rest for the shell, `bridson_factor` at the
/// current positions for Bridson's model, and the hinge's diagonal entry
/// of `K` for the shape operator (whose other entries the kernels add).
pub fn elastic(model: BendingModel, kb: f64, factor: f64, theta_rest: f64, strain: f64, eps_p: f64) -> (f64, f64) {
    match model {
        BendingModel::DiscreteShell | BendingModel::ShapeOperator => (factor * kb * (strain - eps_p), factor * kb),
        BendingModel::Bridson => {
            // k_e/2 factor (sin(theta/2) - sin(theta_bar/2)) with k_e = 4 k_b,
            // as a product (sin a - sin b = 2 cos((a+b)/2) sin((a-b)/2)) so
            // that a small bend keeps its digits.
            let mean = (2.0 * theta_rest + strain + eps_p) / 4.0;
            let m = 4.0 * kb * factor * mean.cos() * ((strain - eps_p) / 4.0).sin();
            // Past flat-on-itself (|theta| > pi) the force weakens as the hinge
            // folds on: the block keeps only the stiffening part.
            let dm = kb * factor * ((theta_rest + strain) / 2.0).cos().max(0.0);
            (m, dm)
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

/// Signed dihedral angle of a hinge, radians in (-pi, pi].
pub fn dihedral(x: [DVec3; 4]) -> f64 {
    let e = x[1] - x[0];
    let na = e.cross(x[2] - x[0]);
    let nb = (x[0] - x[1]).cross(x[3] - x[1]);
    let len = e.length();
    na.cross(nb).dot(e / len).atan2(na.dot(nb))
}

/// The dihedral angle and its gradient with respect to the four vertices.
pub fn dihedral_gradient(x: [DVec3; 4]) -> (f64, [DVec3; 4]) {
    let e = x[1] - x[0];
    let na = e.cross(x[2] - x[0]);
    let nb = (x[0] - x[1]).cross(x[3] - x[1]);
    let e2 = e.length_squared();
    let len = e2.sqrt();
    let theta = na.cross(nb).dot(e / len).atan2(na.dot(nb));
    let g2 = na * (-len / na.length_squared());
    let g3 = nb * (-len / nb.length_squared());
    let a2 = (x[2] - x[0]).dot(e) / e2;
    let a3 = (x[3] - x[0]).dot(e) / e2;
    let g0 = -(g2 * (1.0 - a2) + g3 * (1.0 - a3));
    let g1 = -(g2 * a2 + g3 * a3);
    (theta, [g0, g1, g2, g3])
}

/// The constant stiffness factor `s_e = |e_rest|^2 / (A0 + A1)`.
pub fn stiffness_factor(edge_rest_len: f64, area_a: f64, area_b: f64) -> f64 {
    edge_rest_len * edge_rest_len / (area_a + area_b)
}

/// The elastic energy whose derivative in theta is `elastic`'s `m` (at a
/// fixed `factor`): `k_b s_e / 2 (theta - theta_bar)^2` for the shell, and
/// `4 k_b s (cos(theta_bar/2) - cos(theta/2)) - 2 k_b s (theta - theta_bar)
/// sin(theta_bar/2)` for Bridson's model.
pub fn energy(model: BendingModel, kb: f64, factor: f64, theta_rest: f64, strain: f64, eps_p: f64) -> f64 {
    let d = strain - eps_p;
    match model {
        BendingModel::DiscreteShell | BendingModel::ShapeOperator => 0.5 * kb * factor * d * d,
        BendingModel::Bridson => {
            let bar = theta_rest + eps_p;
            let mean = (2.0 * theta_rest + strain + eps_p) / 4.0;
            4.0 * kb * factor * (2.0 * mean.sin() * (d / 4.0).sin()) - 2.0 * kb * factor * d * (bar / 2.0).sin()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::testing::{Rng, fd_check};
    use std::f64::consts::PI;

    /// A hinge folded to angle `theta` about the x axis, perturbed.
    fn hinge(rng: &mut Rng, theta: f64, noise: f64) -> [DVec3; 4] {
        let x0 = DVec3::ZERO;
        let x1 = DVec3::new(1.0, 0.0, 0.0);
        let x2 = DVec3::new(0.4, 0.8, 0.0);
        // Face B's wing, rotated about the edge by theta from the flat position.
        let (s, c) = theta.sin_cos();
        let x3 = DVec3::new(0.6, -0.7 * c, 0.7 * s);
        [x0, x1, x2, x3].map(|p| p + rng.vec3(noise))
    }

    #[test]
    fn angle_sign_and_range() {
        let mut rng = Rng(1);
        assert!(dihedral(hinge(&mut rng, 0.0, 0.0)).abs() < 1e-15);
        for t in [-3.0, -1.5, -0.3, 0.3, 1.5, 3.0] {
            let th = dihedral(hinge(&mut rng, t, 0.0));
            assert!((th.abs() - t.abs()).abs() < 1e-12, "{t} -> {th}");
            assert_eq!(th.signum(), dihedral(hinge(&mut rng, t.signum() * 0.5, 0.0)).signum());
        }
    }

    #[test]
    fn gradient_matches_finite_differences_flat_and_folded_both_signs() {
        let mut rng = Rng(3);
        for &t in &[0.0, 1e-4, -1e-4, 0.5, -0.5, 2.5, -2.5, 2.8, -2.8] {
            for _ in 0..5 {
                let x = hinge(&mut rng, t, 0.05);
                fd_check(&x, dihedral, |y| dihedral_gradient(y).1, 1e-6);
                let g = dihedral_gradient(x).1;
                // The bending mode is free of translation and rotation.
                let sum: DVec3 = g.iter().sum();
                let torque: DVec3 = x.iter().zip(&g).map(|(p, f)| p.cross(*f)).sum();
                assert!(sum.length() < 1e-12 && torque.length() < 1e-12);
            }
        }
    }

    /// Bridson's force magnitude is the paper's formula; its derivative
    /// matches finite differences; for small bends it is the shell's.
    #[test]
    fn bridson_force_is_the_papers_formula_with_its_derivative() {
        let mut rng = Rng(11);
        let kb = 3e-6;
        for &t in &[0.0, 0.3, -0.3, 1.5, -2.0, 2.9] {
            let x = hinge(&mut rng, t, 0.05);
            let (theta, na, nb) = {
                let e = x[1] - x[0];
                (dihedral(x), e.cross(x[2] - x[0]), (x[0] - x[1]).cross(x[3] - x[1]))
            };
            let e2 = (x[1] - x[0]).length_squared();
            let factor = bridson_factor(x);
            for (rest, eps_p) in [(0.0, 0.0), (0.4, 0.0), (-0.2, 0.3)] {
                let strain = theta - rest;
                let (m, dm) = elastic(BendingModel::Bridson, kb, factor, rest, strain, eps_p);
                let k_e = 4.0 * kb;
                let paper =
                    k_e * e2 / (na.length() + nb.length()) * ((theta / 2.0).sin() - ((rest + eps_p) / 2.0).sin());
                assert!((m - paper).abs() < 1e-12 * k_e * factor, "{m} vs {paper}");
                let d = 1e-6;
                let fd = (elastic(BendingModel::Bridson, kb, factor, rest, strain + d, eps_p).0
                    - elastic(BendingModel::Bridson, kb, factor, rest, strain - d, eps_p).0)
                    / (2.0 * d);
                if theta.abs() < std::f64::consts::PI {
                    assert!((fd - dm).abs() < 1e-6 * kb * factor, "{fd} vs {dm}");
                }
                let w = |s: f64| energy(BendingModel::Bridson, kb, factor, rest, s, eps_p);
                let fd = (w(strain + d) - w(strain - d)) / (2.0 * d);
                assert!((fd - m).abs() < 1e-6 * kb * factor, "energy slope {fd} vs {m}");
            }
        }
        // Small bends: the two models agree to second order.
        let (shell, _) = elastic(BendingModel::DiscreteShell, kb, 2.0, 0.1, 1e-3, 0.0);
        let (bridson, _) = elastic(BendingModel::Bridson, kb, 2.0, 0.1, 1e-3, 0.0);
        assert!((shell - bridson).abs() < 2e-3 * shell, "{shell} vs {bridson}");
        let (shell, _) = elastic(BendingModel::DiscreteShell, kb, 2.0, 0.0, 1e-3, 0.0);
        let (bridson, _) = elastic(BendingModel::Bridson, kb, 2.0, 0.0, 1e-3, 0.0);
        assert!((shell - bridson).abs() < 1e-6 * shell, "{shell} vs {bridson}");
    }

    /// The bending rate `dtheta/dt = grad . v` of Bridson's damping
    /// matches finite differences of the angle along the motion (the
    /// damping force itself is checked where the kernel builds it,
    /// cpu/bending.rs).
    #[test]
    fn bending_rate_matches_finite_differences() {
        let mut rng = Rng(13);
        for &t in &[0.0, 0.5, -1.2, 2.7] {
            let x = hinge(&mut rng, t, 0.05);
            let v = [0, 1, 2, 3].map(|_| rng.vec3(1.0));
            let (_, g) = dihedral_gradient(x);
            let rate: f64 = (0..4).map(|a| g[a].dot(v[a])).sum();
            let d = 1e-6;
            let at = |s: f64| dihedral([0, 1, 2, 3].map(|a| x[a] + v[a] * s));
            let fd = (at(d) - at(-d)) / (2.0 * d);
            assert!((fd - rate).abs() < 1e-6 * rate.abs().max(1.0), "{fd} vs {rate}");
        }
    }

    #[test]
    fn energy_force_and_gauss_newton_hessian_match_finite_differences() {
        // E = k s / 2 (theta - theta_rest)^2. Its force is checked everywhere;
        // at theta = theta_rest the exact Hessian equals Gauss-Newton
        // k s g g^T, which is what the solver uses.
        let mut rng = Rng(5);
        let ks = 0.7;
        for &t in &[0.0, 0.4, -0.4, 2.8, -2.8] {
            let x = hinge(&mut rng, t, 0.05);
            let rest = dihedral(x);
            for offset in [0.0, 0.3] {
                let energy = |y: [DVec3; 4]| 0.5 * ks * (dihedral(y) - rest + offset).powi(2);
                let grad = |y: [DVec3; 4]| {
                    let (th, g) = dihedral_gradient(y);
                    g.map(|gi| gi * (ks * (th - rest + offset)))
                };
                fd_check(&x, energy, grad, 1e-6);
                if offset == 0.0 {
                    let g = dihedral_gradient(x).1;
                    let h = 1e-6;
                    for a in 0..4 {
                        for d in 0..3 {
                            let (mut xp, mut xm) = (x, x);
                            xp[a][d] += h;
                            xm[a][d] -= h;
                            let (gp, gm) = (grad(xp), grad(xm));
                            for b in 0..4 {
                                let fd = (gp[b] - gm[b]) / (2.0 * h);
                                let gn = g[b] * (ks * g[a][d]);
                                assert!((fd - gn).length() < 1e-5 * gn.length().max(1e-2), "{fd} vs {gn}");
                            }
                        }
                    }
                }
            }
        }
    }

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
