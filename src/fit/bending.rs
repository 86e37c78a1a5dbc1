//! Bending friction from unrolled spirals (Miguel et al. 2013, §4.3).
//!
//! A strip is rolled around a cylinder of radius `R` (the anchor: bending
//! friction saturated at curvature `1/R`), the cylinder is removed, and the
//! strip unrolls under its weight into a spiral. At samples along the
//! spiral's profile one measures the curvature `kappa`, the length `l` of
//! strip hanging beyond the sample and the horizontal distance `d` from that
//! piece's centre of mass to the sample. Every sample lies on the unloading
//! path from its cylinder's anchor, so its bending stress error per unit
//! width (Eq. 7) is
//!
//! `f_i = rho l_i d_i g - k(eps_i) eps_i - sigma_i`,  `eps = 3 kappa`,
//!
//! where `eps = 3 kappa` is the discrete-shells strain of a hinge (the
//! paper's `T_elastic = 3 k w kappa`), `k(eps) = k + k2 eps` the stiffness
//! and `sigma_i` Eq. 4 with `s = -1` from `3 / R`. As in the paper, the
//! stiffness comes from a separate cantilever test (`--stiffness`) because
//! the spirals of light materials barely constrain it; without it, it is
//! fitted too. Samples where gravity and elasticity oppose each other are
//! dropped (their path need not be monotonic); then `sigma_max` is fitted
//! with a vanishing `tau`, then `tau`, then all together.

use super::{DahlParams, Fit, linear_least_squares, lm, read_csv, residual_chart, rms, scan_tau, tau_starts};
use crate::error::{Error, Result};
use crate::plot::{Chart, Series};
use std::path::Path;

/// The data file's header.
pub const HEADER: [&str; 4] = ["radius_m", "curvature_per_m", "hanging_length_m", "lever_m"];

/// Gravity, m/s^2.
const G: f64 = 9.81;

/// Elastic plus friction stress per unit width (N) at curvature `kappa`
/// on the unrolling path from a cylinder of radius `radius`, for
/// parameters `p`: stiffness `k + k2 eps` (N m), friction `a + b eps` (N),
/// `tau` (1/m), with `eps = 3 kappa`.
pub fn stress(p: &DahlParams, kappa: f64, radius: f64) -> f64 {
    p.stress(-1.0, 3.0 * kappa, 3.0 / radius)
}

pub use crate::model::dahl::{DOUBLECLOTH, FELT, PAPER};

/// One spiral sample.
#[derive(Clone, Copy, Debug)]
pub struct Sample {
    pub radius: f64,
    pub curvature: f64,
    pub hanging_length: f64,
    pub lever: f64,
}

impl Sample {
    /// The gravity stress `rho l d g` (N) for areal density `rho`.
    pub fn gravity(&self, density: f64) -> f64 {
        density * self.hanging_length * self.lever * G
    }
}

/// The samples of `path`, and how many were dropped because gravity and
/// elasticity oppose each other there (lever and curvature of opposite sign).
pub fn read(path: &Path) -> Result<(Vec<Sample>, usize)> {
    let rows = read_csv(path, &HEADER)?;
    let mut samples = Vec::new();
    let mut dropped = 0;
    for (line, row) in &rows {
        let bad = |message: String| Error::File {
            path: path.to_path_buf(),
            message: format!("line {line}: {message}"),
        };
        if row[0] <= 0.0 {
            return Err(bad(format!("radius_m = {} must be positive", row[0])));
        }
        if row[1] < 0.0 {
            return Err(bad(format!(
                "curvature_per_m = {} is negative: fit each bending direction from its own file, curvatures positive",
                row[1]
            )));
        }
        if row[2] <= 0.0 {
            return Err(bad(format!("hanging_length_m = {} must be positive", row[2])));
        }
        if row[3] * row[1] <= 0.0 {
            dropped += 1;
            continue;
        }
        samples.push(Sample {
            radius: row[0],
            curvature: row[1],
            hanging_length: row[2],
            lever: row[3],
        });
    }
    if samples.len() < 6 {
        return Err(Error::File {
            path: path.to_path_buf(),
            message: format!(
                "{} usable samples ({dropped} dropped where gravity and elasticity oppose): the fit needs at least 6",
                samples.len()
            ),
        });
    }
    Ok((samples, dropped))
}

/// The stress errors `f_i` (Eq. 7) of `samples` under `p`.
pub fn residuals(p: &DahlParams, density: f64, samples: &[Sample]) -> Vec<f64> {
    samples
        .iter()
        .map(|s| s.gravity(density) - stress(p, s.curvature, s.radius))
        .collect()
}

/// Fits the friction (and, without `stiffness`, the stiffness `(k, k2)`)
/// to `samples` of a strip of areal density `density`.
pub fn fit(samples: &[Sample], density: f64, stiffness: Option<(f64, f64)>) -> Result<Fit> {
    let unseparable = |what: &str| Error::Argument {
        arg: "DATA.csv".into(),
        message: format!(
            "the samples cannot separate {what}: use cylinders of several radii and samples along each spiral"
        ),
    };
    let gravity: Vec<f64> = samples.iter().map(|s| s.gravity(density)).collect();
    // Stage 1: the stiffness, given or fitted without friction.
    let (k, k2) = match stiffness {
        Some(k) => k,
        None => {
            let rows: Vec<Vec<f64>> = samples
                .iter()
                .map(|s| vec![3.0 * s.curvature, 9.0 * s.curvature * s.curvature])
                .collect();
            let k = linear_least_squares(&rows, &gravity).ok_or_else(|| unseparable("k from k2"))?;
            (k[0], k[1])
        }
    };
    let mut p = DahlParams {
        k,
        k2,
        a: 0.0,
        b: 0.0,
        tau: 1.0,
    };
    let stage1 = p;
    // Stage 2: sigma_max with a vanishing tau: sigma = -(a + b eps).
    let rows: Vec<Vec<f64>> = samples.iter().map(|s| vec![-1.0, -3.0 * s.curvature]).collect();
    let rest: Vec<f64> = samples
        .iter()
        .zip(&gravity)
        .map(|(s, g)| {
            let eps = 3.0 * s.curvature;
            g - (k + k2 * eps) * eps
        })
        .collect();
    let ab = linear_least_squares(&rows, &rest).ok_or_else(|| unseparable("a from b"))?;
    (p.a, p.b) = (ab[0], ab[1]);
    let span = samples.iter().map(|s| 3.0 / s.radius).fold(0.0, f64::max);
    let stage2 = DahlParams { tau: 1e-6 * span, ..p };
    // Stage 3: tau.
    let (lo, hi) = (1e-4 * span, span);
    p.tau = scan_tau(lo, hi, |tau| {
        rms(&residuals(&DahlParams { tau, ..p }, density, samples))
    });
    let stage3 = p;
    // All together (the stiffness too when it was not given).
    let stress = gravity.iter().fold(0.0_f64, |m, g| m.max(g.abs())).max(1e-12);
    let free_k = stiffness.is_none();
    let unpack = |q: &[f64]| DahlParams {
        a: q[0],
        b: q[1],
        tau: q[2].exp(),
        k: if free_k { q[3] } else { k },
        k2: if free_k { q[4] } else { k2 },
    };
    let mut scale = vec![stress, stress / span, 1.0];
    if free_k {
        scale.extend([stress / span, stress / (span * span)]);
    }
    let starts = tau_starts(p.tau, lo, hi).into_iter().map(|tau| {
        let mut start = vec![p.a, p.b, tau.ln()];
        if free_k {
            start.extend([k, k2]);
        }
        start
    });
    let q = lm::minimise_from(|q| residuals(&unpack(q), density, samples), starts.collect(), &scale);
    let params = unpack(&q);
    let e = lm::standard_errors(|q| residuals(&unpack(q), density, samples), &q, &scale);
    Ok(Fit::new(
        params,
        [stage1, stage2, stage3],
        residuals(&params, density, samples),
        [
            e.get(3).copied().flatten(),
            e.get(4).copied().flatten(),
            e[0],
            e[1],
            e[2],
        ],
        samples.iter().map(|s| 3.0 * (1.0 / s.radius - s.curvature).abs()),
    ))
}

/// Synthetic spirals: for each cylinder radius, samples at the given
/// fractions of its curvature with the given hanging lengths; the lever
/// is the one that balances the stress of `p` (Eq. 7 with `f = 0`). Rows
/// `(radius, curvature, hanging length, lever)`.
pub fn synthesize(p: &DahlParams, density: f64, radii: &[f64], samples: &[(f64, f64)]) -> Vec<[f64; 4]> {
    radii
        .iter()
        .flat_map(|&r| {
            samples.iter().map(move |&(fraction, length)| {
                let kappa = fraction / r;
                [r, kappa, length, stress(p, kappa, r) / (density * length * G)]
            })
        })
        .collect()
}

/// The fitted unrolling paths (stress against curvature from each
/// cylinder's curvature down to flat) with the measured gravity stress, and
/// the residuals.
pub fn charts(fit: &Fit, density: f64, samples: &[Sample]) -> Vec<Chart> {
    let mut radii: Vec<f64> = samples.iter().map(|s| s.radius).collect();
    radii.sort_by(f64::total_cmp);
    radii.dedup();
    let mut curve = Vec::new();
    let mut measured = Vec::new();
    for &r in &radii {
        for j in 0..=60 {
            let kappa = j as f64 / 60.0 / r;
            curve.push((kappa, stress(&fit.params, kappa, r)));
        }
        curve.push((f64::NAN, f64::NAN));
        let mut spiral: Vec<(f64, f64)> = samples
            .iter()
            .filter(|s| s.radius == r)
            .map(|s| (s.curvature, s.gravity(density)))
            .collect();
        spiral.sort_by(|x, y| x.0.total_cmp(&y.0));
        measured.extend(spiral);
        measured.push((f64::NAN, f64::NAN));
    }
    vec![
        Chart {
            title: "Bending: stress (N) against curvature, unrolling paths (Miguel 2013, Fig. 9)".into(),
            x_label: "curvature, 1/m".into(),
            log_x: false,
            series: vec![
                Series {
                    name: "measured rho l d g".into(),
                    points: measured,
                    markers: true,
                },
                Series {
                    name: "fitted: elastic + friction".into(),
                    points: curve,
                    markers: false,
                },
            ],
            marks: Vec::new(),
        },
        residual_chart("Bending: stress residual f_i (N, Eq. 7)", &fit.residuals),
    ]
}
