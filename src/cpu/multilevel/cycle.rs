//! The V-cycle the multilevel preconditioner applies (one per CG
//! iteration): Chebyshev smoothing in block Jacobi's `D^-1 A` on each
//! level each side of the coarse correction, and the power iteration that
//! bounds the smoother's eigenvalues.

use super::bsr::Single;
use super::coarsest::Coarsest;
use glam::{DMat3, DVec3};
use rayon::prelude::*;

/// The degree of the Chebyshev smoother before and after each coarse
/// correction, on the finest level and on the coarser ones, and the lower
/// end of the eigenvalues it damps, as a fraction of the largest (PyAMG's
/// default). Measured on the twist (CG iterations a step at 7K,
/// 27.9K and 111K vertices): damped Jacobi, 2 sweeps on the finest level
/// and 2 on the others, takes 29.5, 41 and 59.5; 2 and 16, 24.5, 26 and
/// 32; Chebyshev of degrees 2 and 16, 19, 20.5 and 22.5, in 20% less time
/// (2 and 8: 19, 20.5 and 26, about the same time; a fraction of 1/100
/// instead of 1/30: 23, 25 and 28). The coarse levels are small; their
/// smoothing makes the coarse correction nearly exact and the count flat.
/// With the levels kept from step to step and applied in f32 (10 steps):
/// 2 and 16, 20.6 iterations and 349-391 ms a solve at 27.9K; 2 and 8,
/// 20.1, 21.0 and 24.1 at the three sizes, 347 ms at 27.9K; 2 and 4,
/// 20.6, 22.7 and 29.4, 295-353 ms.
pub(super) const DEGREE: usize = 2;
const COARSE_DEGREE: usize = 8;
const LOWEST: f64 = 1.0 / 30.0;

/// One level of the hierarchy: its matrix, smoother and transfers to the
/// next coarser level.
#[derive(Clone)]
pub(super) struct Level {
    pub(super) a: Single,
    pub(super) inv_diag: Vec<DMat3>,
    /// The largest eigenvalue of `D^-1 A` (an upper estimate).
    pub(super) lambda: f64,
    pub(super) p: Single,
    pub(super) pt: Single,
    /// Work vectors: this level's residual, the smoother's direction and
    /// its product, the coarse level's right-hand side and correction.
    pub(super) r: Vec<DVec3>,
    pub(super) d: Vec<DVec3>,
    pub(super) ad: Vec<DVec3>,
    pub(super) coarse_b: Vec<DVec3>,
    pub(super) coarse_x: Vec<DVec3>,
}

/// One V-cycle for `A x = b` from `x = 0`, smoothing by Chebyshev of
/// `degree` each side of the first level's coarse correction.
pub(super) fn cycle(levels: &mut [Level], coarsest: &Coarsest, b: &[DVec3], x: &mut [DVec3], degree: usize) {
    let Some((level, rest)) = levels.split_first_mut() else {
        coarsest.solve(b, x);
        return;
    };
    x.fill(DVec3::ZERO);
    chebyshev(level, b, x, degree, true);
    level.a.apply(x, &mut level.r);
    level
        .r
        .par_iter_mut()
        .with_min_len(256)
        .zip(b)
        .for_each(|(r, b)| *r = *b - *r);
    level.pt.apply(&level.r, &mut level.coarse_b);
    cycle(rest, coarsest, &level.coarse_b, &mut level.coarse_x, COARSE_DEGREE);
    level.p.apply(&level.coarse_x, &mut level.r);
    x.par_iter_mut()
        .with_min_len(256)
        .zip(&level.r)
        .for_each(|(x, c)| *x += *c);
    chebyshev(level, b, x, degree, false);
}

/// `degree` steps of the Chebyshev iteration for `A x = b` preconditioned
/// by `D^-1`, damping the eigenvalues of `D^-1 A` in `[LOWEST lambda,
/// lambda]` (Saad, *Iterative Methods for Sparse Linear Systems*, Alg.
/// 12.1): a fixed polynomial in `D^-1 A`, so the same smoother before and
/// after the coarse correction keeps the cycle symmetric. `from_zero`:
/// `x` is zero, and its product is not computed.
fn chebyshev(level: &mut Level, b: &[DVec3], x: &mut [DVec3], degree: usize, from_zero: bool) {
    let (hi, lo) = (level.lambda, level.lambda * LOWEST);
    let (theta, delta) = ((hi + lo) / 2.0, (hi - lo) / 2.0);
    let sigma = theta / delta;
    let mut rho = 1.0 / sigma;
    let inv = &level.inv_diag;
    // r = D^-1 (b - A x), d = r / theta.
    match from_zero {
        true => level.r.fill(DVec3::ZERO),
        false => level.a.apply(x, &mut level.r),
    }
    level
        .r
        .par_iter_mut()
        .with_min_len(256)
        .enumerate()
        .for_each(|(i, r)| *r = inv[i] * (b[i] - *r));
    level
        .d
        .par_iter_mut()
        .with_min_len(256)
        .zip(&level.r)
        .for_each(|(d, r)| *d = *r / theta);
    for k in 0..degree {
        x.par_iter_mut()
            .with_min_len(256)
            .zip(&level.d)
            .for_each(|(x, d)| *x += *d);
        if k + 1 == degree {
            break;
        }
        level.a.apply(&level.d, &mut level.ad);
        let next = 1.0 / (2.0 * sigma - rho);
        let (ad, d, r) = (&level.ad, &mut level.d, &mut level.r);
        r.par_iter_mut()
            .with_min_len(256)
            .enumerate()
            .for_each(|(i, r)| *r -= inv[i] * ad[i]);
        d.par_iter_mut()
            .with_min_len(256)
            .zip(r.par_iter())
            .for_each(|(d, r)| *d = *d * (next * rho) + *r * (2.0 * next / delta));
        rho = next;
    }
}

/// The largest eigenvalue of `D^-1 A` by `iterations` power iterations
/// from `x` (from a fixed start where `x` is not a vector of `A`'s size),
/// raised by 10% (the iteration approaches it from below, and a smoother
/// damped past `2 / lambda` would diverge); `x` is left with the last
/// iterate.
pub(super) fn lambda_max(a: &Single, inv_diag: &[DMat3], x: &mut Vec<DVec3>, iterations: usize) -> f64 {
    let n = a.rows();
    if x.len() != n {
        *x = (0..n)
            .map(|i| {
                let k = (i as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 40;
                DVec3::new(1.0, (k % 97) as f64 / 97.0, (k % 89) as f64 / 89.0 - 0.5)
            })
            .collect();
    }
    let mut y = vec![DVec3::ZERO; n];
    let mut lambda = 1.0;
    for _ in 0..iterations {
        let norm = crate::cpu::reduce::dot(x, x).sqrt();
        a.apply(x, &mut y);
        y.par_iter_mut()
            .with_min_len(256)
            .enumerate()
            .for_each(|(i, yi)| *yi = inv_diag[i] * *yi / norm);
        lambda = crate::cpu::reduce::dot(&y, &y).sqrt();
        std::mem::swap(x, &mut y);
    }
    1.1 * lambda
}
