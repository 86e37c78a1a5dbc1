//! Orthotropic StVK membrane on one triangle (docs/physics.md "Membrane"; the
//! paper's Eq. 2-4 with the Voigt strain of §3.4).
//!
//! `F = Ds Dm^-1` maps material (warp u, weft v) directions to the world, so its
//! columns are `f_u = sum_a beta_a.x x_a`, `f_v = sum_a beta_a.y x_a`. The Green
//! strain in Voigt form is `e = (e_uu, e_vv, e_uv) = ((f_u.f_u - 1)/2,
//! (f_v.f_v - 1)/2, f_u.f_v/2)` and the energy is
//! `W = A (k11/2 e_uu^2 + k12 e_uu e_vv + k22/2 e_vv^2 + k33 e_uv^2)`.
//!
//! Everything else is written in terms of the "channel stress"
//! `sigma = dW/de / A` and the "channel stiffness" `C = d2W/de2 / A`, so that
//! friction and plasticity (which add stresses and stiffness per channel) reuse
//! the same force and Hessian code. With the 2x2 second Piola-Kirchhoff stress
//! `S = [[s_uu, s_uv/2], [s_uv/2, s_vv]]`, `P = F S` and
//! `dW/dx_a = A (beta_a.x P_u + beta_a.y P_v)`.
//!
//! The Hessian is `A [J^T C J + S (x) I3]`; the second term (from the
//! curvature of `e(F)`) is indefinite under compression, so the solver uses
//! the positive part of `S` (eigenvalues clamped at zero), which keeps every
//! element Hessian positive semi-definite and the implicit system SPD.

use glam::{DMat2, DMat3, DVec2, DVec3};

/// Rest data of a face: shape-function gradients and rest area.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MembraneRest {
    /// `f_u = sum_a beta[a].x x_a`, `f_v = sum_a beta[a].y x_a`.
    pub beta: [DVec2; 3],
    pub area: f64,
    /// Rest length of each edge (corner k to corner k+1) in material space.
    pub edge_len: [f64; 3],
}

impl MembraneRest {
    /// Rest data from the material coordinates of the three corners; `None`
    /// when the triangle has (near) zero area relative to its edges.
    pub fn new(uv: [DVec2; 3]) -> Option<MembraneRest> {
        let dm = DMat2::from_cols(uv[1] - uv[0], uv[2] - uv[0]);
        let det = dm.determinant();
        let edge_len = [0, 1, 2].map(|k| (uv[(k + 1) % 3] - uv[k]).length());
        let longest = edge_len.iter().fold(0.0f64, |m, &l| m.max(l));
        if !det.is_finite() || det.abs() <= 1e-10 * longest * longest {
            return None;
        }
        let inv = dm.inverse();
        let b1 = DVec2::new(inv.x_axis.x, inv.y_axis.x);
        let b2 = DVec2::new(inv.x_axis.y, inv.y_axis.y);
        Some(MembraneRest {
            beta: [-(b1 + b2), b1, b2],
            area: 0.5 * det.abs(),
            edge_len,
        })
    }

    /// The columns `(f_u, f_v)` of the deformation gradient.
    pub fn deformation(&self, x: [DVec3; 3]) -> (DVec3, DVec3) {
        let fu = x[0] * self.beta[0].x + x[1] * self.beta[1].x + x[2] * self.beta[2].x;
        let fv = x[0] * self.beta[0].y + x[1] * self.beta[1].y + x[2] * self.beta[2].y;
        (fu, fv)
    }
}

/// The elastic part of a Green strain: `e - eps_p` (StVK acts on it).
pub fn elastic_strain(e: [f64; 3], eps_p: [f64; 3]) -> [f64; 3] {
    [e[0] - eps_p[0], e[1] - eps_p[1], e[2] - eps_p[2]]
}

/// Green strain `(e_uu, e_vv, e_uv)` of the deformation gradient columns.
pub fn green_strain(fu: DVec3, fv: DVec3) -> [f64; 3] {
    [0.5 * (fu.dot(fu) - 1.0), 0.5 * (fv.dot(fv) - 1.0), 0.5 * fu.dot(fv)]
}

/// The elastic constants of the membrane, N/m.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize)]
pub struct Stretching {
    pub k11: f64,
    pub k12: f64,
    pub k22: f64,
    pub k33: f64,
}

impl Stretching {
    /// Energy density `W / A` of a strain.
    pub fn energy_density(&self, e: [f64; 3]) -> f64 {
        0.5 * self.k11 * e[0] * e[0] + self.k12 * e[0] * e[1] + 0.5 * self.k22 * e[1] * e[1] + self.k33 * e[2] * e[2]
    }

    /// Channel stress `dW/de / A`.
    pub fn stress(&self, e: [f64; 3]) -> [f64; 3] {
        [
            self.k11 * e[0] + self.k12 * e[1],
            self.k12 * e[0] + self.k22 * e[1],
            2.0 * self.k33 * e[2],
        ]
    }

    /// Channel stiffness `d2W/de2 / A` (constant for StVK) as
    /// `[c_uu, c_uu_vv, c_vv, c_uv]`: e_uv couples to nothing else.
    pub fn stiffness(&self) -> [f64; 4] {
        [self.k11, self.k12, self.k22, 2.0 * self.k33]
    }
}

/// The area-weighted first Piola-Kirchhoff stress columns `A (P_u, P_v)`
/// for channel stress `sigma` (per unit area): `dW/dx_a = beta_a.x AP_u + beta_a.y AP_v`.
pub fn stress_vectors(rest: &MembraneRest, fu: DVec3, fv: DVec3, sigma: [f64; 3]) -> [DVec3; 2] {
    let pu = fu * sigma[0] + fv * (0.5 * sigma[2]);
    let pv = fu * (0.5 * sigma[2]) + fv * sigma[1];
    [pu * rest.area, pv * rest.area]
}

/// Spreads F-space vectors `(a_u, a_v)` to the corners: `beta_a.x a_u + beta_a.y a_v`.
/// This is the transpose of `x -> F`, used for forces and Hessian products alike.
pub fn spread(rest: &MembraneRest, a: [DVec3; 2]) -> [DVec3; 3] {
    rest.beta.map(|b| a[0] * b.x + a[1] * b.y)
}

/// `dW/dx_a` for channel stress `sigma` (per unit area).
pub fn gradient(rest: &MembraneRest, fu: DVec3, fv: DVec3, sigma: [f64; 3]) -> [DVec3; 3] {
    spread(rest, stress_vectors(rest, fu, fv, sigma))
}

/// Linearisation of one face at the current state: what a Hessian-vector
/// product needs beyond the rest data. The Hessian is
/// `A [J^T C J + S (x) I3]` with the channel stiffness `c` and the geometric
/// stress `s` stored here (a caller may scale both, e.g. by `h^2`).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct MembraneLin {
    pub fu: DVec3,
    pub fv: DVec3,
    /// Second Piola-Kirchhoff stress of the geometric term: `(S_uu, S_vv, S_uv)`.
    pub s: [f64; 3],
    /// Channel stiffness `[c_uu, c_uu_vv, c_vv, c_uv]` (see `Stretching::stiffness`).
    pub c: [f64; 4],
}

impl MembraneLin {
    /// `sigma` is the channel stress of the geometric term; `clamp` replaces
    /// S by its positive part (the solver's PSD Hessian); without it and
    /// with the full stress the Hessian is the exact one.
    pub fn new(fu: DVec3, fv: DVec3, sigma: [f64; 3], c: [f64; 4], clamp: bool) -> MembraneLin {
        let s = [sigma[0], sigma[1], 0.5 * sigma[2]];
        MembraneLin {
            fu,
            fv,
            s: if clamp { positive_part(s) } else { s },
            c,
        }
    }

    /// `C de` for a strain change `de`.
    fn stress_change(&self, de: DVec3) -> DVec3 {
        let c = self.c;
        DVec3::new(c[0] * de.x + c[1] * de.y, c[1] * de.x + c[2] * de.y, c[3] * de.z)
    }

    /// Rows of `de/dx_a` for corner `a`: `de_c = rows[c] . dx_a`.
    fn strain_rows(&self, b: DVec2) -> [DVec3; 3] {
        [self.fu * b.x, self.fv * b.y, (self.fu * b.y + self.fv * b.x) * 0.5]
    }

    /// Hessian-vector product `H dx` on the face's three corners.
    pub fn apply(&self, rest: &MembraneRest, dx: [DVec3; 3]) -> [DVec3; 3] {
        spread(rest, self.stress_differential(rest, dx))
    }

    /// The change `A (dP_u, dP_v)` of the stress vectors under a corner
    /// displacement `dx`; `spread` of it is `H dx`.
    pub fn stress_differential(&self, rest: &MembraneRest, dx: [DVec3; 3]) -> [DVec3; 2] {
        let (dfu, dfv) = rest.deformation(dx);
        let de = DVec3::new(
            self.fu.dot(dfu),
            self.fv.dot(dfv),
            0.5 * (self.fu.dot(dfv) + self.fv.dot(dfu)),
        );
        let ds = self.stress_change(de);
        let (s, ds) = (self.s, [ds.x, ds.y, 0.5 * ds.z]);
        let dpu = dfu * s[0] + dfv * s[2] + self.fu * ds[0] + self.fv * ds[2];
        let dpv = dfu * s[2] + dfv * s[1] + self.fu * ds[2] + self.fv * ds[1];
        [dpu * rest.area, dpv * rest.area]
    }

    /// The 3x3 block `d2W / dx_a dx_b` of the Hessian.
    pub fn block(&self, rest: &MembraneRest, a: usize, b: usize) -> DMat3 {
        let (ba, bb) = (rest.beta[a], rest.beta[b]);
        let (ra, rb) = (self.strain_rows(ba), self.strain_rows(bb));
        let s = self.s;
        let geometric = ba.x * bb.x * s[0] + ba.y * bb.y * s[1] + (ba.x * bb.y + ba.y * bb.x) * s[2];
        let mut m = DMat3::from_diagonal(DVec3::splat(geometric));
        // J_a^T C J_b with C's sparsity: (uu, vv) coupled, uv alone.
        let c = self.c;
        m += outer(ra[0], rb[0]) * c[0] + (outer(ra[0], rb[1]) + outer(ra[1], rb[0])) * c[1];
        m += outer(ra[1], rb[1]) * c[2] + outer(ra[2], rb[2]) * c[3];
        m * rest.area
    }
}

/// `u v^T`.
pub fn outer(u: DVec3, v: DVec3) -> DMat3 {
    DMat3::from_cols(u * v.x, u * v.y, u * v.z)
}

/// The eigenvalues `(larger, smaller)` of the symmetric 2x2 matrix
/// `[[a, c], [c, b]]` given as `(a, b, c)`.
pub fn eigenvalues([a, b, c]: [f64; 3]) -> (f64, f64) {
    let mean = 0.5 * (a + b);
    let radius = (0.25 * (a - b) * (a - b) + c * c).sqrt();
    (mean + radius, mean - radius)
}

/// Positive part of the symmetric 2x2 matrix `[[a, c], [c, b]]` given as `(a, b, c)`.
fn positive_part([a, b, c]: [f64; 3]) -> [f64; 3] {
    let (hi, lo) = eigenvalues([a, b, c]);
    if lo >= 0.0 {
        [a, b, c]
    } else if hi <= 0.0 {
        [0.0, 0.0, 0.0]
    } else {
        // Eigenvector of `hi`: (c, hi - a) or (hi - b, c), whichever is longer.
        let (q1, q2) = if (hi - a).abs() + c.abs() > (hi - b).abs() + c.abs() {
            (c, hi - a)
        } else {
            (hi - b, c)
        };
        let n2 = q1 * q1 + q2 * q2;
        if n2 == 0.0 {
            return [a.max(0.0), b.max(0.0), 0.0];
        }
        let k = hi / n2;
        [k * q1 * q1, k * q2 * q2, k * q1 * q2]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::testing::{Rng, fd_check};

    fn setup(rng: &mut Rng, stretch: f64) -> (MembraneRest, [DVec3; 3]) {
        let uv = [DVec2::ZERO, DVec2::new(0.1, 0.01), DVec2::new(0.02, 0.09)];
        let rest = MembraneRest::new(uv).unwrap();
        let x = uv.map(|p| DVec3::new(p.x, p.y, 0.0) * stretch + rng.vec3(0.02));
        (rest, x)
    }

    const K: Stretching = Stretching {
        k11: 50.0,
        k12: 0.2,
        k22: 40.0,
        k33: 30.0,
    };

    fn energy(rest: &MembraneRest, x: [DVec3; 3]) -> f64 {
        let (fu, fv) = rest.deformation(x);
        rest.area * K.energy_density(green_strain(fu, fv))
    }

    fn grad(rest: &MembraneRest, x: [DVec3; 3]) -> [DVec3; 3] {
        let (fu, fv) = rest.deformation(x);
        gradient(rest, fu, fv, K.stress(green_strain(fu, fv)))
    }

    #[test]
    fn gradient_and_exact_hessian_match_finite_differences() {
        let mut rng = Rng(7);
        for trial in 0..20 {
            // Stretched, near rest and compressed states.
            let (rest, x) = setup(&mut rng, [1.1, 1.0, 0.9, 0.97][trial % 4]);
            fd_check(&x, |y| energy(&rest, y), |y| grad(&rest, y), 1e-6);
            let (fu, fv) = rest.deformation(x);
            let lin = MembraneLin::new(fu, fv, K.stress(green_strain(fu, fv)), K.stiffness(), false);
            for a in 0..3 {
                for d in 0..3 {
                    let mut dx = [DVec3::ZERO; 3];
                    dx[a][d] = 1.0;
                    let hd = lin.apply(&rest, dx);
                    // Column of the Hessian by central differences of the gradient.
                    let step = 1e-6;
                    let (mut xp, mut xm) = (x, x);
                    xp[a][d] += step;
                    xm[a][d] -= step;
                    let (gp, gm) = (grad(&rest, xp), grad(&rest, xm));
                    for b in 0..3 {
                        let fd = (gp[b] - gm[b]) / (2.0 * step);
                        let scale = fd.length().max(hd[b].length()).max(1e-3);
                        assert!(
                            (fd - hd[b]).length() < 1e-5 * scale,
                            "trial {trial}: H[{b}][{a},{d}] {fd} vs {}",
                            hd[b]
                        );
                        // The closed-form block agrees with the product.
                        let col = lin.block(&rest, b, a).col(d);
                        assert!((col - hd[b]).length() < 1e-9 * scale.max(1.0));
                    }
                }
            }
        }
    }

    #[test]
    fn clamped_hessian_is_positive_semidefinite_under_compression() {
        let mut rng = Rng(11);
        for _ in 0..50 {
            let (rest, x) = setup(&mut rng, 0.8);
            let (fu, fv) = rest.deformation(x);
            let lin = MembraneLin::new(fu, fv, K.stress(green_strain(fu, fv)), K.stiffness(), true);
            for _ in 0..20 {
                let dx = [rng.vec3(1.0), rng.vec3(1.0), rng.vec3(1.0)];
                let hd = lin.apply(&rest, dx);
                let q: f64 = (0..3).map(|a| dx[a].dot(hd[a])).sum();
                assert!(q >= -1e-12, "x^T H x = {q}");
            }
        }
    }

    #[test]
    fn positive_part_keeps_psd_and_clips_negative() {
        assert_eq!(positive_part([1.0, 2.0, 0.5]), [1.0, 2.0, 0.5]);
        assert_eq!(positive_part([-1.0, -2.0, 0.1]), [0.0, 0.0, 0.0]);
        let p = positive_part([1.0, -1.0, 0.0]);
        assert!((p[0] - 1.0).abs() < 1e-15 && p[1].abs() < 1e-15 && p[2].abs() < 1e-15);
        let p = positive_part([0.3, -0.5, 0.7]);
        // Rank one, eigenvalue = the larger eigenvalue of the input.
        assert!((p[0] * p[1] - p[2] * p[2]).abs() < 1e-12);
        let hi = -0.1 + (0.16f64 + 0.49).sqrt();
        assert!((p[0] + p[1] - hi).abs() < 1e-12);
    }

    #[test]
    fn rejects_degenerate_rest_triangle() {
        assert!(MembraneRest::new([DVec2::ZERO, DVec2::X, DVec2::X * 2.0]).is_none());
    }
}
