//! The stretch-bend coupling of Melo's Cosserat surface model (seed 003,
//! Eq. 9-10), discretised per hinge.
//!
//! Eq. 9's energy density is `Phi eps eps + Psi kappa kappa + Theta eps
//! kappa` with, for an undeformed metric `A = I` (material coordinates),
//! `X^{ab} = x_ab (A^aa A^bb + 2 (A^ab)^2)`: weights 3 on the diagonal
//! components and 1 off it. The first two terms are the membrane and the
//! bending the cloth already has (a preset maps Melo's `zeta` and `xi` onto
//! `stretching` and `bending`); this module adds the third, the coupling
//! with buckling factor `phi`:
//!
//! `W = phi sum_ab w_ab eps_ab kappa_ab`, `w = 3` (aa) or 1 (ab).
//!
//! Per hinge: the curvature tensor is `kappa_e m m^T`, bending across the
//! edge, with `m` the edge's in-plane unit normal and `kappa_e = theta
//! 3 |e| / (2 (A0 + A1))` (the angle over the distance between the wings'
//! centroids); the strain is the mean of the two faces' Green strains; the
//! hinge's area is `(A0 + A1) / 3`. Then
//!
//! `E = phi (|e| / 2) theta s`, `s = (s_A + s_B) / 2`,
//! `s_F = 3 m_u^2 e_uu + 3 m_v^2 e_vv + 2 m_u m_v e_uv` (the face's own
//! `m` and strain; `theta` the bend from rest, `|e|` the rest length).
//!
//! A compressed sheet (`e < 0`) lowers this energy by bending one way
//! (`theta` of the sign of `phi`): the coupling turns compression into
//! buckles. Being a product of two strains it is indefinite, so its force
//! is taken explicitly (no block in the implicit system). The CPU's hinge
//! kernel (cpu/bending.rs) calls `forces`; its GPU twin in
//! shaders/bending.wgsl reads the strains and `F` the membrane kernel left
//! in `FaceLin` and the per-hinge coefficients of layout.rs `HingeCoupling`.

use glam::{DVec2, DVec3};

/// Rest data of one hinge's coupling.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Coupling {
    /// `|e| / 2` at rest.
    pub half_len: f64,
    /// Per face (A, B): the strain weights `(3 m_u^2, 3 m_v^2, 2 m_u m_v)`.
    pub weights: [[f64; 3]; 2],
    /// Per face (A, B) and per vertex of the face in hinge order (A: x0,
    /// x1, x2; B: x0, x1, x3): the shape-function gradient `beta`.
    pub beta: [[DVec2; 3]; 2],
}

/// The weights of the edge whose in-plane normal is along `normal`.
pub fn weights(normal: DVec2) -> [f64; 3] {
    let m = normal.normalize_or_zero();
    [3.0 * m.x * m.x, 3.0 * m.y * m.y, 2.0 * m.x * m.y]
}

/// `s_F` of a face's strain `(e_uu, e_vv, e_uv)`.
pub fn weighted(w: [f64; 3], e: [f64; 3]) -> f64 {
    w[0] * e[0] + w[1] * e[1] + w[2] * e[2]
}

/// The gradient of `s_F` at a face vertex with shape-function gradient
/// `beta`: `F_u (w_uu beta.x + w_uv beta.y / 2) + F_v (w_vv beta.y +
/// w_uv beta.x / 2)`, from the Green strain's derivatives `F_u beta.x`,
/// `F_v beta.y` and `(F_v beta.x + F_u beta.y) / 2`.
pub fn weighted_gradient(w: [f64; 3], fu: DVec3, fv: DVec3, beta: DVec2) -> DVec3 {
    fu * (w[0] * beta.x + 0.5 * w[2] * beta.y) + fv * (w[1] * beta.y + 0.5 * w[2] * beta.x)
}

/// The hinge's coupling energy for buckling factor `phi`, bend `theta` and
/// face strains `e[face]`.
pub fn energy(c: &Coupling, phi: f64, theta: f64, e: [[f64; 3]; 2]) -> f64 {
    let s = 0.5 * (weighted(c.weights[0], e[0]) + weighted(c.weights[1], e[1]));
    phi * c.half_len * theta * s
}

/// The forces `-dE/dx` on the hinge's vertices `x0..x3`, given the bend
/// `theta` with its gradient `grad`, and each face's strain `e` and
/// deformation gradient columns `(F_u, F_v)`.
pub fn forces(
    c: &Coupling,
    phi: f64,
    theta: f64,
    grad: [DVec3; 4],
    e: [[f64; 3]; 2],
    f: [(DVec3, DVec3); 2],
) -> [DVec3; 4] {
    let k = phi * c.half_len;
    let s = 0.5 * (weighted(c.weights[0], e[0]) + weighted(c.weights[1], e[1]));
    let mut out = grad.map(|g| g * (-k * s));
    // Face A holds x0, x1, x2; face B holds x0, x1, x3.
    for (face, slots) in [[0, 1, 2], [0, 1, 3]].iter().enumerate() {
        let (fu, fv) = f[face];
        for (j, &slot) in slots.iter().enumerate() {
            out[slot] -= weighted_gradient(c.weights[face], fu, fv, c.beta[face][j]) * (0.5 * k * theta);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::bending::dihedral_gradient;
    use crate::model::membrane::{MembraneRest, green_strain};
    use crate::model::testing::{Rng, fd_check};

    /// A hinge of two faces in the xy plane (material coordinates = rest
    /// positions), its coupling data, and the faces' rest data.
    fn hinge() -> ([DVec3; 4], Coupling, [MembraneRest; 2]) {
        let uv = [
            DVec2::new(0.0, 0.0),
            DVec2::new(0.1, 0.02),
            DVec2::new(0.04, 0.09),
            DVec2::new(0.07, -0.08),
        ];
        let x = uv.map(|p| DVec3::new(p.x, p.y, 0.0));
        // Face A = (x0, x1, x2), face B = (x1, x0, x3).
        let ra = MembraneRest::new([uv[0], uv[1], uv[2]]).unwrap();
        let rb = MembraneRest::new([uv[1], uv[0], uv[3]]).unwrap();
        let e = uv[1] - uv[0];
        let normal = DVec2::new(-e.y, e.x);
        let c = Coupling {
            half_len: 0.5 * e.length(),
            weights: [weights(normal), weights(normal)],
            beta: [
                [ra.beta[0], ra.beta[1], ra.beta[2]],
                // B's corners are (x1, x0, x3).
                [rb.beta[1], rb.beta[0], rb.beta[2]],
            ],
        };
        (x, c, [ra, rb])
    }

    /// The forces are minus the gradient of the energy, by finite
    /// differences, on bent and stretched states; they sum to zero.
    #[test]
    fn forces_match_finite_differences_of_the_energy() {
        let (x0, c, rest) = hinge();
        let phi = 0.7;
        let mut rng = Rng(21);
        let strains = |x: [DVec3; 4]| {
            let fa = rest[0].deformation([x[0], x[1], x[2]]);
            let fb = rest[1].deformation([x[1], x[0], x[3]]);
            ([green_strain(fa.0, fa.1), green_strain(fb.0, fb.1)], [fa, fb])
        };
        let energy_at = |x: [DVec3; 4]| energy(&c, phi, dihedral_gradient(x).0, strains(x).0);
        for _ in 0..5 {
            // Bent out of plane, stretched and sheared.
            let x = x0.map(|p| DVec3::new(p.x * 1.05, p.y * 0.97, 0.0) + rng.vec3(0.01));
            let (theta, grad) = dihedral_gradient(x);
            let (e, f) = strains(x);
            let force = forces(&c, phi, theta, grad, e, f);
            fd_check(
                &x,
                energy_at,
                |y| {
                    let (theta, grad) = dihedral_gradient(y);
                    let (e, f) = strains(y);
                    forces(&c, phi, theta, grad, e, f).map(|v| -v)
                },
                1e-6,
            );
            let sum: DVec3 = force.iter().sum();
            let scale: f64 = force.iter().map(|f| f.length()).sum();
            assert!(scale > 0.0 && sum.length() < 1e-10 * scale, "net force {sum}");
        }
    }

    /// Compression across the edge makes bending one way pay: the energy
    /// of a compressed hinge falls as it bends towards the sign of phi.
    #[test]
    fn a_compressed_hinge_gains_by_bending() {
        let (_, c, _) = hinge();
        let squeeze = [[-0.01, -0.01, 0.0]; 2];
        let e_plus = energy(&c, 1.0, 0.1, squeeze);
        let e_minus = energy(&c, 1.0, -0.1, squeeze);
        assert!(e_plus < 0.0 && e_minus > 0.0 && energy(&c, 1.0, 0.1, [[0.0; 3]; 2]) == 0.0);
        assert_eq!(energy(&c, 0.0, 0.1, squeeze), 0.0);
    }
}
