//! Parameter estimation of Dahl's friction from sparse measurements
//! (Miguel et al. 2013, §4): `crease fit stretch` (§4.2, hanging weights)
//! and `crease fit bending` (§4.3, unrolled spirals).
//!
//! Both rest on the paper's rationale (§4.1): each measurement lies on a
//! monotonic path that starts at a saturated *anchor* deformation, so its
//! friction stress is an explicit function of the parameters, its strain and
//! its anchor strain (Eq. 4), and the parameters are a nonlinear least-squares
//! problem (Eq. 6). The paper solves it with Matlab's trust-region reflective
//! method after a staged initialisation; here it is Levenberg-Marquardt
//! (`lm.rs`) after the same stages.
//!
//! `crease fit recovery` (`recovery.rs`) estimates the core model's bending
//! time parameters instead (Gong 2025), from crease-recovery measurements
//! that have no closed form: each is a simulated specimen.

pub mod bending;
mod lm;
pub mod recovery;
pub mod report;
pub mod stretch;

use crate::error::{Error, Result};
pub use crate::model::dahl::{DahlParams, dahl_path_stress};
use crate::plot::{Chart, Series};
use std::path::Path;

/// A finished fit: the parameters, each stage's estimate, and every
/// sample's residual.
#[derive(Clone, Debug)]
pub struct Fit {
    pub params: DahlParams,
    /// Stage 1 (stiffness), stage 2 (`+ a, b`), stage 3 (`+ tau`).
    pub stages: [DahlParams; 3],
    pub residuals: Vec<f64>,
    pub rms_residual: f64,
    /// Standard errors of `(k, k2, a, b, tau)`; `None` for a parameter that
    /// was given, or that the data do not determine at all.
    pub standard_errors: [Option<f64>; 5],
    /// `Some(bound)` when the data do not determine `tau`: every sample
    /// lies more than 7 tau from its anchor, where the friction is
    /// saturated whatever tau is, so they only say `tau < bound`.
    pub tau_upper_bound: Option<f64>,
}

impl Fit {
    /// Assembles a fit from the joint fit's result: `errors` are those of
    /// `(k, k2, a, b, ln tau)` (tau is fitted through its logarithm), `gaps`
    /// the samples' strain distances from their anchors.
    fn new(
        params: DahlParams,
        stages: [DahlParams; 3],
        residuals: Vec<f64>,
        mut errors: [Option<f64>; 5],
        gaps: impl Iterator<Item = f64>,
    ) -> Fit {
        let bound = tau_upper_bound(gaps, params.tau);
        // d tau = tau d ln(tau); an undetermined tau has no error bar.
        errors[4] = errors[4].filter(|_| bound.is_none()).map(|e| e * params.tau);
        Fit {
            params,
            stages,
            rms_residual: rms(&residuals),
            residuals,
            standard_errors: errors,
            tau_upper_bound: bound,
        }
    }
}

/// A CSV of numbers with a required header: the rows, each with its line
/// number in the file and one value per header column. Errors name the file
/// and the line.
pub(crate) fn read_csv(path: &Path, header: &[&str]) -> Result<Vec<(usize, Vec<f64>)>> {
    let text = std::fs::read_to_string(path).map_err(|e| Error::io(path, e))?;
    let bad = |line: usize, message: String| Error::File {
        path: path.to_path_buf(),
        message: format!("line {line}: {message}"),
    };
    let mut lines = text.lines().enumerate().filter(|(_, l)| !l.trim().is_empty());
    let Some((_, first)) = lines.next() else {
        return Err(bad(1, format!("empty; expected the header `{}`", header.join(","))));
    };
    let names: Vec<&str> = first.split(',').map(str::trim).collect();
    if names != header {
        return Err(bad(1, format!("header is `{first}`; expected `{}`", header.join(","))));
    }
    let mut rows = Vec::new();
    for (i, line) in lines {
        let values: Vec<&str> = line.split(',').map(str::trim).collect();
        if values.len() != header.len() {
            return Err(bad(
                i + 1,
                format!("{} values, expected {}", values.len(), header.len()),
            ));
        }
        let row = values
            .iter()
            .zip(header)
            .map(|(v, name)| match v.parse::<f64>() {
                Ok(x) if x.is_finite() => Ok(x),
                _ => Err(bad(i + 1, format!("{name} = `{v}` is not a finite number"))),
            })
            .collect::<Result<Vec<f64>>>()?;
        rows.push((i + 1, row));
    }
    Ok(rows)
}

/// Least squares `min |A x - y|^2` for a few unknowns (the columns of `a`,
/// one row per equation), through the normal equations. `None` when the
/// columns are dependent (the data cannot separate the unknowns).
pub(crate) fn linear_least_squares(a: &[Vec<f64>], y: &[f64]) -> Option<Vec<f64>> {
    let n = a.first()?.len();
    let mut m = vec![vec![0.0; n]; n];
    let mut r = vec![0.0; n];
    for (row, yi) in a.iter().zip(y) {
        for i in 0..n {
            r[i] += row[i] * yi;
            for j in 0..n {
                m[i][j] += row[i] * row[j];
            }
        }
    }
    lm::solve(m, r)
}

/// Root mean square of `r`.
pub fn rms(r: &[f64]) -> f64 {
    (r.iter().map(|x| x * x).sum::<f64>() / r.len().max(1) as f64).sqrt()
}

/// `n + 1` values spaced evenly in `ln` over `[lo, hi]`.
fn log_spaced(lo: f64, hi: f64, n: usize) -> impl Iterator<Item = f64> {
    (0..=n).map(move |i| (lo.ln() + (hi.ln() - lo.ln()) * i as f64 / n as f64).exp())
}

/// The time constant that best fits with the other parameters fixed: a
/// scan of `ln tau` over `[lo, hi]` (the paper's third stage, "then we fit
/// tau").
pub(crate) fn scan_tau(lo: f64, hi: f64, cost: impl Fn(f64) -> f64) -> f64 {
    log_spaced(lo, hi, 200)
        .map(|tau| (tau, cost(tau)))
        .filter(|(_, c)| c.is_finite())
        .min_by(|x, y| x.1.total_cmp(&y.1))
        .map_or(lo, |(tau, _)| tau)
}

/// Where the joint fit starts `tau`: the scan's best and 8 more across
/// `[lo, hi]` (the stages fit `sigma_max` as if tau vanished, which biases
/// the scan towards the flat region of small tau).
pub(crate) fn tau_starts(scanned: f64, lo: f64, hi: f64) -> Vec<f64> {
    std::iter::once(scanned).chain(log_spaced(lo, hi, 8)).collect()
}

/// Whether the samples, at strain distances `gaps` from their anchors,
/// determine a fitted time constant `tau`: `None` if one lies within 7 tau
/// (friction there is still turning, `exp(-7) < 1e-3` of the way), else the
/// bound `min gap / 7` below which any tau fits the same.
fn tau_upper_bound(gaps: impl Iterator<Item = f64>, tau: f64) -> Option<f64> {
    let nearest = gaps.fold(f64::INFINITY, f64::min);
    (nearest > 7.0 * tau).then_some(nearest / 7.0)
}

/// Residual against measurement number.
pub(crate) fn residual_chart(title: &str, residuals: &[f64]) -> Chart {
    Chart {
        title: title.into(),
        x_label: "measurement".into(),
        log_x: false,
        series: vec![Series {
            name: "residual".into(),
            points: residuals.iter().enumerate().map(|(i, r)| (i as f64, *r)).collect(),
            markers: true,
        }],
        marks: Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn path_stress_starts_saturated_against_the_path_and_saturates_along_it() {
        let (a, b, tau) = (2.0, 3.0, 0.01);
        // At its anchor a loading path carries the unloading saturation.
        let at = dahl_path_stress(a, b, tau, 1.0, 0.1, 0.1);
        assert!((at + (a + b * 0.1)).abs() < 1e-12);
        // Many time constants later it is saturated in its own direction.
        let far = dahl_path_stress(a, b, tau, 1.0, 0.3, 0.1);
        assert!((far - (a + b * 0.3)).abs() < 1e-6);
        // The slope at the anchor is 2 sigma_max / tau (Eq. 2 with s sigma = -sigma_max).
        let h = 1e-7;
        let slope = (dahl_path_stress(a, b, tau, 1.0, 0.1 + h, 0.1) - at) / h;
        assert!((slope - (2.0 * (a + b * 0.1) / tau + b)).abs() < 1e-3 * slope);
    }

    #[test]
    fn tau_is_undetermined_when_every_sample_is_far_from_its_anchor() {
        assert_eq!(tau_upper_bound([0.07, 0.14].into_iter(), 0.001), Some(0.01));
        assert_eq!(tau_upper_bound([0.07, 0.005].into_iter(), 0.001), None);
    }

    #[test]
    fn linear_least_squares_recovers_a_line_and_refuses_dependent_columns() {
        let a: Vec<Vec<f64>> = (0..5).map(|i| vec![1.0, i as f64]).collect();
        let y: Vec<f64> = (0..5).map(|i| 2.0 + 0.5 * i as f64).collect();
        let x = linear_least_squares(&a, &y).unwrap();
        assert!((x[0] - 2.0).abs() < 1e-12 && (x[1] - 0.5).abs() < 1e-12);
        let dependent: Vec<Vec<f64>> = (0..5).map(|i| vec![i as f64, 2.0 * i as f64]).collect();
        assert!(linear_least_squares(&dependent, &y).is_none());
    }
}
