//! Levenberg-Marquardt for small nonlinear least-squares problems
//! `min_p sum_i r_i(p)^2`, with a central-difference Jacobian: the fits have
//! at most five unknowns and a few hundred residuals.

/// Minimises `|r(p)|^2` from `p`; returns the parameters reached.
/// `scale[j]` is the size of a meaningful change of `p[j]` (the Jacobian's
/// difference step is 1e-6 of it).
pub fn minimise(r: impl Fn(&[f64]) -> Vec<f64>, mut p: Vec<f64>, scale: &[f64]) -> Vec<f64> {
    let cost = |p: &[f64]| cost(&r, p);
    let mut lambda = 1e-3;
    let mut current = cost(&p);
    for _ in 0..500 {
        let normal = Normal::new(&jacobian(&r, &p, scale), &r(&p));
        // Try damped steps until one lowers the cost.
        let mut improved = false;
        while lambda < 1e12 {
            let Some(step) = normal.damped_step(lambda) else {
                lambda *= 10.0;
                continue;
            };
            let trial: Vec<f64> = p.iter().zip(&step).map(|(a, b)| a + b).collect();
            let c = cost(&trial);
            if c < current {
                let gain = (current - c) / current.max(1e-300);
                let small = step.iter().zip(scale).all(|(s, sc)| s.abs() < 1e-12 * sc);
                p = trial;
                current = c;
                lambda = (lambda / 3.0).max(1e-12);
                improved = true;
                if gain < 1e-14 || small {
                    return p;
                }
                break;
            }
            lambda *= 4.0;
        }
        if !improved {
            break;
        }
    }
    p
}

/// The normal equations of a Gauss-Newton step, `J^T J d = -J^T r`, for
/// the Jacobian's columns `jac` and the residuals `r`.
pub struct Normal {
    jtj: Vec<Vec<f64>>,
    jtr: Vec<f64>,
    /// The least damping of a column (1e-9 of the largest diagonal).
    floor: f64,
}

impl Normal {
    pub fn new(jac: &[Vec<f64>], r: &[f64]) -> Normal {
        let n = jac.len();
        let jtj: Vec<Vec<f64>> = (0..n)
            .map(|i| (0..n).map(|j| dot(&jac[i], &jac[j])).collect())
            .collect();
        let jtr = (0..n).map(|i| -dot(&jac[i], r)).collect();
        let floor = 1e-9 * (0..n).map(|i| jtj[i][i]).fold(0.0, f64::max).max(1e-300);
        Normal { jtj, jtr, floor }
    }

    /// Levenberg-Marquardt's step for damping `lambda`, with Marquardt's
    /// scaling: the damping is proportional to `J^T J`'s diagonal, floored
    /// so that a parameter the data does not see, a zero column, stays
    /// put. `None` where the damped system is singular.
    pub fn damped_step(&self, lambda: f64) -> Option<Vec<f64>> {
        let mut m = self.jtj.clone();
        for (i, row) in m.iter_mut().enumerate() {
            row[i] += lambda * self.jtj[i][i].max(self.floor);
        }
        solve(m, self.jtr.clone())
    }
}

/// `minimise` from each of `starts`; the result of least cost. Several
/// starts guard against a flat region: where `tau` is far below every
/// measurement's distance from its anchor the cost does not depend on it,
/// and a single start there would stay.
pub fn minimise_from(r: impl Fn(&[f64]) -> Vec<f64>, starts: Vec<Vec<f64>>, scale: &[f64]) -> Vec<f64> {
    starts
        .into_iter()
        .map(|p| minimise(&r, p, scale))
        .min_by(|x, y| cost(&r, x).total_cmp(&cost(&r, y)))
        .unwrap_or_default()
}

/// `|r(p)|^2`, infinite where a residual is not finite.
fn cost(r: &impl Fn(&[f64]) -> Vec<f64>, p: &[f64]) -> f64 {
    let v = r(p);
    if v.iter().all(|x| x.is_finite()) {
        v.iter().map(|x| x * x).sum()
    } else {
        f64::INFINITY
    }
}

/// Standard errors of the parameters at the least-squares solution `p`:
/// the square roots of the diagonal of `s^2 (J^T J)^-1`, with `s^2` the
/// residual variance `|r|^2 / (m - n)`. `None` for a parameter the residuals
/// do not depend on (a zero Jacobian column): it is not determined at all.
pub fn standard_errors(r: impl Fn(&[f64]) -> Vec<f64>, p: &[f64], scale: &[f64]) -> Vec<Option<f64>> {
    let n = p.len();
    let r0 = r(p);
    let jac = jacobian(&r, p, scale);
    let seen: Vec<usize> = (0..n).filter(|&j| jac[j].iter().any(|x| *x != 0.0)).collect();
    let dof = r0.len().saturating_sub(seen.len()).max(1) as f64;
    let variance = dot(&r0, &r0) / dof;
    let jtj: Vec<Vec<f64>> = seen
        .iter()
        .map(|&i| seen.iter().map(|&j| dot(&jac[i], &jac[j])).collect())
        .collect();
    let inverse = inverse(&jtj);
    let mut out = vec![None; n];
    for (k, &j) in seen.iter().enumerate() {
        out[j] = Some(
            inverse
                .as_ref()
                .map_or(f64::INFINITY, |c| (variance * c[k][k]).max(0.0).sqrt()),
        );
    }
    out
}

/// The inverse of a small symmetric matrix, column by column; `None` when
/// it is singular to working precision.
pub fn inverse(m: &[Vec<f64>]) -> Option<Vec<Vec<f64>>> {
    (0..m.len())
        .map(|k| {
            let mut unit = vec![0.0; m.len()];
            unit[k] = 1.0;
            solve(m.to_vec(), unit)
        })
        .collect()
}

/// Jacobian columns of `r` at `p` by central differences, `1e-6 scale[j]`.
fn jacobian(r: &impl Fn(&[f64]) -> Vec<f64>, p: &[f64], scale: &[f64]) -> Vec<Vec<f64>> {
    (0..p.len())
        .map(|j| {
            let h = 1e-6 * scale[j];
            let (mut hi, mut lo) = (p.to_vec(), p.to_vec());
            hi[j] += h;
            lo[j] -= h;
            r(&hi).iter().zip(r(&lo)).map(|(a, b)| (a - b) / (2.0 * h)).collect()
        })
        .collect()
}

pub fn dot(a: &[f64], b: &[f64]) -> f64 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

/// Solves the small dense system `m x = r` by Gaussian elimination with
/// partial pivoting; `None` when `m` is singular to working precision.
pub fn solve(mut m: Vec<Vec<f64>>, mut r: Vec<f64>) -> Option<Vec<f64>> {
    let n = r.len();
    let size = m.iter().flatten().fold(0.0_f64, |a, x| a.max(x.abs()));
    for c in 0..n {
        let pivot = (c..n).max_by(|&i, &j| m[i][c].abs().total_cmp(&m[j][c].abs()))?;
        if m[pivot][c].abs() <= 1e-13 * size {
            return None;
        }
        m.swap(c, pivot);
        r.swap(c, pivot);
        let (top, below) = m.split_at_mut(c + 1);
        let pivot_row = &top[c];
        for (i, row) in below.iter_mut().enumerate() {
            let f = row[c] / pivot_row[c];
            for (x, p) in row[c..].iter_mut().zip(&pivot_row[c..]) {
                *x -= f * p;
            }
            r[c + 1 + i] -= f * r[c];
        }
    }
    let mut x = vec![0.0; n];
    for i in (0..n).rev() {
        let s: f64 = (i + 1..n).map(|j| m[i][j] * x[j]).sum();
        x[i] = (r[i] - s) / m[i][i];
    }
    Some(x)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fits_an_exponential_decay() {
        // y = 3 exp(-t / 0.7) + 0.5, sampled without noise.
        let t: Vec<f64> = (0..40).map(|i| i as f64 * 0.1).collect();
        let y: Vec<f64> = t.iter().map(|t| 3.0 * (-t / 0.7).exp() + 0.5).collect();
        let r = |p: &[f64]| -> Vec<f64> {
            t.iter()
                .zip(&y)
                .map(|(t, y)| p[0] * (-t / p[1]).exp() + p[2] - y)
                .collect()
        };
        let p = minimise(r, vec![1.0, 2.0, 0.0], &[1.0, 1.0, 1.0]);
        assert!(
            (p[0] - 3.0).abs() < 1e-8 && (p[1] - 0.7).abs() < 1e-8 && (p[2] - 0.5).abs() < 1e-8,
            "{p:?}"
        );
    }
}
