//! The recovery angle of a specimen folded across its length (the
//! crease-recovery test, ISO 2313 / AATCC 66): read by `crease experiment
//! crease-recovery` from its frames and by `crease fit recovery` from its
//! simulated specimens.

use glam::DVec3;

/// Why a specimen has no angle to read.
pub const NO_FOLD: &str =
    "no row of vertices on the fold line: the specimen's resolution along its length must be even";

/// A folded specimen's three rows of vertices across its length (by its
/// flat first frame, the length along x): the clamped end, the fold line
/// and the free end.
pub struct FoldRows {
    base: Vec<usize>,
    fold: Vec<usize>,
    tip: Vec<usize>,
}

impl FoldRows {
    /// `None` when no row of vertices lies on the fold line (the
    /// specimen's resolution along its length is odd).
    pub fn of(flat: &[DVec3]) -> Option<FoldRows> {
        let (lo, hi) = flat
            .iter()
            .fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), p| (a.min(p.x), b.max(p.x)));
        let row = |x: f64| -> Vec<usize> {
            let tol = 1e-6 * (hi - lo);
            (0..flat.len()).filter(|&i| (flat[i].x - x).abs() <= tol).collect()
        };
        let rows = FoldRows {
            base: row(lo),
            fold: row(0.5 * (lo + hi)),
            tip: row(hi),
        };
        (!rows.fold.is_empty()).then_some(rows)
    }

    /// The recovery angle, degrees: between the chords from the fold to the
    /// clamped end and to the free end (0 folded flat, 180 open flat).
    pub fn angle(&self, x: &[DVec3]) -> f64 {
        let mean = |rows: &[usize]| rows.iter().map(|&i| x[i]).sum::<DVec3>() / rows.len() as f64;
        let fold = mean(&self.fold);
        (mean(&self.base) - fold)
            .angle_between(mean(&self.tip) - fold)
            .to_degrees()
    }
}
