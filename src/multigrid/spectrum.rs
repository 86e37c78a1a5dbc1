//! The largest eigenvalue of a level's `D^-1 A`, which the Chebyshev
//! smoother needs from above: a smoother tuned for a smaller one
//! amplifies the modes past it, the V-cycle is no longer positive
//! definite and conjugate gradients stalls. At a build, Lanczos in the
//! `D` inner product (where `D^-1 A` is self-adjoint) estimates it
//! (`lanczos_max`); between builds, a few power iterations from its Ritz
//! vector follow the finest level as it changes (`lambda_max`).

use super::bsr::Single;
use glam::{DMat3, DVec3};
use rayon::prelude::*;

/// Lanczos' and the power iteration's estimates are raised by this factor.
pub const LAMBDA_MARGIN: f64 = 1.1;

/// Summed in fixed chunks, then in order: the same bits on any number of
/// threads (cpu/reduce.rs sums the same way).
fn sum(n: usize, term: impl Fn(usize) -> f64 + Sync) -> f64 {
    let partial: Vec<f64> = (0..n.div_ceil(2048))
        .into_par_iter()
        .map(|c| (2048 * c..(2048 * (c + 1)).min(n)).map(&term).sum::<f64>())
        .collect();
    partial.iter().sum()
}

/// The largest eigenvalue of `D^-1 A` by `iterations` power iterations
/// from `x` (from a fixed start where `x` is not a vector of `A`'s size),
/// raised by [`LAMBDA_MARGIN`] (the iteration approaches it from below, and
/// a smoother damped past `2 / lambda` would diverge); `x` is left with the
/// last iterate.
pub fn lambda_max(a: &Single, inv_diag: &[DMat3], x: &mut Vec<DVec3>, iterations: usize) -> f64 {
    let n = a.rows();
    if x.len() != n {
        *x = power_start(n);
    }
    let mut y = vec![DVec3::ZERO; n];
    let mut lambda = 1.0;
    for _ in 0..iterations {
        let norm = sum(n, |i| x[i].length_squared()).sqrt();
        a.apply(x, &mut y);
        y.par_iter_mut()
            .with_min_len(256)
            .enumerate()
            .for_each(|(i, yi)| *yi = inv_diag[i] * *yi / norm);
        lambda = sum(n, |i| y[i].length_squared()).sqrt();
        std::mem::swap(x, &mut y);
    }
    LAMBDA_MARGIN * lambda
}

/// The power iteration's and Lanczos' fixed start: the same vector on
/// every run.
fn power_start(n: usize) -> Vec<DVec3> {
    (0..n)
        .map(|i| {
            let k = (i as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 40;
            DVec3::new(1.0, (k % 97) as f64 / 97.0, (k % 89) as f64 / 89.0 - 0.5)
        })
        .collect()
}

/// An upper estimate of the largest eigenvalue of `D^-1 A` (`diag` the
/// diagonal blocks `D`, `inv_diag` their inverses) by `steps` steps of
/// Lanczos in the `D` inner product from `x` (from the fixed start where
/// `x` is not of `A`'s size): the largest Ritz value `theta` plus its
/// residual's norm (a symmetric operator has an eigenvalue within a
/// vector's residual of its Rayleigh quotient), raised by
/// [`LAMBDA_MARGIN`]. Lanczos' extreme Ritz values converge far faster
/// than the power iteration: on the coarse trousers' finest level a dozen
/// power iterations from the fixed start give 1.91 where the eigenvalue
/// is 2.40, and a dozen Lanczos steps 2.37 (2.45 with its residual). `x`
/// is left with the Ritz vector of `theta`, for the power iterations that
/// follow.
pub fn lanczos_max(a: &Single, diag: &[DMat3], inv_diag: &[DMat3], x: &mut Vec<DVec3>, steps: usize) -> f64 {
    let n = a.rows();
    if x.len() != n {
        *x = power_start(n);
    }
    let d_norm = |u: &[DVec3]| sum(n, |i| u[i].dot(diag[i] * u[i])).sqrt();
    let norm = d_norm(x);
    let mut q: Vec<Vec<DVec3>> = vec![x.par_iter().map(|v| *v / norm).collect()];
    let (mut alpha, mut beta) = (Vec::with_capacity(steps), Vec::with_capacity(steps));
    let mut aq = vec![DVec3::ZERO; n];
    for j in 0..steps {
        a.apply(&q[j], &mut aq);
        // <D^-1 A q, q>_D = q . A q.
        let qj = &q[j];
        alpha.push(sum(n, |i| qj[i].dot(aq[i])));
        let previous = j.checked_sub(1).map(|k| (&q[k], beta[k]));
        let w: Vec<DVec3> = (0..n)
            .into_par_iter()
            .with_min_len(256)
            .map(|i| {
                let back = previous.map_or(DVec3::ZERO, |(p, b): (&Vec<DVec3>, f64)| p[i] * b);
                inv_diag[i] * aq[i] - qj[i] * alpha[j] - back
            })
            .collect();
        let b = d_norm(&w);
        beta.push(b);
        // The Krylov space is exhausted: the Ritz values are eigenvalues.
        if b.is_nan() || b <= 1e-12 * alpha[j].abs() {
            break;
        }
        if j + 1 < steps {
            q.push(w.par_iter().map(|v| *v / b).collect());
        }
    }
    let k = alpha.len();
    let (theta, y) = largest_eigenpair(&alpha, &beta[..k - 1]);
    *x = (0..n)
        .into_par_iter()
        .with_min_len(256)
        .map(|i| (0..k).fold(DVec3::ZERO, |s, j| s + q[j][i] * y[j]))
        .collect();
    // An eigenvalue lies within the Ritz pair's residual of theta.
    LAMBDA_MARGIN * (theta + beta[k - 1] * y[k - 1].abs())
}

/// The largest eigenvalue of the symmetric tridiagonal matrix of diagonal
/// `alpha` and off-diagonal `beta`, and its unit eigenvector, by cyclic
/// Jacobi rotations of the dense matrix (a dozen rows).
fn largest_eigenpair(alpha: &[f64], beta: &[f64]) -> (f64, Vec<f64>) {
    let k = alpha.len();
    let mut t = vec![0.0; k * k];
    let mut v = vec![0.0; k * k];
    for i in 0..k {
        t[i * k + i] = alpha[i];
        v[i * k + i] = 1.0;
        if i + 1 < k {
            t[i * k + i + 1] = beta[i];
            t[(i + 1) * k + i] = beta[i];
        }
    }
    for _ in 0..64 {
        let off: f64 = (0..k)
            .flat_map(|i| (0..k).filter(move |&j| j != i).map(move |j| (i, j)))
            .map(|(i, j)| t[i * k + j].powi(2))
            .sum();
        let scale: f64 = t.iter().map(|e| e * e).sum();
        if off <= 1e-30 * scale {
            break;
        }
        for p in 0..k {
            for r in p + 1..k {
                let apr = t[p * k + r];
                if apr == 0.0 {
                    continue;
                }
                // The rotation that zeroes t[p][r] (Golub & Van Loan 8.5.2).
                let tau = (t[r * k + r] - t[p * k + p]) / (2.0 * apr);
                let tan = tau.signum() / (tau.abs() + (1.0 + tau * tau).sqrt());
                let c = 1.0 / (1.0 + tan * tan).sqrt();
                let s = tan * c;
                for i in 0..k {
                    let (tip, tir) = (t[i * k + p], t[i * k + r]);
                    t[i * k + p] = c * tip - s * tir;
                    t[i * k + r] = s * tip + c * tir;
                }
                for i in 0..k {
                    let (tpi, tri) = (t[p * k + i], t[r * k + i]);
                    t[p * k + i] = c * tpi - s * tri;
                    t[r * k + i] = s * tpi + c * tri;
                }
                for i in 0..k {
                    let (vip, vir) = (v[i * k + p], v[i * k + r]);
                    v[i * k + p] = c * vip - s * vir;
                    v[i * k + r] = s * vip + c * vir;
                }
            }
        }
    }
    let top = (0..k).fold(0, |m, i| if t[i * k + i] > t[m * k + m] { i } else { m });
    (t[top * k + top], (0..k).map(|i| v[i * k + top]).collect())
}

#[cfg(test)]
mod tests {
    use super::super::bsr::Bsr;
    use super::*;

    /// A chain of masses `m` joined by the springs `k` (fixed at both
    /// ends), as blocks, and `D^-1/2 A D^-1/2` per axis as a tridiagonal
    /// matrix (its eigenvalues are `D^-1 A`'s).
    fn chain(m: f64, k: &[f64]) -> (Bsr, Vec<f64>, Vec<f64>) {
        let n = k.len() - 1;
        let d: Vec<f64> = (0..n).map(|i| m + k[i] + k[i + 1]).collect();
        let block = |v: f64| DMat3::from_diagonal(DVec3::splat(v));
        let rows = (0..n)
            .map(|i| {
                let mut row = vec![(i as u32, block(d[i]))];
                if i > 0 {
                    row.push(((i - 1) as u32, block(-k[i])));
                }
                if i + 1 < n {
                    row.push(((i + 1) as u32, block(-k[i + 1])));
                }
                row
            })
            .collect();
        let beta = (0..n - 1).map(|i| -k[i + 1] / (d[i] * d[i + 1]).sqrt()).collect();
        (Bsr::from_rows(n, rows), vec![1.0; n], beta)
    }

    /// Lanczos' estimate lies above the largest eigenvalue and within a
    /// fifth of it: on a chain whose eigenvalues crowd below the largest,
    /// and on a heavy chain with one stiff spring, whose top mode is that
    /// spring's alone and which a dozen power iterations from the same
    /// start underestimate even with their margin (measured 1.297 against
    /// 1.329; Lanczos 1.462).
    #[test]
    fn lanczos_bounds_the_largest_eigenvalue_from_above() {
        let mut stiff = vec![1.0; 61];
        stiff[30] = 5.0;
        for (m, k, short) in [(0.01, vec![1.0; 61], false), (10.0, stiff, true)] {
            let (a, alpha, beta) = chain(m, &k);
            let (truth, _) = largest_eigenpair(&alpha, &beta);
            let single = Single::of(&a);
            let diag = a.diagonal();
            let inv: Vec<DMat3> = diag.iter().map(|d| d.inverse()).collect();
            let lanczos = lanczos_max(&single, &diag, &inv, &mut Vec::new(), 12);
            let power = lambda_max(&single, &inv, &mut Vec::new(), 12);
            println!("largest eigenvalue {truth:.5}: Lanczos {lanczos:.5}, power iterations {power:.5}");
            assert!(lanczos >= truth && lanczos <= 1.2 * truth, "{lanczos} against {truth}");
            assert!(!short || power < truth, "{power} against {truth}");
        }
    }

    /// The dense solver of the tridiagonal matrix against a known spectrum:
    /// the path of `n` nodes, `2 - 2 cos(pi j / (n + 1))`.
    #[test]
    fn the_tridiagonal_eigenpair_is_the_paths() {
        let n = 9;
        let (theta, y) = largest_eigenpair(&vec![2.0; n], &vec![-1.0; n - 1]);
        let exact = 2.0 - 2.0 * (std::f64::consts::PI * n as f64 / (n + 1) as f64).cos();
        assert!((theta - exact).abs() < 1e-12, "{theta} against {exact}");
        for i in 0..n {
            let ty = 2.0 * y[i] - if i > 0 { y[i - 1] } else { 0.0 } - if i + 1 < n { y[i + 1] } else { 0.0 };
            assert!((ty - theta * y[i]).abs() < 1e-10);
        }
    }
}
