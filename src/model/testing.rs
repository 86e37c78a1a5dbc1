//! Helpers for the finite-difference tests of the element models.

use glam::DVec3;

/// A small deterministic generator (xorshift) for test states.
pub struct Rng(pub u64);

impl Rng {
    pub fn uniform(&mut self) -> f64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 >> 11) as f64 / (1u64 << 53) as f64
    }

    /// A vector with components uniform in [-scale, scale].
    pub fn vec3(&mut self, scale: f64) -> DVec3 {
        DVec3::new(self.uniform(), self.uniform(), self.uniform()) * (2.0 * scale) - DVec3::splat(scale)
    }
}

/// Checks `grad` against central differences of `f` at `x`, with relative
/// tolerance `tol` (relative to the largest gradient component).
pub fn fd_check<const N: usize>(
    x: &[DVec3; N],
    f: impl Fn([DVec3; N]) -> f64,
    grad: impl Fn([DVec3; N]) -> [DVec3; N],
    tol: f64,
) {
    let g = grad(*x);
    let scale = g.iter().map(|v| v.abs().max_element()).fold(1e-8, f64::max);
    let h = 1e-6;
    for a in 0..N {
        for d in 0..3 {
            let (mut xp, mut xm) = (*x, *x);
            xp[a][d] += h;
            xm[a][d] -= h;
            let fd = (f(xp) - f(xm)) / (2.0 * h);
            assert!(
                (fd - g[a][d]).abs() <= tol * scale + 1e-9,
                "d/dx[{a}][{d}]: finite difference {fd} vs analytic {}",
                g[a][d]
            );
        }
    }
}
