//! The V-cycle the multilevel preconditioner applies (one per CG
//! iteration): Chebyshev smoothing in block Jacobi's `D^-1 A` on each
//! level each side of the coarse correction (the bound on its eigenvalues
//! is `multigrid::lambda_max`).

use crate::multigrid::{COARSE_DEGREE, Coarsest, LOWEST, Level};
use glam::DVec3;
use rayon::prelude::*;

/// One level's work vectors: its residual, the smoother's direction and
/// its product, the coarse level's right-hand side and correction.
#[derive(Clone)]
pub(super) struct Work {
    r: Vec<DVec3>,
    d: Vec<DVec3>,
    ad: Vec<DVec3>,
    coarse_b: Vec<DVec3>,
    coarse_x: Vec<DVec3>,
}

impl Work {
    pub(super) fn of(level: &Level) -> Work {
        let (n, coarse) = (level.a.rows(), level.pt.rows());
        Work {
            r: vec![DVec3::ZERO; n],
            d: vec![DVec3::ZERO; n],
            ad: vec![DVec3::ZERO; n],
            coarse_b: vec![DVec3::ZERO; coarse],
            coarse_x: vec![DVec3::ZERO; coarse],
        }
    }
}

/// One V-cycle for `A x = b` from `x = 0`, smoothing by Chebyshev of
/// `degree` each side of the first level's coarse correction.
pub(super) fn cycle(
    levels: &[Level],
    work: &mut [Work],
    coarsest: &Coarsest,
    b: &[DVec3],
    x: &mut [DVec3],
    degree: usize,
) {
    let (Some((level, rest)), Some((w, rest_work))) = (levels.split_first(), work.split_first_mut()) else {
        coarsest.solve(b, x);
        return;
    };
    x.fill(DVec3::ZERO);
    chebyshev(level, w, b, x, degree, true);
    level.a.apply(x, &mut w.r);
    w.r.par_iter_mut()
        .with_min_len(256)
        .zip(b)
        .for_each(|(r, b)| *r = *b - *r);
    level.pt.apply(&w.r, &mut w.coarse_b);
    cycle(rest, rest_work, coarsest, &w.coarse_b, &mut w.coarse_x, COARSE_DEGREE);
    level.p.apply(&w.coarse_x, &mut w.r);
    x.par_iter_mut().with_min_len(256).zip(&w.r).for_each(|(x, c)| *x += *c);
    chebyshev(level, w, b, x, degree, false);
}

/// `degree` steps of the Chebyshev iteration for `A x = b` preconditioned
/// by `D^-1`, damping the eigenvalues of `D^-1 A` in `[LOWEST lambda,
/// lambda]` (Saad, *Iterative Methods for Sparse Linear Systems*, Alg.
/// 12.1): a fixed polynomial in `D^-1 A`, so the same smoother before and
/// after the coarse correction keeps the cycle symmetric. `from_zero`:
/// `x` is zero, and its product is not computed.
fn chebyshev(level: &Level, w: &mut Work, b: &[DVec3], x: &mut [DVec3], degree: usize, from_zero: bool) {
    let (hi, lo) = (level.lambda, level.lambda * LOWEST);
    let (theta, delta) = ((hi + lo) / 2.0, (hi - lo) / 2.0);
    let sigma = theta / delta;
    let mut rho = 1.0 / sigma;
    let inv = &level.inv_diag;
    // r = D^-1 (b - A x), d = r / theta.
    match from_zero {
        true => w.r.fill(DVec3::ZERO),
        false => level.a.apply(x, &mut w.r),
    }
    w.r.par_iter_mut()
        .with_min_len(256)
        .enumerate()
        .for_each(|(i, r)| *r = inv[i] * (b[i] - *r));
    w.d.par_iter_mut()
        .with_min_len(256)
        .zip(&w.r)
        .for_each(|(d, r)| *d = *r / theta);
    for k in 0..degree {
        x.par_iter_mut().with_min_len(256).zip(&w.d).for_each(|(x, d)| *x += *d);
        if k + 1 == degree {
            break;
        }
        level.a.apply(&w.d, &mut w.ad);
        let next = 1.0 / (2.0 * sigma - rho);
        let (ad, d, r) = (&w.ad, &mut w.d, &mut w.r);
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
