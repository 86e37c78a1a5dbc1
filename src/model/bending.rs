//! Discrete-shell bending on one hinge (MODEL.md "Bending"; the paper's
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

use glam::DVec3;

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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::testing::{Rng, fd_check};

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
}
