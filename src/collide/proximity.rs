//! Self-collision proximity detection (Bridson, Fedkiw & Anderson 2002 §6,
//! the repulsions the core paper's reference uses): every vertex-triangle
//! and edge-edge pair of the cloth closer than the thickness `t`, found
//! with a box-grid broad phase (`boxgrid.rs`) and exact closest points, on
//! the host for both backends.
//!
//! A pair is four vertices with weights `c` (summing to zero) and a unit
//! normal `n`, frozen for the step: its separation is `d(x) = n . sum c_j
//! x_j`, the distance between the closest points at detection. Vertex p
//! against triangle abc with closest point `sum w_k x_k` has `c = (1, -w_a,
//! -w_b, -w_c)`; edge ab against edge cd with closest points at parameters
//! `s, u` has `c = (1-s, s, -(1-u), -u)`. Pairs that share a vertex are
//! skipped, and so are pairs closer than `REST_GAP t` in the rest state
//! (neighbours on a mesh finer than the thickness), which repulsion would
//! fight the membrane over.
//!
//! The list is sorted (vertex-triangle pairs by vertex then triangle, then
//! edge-edge pairs by their vertices), so it is the same on every run and
//! thread count; `offsets`/`entries` is its per-vertex incidence (CSR of
//! `(pair, slot)`), which both backends gather through without atomics.

use super::boxgrid::{BoxGrid, bounds};
use glam::DVec3;
use rayon::prelude::*;

/// Pairs whose closest points were closer than this many thicknesses in
/// the rest state are not pairs. With 1 (the rest gap `t` itself), a mesh
/// whose edges are far shorter than `t` paired in-plane neighbours as soon
/// as the cloth was compressed at all: pairs with rest gaps just over `t`
/// came within it. On the 1M-vertex twist (edges of 0.17 mm, `t` 2 mm)
/// the host found none at rest and 783,360 after one step, springs
/// resisting the membrane's compression that no layer caused. With 1.5,
/// a sheet must shrink by a third in its plane to pair with itself, while
/// the facing layers of a fold as tight as the thickness allows (radius
/// `t/2`, rest gap `pi t/2`) still pair.
pub const REST_GAP: f64 = 1.5;

/// One proximity pair (see the module comment).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Pair {
    pub v: [u32; 4],
    pub c: [f64; 4],
    pub n: DVec3,
    /// Separation at detection, in `[0, t)`.
    pub d: f64,
}

impl Pair {
    /// `n . sum c_j y_j` for per-vertex vectors `y` (separation for
    /// positions, separation rate for velocities).
    pub fn along(&self, y: &[DVec3]) -> f64 {
        (0..4).map(|j| self.c[j] * self.n.dot(y[self.v[j] as usize])).sum()
    }

    /// `sum c_j y_j`.
    pub fn relative(&self, y: &[DVec3]) -> DVec3 {
        (0..4).map(|j| y[self.v[j] as usize] * self.c[j]).sum()
    }
}

/// The pairs of one step and their per-vertex incidence.
#[derive(Clone, Debug, Default)]
pub struct Proximity {
    pub pairs: Vec<Pair>,
    /// Vertex v's incidences are `entries[offsets[v]..offsets[v + 1]]`.
    pub offsets: Vec<u32>,
    /// `(pair, slot)`: vertex is `pairs[pair].v[slot]`.
    pub entries: Vec<(u32, u32)>,
}

impl Proximity {
    pub fn row(&self, v: usize) -> &[(u32, u32)] {
        &self.entries[self.offsets[v] as usize..self.offsets[v + 1] as usize]
    }

    /// The pairs over `n` vertices with their incidence.
    pub fn new(pairs: Vec<Pair>, n: usize) -> Proximity {
        // Incidence: counts, offsets, then entries in pair order.
        let mut offsets = vec![0u32; n + 1];
        for p in &pairs {
            for &v in &p.v {
                offsets[v as usize + 1] += 1;
            }
        }
        for v in 0..n {
            offsets[v + 1] += offsets[v];
        }
        let mut fill = offsets.clone();
        let mut entries = vec![(0u32, 0u32); offsets[n] as usize];
        for (k, p) in pairs.iter().enumerate() {
            for (slot, &v) in p.v.iter().enumerate() {
                entries[fill[v as usize] as usize] = (k as u32, slot as u32);
                fill[v as usize] += 1;
            }
        }
        Proximity {
            pairs,
            offsets,
            entries,
        }
    }
}

/// Closest point of triangle abc to p, as barycentric weights (Ericson,
/// Real-Time Collision Detection §5.1.5).
pub fn closest_on_triangle(p: DVec3, a: DVec3, b: DVec3, c: DVec3) -> [f64; 3] {
    let (ab, ac, ap) = (b - a, c - a, p - a);
    let (d1, d2) = (ab.dot(ap), ac.dot(ap));
    if d1 <= 0.0 && d2 <= 0.0 {
        return [1.0, 0.0, 0.0];
    }
    let bp = p - b;
    let (d3, d4) = (ab.dot(bp), ac.dot(bp));
    if d3 >= 0.0 && d4 <= d3 {
        return [0.0, 1.0, 0.0];
    }
    let vc = d1 * d4 - d3 * d2;
    if vc <= 0.0 && d1 >= 0.0 && d3 <= 0.0 {
        let v = d1 / (d1 - d3);
        return [1.0 - v, v, 0.0];
    }
    let cp = p - c;
    let (d5, d6) = (ab.dot(cp), ac.dot(cp));
    if d6 >= 0.0 && d5 <= d6 {
        return [0.0, 0.0, 1.0];
    }
    let vb = d5 * d2 - d1 * d6;
    if vb <= 0.0 && d2 >= 0.0 && d6 <= 0.0 {
        let w = d2 / (d2 - d6);
        return [1.0 - w, 0.0, w];
    }
    let va = d3 * d6 - d5 * d4;
    if va <= 0.0 && (d4 - d3) >= 0.0 && (d5 - d6) >= 0.0 {
        let w = (d4 - d3) / ((d4 - d3) + (d5 - d6));
        return [0.0, 1.0 - w, w];
    }
    let denom = 1.0 / (va + vb + vc);
    let (v, w) = (vb * denom, vc * denom);
    [1.0 - v - w, v, w]
}

/// Closest points of segments ab and cd as parameters `(s, u)` in [0, 1]
/// (Ericson §5.1.9); `None` when either segment is degenerate.
pub fn closest_on_segments(a: DVec3, b: DVec3, c: DVec3, d: DVec3) -> Option<(f64, f64)> {
    let (d1, d2, r) = (b - a, d - c, a - c);
    let (aa, ee, f) = (d1.dot(d1), d2.dot(d2), d2.dot(r));
    if aa <= 1e-300 || ee <= 1e-300 {
        return None;
    }
    let (cc, bb) = (d1.dot(r), d1.dot(d2));
    let denom = aa * ee - bb * bb;
    let mut s = if denom > 1e-12 * aa * ee {
        ((bb * f - cc * ee) / denom).clamp(0.0, 1.0)
    } else {
        0.0
    };
    let mut u = (bb * s + f) / ee;
    if u < 0.0 {
        u = 0.0;
        s = (-cc / aa).clamp(0.0, 1.0);
    } else if u > 1.0 {
        u = 1.0;
        s = ((bb - cc) / aa).clamp(0.0, 1.0);
    }
    Some((s, u))
}

/// A pair from its vertices and weights at positions `x`, when its
/// closest points are within `t` (and `REST_GAP t` apart in the rest
/// positions `rest`).
fn pair(v: [u32; 4], c: [f64; 4], x: &[DVec3], rest: &[DVec3], t: f64, fallback: DVec3) -> Option<Pair> {
    let diff: DVec3 = (0..4).map(|j| x[v[j] as usize] * c[j]).sum();
    let dist = diff.length();
    if dist >= t {
        return None;
    }
    let rest_diff: DVec3 = (0..4).map(|j| rest[v[j] as usize] * c[j]).sum();
    if rest_diff.length() < REST_GAP * t {
        return None;
    }
    // Coincident closest points: the fallback direction (the triangle's
    // normal, or the edges' common normal), oriented as in the rest state.
    let n = if dist > 1e-9 * t {
        diff / dist
    } else {
        let f = fallback.normalize_or_zero();
        if f == DVec3::ZERO {
            return None;
        }
        if f.dot(rest_diff) < 0.0 { -f } else { f }
    };
    Some(Pair {
        v,
        c,
        n,
        d: n.dot(diff),
    })
}

/// Whether every corner of one primitive is within `REST_GAP t` of every
/// corner of the other in the rest state: then the rest separation of any
/// of their point pairs (a convex combination of the corner differences)
/// is below it too and `pair` would skip them, so they need no closest
/// points. On a mesh finer than the thickness these are most of the
/// candidates.
fn rest_neighbours(a: &[u32], b: &[u32], rest: &[DVec3], t: f64) -> bool {
    let gap = REST_GAP * t;
    a.iter().all(|&i| {
        b.iter()
            .all(|&j| rest[i as usize].distance_squared(rest[j as usize]) < gap * gap)
    })
}

/// Every vertex-triangle and edge-edge pair of the cloth closer than `t`
/// at positions `x` (rest positions `rest`), with their incidence.
pub fn find(faces: &[[u32; 3]], edges: &[[u32; 2]], x: &[DVec3], rest: &[DVec3], t: f64) -> Proximity {
    let n = x.len();
    let mut pairs = Vec::new();
    if !faces.is_empty() && t > 0.0 {
        // Boxes padded by t/2 overlap exactly when the unpadded ones are
        // within t of each other on every axis.
        let pad = 0.5 * t;
        // Vertex-triangle: each vertex against the triangles near it.
        let triangles = BoxGrid::new(faces.iter().map(|f| bounds(f, x, pad)).collect());
        let vertex_triangle: Vec<Pair> = (0..n as u32)
            .into_par_iter()
            .flat_map_iter(|p| {
                let xp = x[p as usize];
                let mut out = Vec::new();
                triangles.overlapping(&bounds(&[p], x, pad), |f| {
                    let face = faces[f as usize];
                    if face.contains(&p) || rest_neighbours(&[p], &face, rest, t) {
                        return;
                    }
                    let [a, b, c] = face.map(|v| x[v as usize]);
                    let w = closest_on_triangle(xp, a, b, c);
                    let cw = [1.0, -w[0], -w[1], -w[2]];
                    out.extend(pair(
                        [p, face[0], face[1], face[2]],
                        cw,
                        x,
                        rest,
                        t,
                        (b - a).cross(c - a),
                    ));
                });
                out
            })
            .collect();
        pairs.extend(vertex_triangle);
        // Edge-edge pairs whose closest points are inside both edges (the
        // rest are a vertex's, which the vertex-triangle pairs cover), each
        // found once (from whichever edge the grid orders first) and
        // written from its lower-numbered edge.
        let segments = BoxGrid::new(edges.iter().map(|e| bounds(e, x, pad)).collect());
        let edge_edge: Vec<Pair> = (0..edges.len() as u32)
            .into_par_iter()
            .flat_map_iter(|query| {
                let mut out = Vec::new();
                segments.overlapping_after(query, |other| {
                    let (e, g) = (query.min(other), query.max(other));
                    let ([i, j], [k, l]) = (edges[e as usize], edges[g as usize]);
                    if [i, j].contains(&k) || [i, j].contains(&l) || rest_neighbours(&[i, j], &[k, l], rest, t) {
                        return;
                    }
                    let (a, b) = (x[i as usize], x[j as usize]);
                    let (c, d) = (x[k as usize], x[l as usize]);
                    // Any point of one edge is at least |m1 - m2| - (l1 +
                    // l2) / 2 from any point of the other (m their
                    // midpoints, l their lengths): when that is `t` or
                    // more, `pair` would drop them, and their closest
                    // points are not needed. Boxes that overlap only near
                    // a corner stop here.
                    let reach = t + 0.5 * ((b - a).length() + (d - c).length());
                    if (a + b - c - d).length_squared() >= 4.0 * reach * reach {
                        return;
                    }
                    let Some((s, u)) = closest_on_segments(a, b, c, d) else {
                        return;
                    };
                    if s <= 0.0 || s >= 1.0 || u <= 0.0 || u >= 1.0 {
                        return;
                    }
                    out.extend(pair(
                        [i, j, k, l],
                        [1.0 - s, s, -(1.0 - u), -u],
                        x,
                        rest,
                        t,
                        (b - a).cross(d - c),
                    ));
                });
                out
            })
            .collect();
        pairs.extend(edge_edge);
        // One order whatever the threads: vertex-triangle pairs (weight 1 on
        // the vertex) by vertex then triangle, then edge-edge pairs.
        pairs.sort_by_key(|p| (p.c[0] != 1.0, p.v));
    }
    Proximity::new(pairs, n)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mesh::{Pattern, grid};

    #[test]
    fn closest_points_match_a_brute_force_search() {
        let (a, b, c) = (DVec3::ZERO, DVec3::X, DVec3::new(0.2, 1.0, 0.1));
        let mut seed = 1u64;
        let mut rnd = || {
            seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            (seed >> 11) as f64 / (1u64 << 53) as f64 * 3.0 - 1.0
        };
        for _ in 0..200 {
            let p = DVec3::new(rnd(), rnd(), rnd());
            let w = closest_on_triangle(p, a, b, c);
            let q = a * w[0] + b * w[1] + c * w[2];
            let mut best = f64::MAX;
            for i in 0..=100 {
                for j in 0..=(100 - i) {
                    let (s, u) = (i as f64 / 100.0, j as f64 / 100.0);
                    best = best.min((a + (b - a) * s + (c - a) * u - p).length());
                }
            }
            assert!(w.iter().all(|w| *w >= -1e-12) && (w.iter().sum::<f64>() - 1.0).abs() < 1e-12);
            assert!((q - p).length() <= best + 1e-12, "{p}: {} vs {best}", (q - p).length());
            assert!((q - p).length() >= best - 0.02, "{p}: {} vs {best}", (q - p).length());
            let (d, e) = (DVec3::new(rnd(), rnd(), rnd()), DVec3::new(rnd(), rnd(), rnd()));
            let (s, u) = closest_on_segments(p, d, a, e).unwrap();
            let dist = (p + (d - p) * s - (a + (e - a) * u)).length();
            let mut best = f64::MAX;
            for i in 0..=200 {
                for j in 0..=200 {
                    let (s, u) = (i as f64 / 200.0, j as f64 / 200.0);
                    best = best.min((p + (d - p) * s - (a + (e - a) * u)).length());
                }
            }
            assert!(dist <= best + 1e-12 && dist >= best - 0.02, "{dist} vs {best}");
        }
    }

    /// Two parallel sheets 1 mm apart (one mesh): every vertex of each has
    /// a vertex-triangle pair with the other, at the right distance and
    /// normal; a flat single sheet has none.
    #[test]
    fn stacked_sheets_are_found_and_a_flat_sheet_is_not() {
        let sheet = grid(0.1, 0.1, 4, 4, Pattern::Alternating, DVec3::ZERO, (DVec3::X, DVec3::Z));
        let nv = sheet.positions.len() as u32;
        let mut faces = sheet.faces.clone();
        faces.extend(sheet.faces.iter().map(|f| f.map(|v| v + nv)));
        let mut both = sheet.clone();
        let mut x = sheet.positions.clone();
        x.extend(sheet.positions.iter().map(|p| *p + DVec3::Y * 0.001));
        // Apart at rest (the rest state of the pair test is a 5 cm gap).
        let mut rest = sheet.positions.clone();
        rest.extend(sheet.positions.iter().map(|p| *p + DVec3::Y * 0.05));
        both.positions = x.clone();
        both.faces = faces.clone();
        both.uv = None;
        let edges = crate::mesh::Topology::build(&both).unwrap().edges;
        let prox = find(&faces, &edges, &x, &rest, 0.002);
        let vt: Vec<&Pair> = prox.pairs.iter().filter(|p| p.c[0] == 1.0).collect();
        for v in 0..x.len() as u32 {
            assert!(vt.iter().any(|p| p.v[0] == v), "vertex {v} has no pair");
        }
        for p in &prox.pairs {
            assert!((p.d - 0.001).abs() < 1e-12, "{p:?}");
            assert!((p.along(&x) - p.d).abs() < 1e-12);
            let lower = p.v[0] < nv;
            assert!(
                (p.n - if lower { -DVec3::Y } else { DVec3::Y }).length() < 1e-9,
                "{p:?}"
            );
            assert!((p.c.iter().sum::<f64>()).abs() < 1e-12);
        }
        // The incidence lists every slot once.
        let mut seen = 0;
        for v in 0..x.len() {
            for &(k, slot) in prox.row(v) {
                assert_eq!(prox.pairs[k as usize].v[slot as usize] as usize, v);
                seen += 1;
            }
        }
        assert_eq!(seen, 4 * prox.pairs.len());
        let single = find(&sheet.faces, &edges[..0], &sheet.positions, &sheet.positions, 0.002);
        assert!(single.pairs.is_empty());
    }

    /// A flat sheet whose edges (0.5 mm) are a quarter of the thickness,
    /// compressed in its plane: no layer lies on another, so nothing pairs
    /// until it has shrunk by a third (`REST_GAP`), where before a shrink
    /// of 1% paired more than a thousand in-plane neighbours.
    #[test]
    fn a_sheet_finer_than_the_thickness_does_not_pair_with_itself_when_compressed() {
        let sheet = grid(
            0.02,
            0.02,
            40,
            40,
            Pattern::Alternating,
            DVec3::ZERO,
            (DVec3::X, DVec3::Z),
        );
        let edges = crate::mesh::Topology::build(&sheet).unwrap().edges;
        let t = 0.002;
        let shrunk = |s: f64| -> Vec<DVec3> { sheet.positions.iter().map(|p| *p * DVec3::new(s, 1.0, s)).collect() };
        let pairs = |s: f64| find(&sheet.faces, &edges, &shrunk(s), &sheet.positions, t).pairs.len();
        for s in [0.99, 0.9, 0.7] {
            assert_eq!(pairs(s), 0, "shrunk to {s}");
        }
        // The rule before, a rest gap of t: the rest shape scaled by
        // REST_GAP makes the search skip exactly the rest gaps under t.
        let gap = |p: &Pair| {
            (0..4)
                .map(|j| sheet.positions[p.v[j] as usize] * p.c[j])
                .sum::<DVec3>()
                .length()
        };
        let near = find(&sheet.faces, &edges, &shrunk(0.99), &shrunk(REST_GAP), t);
        assert!(near.pairs.len() > 1000, "{}", near.pairs.len());
        assert!(near.pairs.iter().all(|p| gap(p) >= t && gap(p) < t / 0.99));
        assert!(pairs(0.6) > 0, "a sheet shrunk past 1 / REST_GAP pairs with itself");
    }

    /// A crumpled sheet (vertices jittered by about the thickness, the rest
    /// state a coarser copy so that few pairs are rest neighbours): the grid
    /// finds exactly the pairs a search over every primitive pair finds.
    #[test]
    fn the_grid_finds_what_a_brute_force_search_finds() {
        let sheet = grid(
            0.02,
            0.02,
            10,
            10,
            Pattern::Alternating,
            DVec3::ZERO,
            (DVec3::X, DVec3::Z),
        );
        let edges = crate::mesh::Topology::build(&sheet).unwrap().edges;
        let mut seed = 3u64;
        let mut rnd = || {
            seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            (seed >> 11) as f64 / (1u64 << 53) as f64 - 0.5
        };
        let x: Vec<DVec3> = sheet
            .positions
            .iter()
            .map(|p| *p * DVec3::new(0.4, 1.0, 0.4) + DVec3::new(rnd(), rnd(), rnd()) * 0.004)
            .collect();
        let rest: Vec<DVec3> = sheet.positions.iter().map(|p| *p * 3.0).collect();
        let t = 0.002;
        let found = find(&sheet.faces, &edges, &x, &rest, t);
        let mut expected = Vec::new();
        for p in 0..x.len() as u32 {
            for face in &sheet.faces {
                if face.contains(&p) {
                    continue;
                }
                let [a, b, c] = face.map(|v| x[v as usize]);
                let w = closest_on_triangle(x[p as usize], a, b, c);
                let v = [p, face[0], face[1], face[2]];
                expected.extend(pair(v, [1.0, -w[0], -w[1], -w[2]], &x, &rest, t, (b - a).cross(c - a)));
            }
        }
        for (e, &[i, j]) in edges.iter().enumerate() {
            for &[k, l] in &edges[e + 1..] {
                if [i, j].contains(&k) || [i, j].contains(&l) {
                    continue;
                }
                let [a, b, c, d] = [i, j, k, l].map(|v| x[v as usize]);
                let Some((s, u)) = closest_on_segments(a, b, c, d) else {
                    continue;
                };
                if s > 0.0 && s < 1.0 && u > 0.0 && u < 1.0 {
                    let cw = [1.0 - s, s, -(1.0 - u), -u];
                    expected.extend(pair([i, j, k, l], cw, &x, &rest, t, (b - a).cross(d - c)));
                }
            }
        }
        expected.sort_by_key(|p| (p.c[0] != 1.0, p.v));
        assert!(expected.len() > 50, "the test should have pairs: {}", expected.len());
        assert_eq!(found.pairs, expected);
    }

    /// A vertex thrown kilometres away (a state blowing up) makes huge
    /// triangles; they are listed in a bounded number of cells.
    #[test]
    fn a_runaway_vertex_does_not_blow_up_the_grid() {
        let sheet = grid(0.1, 0.1, 4, 4, Pattern::Alternating, DVec3::ZERO, (DVec3::X, DVec3::Z));
        let edges = crate::mesh::Topology::build(&sheet).unwrap().edges;
        let mut x = sheet.positions.clone();
        x[12] = DVec3::new(3000.0, -2000.0, 5000.0);
        let prox = find(&sheet.faces, &edges, &x, &sheet.positions, 0.002);
        assert!(prox.pairs.len() < 100);
    }
}
