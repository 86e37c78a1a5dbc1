//! One edge's strain-limiting request (Bridson, Marino & Fedkiw 2003 §3:
//! "modify v^{n+1/2} in place to limit strain"): the relative velocity
//! change that brings an edge past its limit back onto it at the step's
//! end (to within the dead band), shared between its ends by inverse mass,
//! and the edge's weight in its vertices' means. The sweeps over a mesh are
//! cpu/strain_limit.rs and shaders/strain_limit.wgsl (`edge_request`).

use glam::DVec3;

/// The dead band: an edge asks for nothing until it is past a limit by more
/// than this fraction of its rest length, and then for the change that
/// brings it back to the band's edge. Sweeps leave edges on their limits,
/// where whether one is past is rounding (1e-5 is ~200 times the GPU's
/// rounding of the gap); the request and the edge's weight both grow from
/// zero there, so a vertex's mean does not jump when rounding tips one of
/// its edges across, in f32 or in f64.
pub const TOLERANCE: f64 = 1e-5;

/// Past the dead band, an edge's weight in its vertices' means grows from
/// 0 to 1 over this fraction of its rest length.
pub const RAMP: f64 = 1e-4;

/// One edge's request: the velocity change of its `lo` end per unit of the
/// end's inverse mass (`hi` takes the opposite), and its weight in `[0, 1]`
/// (0: it does not act). A vertex takes the weighted mean of its edges'
/// requests: their weighted sum over the sum of their weights, or over 1
/// when that is less.
pub type Request = (DVec3, f64);

/// The request of the edge `lo -> hi` (rest length `rest`) whose ends move
/// to `pa`, `pb` at the step's end, with inverse masses `wa`, `wb`, for
/// lengths bounded to `[lower, upper]` times the rest length
/// (`1 - compression`, `1 + extension`).
#[allow(clippy::too_many_arguments)]
pub fn request((lower, upper): (f64, f64), rest: f64, pa: DVec3, pb: DVec3, wa: f64, wb: f64, h: f64) -> Request {
    let d = pb - pa;
    // The test and the gap go through s = |d|^2 - rest^2, which the GPU
    // twin forms without cancellation (its f32 lengths would otherwise
    // lose a tight limit's gap in rounding).
    let s = d.length_squared() - rest * rest;
    let bound = if s > (upper * upper - 1.0) * rest * rest {
        upper
    } else if s < (lower * lower - 1.0) * rest * rest {
        lower
    } else {
        return (DVec3::ZERO, 0.0);
    };
    let l = d.length();
    // l - target = (|d|^2 - target^2) / (l + target); lo moves by
    // wa/(wa+wb) of it along d/l and hi by the opposite share, over the step h.
    let target = bound * rest;
    let gap = (s - (bound * bound - 1.0) * rest * rest) / (l + target);
    let past = gap.abs() - TOLERANCE * rest;
    if past <= 0.0 || l == 0.0 || wa + wb == 0.0 {
        return (DVec3::ZERO, 0.0);
    }
    let change = past.copysign(gap);
    (d * (change / (l * h * (wa + wb))), (past / (RAMP * rest)).min(1.0))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// One edge's request lands it on the limit it passed (at the dead
    /// band's edge), shared by inverse mass, along the edge.
    #[test]
    fn a_request_lands_its_edge_on_the_limit() {
        // extension 0.1, compression 0.05.
        let l = (0.95, 1.1);
        let (h, rest) = (0.01, 0.1);
        let band = TOLERANCE * rest;
        let pa = DVec3::new(0.0, 0.0, 0.0);
        for (pb, (wa, wb), wanted) in [
            (DVec3::new(0.13, 0.0, 0.0), (0.0, 2.0), 0.11 + band),
            (DVec3::new(0.0, 0.12, 0.09), (1.0, 3.0), 0.11 + band),
            (DVec3::new(0.05, 0.05, 0.0), (2.0, 2.0), 0.095 - band),
        ] {
            let (j, weight) = request(l, rest, pa, pb, wa, wb, h);
            assert_eq!(weight, 1.0);
            // The ends move by +wa j h and -wb j h.
            let (qa, qb) = (pa + j * (wa * h), pb - j * (wb * h));
            assert!(((qb - qa).length() - wanted).abs() < 1e-15, "{}", (qb - qa).length());
            assert!((qa - pa).cross(pb - pa).length() < 1e-15);
            // Shares by inverse mass: |moves| in the ratio wa : wb.
            assert!(((qa - pa).length() * wb - (qb - pb).length() * wa).abs() < 1e-15);
        }
        // Inside the limits, or with both ends pinned: no request.
        assert_eq!(request(l, rest, pa, DVec3::new(0.104, 0.0, 0.0), 1.0, 1.0, h).1, 0.0);
        assert_eq!(request(l, rest, pa, DVec3::new(0.2, 0.0, 0.0), 0.0, 0.0, h).1, 0.0);
    }

    /// Across the dead band's edge the request and the weight grow from
    /// zero: rounding that tips an edge across asks for nearly nothing and
    /// weighs nearly nothing. The weight is 1 a RAMP past the band.
    #[test]
    fn requests_and_weights_grow_from_zero_past_the_dead_band() {
        let l = (1.0, 1.1);
        let (h, rest) = (0.002, 0.005);
        let at = |length: f64| request(l, rest, DVec3::ZERO, DVec3::new(length, 0.0, 0.0), 1.0, 1.0, h);
        let band = TOLERANCE * rest;
        for (edge, sign) in [(1.1 * rest + band, 1.0), (rest - band, -1.0)] {
            let (inside, outside) = (at(edge - sign * 1e-12), at(edge + sign * 1e-12));
            assert_eq!(inside, (DVec3::ZERO, 0.0));
            assert!(outside.0.length() * h < 1e-11 && outside.1 < 1e-4, "{outside:?}");
            assert!(outside.1 > 0.0);
        }
        let full = 1.1 * rest + band + RAMP * rest;
        assert!((at(full - 1e-12).1 - 1.0).abs() < 1e-4 && at(full + 1e-12).1 == 1.0);
    }
}
