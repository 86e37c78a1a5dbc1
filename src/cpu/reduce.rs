//! Deterministic reductions: fixed-size chunks summed in parallel, then the
//! partial sums added in chunk order. The result does not depend on the
//! number of threads (the GPU backend's two-level reduction has the same shape).

use glam::DVec3;
use rayon::prelude::*;

/// Entries per partial sum.
pub const CHUNK: usize = 2048;

pub fn dot(a: &[DVec3], b: &[DVec3]) -> f64 {
    let partial: Vec<f64> = a
        .par_chunks(CHUNK)
        .zip(b.par_chunks(CHUNK))
        .map(|(x, y)| x.iter().zip(y).map(|(p, q)| p.dot(*q)).sum::<f64>())
        .collect();
    partial.iter().sum()
}
