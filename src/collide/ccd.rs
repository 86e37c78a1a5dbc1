//! Continuous collision detection between two of the cloth's primitives
//! over one step (Provot 1997; Bridson, Fedkiw & Anderson 2002 §6.4). Every
//! vertex moves linearly from its start position to its end one, so the
//! four points of a vertex-triangle or edge-edge pair are coplanar exactly
//! where the cubic `det[q1 - q0, q2 - q0, q3 - q0](t)` vanishes. At each
//! such time in [0, 1], earliest first, the pair collides when the two
//! primitives are then closer than `eta`.

use super::proximity::{closest_on_segments, closest_on_triangle};
use glam::DVec3;

/// Bisections per root: the time to 2^-60 of the step.
const BISECTIONS: usize = 60;

/// A pair's four points at the step's start and end: `[p, a, b, c]` for a
/// vertex and a triangle, `[a, b, c, d]` for edges ab and cd.
pub type Motion = ([DVec3; 4], [DVec3; 4]);

/// The coplanarity cubic's coefficients, constant term first: with
/// `e_k = q_k - q_0` at the start and `d_k` its change over the step,
/// `det[e1 + t d1, e2 + t d2, e3 + t d3]` expanded in `t`.
fn coplanarity((x0, x1): &Motion) -> [f64; 4] {
    let e = [1, 2, 3].map(|k| x0[k] - x0[0]);
    let d = [1, 2, 3].map(|k| x1[k] - x1[0] - (x0[k] - x0[0]));
    let det = |a: DVec3, b: DVec3, c: DVec3| a.cross(b).dot(c);
    [
        det(e[0], e[1], e[2]),
        det(d[0], e[1], e[2]) + det(e[0], d[1], e[2]) + det(e[0], e[1], d[2]),
        det(d[0], d[1], e[2]) + det(d[0], e[1], d[2]) + det(e[0], d[1], d[2]),
        det(d[0], d[1], d[2]),
    ]
}

/// The roots of `a t^2 + b t + c` inside (0, 1).
fn quadratic_roots(a: f64, b: f64, c: f64) -> Vec<f64> {
    let inside = |t: &f64| *t > 0.0 && *t < 1.0;
    if a.abs() <= 1e-14 * (b.abs() + c.abs()) {
        return if b != 0.0 { vec![-c / b] } else { vec![] }
            .into_iter()
            .filter(inside)
            .collect();
    }
    let disc = b * b - 4.0 * a * c;
    if disc < 0.0 {
        return vec![];
    }
    // The form that does not cancel (Numerical Recipes §5.6).
    let q = -0.5 * (b + b.signum() * disc.sqrt());
    let mut r = vec![q / a];
    if q != 0.0 {
        r.push(c / q);
    }
    r.retain(inside);
    r.sort_by(f64::total_cmp);
    r
}

/// The times in [0, 1] where the cubic `c` vanishes or touches zero,
/// ascending. Between its derivative's roots the cubic is monotone, so
/// each piece holds at most one sign change, found by bisection; a piece's
/// end where the cubic is within round-off of zero is a root too (the
/// points graze the plane). A cubic that is zero throughout (the points
/// stay coplanar) has its ends as candidates.
fn roots(c: [f64; 4]) -> Vec<f64> {
    let f = |t: f64| ((c[3] * t + c[2]) * t + c[1]) * t + c[0];
    let scale = c.iter().fold(0.0f64, |m, v| m.max(v.abs()));
    if scale == 0.0 {
        return vec![0.0, 1.0];
    }
    let zero = 1e-12 * scale;
    let mut cuts = vec![0.0];
    cuts.extend(quadratic_roots(3.0 * c[3], 2.0 * c[2], c[1]));
    cuts.push(1.0);
    let mut out = Vec::new();
    for w in cuts.windows(2) {
        let (mut lo, mut hi) = (w[0], w[1]);
        let (f_lo, f_hi) = (f(lo), f(hi));
        if f_lo.abs() <= zero {
            out.push(lo);
        }
        if f_lo.abs() > zero && f_hi.abs() > zero && f_lo.signum() != f_hi.signum() {
            for _ in 0..BISECTIONS {
                let mid = 0.5 * (lo + hi);
                if f(mid).signum() == f_lo.signum() {
                    lo = mid;
                } else {
                    hi = mid;
                }
            }
            out.push(0.5 * (lo + hi));
        }
    }
    if f(1.0).abs() <= zero {
        out.push(1.0);
    }
    out.sort_by(f64::total_cmp);
    out.dedup();
    out
}

fn at((x0, x1): &Motion, t: f64) -> [DVec3; 4] {
    [0, 1, 2, 3].map(|k| x0[k].lerp(x1[k], t))
}

/// The earliest time in [0, 1] at which vertex `p` comes within `eta` of
/// triangle `abc` while coplanar with it (`m` is `[p, a, b, c]`).
pub fn vertex_triangle(m: &Motion, eta: f64) -> Option<f64> {
    roots(coplanarity(m)).into_iter().find(|&t| {
        let [p, a, b, c] = at(m, t);
        let w = closest_on_triangle(p, a, b, c);
        p.distance(a * w[0] + b * w[1] + c * w[2]) < eta
    })
}

/// The earliest time in [0, 1] at which edges `ab` and `cd` come within
/// `eta` of each other while coplanar (`m` is `[a, b, c, d]`).
pub fn edge_edge(m: &Motion, eta: f64) -> Option<f64> {
    roots(coplanarity(m)).into_iter().find(|&t| {
        let [a, b, c, d] = at(m, t);
        closest_on_segments(a, b, c, d).is_some_and(|(s, u)| a.lerp(b, s).distance(c.lerp(d, u)) < eta)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const ETA: f64 = 1e-6;

    fn still(q: [DVec3; 4]) -> Motion {
        (q, q)
    }

    #[test]
    fn the_cubic_roots_are_found_in_order() {
        // (t - 0.2)(t - 0.5)(t - 0.9), and a double root at 0.3 (grazing).
        let c = [-0.09, 0.73, -1.6, 1.0];
        let r = roots(c);
        assert_eq!(r.len(), 3, "{r:?}");
        for (got, want) in r.iter().zip([0.2, 0.5, 0.9]) {
            assert!((got - want).abs() < 1e-12, "{r:?}");
        }
        let graze = roots([0.09, -0.6, 1.0, 0.0]);
        assert!(graze.iter().any(|t| (t - 0.3).abs() < 1e-9), "{graze:?}");
        assert!(roots([1.0, 1.0, 0.0, 0.0]).is_empty());
    }

    #[test]
    fn a_vertex_through_a_triangle_collides_and_one_beside_it_does_not() {
        let tri = [DVec3::ZERO, DVec3::X, DVec3::Y];
        let p0 = DVec3::new(0.2, 0.2, 0.01);
        let p1 = DVec3::new(0.25, 0.2, -0.03);
        let m = ([p0, tri[0], tri[1], tri[2]], [p1, tri[0], tri[1], tri[2]]);
        let t = vertex_triangle(&m, ETA).expect("passes through");
        assert!((t - 0.25).abs() < 1e-12, "{t}");
        let beside = (
            [p0 + DVec3::X, tri[0], tri[1], tri[2]],
            [p1 + DVec3::X, tri[0], tri[1], tri[2]],
        );
        assert_eq!(vertex_triangle(&beside, ETA), None);
        // The triangle moving onto a still vertex is the same collision.
        let lift = DVec3::new(0.0, 0.0, 0.04);
        let moving = (
            [p0, tri[0], tri[1], tri[2]],
            [p0, tri[0] + lift, tri[1] + lift, tri[2] + lift],
        );
        assert!(vertex_triangle(&moving, ETA).is_some());
        assert_eq!(vertex_triangle(&still(m.0), ETA), None);
    }

    #[test]
    fn crossing_edges_collide_and_passing_ones_do_not() {
        let (a, b) = (DVec3::new(-1.0, 0.0, 0.0), DVec3::new(1.0, 0.0, 0.0));
        let (c0, d0) = (DVec3::new(0.0, -1.0, 0.5), DVec3::new(0.0, 1.0, 0.5));
        let down = DVec3::new(0.0, 0.0, -1.0);
        let m = ([a, b, c0, d0], [a, b, c0 + down, d0 + down]);
        let t = edge_edge(&m, ETA).expect("crossing");
        assert!((t - 0.5).abs() < 1e-12, "{t}");
        // Shifted past b's end, the edges pass beside each other.
        let off = DVec3::new(1.5, 0.0, 0.0);
        let beside = ([a, b, c0 + off, d0 + off], [a, b, c0 + off + down, d0 + off + down]);
        assert_eq!(edge_edge(&beside, ETA), None);
    }
}
