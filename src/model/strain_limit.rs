//! One edge's strain-limiting request (Bridson, Marino & Fedkiw 2003 §3:
//! "modify v^{n+1/2} in place to limit strain"): the relative velocity
//! change that lands an edge past its limit exactly on the limit at the
//! step's end, shared between its ends by inverse mass. The sweeps over a
//! mesh are cpu/strain_limit.rs and shaders/strain_limit.wgsl
//! (`edge_request`).

use glam::DVec3;

/// An edge acts when it is past a limit by more than this fraction of its
/// rest length. Sweeps leave edges on their limits, where whether one is
/// past it is rounding; were those to act, with nearly nothing to ask, they
/// would still dilute their vertices' means, differently in f32 and f64.
/// 1e-5 is ~200 times the GPU's rounding of the gap.
pub const TOLERANCE: f64 = 1e-5;

/// One edge's request: the velocity change of its `lo` end per unit of the
/// end's inverse mass (`hi` takes the opposite), and whether it acts.
pub type Request = (DVec3, bool);

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
        return (DVec3::ZERO, false);
    };
    let l = d.length();
    // l - target = (|d|^2 - target^2) / (l + target); lo moves by
    // wa/(wa+wb) of it along d/l and hi by the opposite share, over the step h.
    let target = bound * rest;
    let gap = (s - (bound * bound - 1.0) * rest * rest) / (l + target);
    if gap.abs() <= TOLERANCE * rest || l == 0.0 || wa + wb == 0.0 {
        return (DVec3::ZERO, false);
    }
    (d * (gap / (l * h * (wa + wb))), true)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// One edge's request lands it exactly on the limit it passed,
    /// shared by inverse mass, along the edge.
    #[test]
    fn a_request_lands_its_edge_on_the_limit() {
        // extension 0.1, compression 0.05.
        let l = (0.95, 1.1);
        let (h, rest) = (0.01, 0.1);
        let pa = DVec3::new(0.0, 0.0, 0.0);
        for (pb, (wa, wb), wanted) in [
            (DVec3::new(0.13, 0.0, 0.0), (0.0, 2.0), 0.11),
            (DVec3::new(0.0, 0.12, 0.09), (1.0, 3.0), 0.11),
            (DVec3::new(0.05, 0.05, 0.0), (2.0, 2.0), 0.095),
        ] {
            let (j, acting) = request(l, rest, pa, pb, wa, wb, h);
            assert!(acting);
            // The ends move by +wa j h and -wb j h.
            let (qa, qb) = (pa + j * (wa * h), pb - j * (wb * h));
            assert!(((qb - qa).length() - wanted).abs() < 1e-15, "{}", (qb - qa).length());
            assert!((qa - pa).cross(pb - pa).length() < 1e-15);
            // Shares by inverse mass: |moves| in the ratio wa : wb.
            assert!(((qa - pa).length() * wb - (qb - pb).length() * wa).abs() < 1e-15);
        }
        // Inside the limits, or with both ends pinned: no request.
        assert!(!request(l, rest, pa, DVec3::new(0.104, 0.0, 0.0), 1.0, 1.0, h).1);
        assert!(!request(l, rest, pa, DVec3::new(0.2, 0.0, 0.0), 0.0, 0.0, h).1);
    }
}
