//! Strain limiting (Bridson, Marino & Fedkiw 2003 §3; GPU twin:
//! shaders/strain_limit.wgsl). After the solve, before the position update,
//! the velocities are changed so that every edge, moved by `x + h v`, ends
//! within `[1 - compression, 1 + extension]` of its rest length: the paper's
//! "modify v^{n+1/2} in place to limit strain", with springs limited to 10%
//! extension (fabric's biphasic stiffness) and 0% compression (which makes
//! cloth buckle out of plane instead of shrinking in it).
//!
//! Each sweep is Jacobi, so both backends do the same arithmetic in the
//! same order: every edge past a limit asks for the relative velocity change
//! that lands it on the limit, shared between its ends by inverse mass
//! (pinned vertices take none); each vertex then takes the weighted mean of
//! its edges' requests (model/strain_limit.rs: the weights grow from zero
//! past the limit, so the mean is continuous in the state). A few sweeps
//! settle a patch; a long chain of over-stretched edges needs more
//! (`iterations`).

use crate::cloth::Cloth;
use crate::model::strain_limit::{Request, request};
use crate::step::StrainLimit;
use glam::DVec3;
use rayon::prelude::*;

/// Limits the strain of every edge of `cloth` at `x + h v` by changing `v`;
/// `free[i]` is false for pinned vertices. Returns how many edges were past
/// a limit before the first sweep.
pub fn limit(cloth: &Cloth, limit: &StrainLimit, h: f64, x: &[DVec3], v: &mut [DVec3], free: &[bool]) -> usize {
    let edges = &cloth.topology.edges;
    let weight = |i: usize| if free[i] { 1.0 / cloth.mass[i] } else { 0.0 };
    let bounds = limit.bounds();
    let mut requests: Vec<Request> = vec![(DVec3::ZERO, 0.0); edges.len()];
    let mut first = 0;
    for sweep in 0..limit.iterations {
        requests
            .par_iter_mut()
            .zip(edges.par_iter().zip(&cloth.edge_rest))
            .for_each(|(out, (&[a, b], &rest))| {
                let (a, b) = (a as usize, b as usize);
                *out = request(bounds, rest, x[a] + v[a] * h, x[b] + v[b] * h, weight(a), weight(b), h);
            });
        if sweep == 0 {
            first = requests.iter().filter(|r| r.1 > 0.0).count();
            if first == 0 {
                return 0;
            }
        }
        let vertex_edges = &cloth.topology.vertex_edges;
        v.par_iter_mut().with_min_len(256).enumerate().for_each(|(i, vi)| {
            let (mut sum, mut weights) = (DVec3::ZERO, 0.0);
            for &(e, end) in vertex_edges.row(i) {
                let (j, w) = requests[e as usize];
                if w > 0.0 {
                    sum += if end == 0 { j * w } else { -j * w };
                    weights += w;
                }
            }
            if weights > 0.0 {
                *vi += sum * (weight(i) / weights.max(1.0));
            }
        });
    }
    first
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mesh::{Pattern, grid};
    use crate::model::material::preset;

    /// The range of edge strains at `x + h v`.
    fn strains(cloth: &Cloth, x: &[DVec3], v: &[DVec3], h: f64) -> (f64, f64) {
        let moved: Vec<DVec3> = x.iter().zip(v).map(|(x, v)| *x + *v * h).collect();
        crate::measure::edge_strain_range(cloth, &moved)
    }

    /// A sheet torn apart and crushed at random: enough sweeps bring every
    /// edge inside the limits.
    #[test]
    fn sweeps_bring_every_edge_within_the_limits() {
        let mesh = grid(0.2, 0.2, 8, 8, Pattern::Alternating, DVec3::ZERO, (DVec3::X, DVec3::Y));
        let cloth = Cloth::new(mesh, preset("cotton").unwrap(), 0.0, DVec3::X).unwrap();
        let h = 0.002;
        let x = cloth.mesh.positions.clone();
        let mut seed = 7u64;
        let mut random = || {
            seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            (seed >> 11) as f64 / (1u64 << 53) as f64 - 0.5
        };
        // Velocities that would move vertices by up to half an edge.
        let mut v: Vec<DVec3> = x
            .iter()
            .map(|_| DVec3::new(random(), random(), random()) * (0.025 / h))
            .collect();
        let free = vec![true; x.len()];
        let l = StrainLimit {
            extension: 0.1,
            compression: 0.05,
            iterations: 400,
        };
        let (lo, hi) = strains(&cloth, &x, &v, h);
        assert!(hi > 0.3 && lo < -0.3, "[{lo}, {hi}]");
        let acting = limit(&cloth, &l, h, &x, &mut v, &free);
        assert!(acting > 0);
        let (lo, hi) = strains(&cloth, &x, &v, h);
        assert!(hi < 0.1 + 1e-3 && lo > -0.05 - 1e-3, "strains after: [{lo}, {hi}]");
    }

    /// Within the limits nothing changes, bit for bit.
    #[test]
    fn edges_within_the_limits_are_left_alone() {
        let mesh = grid(0.3, 0.1, 3, 1, Pattern::Regular, DVec3::ZERO, (DVec3::X, DVec3::Y));
        let cloth = Cloth::new(mesh, preset("cotton").unwrap(), 0.0, DVec3::X).unwrap();
        let h = 0.01;
        let x = cloth.mesh.positions.clone();
        // A rigid translation and a 5% uniform stretch along x.
        let mut v: Vec<DVec3> = x.iter().map(|p| DVec3::new(0.3 + 0.05 * p.x / h, -0.2, 0.1)).collect();
        let before = v.clone();
        let l = StrainLimit {
            extension: 0.1,
            compression: 0.01,
            iterations: 4,
        };
        assert_eq!(limit(&cloth, &l, h, &x, &mut v, &vec![true; x.len()]), 0);
        assert_eq!(v, before);
    }
}
