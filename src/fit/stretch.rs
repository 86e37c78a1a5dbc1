//! Stretch friction from hanging weights (Miguel et al. 2013, §4.2).
//!
//! A square sample of rest length `L0` hangs on a vertical plane and is
//! loaded with weights `[0, 1, ..., n, ..., 1, 0]` N, cycle after cycle; its
//! length `L` is measured under each. Every measurement lies on a monotonic
//! path: a loading path starts at the last lightest measurement (the last
//! 0 N one), an unloading path at the last heaviest (the last n N one), where
//! friction is taken to be saturated. The force balance of measurement `i`
//! (Eq. 5, with `A grad eps = L0^2 L / L0^2 = L`) is
//!
//! `f_i = F_i - (k(eps_i) eps_i + sigma_i) L_i`,  `eps = ((L / L0)^2 - 1) / 2`,
//!
//! with the linear stiffness `k(eps) = k + k2 eps` (the paper's `k1 + k2 eps`)
//! and `sigma_i` from Eq. 4. `(k, k2, a, b, tau)` minimise `sum f_i^2` (Eq. 6),
//! started as the paper does: `k` without friction, then `sigma_max` with a
//! vanishing `tau`, then `tau`.

use super::{DahlParams, Fit, linear_least_squares, lm, read_csv, residual_chart, rms, scan_tau, tau_starts};
use crate::error::{Error, Result};
use crate::plot::{Chart, Series};
use std::path::Path;

/// The data file's header.
pub const HEADER: [&str; 3] = ["step", "force_newton", "length_m"];

/// Green-Lagrange strain of a sample of `length` and `rest_length`:
/// `((L / L0)^2 - 1) / 2`.
pub fn green_strain(length: f64, rest_length: f64) -> f64 {
    0.5 * ((length / rest_length).powi(2) - 1.0)
}

/// The length at Green strain `eps` (the inverse of `green_strain`).
pub fn length_at(eps: f64, rest_length: f64) -> f64 {
    rest_length * (1.0 + 2.0 * eps).sqrt()
}

/// The hanging force in equilibrium with strain `eps` on a path of
/// direction `s` from `anchor` (Eq. 5 with `f = 0`), for parameters `p`:
/// elastic stress `(k + k2 eps) eps` and friction `a + b eps` in N/m, `tau`
/// in strain units.
pub fn force(p: &DahlParams, rest_length: f64, eps: f64, s: f64, anchor: f64) -> f64 {
    p.stress(s, eps, anchor) * length_at(eps, rest_length)
}

pub use crate::model::dahl::{COTTON, POLYESTER, SPANDEX};

/// One measurement with its path.
#[derive(Clone, Copy, Debug)]
pub struct Sample {
    pub step: f64,
    pub force: f64,
    pub length: f64,
    /// Green-Lagrange strain `((L / L0)^2 - 1) / 2`.
    pub strain: f64,
    /// +1 on a loading path, -1 on an unloading one.
    pub direction: f64,
    /// Strain of the path's anchor measurement.
    pub anchor: f64,
}

/// Follows the load sequence and names each measurement's path: its
/// direction and anchor (the paper's rule, by turning points so that a
/// constant offset in the forces, the clip and the cloth's own weight,
/// changes nothing).
struct Paths {
    last_force: f64,
    direction: f64,
    /// Strain of the last lightest measurement (where loading starts).
    lightest: f64,
    /// Strain of the last heaviest measurement (where unloading starts).
    heaviest: f64,
}

impl Paths {
    fn start(force: f64, strain: f64) -> Paths {
        Paths {
            last_force: force,
            direction: 0.0,
            lightest: strain,
            heaviest: strain,
        }
    }

    /// The path of the next measurement, under `force`, after one at
    /// `previous_strain`: `Ok(None)` for a repeat of the first load (one
    /// more start anchor), `Err` when the sequence begins by unloading.
    fn next(&mut self, force: f64, previous_strain: f64) -> std::result::Result<Option<(f64, f64)>, String> {
        let change = force - self.last_force;
        if self.direction == 0.0 && change < 0.0 {
            return Err("the sequence must begin with its lightest load and load first".into());
        }
        if change > 0.0 && self.direction < 0.0 {
            self.lightest = previous_strain;
        }
        if change < 0.0 && self.direction > 0.0 {
            self.heaviest = previous_strain;
        }
        if change != 0.0 {
            self.direction = change.signum();
        }
        self.last_force = force;
        if self.direction == 0.0 {
            // The first load repeated: one more start anchor.
            self.lightest = previous_strain;
            return Ok(None);
        }
        let anchor = if self.direction > 0.0 {
            self.lightest
        } else {
            self.heaviest
        };
        Ok(Some((self.direction, anchor)))
    }
}

/// The samples of a measurement file `path` of a square of `rest_length`;
/// the first measurement is the first loading path's anchor, not a sample.
pub fn read(path: &Path, rest_length: f64) -> Result<Vec<Sample>> {
    samples(path, &read_csv(path, &HEADER)?, rest_length)
}

/// The samples of the numbered rows `(step, force, length)` of file `path`.
fn samples(path: &Path, rows: &[(usize, Vec<f64>)], rest_length: f64) -> Result<Vec<Sample>> {
    let bad = |message: String| Error::File {
        path: path.to_path_buf(),
        message,
    };
    let strain = |length: f64| green_strain(length, rest_length);
    let Some((first_line, first)) = rows.first() else {
        return Err(bad("no measurements".into()));
    };
    if first[2] <= 0.0 {
        return Err(bad(format!(
            "line {first_line}: length_m = {} must be positive",
            first[2]
        )));
    }
    let mut paths = Paths::start(first[1], strain(first[2]));
    let mut samples = Vec::new();
    for pair in rows.windows(2) {
        let ((_, prev), (line, row)) = (&pair[0], &pair[1]);
        if row[0] <= prev[0] {
            return Err(bad(format!(
                "line {line}: step {} does not follow step {}; rows go in the order the measurements were taken",
                row[0], prev[0]
            )));
        }
        if row[2] <= 0.0 {
            return Err(bad(format!("line {line}: length_m = {} must be positive", row[2])));
        }
        match paths.next(row[1], strain(prev[2])) {
            Ok(Some((direction, anchor))) => samples.push(Sample {
                step: row[0],
                force: row[1],
                length: row[2],
                strain: strain(row[2]),
                direction,
                anchor,
            }),
            Ok(None) => {}
            Err(message) => return Err(bad(format!("line {line}: {message}"))),
        }
    }
    let loading = samples.iter().filter(|s| s.direction > 0.0).count();
    if loading == 0 || loading == samples.len() || samples.len() < 6 {
        return Err(bad(format!(
            "{} measurements ({loading} loading): the fit needs loading and unloading paths and at least 6 measurements after the first",
            samples.len()
        )));
    }
    Ok(samples)
}

/// The force residuals `f_i` (Eq. 5) of `samples` under `p`.
pub fn residuals(p: &DahlParams, rest_length: f64, samples: &[Sample]) -> Vec<f64> {
    samples
        .iter()
        .map(|s| s.force - force(p, rest_length, s.strain, s.direction, s.anchor))
        .collect()
}

/// Fits `(k, k2, a, b, tau)` to `samples` (Eq. 6) after the staged start.
pub fn fit(samples: &[Sample], rest_length: f64) -> Result<Fit> {
    let unseparable = |what: &str| Error::Argument {
        arg: "DATA.csv".into(),
        message: format!("the measurements cannot separate {what}: load the sample to several different weights"),
    };
    // Stage 1: stiffness alone, F = L (k eps + k2 eps^2).
    let rows: Vec<Vec<f64>> = samples
        .iter()
        .map(|s| vec![s.length * s.strain, s.length * s.strain * s.strain])
        .collect();
    let force: Vec<f64> = samples.iter().map(|s| s.force).collect();
    let k = linear_least_squares(&rows, &force).ok_or_else(|| unseparable("k from k2"))?;
    let mut p = DahlParams {
        k: k[0],
        k2: k[1],
        a: 0.0,
        b: 0.0,
        tau: 1.0,
    };
    let stage1 = p;
    // Stage 2: sigma_max with a vanishing tau, where Eq. 4 is s (a + b eps).
    let rows: Vec<Vec<f64>> = samples
        .iter()
        .map(|s| vec![s.length * s.direction, s.length * s.direction * s.strain])
        .collect();
    let rest: Vec<f64> = samples
        .iter()
        .map(|s| s.force - s.length * (p.k + p.k2 * s.strain) * s.strain)
        .collect();
    let ab = linear_least_squares(&rows, &rest).ok_or_else(|| unseparable("a from b"))?;
    (p.a, p.b) = (ab[0], ab[1]);
    let span = samples.iter().map(|s| s.strain).fold(f64::NEG_INFINITY, f64::max)
        - samples.iter().map(|s| s.strain).fold(f64::INFINITY, f64::min);
    let span = span.max(1e-9);
    let stage2 = DahlParams { tau: 1e-6 * span, ..p };
    // Stage 3: tau.
    let (lo, hi) = (1e-5 * span, span);
    p.tau = scan_tau(lo, hi, |tau| {
        rms(&residuals(&DahlParams { tau, ..p }, rest_length, samples))
    });
    let stage3 = p;
    // All together, tau through its logarithm (it stays positive).
    let stress = samples
        .iter()
        .map(|s| (s.force / s.length).abs())
        .fold(0.0, f64::max)
        .max(1e-9);
    let unpack = |q: &[f64]| DahlParams {
        k: q[0],
        k2: q[1],
        a: q[2],
        b: q[3],
        tau: q[4].exp(),
    };
    let scale = [stress / span, stress / (span * span), stress, stress / span, 1.0];
    let starts = tau_starts(p.tau, lo, hi)
        .into_iter()
        .map(|tau| vec![p.k, p.k2, p.a, p.b, tau.ln()]);
    let q = lm::minimise_from(
        |q| residuals(&unpack(q), rest_length, samples),
        starts.collect(),
        &scale,
    );
    let params = unpack(&q);
    let e = lm::standard_errors(|q| residuals(&unpack(q), rest_length, samples), &q, &scale);
    Ok(Fit::new(
        params,
        [stage1, stage2, stage3],
        residuals(&params, rest_length, samples),
        [e[0], e[1], e[2], e[3], e[4]],
        samples.iter().map(|s| (s.strain - s.anchor).abs()),
    ))
}

/// Synthetic measurements: the lengths at which a sample with parameters
/// `p` balances each of `loads` (N), on the paths `read` infers, the first
/// at the rest length. Rows `(step, force, length)`.
pub fn synthesize(p: &DahlParams, rest_length: f64, loads: &[f64]) -> Vec<[f64; 3]> {
    let Some(&first) = loads.first() else {
        return Vec::new();
    };
    let mut out = vec![[0.0, first, rest_length]];
    let mut paths = Paths::start(first, 0.0);
    let mut strain = 0.0;
    for (i, &load) in loads.iter().enumerate().skip(1) {
        if let Ok(Some((s, anchor))) = paths.next(load, strain) {
            // The balance force grows with the strain along either path:
            // bisect between the anchor and a bracket on the path's side.
            let balance = |eps: f64| force(p, rest_length, eps, s, anchor) - load;
            let (mut lo, mut hi) = if s > 0.0 {
                (anchor, anchor + 0.01)
            } else {
                (anchor - 0.01, anchor)
            };
            while s > 0.0 && balance(hi) < 0.0 {
                hi += 2.0 * (hi - lo);
            }
            while s < 0.0 && balance(lo) > 0.0 && lo > -0.49 {
                lo = (lo - 2.0 * (hi - lo)).max(-0.49);
            }
            for _ in 0..200 {
                let mid = 0.5 * (lo + hi);
                if balance(mid) > 0.0 { hi = mid } else { lo = mid }
            }
            strain = 0.5 * (lo + hi);
        }
        out.push([i as f64, load, length_at(strain, rest_length)]);
    }
    out
}

/// The paper's protocol: for `n` from 1 to `heaviest`, weights
/// `[0, 1, ..., n, ..., 1, 0]` N, the whole sequence `repeats` times.
pub fn protocol(heaviest: usize, repeats: usize) -> Vec<f64> {
    let cycle = (1..=heaviest).flat_map(|n| (0..=n).chain((0..n).rev()).map(|w| w as f64));
    (0..repeats).flat_map(|_| cycle.clone()).collect()
}

/// Force against length, measured and fitted (each path drawn from its
/// anchor), and the residual of each measurement.
pub fn charts(fit: &Fit, rest_length: f64, samples: &[Sample]) -> Vec<Chart> {
    let measured = samples.iter().map(|s| (s.length, s.force)).collect();
    let mut curve = Vec::new();
    for path in samples.chunk_by(|x, y| x.direction == y.direction && x.anchor == y.anchor) {
        let (from, to) = (path[0].anchor, path[path.len() - 1].strain);
        for j in 0..=40 {
            let eps = from + (to - from) * j as f64 / 40.0;
            let f = force(&fit.params, rest_length, eps, path[0].direction, from);
            curve.push((length_at(eps, rest_length), f));
        }
        curve.push((f64::NAN, f64::NAN));
    }
    vec![
        Chart {
            title: "Stretch: load (N) against length (Miguel 2013, Fig. 6)".into(),
            x_label: "length, m".into(),
            log_x: false,
            series: vec![
                Series {
                    name: "measured".into(),
                    points: measured,
                    markers: true,
                },
                Series {
                    name: "fitted paths".into(),
                    points: curve,
                    markers: false,
                },
            ],
            marks: Vec::new(),
        },
        residual_chart("Stretch: force residual f_i (N, Eq. 5)", &fit.residuals),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_follow_the_papers_anchors() {
        // Loads 0 1 2 1 0 0 1: loading from the first 0, unloading from the
        // 2, loading again from the second of the two 0s.
        let loads = [0.0, 1.0, 2.0, 1.0, 0.0, 0.0, 1.0];
        let strains = [0.0, 0.1, 0.2, 0.15, 0.05, 0.04, 0.12];
        let mut paths = Paths::start(loads[0], strains[0]);
        let got: Vec<Option<(f64, f64)>> = (1..loads.len())
            .map(|i| paths.next(loads[i], strains[i - 1]).unwrap())
            .collect();
        assert_eq!(
            got,
            [
                Some((1.0, 0.0)),
                Some((1.0, 0.0)),
                Some((-1.0, 0.2)),
                Some((-1.0, 0.2)),
                Some((-1.0, 0.2)),
                Some((1.0, 0.04)),
            ]
        );
        let mut unloading_first = Paths::start(1.0, 0.0);
        assert!(unloading_first.next(0.0, 0.0).is_err());
    }

    #[test]
    fn noise_free_measurements_are_fitted_exactly() {
        // (Miguel's cotton: every measurement lies 1 to 15 tau from its anchor.)
        let p = COTTON;
        let rows: Vec<(usize, Vec<f64>)> = synthesize(&p, 0.1, &protocol(6, 1))
            .into_iter()
            .enumerate()
            .map(|(i, r)| (i + 2, r.to_vec()))
            .collect();
        let samples = samples(Path::new("(synthetic)"), &rows, 0.1).unwrap();
        let r = residuals(&p, 0.1, &samples);
        assert!(rms(&r) < 1e-9, "{r:?}");
        let f = fit(&samples, 0.1).unwrap();
        for (got, want) in f.params.values().into_iter().zip(p.values()) {
            assert!((got - want).abs() < 1e-3 * want, "{:?}", f.params);
        }
    }

    #[test]
    fn the_protocol_is_the_papers() {
        assert_eq!(protocol(2, 1), [0.0, 1.0, 0.0, 0.0, 1.0, 2.0, 1.0, 0.0]);
    }
}
