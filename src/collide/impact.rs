//! The self-collision fail-safe: rigid impact zones (Bridson, Fedkiw &
//! Anderson 2002 §7.4, as Harmon et al. 2008 make it robust).
//!
//! The repulsion springs and the post-solve impulses keep layers apart
//! when the motion over a step is small against the thickness. Where it is
//! not (cloth squeezed between two closing body surfaces, which the body's
//! position fix-up then pushes through itself), the step's end positions
//! may cross. Starting from crossing-free positions `x0`, the fail-safe
//! finds every vertex-triangle and edge-edge collision of the straight
//! motion to `x1` ([`super::ccd`]), gathers the colliding vertices into
//! zones (a collision between two zones merges them), and moves each zone
//! rigidly: its centre of mass by the zone's mean displacement, and a
//! rotation by the angular velocity its angular momentum and inertia give.
//! A rigid motion of a crossing-free set crosses nothing, and linear and
//! angular momentum are kept. The search runs again on the new motion
//! until it finds no collision between vertices not already in one zone;
//! only the zones' vertices have moved, so it searches only their
//! primitives ([`collisions_touching`]).
//!
//! A pinned vertex (a handle, an attachment) has its motion prescribed: a
//! zone holding one is translated by its pinned vertices' mean
//! displacement instead, the pinned vertices keeping their own.

use super::boxgrid::{Aabb, BoxGrid};
use super::ccd::{self, Motion};
use glam::{DMat3, DQuat, DVec3};
use rayon::prelude::*;

/// The distance at which two primitives collide, as a share of the
/// self-collision thickness: far below the gap the repulsion keeps, far
/// above f32's rounding of a metre.
pub const ETA: f64 = 0.01;

/// Rounds of search and merging before the fail-safe gives up and reports
/// the collisions left.
const MAX_ROUNDS: usize = 64;

/// What the fail-safe did in one step.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Impacts {
    /// Zones moved rigidly, and the vertices in them.
    pub zones: usize,
    pub vertices: usize,
    /// Collisions the last of the `MAX_ROUNDS` rounds found, before its
    /// zones moved, when every round merged zones (0: a round found no
    /// collision left between zones, and the motion crosses nothing as far
    /// as the search sees).
    pub unresolved: usize,
}

/// A disjoint-set forest over the vertices (union by index: the root of a
/// set is its lowest vertex, the same on every run).
struct Zones {
    parent: Vec<u32>,
    member: Vec<bool>,
}

impl Zones {
    fn root(&mut self, mut i: u32) -> u32 {
        while self.parent[i as usize] != i {
            let up = self.parent[self.parent[i as usize] as usize];
            self.parent[i as usize] = up;
            i = up;
        }
        i
    }

    /// `(zone's root, vertex)` of every vertex in a zone, sorted.
    fn members(&mut self) -> Vec<(u32, u32)> {
        let mut m: Vec<(u32, u32)> = (0..self.parent.len() as u32)
            .filter(|&i| self.member[i as usize])
            .collect::<Vec<_>>()
            .into_iter()
            .map(|i| (self.root(i), i))
            .collect();
        m.sort_unstable();
        m
    }

    /// Puts the four vertices in one zone; false if they already were.
    fn join(&mut self, v: [u32; 4]) -> bool {
        let before = v.iter().all(|&i| self.member[i as usize]);
        let roots = v.map(|i| self.root(i));
        if before && roots.iter().all(|&r| r == roots[0]) {
            return false;
        }
        let low = *roots.iter().min().unwrap_or(&roots[0]);
        for (&i, &r) in v.iter().zip(&roots) {
            self.member[i as usize] = true;
            self.parent[r as usize] = low;
        }
        true
    }
}

/// The box swept by vertices `v` from `x0` to `x1`, grown by `pad`.
fn swept(v: &[u32], x0: &[DVec3], x1: &[DVec3], pad: f64) -> Aabb {
    let (mut lo, mut hi) = (DVec3::splat(f64::INFINITY), DVec3::splat(f64::NEG_INFINITY));
    for &i in v {
        for p in [x0[i as usize], x1[i as usize]] {
            lo = lo.min(p);
            hi = hi.max(p);
        }
    }
    (lo - DVec3::splat(pad), hi + DVec3::splat(pad))
}

fn motion(v: [u32; 4], x0: &[DVec3], x1: &[DVec3]) -> Motion {
    (v.map(|i| x0[i as usize]), v.map(|i| x1[i as usize]))
}

/// Vertex `p` and triangle `face` as a pair, if they collide over the
/// motion from `x0` to `x1`.
fn vertex_triangle(p: u32, face: [u32; 3], x0: &[DVec3], x1: &[DVec3], eta: f64) -> Option<[u32; 4]> {
    let v = [p, face[0], face[1], face[2]];
    (!face.contains(&p) && ccd::vertex_triangle(&motion(v, x0, x1), eta).is_some()).then_some(v)
}

/// Two edges as a pair (the lower-numbered first), if they collide.
fn edge_edge(e: u32, g: u32, edges: &[[u32; 2]], x0: &[DVec3], x1: &[DVec3], eta: f64) -> Option<[u32; 4]> {
    let ([i, j], [k, l]) = (edges[e.min(g) as usize], edges[e.max(g) as usize]);
    let v = [i, j, k, l];
    (![i, j].contains(&k) && ![i, j].contains(&l) && ccd::edge_edge(&motion(v, x0, x1), eta).is_some()).then_some(v)
}

/// The grid of the primitives' (triangles', edges') swept boxes.
fn swept_grid<const N: usize>(primitives: &[[u32; N]], x0: &[DVec3], x1: &[DVec3], pad: f64) -> BoxGrid {
    BoxGrid::new(primitives.iter().map(|v| swept(v, x0, x1, pad)).collect())
}

/// Whether a primitive's vertices `v` include one for which `moved` holds.
fn touches(v: &[u32], moved: &[bool]) -> bool {
    v.iter().any(|&i| moved[i as usize])
}

/// The primitives that [`touches`] the moved vertices.
fn touching<const N: usize>(primitives: &[[u32; N]], moved: &[bool]) -> Vec<u32> {
    (0..primitives.len() as u32)
        .filter(|&i| touches(&primitives[i as usize], moved))
        .collect()
}

/// The collisions of vertex `p` with the triangles of `grid`.
fn vertex_collisions(
    p: u32,
    grid: &BoxGrid,
    faces: &[[u32; 3]],
    x0: &[DVec3],
    x1: &[DVec3],
    eta: f64,
) -> Vec<[u32; 4]> {
    let mut out = Vec::new();
    grid.overlapping(&swept(&[p], x0, x1, 0.5 * eta), |f| {
        out.extend(vertex_triangle(p, faces[f as usize], x0, x1, eta));
    });
    out
}

/// Every colliding vertex-triangle and edge-edge pair of the motion from
/// `x0` to `x1`, as its four vertices, in a fixed order.
pub fn collisions(faces: &[[u32; 3]], edges: &[[u32; 2]], x0: &[DVec3], x1: &[DVec3], eta: f64) -> Vec<[u32; 4]> {
    let pad = 0.5 * eta;
    let triangles = swept_grid(faces, x0, x1, pad);
    let mut hits: Vec<[u32; 4]> = (0..x0.len() as u32)
        .into_par_iter()
        .flat_map_iter(|p| {
            let mut out = vertex_collisions(p, &triangles, faces, x0, x1, eta);
            out.sort_unstable();
            out
        })
        .collect();
    let segments = swept_grid(edges, x0, x1, pad);
    let edge_edge: Vec<[u32; 4]> = (0..edges.len() as u32)
        .into_par_iter()
        .flat_map_iter(|e| {
            let mut out = Vec::new();
            segments.overlapping_after(e, |g| out.extend(edge_edge(e, g, edges, x0, x1, eta)));
            out.sort_unstable();
            out
        })
        .collect();
    hits.extend(edge_edge);
    hits
}

/// The collisions of [`collisions`] that have a vertex for which `moved`
/// holds, sorted: after a round whose search found none among the others,
/// whose motion has not changed since, these are all there are. Moved
/// vertices are searched against every triangle, the triangles with a
/// moved vertex against every vertex that did not move, and the edges
/// with a moved vertex against every edge.
pub fn collisions_touching(
    faces: &[[u32; 3]],
    edges: &[[u32; 2]],
    x0: &[DVec3],
    x1: &[DVec3],
    eta: f64,
    moved: &[bool],
) -> Vec<[u32; 4]> {
    let pad = 0.5 * eta;
    let vertices: Vec<u32> = (0..x0.len() as u32).filter(|&p| moved[p as usize]).collect();
    let triangles = swept_grid(faces, x0, x1, pad);
    let mut hits: Vec<[u32; 4]> = vertices
        .par_iter()
        .flat_map_iter(|&p| vertex_collisions(p, &triangles, faces, x0, x1, eta))
        .collect();
    let points = BoxGrid::new((0..x0.len() as u32).map(|p| swept(&[p], x0, x1, pad)).collect());
    hits.par_extend(touching(faces, moved).par_iter().flat_map_iter(|&f| {
        let mut out = Vec::new();
        points.overlapping(&triangles.boxes()[f as usize], |p| {
            if !moved[p as usize] {
                out.extend(vertex_triangle(p, faces[f as usize], x0, x1, eta));
            }
        });
        out
    }));
    let segments = swept_grid(edges, x0, x1, pad);
    hits.par_extend(touching(edges, moved).par_iter().flat_map_iter(|&e| {
        let mut out = Vec::new();
        segments.overlapping(&segments.boxes()[e as usize], |g| {
            // A pair of two touched edges comes from the lower one's query.
            if g != e && (g > e || !touches(&edges[g as usize], moved)) {
                out.extend(edge_edge(e, g, edges, x0, x1, eta));
            }
        });
        out
    }));
    hits.sort_unstable();
    hits
}

/// Moves the vertices of one zone rigidly (see the module's comment).
fn rigidify(zone: &[u32], x0: &[DVec3], x1: &mut [DVec3], mass: &[f64], pinned: &[bool]) {
    let pins: Vec<u32> = zone.iter().copied().filter(|&i| pinned[i as usize]).collect();
    if !pins.is_empty() {
        let shift = pins.iter().map(|&i| x1[i as usize] - x0[i as usize]).sum::<DVec3>() / pins.len() as f64;
        for &i in zone.iter().filter(|&&i| !pinned[i as usize]) {
            x1[i as usize] = x0[i as usize] + shift;
        }
        return;
    }
    let m: f64 = zone.iter().map(|&i| mass[i as usize]).sum();
    let centre = zone.iter().map(|&i| x0[i as usize] * mass[i as usize]).sum::<DVec3>() / m;
    let shift = zone
        .iter()
        .map(|&i| (x1[i as usize] - x0[i as usize]) * mass[i as usize])
        .sum::<DVec3>()
        / m;
    // Angular momentum and inertia about the centre, per unit time of the
    // step: the rotation over the step is `I^-1 L`.
    let (mut l, mut inertia) = (DVec3::ZERO, DMat3::ZERO);
    for &i in zone {
        let (r, u) = (x0[i as usize] - centre, x1[i as usize] - x0[i as usize] - shift);
        let mi = mass[i as usize];
        l += mi * r.cross(u);
        inertia += mi * (DMat3::from_diagonal(DVec3::splat(r.length_squared())) - outer(r, r));
    }
    // Collinear points have no inertia about their line: no rotation then.
    let trace = inertia.x_axis.x + inertia.y_axis.y + inertia.z_axis.z;
    let turn = match inertia.determinant() > 1e-12 * trace * trace * trace {
        true => DQuat::from_scaled_axis(inertia.inverse() * l),
        false => DQuat::IDENTITY,
    };
    for &i in zone {
        x1[i as usize] = centre + shift + turn * (x0[i as usize] - centre);
    }
}

fn outer(a: DVec3, b: DVec3) -> DMat3 {
    DMat3::from_cols(a * b.x, a * b.y, a * b.z)
}

/// Makes the motion from `x0` (crossing-free) to `x1` collision-free by
/// rigid impact zones; `eta` is the collision distance (m), `pinned` the
/// vertices whose motion is prescribed.
pub fn resolve(
    faces: &[[u32; 3]],
    edges: &[[u32; 2]],
    x0: &[DVec3],
    x1: &mut [DVec3],
    mass: &[f64],
    pinned: &[bool],
    eta: f64,
) -> Impacts {
    let n = x0.len();
    let mut zones = Zones {
        parent: (0..n as u32).collect(),
        member: vec![false; n],
    };
    let mut left = 0;
    for round in 0..MAX_ROUNDS {
        // After the first round only the zones' vertices have moved.
        let hits = match round {
            0 => collisions(faces, edges, x0, x1, eta),
            _ => collisions_touching(faces, edges, x0, x1, eta, &zones.member),
        };
        let mut merged = false;
        for h in &hits {
            merged |= zones.join(*h);
        }
        left = hits.len();
        if !merged {
            // Every collision left is inside one zone, which moves rigidly:
            // the primitives graze (within `eta`) as they did at the start.
            left = 0;
            break;
        }
        for zone in zones.members().chunk_by(|a, b| a.0 == b.0) {
            let v: Vec<u32> = zone.iter().map(|e| e.1).collect();
            rigidify(&v, x0, x1, mass, pinned);
        }
    }
    let members = zones.members();
    let vertices = members.len();
    let mut roots: Vec<u32> = members.iter().map(|e| e.0).collect();
    roots.dedup();
    Impacts {
        zones: roots.len(),
        vertices,
        unresolved: left,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::collide::intersect::intersecting_pairs;
    use crate::mesh::{Pattern, Topology, grid};

    /// Faces, edges, start and end positions.
    type Sheets = (Vec<[u32; 3]>, Vec<[u32; 2]>, Vec<DVec3>, Vec<DVec3>);

    /// Two 10 cm sheets 1 mm apart, the upper tilted 2 degrees and shifted
    /// off the lower one's grid lines, its motion 4 mm down: it ends
    /// through the lower one.
    fn sheets() -> Sheets {
        let sheet = grid(0.1, 0.1, 6, 6, Pattern::Alternating, DVec3::ZERO, (DVec3::X, DVec3::Z));
        let nv = sheet.positions.len() as u32;
        let mut both = sheet.clone();
        both.faces.extend(sheet.faces.iter().map(|f| f.map(|v| v + nv)));
        both.positions.extend(sheet.positions.iter().copied());
        both.uv = None;
        let tilt = 2f64.to_radians().tan();
        let mut x0 = sheet.positions.clone();
        x0.extend(
            sheet
                .positions
                .iter()
                .map(|p| *p + DVec3::new(0.004, 0.001 + tilt * p.x, 0.007)),
        );
        let mut x1 = x0.clone();
        for p in &mut x1[nv as usize..] {
            p.y -= 0.004;
        }
        let edges = Topology::build(&both).unwrap().edges;
        (both.faces, edges, x0, x1)
    }

    #[test]
    fn the_grid_finds_every_collision_a_brute_force_search_finds() {
        let (faces, edges, x0, x1) = sheets();
        let eta = 1e-5;
        let mut found = collisions(&faces, &edges, &x0, &x1, eta);
        found.sort_unstable();
        let mut brute = Vec::new();
        for p in 0..x0.len() as u32 {
            for f in &faces {
                let v = [p, f[0], f[1], f[2]];
                if !f.contains(&p) && ccd::vertex_triangle(&motion(v, &x0, &x1), eta).is_some() {
                    brute.push(v);
                }
            }
        }
        for (a, e) in edges.iter().enumerate() {
            for g in &edges[a + 1..] {
                let v = [e[0], e[1], g[0], g[1]];
                if !e.contains(&g[0]) && !e.contains(&g[1]) && ccd::edge_edge(&motion(v, &x0, &x1), eta).is_some() {
                    brute.push(v);
                }
            }
        }
        brute.sort_unstable();
        assert!(brute.len() > 20, "{} collisions", brute.len());
        assert_eq!(found, brute);
    }

    /// The search restricted to the primitives of some vertices finds
    /// exactly the full search's collisions that have one of them.
    #[test]
    fn the_search_of_moved_vertices_finds_their_collisions() {
        let (faces, edges, x0, x1) = sheets();
        let eta = 1e-5;
        let all = collisions(&faces, &edges, &x0, &x1, eta);
        // Every fifth vertex, and a run of the upper sheet's.
        let moved: Vec<bool> = (0..x0.len()).map(|i| i % 5 == 0 || (60..75).contains(&i)).collect();
        let mut expected: Vec<[u32; 4]> = all
            .into_iter()
            .filter(|v| v.iter().any(|&i| moved[i as usize]))
            .collect();
        expected.sort_unstable();
        assert!(expected.len() > 10, "{} collisions", expected.len());
        assert_eq!(collisions_touching(&faces, &edges, &x0, &x1, eta, &moved), expected);
    }

    #[test]
    fn impact_zones_leave_no_crossing_and_keep_momentum() {
        let (faces, edges, x0, mut x1) = sheets();
        assert!(intersecting_pairs(&faces, &x1) > 0, "the test's motion should cross");
        let mass = vec![1e-4; x0.len()];
        let momentum = |x1: &[DVec3]| x0.iter().zip(x1).map(|(a, b)| (*b - *a) * 1e-4).sum::<DVec3>();
        let angular = |x1: &[DVec3]| x0.iter().zip(x1).map(|(a, b)| a.cross(*b - *a) * 1e-4).sum::<DVec3>();
        let (p, l) = (momentum(&x1), angular(&x1));
        let impacts = resolve(&faces, &edges, &x0, &mut x1, &mass, &vec![false; x0.len()], 1e-5);
        assert_eq!(impacts.unresolved, 0);
        assert!(impacts.zones >= 1 && impacts.vertices > 40, "{impacts:?}");
        assert_eq!(intersecting_pairs(&faces, &x1), 0);
        // Linear momentum exactly; angular momentum to first order in the
        // rotation over the step (a rotated point's displacement is
        // `(R - 1) r`, not `w x r`).
        assert!(
            (momentum(&x1) - p).length() < 1e-12 * p.length(),
            "{} {}",
            momentum(&x1),
            p
        );
        assert!(
            (angular(&x1) - l).length() < 1e-3 * l.length(),
            "{} {}",
            angular(&x1),
            l
        );
    }

    #[test]
    fn a_motion_without_collisions_is_left_alone() {
        let (faces, edges, x0, mut x1) = sheets();
        for p in &mut x1[x0.len() / 2..] {
            p.y += 0.008;
        }
        let before = x1.clone();
        let impacts = resolve(
            &faces,
            &edges,
            &x0,
            &mut x1,
            &vec![1e-4; x0.len()],
            &vec![false; x0.len()],
            1e-5,
        );
        assert_eq!(impacts, Impacts::default());
        assert_eq!(x1, before);
    }
}
