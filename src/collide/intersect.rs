//! Exact count of a mesh's intersecting triangle pairs (self-intersections
//! of the cloth): a box-grid broad phase over triangle bounds, then an
//! segment-through-triangle test with orientation determinants. Pairs
//! sharing a vertex are skipped (neighbours always touch). Touching without
//! crossing and coplanar overlap are not counted: an end of a segment
//! within round-off of the triangle's plane (a relative 1e-12 of the
//! sizes) counts as on it, where the determinant's sign would be noise.

use super::boxgrid::{BoxGrid, bounds};
use glam::DVec3;
use rayon::prelude::*;

/// Sign of the volume of tetrahedron (a, b, c, d): which side of plane abc
/// point d lies on.
fn orient(a: DVec3, b: DVec3, c: DVec3, d: DVec3) -> f64 {
    (b - a).cross(c - a).dot(d - a)
}

/// Whether segment pq passes through the interior of triangle abc.
fn segment_crosses(p: DVec3, q: DVec3, [a, b, c]: [DVec3; 3]) -> bool {
    let (sp, sq) = (orient(a, b, c, p), orient(a, b, c, q));
    // |orient| is the distance from the plane times |(b - a) x (c - a)|.
    let size = (b - a).length() + (c - a).length() + (q - p).length();
    let on_plane = 1e-12 * size * (b - a).cross(c - a).length();
    if sp * sq >= 0.0 || sp.abs() <= on_plane || sq.abs() <= on_plane {
        return false;
    }
    // The line pq passes inside abc when it turns the same way around all
    // three edges.
    let (u, v, w) = (orient(p, q, a, b), orient(p, q, b, c), orient(p, q, c, a));
    (u > 0.0 && v > 0.0 && w > 0.0) || (u < 0.0 && v < 0.0 && w < 0.0)
}

/// Whether two triangles cross: an edge of one passes through the other.
pub fn triangles_cross(s: [DVec3; 3], t: [DVec3; 3]) -> bool {
    (0..3).any(|k| segment_crosses(s[k], s[(k + 1) % 3], t) || segment_crosses(t[k], t[(k + 1) % 3], s))
}

/// The number of pairs of `faces` (over positions `x`) that cross.
pub fn intersecting_pairs(faces: &[[u32; 3]], x: &[DVec3]) -> usize {
    let tri = |f: usize| faces[f].map(|v| x[v as usize]);
    let grid = BoxGrid::new(faces.iter().map(|f| bounds(f, x, 0.0)).collect());
    (0..faces.len())
        .into_par_iter()
        .map(|f| {
            let mut crossing = 0;
            grid.overlapping_after(f as u32, |g| {
                let g = g as usize;
                let shared = faces[f].iter().any(|v| faces[g].contains(v));
                if !shared && triangles_cross(tri(f), tri(g)) {
                    crossing += 1;
                }
            });
            crossing
        })
        .sum()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mesh::{Pattern, grid};

    #[test]
    fn crossing_touching_and_apart_triangles() {
        let t = [DVec3::ZERO, DVec3::X, DVec3::Y];
        let through = [
            DVec3::new(0.2, 0.2, -1.0),
            DVec3::new(0.2, 0.2, 1.0),
            DVec3::new(0.3, 0.3, 1.0),
        ];
        assert!(triangles_cross(t, through));
        let beside = through.map(|p| p + DVec3::new(2.0, 0.0, 0.0));
        assert!(!triangles_cross(t, beside));
        let above = through.map(|p| p + DVec3::new(0.0, 0.0, 1.5));
        assert!(!triangles_cross(t, above));
        // Only the small triangle's edges cross the large one.
        let wall = [
            DVec3::new(0.3, -1.0, -1.0),
            DVec3::new(0.3, 2.0, -1.0),
            DVec3::new(0.3, 0.5, 2.0),
        ];
        assert!(triangles_cross(t, wall) && triangles_cross(wall, t));
    }

    /// Two triangles of a tube's flat side, in one column and adjacent
    /// rows, apart but in one plane to round-off (the full-resolution
    /// t-shirt's side at rest): the determinants' signs are noise there.
    #[test]
    fn coplanar_triangles_apart_do_not_cross() {
        let (xl, xr, zl, zr) = (
            -0.1978526862737956,
            -0.19550416424901657,
            -0.0020284416137206127,
            0.008024041905016113,
        );
        let (y0, y1, y2) = (0.970065439781783, 0.9779272569090531, 0.9857890740363233);
        let upper = [DVec3::new(xl, y2, zl), DVec3::new(xr, y1, zr), DVec3::new(xr, y2, zr)];
        // As the mesh has it: one corner's z one unit in the last place off.
        let lower = [
            DVec3::new(xl, y1, zl),
            DVec3::new(xl, y0, -0.002028441613720613),
            DVec3::new(xr, y0, zr),
        ];
        assert!(!triangles_cross(upper, lower) && !triangles_cross(lower, upper));
    }

    #[test]
    fn a_flat_sheet_has_none_and_a_sheet_folded_through_itself_has_some() {
        let mesh = grid(
            0.1,
            0.1,
            10,
            10,
            Pattern::Alternating,
            DVec3::ZERO,
            (DVec3::X, DVec3::Y),
        );
        assert_eq!(intersecting_pairs(&mesh.faces, &mesh.positions), 0);
        // Fold the right half over and push it down through the left half:
        // mirrored about x = 0.05 and tilted so that it crosses the plane z = 0
        // at x = 0.035, between the lower half's vertices (through them, the
        // crossings would be touches, which are not counted).
        let folded: Vec<DVec3> = mesh
            .positions
            .iter()
            .map(|p| {
                if p.x > 0.05 {
                    DVec3::new(0.1 - p.x, p.y, 0.3 * (p.x - 0.05) - 0.0045)
                } else {
                    *p
                }
            })
            .collect();
        let n = intersecting_pairs(&mesh.faces, &folded);
        assert!(n > 10, "{n} crossing pairs");
        // The same fold kept above the lower half crosses nothing.
        let lifted: Vec<DVec3> = folded
            .iter()
            .zip(&mesh.positions)
            .map(|(f, p)| {
                if p.x > 0.05 {
                    *f + DVec3::new(0.0, 0.0, 0.007)
                } else {
                    *f
                }
            })
            .collect();
        assert_eq!(intersecting_pairs(&mesh.faces, &lifted), 0);
    }
}
