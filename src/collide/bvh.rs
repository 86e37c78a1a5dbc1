//! A bounding-volume hierarchy over triangles (or any boxed items): median
//! splits of the items' centres along the longest axis, leaves of at most
//! [`LEAF`] items, and the nearest-item query both obstacle meshes use
//! (the closed ones baked into grids, `mesh_sdf.rs`; the deforming ones
//! probed every step, `body.rs`). Children always come after their parent,
//! so a refit walks the nodes backwards.

use glam::DVec3;

/// Most items in a leaf.
pub const LEAF: usize = 4;

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Node {
    pub lo: DVec3,
    pub hi: DVec3,
    /// Leaf: items `start..start + count` of `order`; inner (`count == 0`):
    /// children `start` and `start + 1`.
    pub start: u32,
    pub count: u32,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Bvh {
    pub nodes: Vec<Node>,
    /// Item indices, leaf by leaf.
    pub order: Vec<u32>,
}

/// Squared distance from `p` to the box `[lo, hi]` (0 inside).
pub fn box_distance2(p: DVec3, lo: DVec3, hi: DVec3) -> f64 {
    (lo - p).max(p - hi).max(DVec3::ZERO).length_squared()
}

/// The bounds of a triangle.
pub fn triangle_box(t: &[DVec3; 3]) -> (DVec3, DVec3) {
    (t[0].min(t[1]).min(t[2]), t[0].max(t[1]).max(t[2]))
}

impl Bvh {
    /// Builds the tree over triangles, split by their centroids.
    pub fn build(triangles: &[[DVec3; 3]]) -> Bvh {
        let centre: Vec<DVec3> = triangles.iter().map(|t| (t[0] + t[1] + t[2]) / 3.0).collect();
        let boxes: Vec<(DVec3, DVec3)> = triangles.iter().map(triangle_box).collect();
        let mut bvh = Bvh {
            nodes: vec![Node {
                lo: DVec3::ZERO,
                hi: DVec3::ZERO,
                start: 0,
                count: triangles.len() as u32,
            }],
            order: (0..triangles.len() as u32).collect(),
        };
        let mut stack = vec![0usize];
        while let Some(n) = stack.pop() {
            let (start, count) = (bvh.nodes[n].start as usize, bvh.nodes[n].count as usize);
            let range = start..start + count;
            let (mut lo, mut hi) = (DVec3::INFINITY, DVec3::NEG_INFINITY);
            for &f in &bvh.order[range.clone()] {
                (lo, hi) = (lo.min(boxes[f as usize].0), hi.max(boxes[f as usize].1));
            }
            (bvh.nodes[n].lo, bvh.nodes[n].hi) = (lo, hi);
            if count <= LEAF {
                continue;
            }
            let extent = hi - lo;
            let axis = (0..3).fold(0, |best, k| if extent[k] > extent[best] { k } else { best });
            bvh.order[range].sort_by(|&a, &b| centre[a as usize][axis].total_cmp(&centre[b as usize][axis]));
            let half = count / 2;
            let children = bvh.nodes.len();
            for (s, c) in [(start, half), (start + half, count - half)] {
                bvh.nodes.push(Node {
                    lo: DVec3::ZERO,
                    hi: DVec3::ZERO,
                    start: s as u32,
                    count: c as u32,
                });
                stack.push(bvh.nodes.len() - 1);
            }
            bvh.nodes[n].start = children as u32;
            bvh.nodes[n].count = 0;
        }
        bvh
    }

    /// New bounds for the same items, the tree's shape kept.
    pub fn refit(&mut self, boxes: &[(DVec3, DVec3)]) {
        for n in (0..self.nodes.len()).rev() {
            let node = self.nodes[n];
            let (start, count) = (node.start as usize, node.count as usize);
            let (lo, hi) = if count > 0 {
                self.order[start..start + count]
                    .iter()
                    .map(|&f| boxes[f as usize])
                    .fold((DVec3::INFINITY, DVec3::NEG_INFINITY), |(lo, hi), (a, b)| {
                        (lo.min(a), hi.max(b))
                    })
            } else {
                let (a, b) = (self.nodes[start], self.nodes[start + 1]);
                (a.lo.min(b.lo), a.hi.max(b.hi))
            };
            (self.nodes[n].lo, self.nodes[n].hi) = (lo, hi);
        }
    }

    /// The nearest item to `p` closer than `sqrt(limit2)`: `item(f)` gives
    /// item `f`'s squared distance and what the caller keeps of it. Visits
    /// the nearer child first and skips boxes farther than the best so far.
    pub fn nearest<T>(&self, p: DVec3, limit2: f64, mut item: impl FnMut(u32) -> (f64, T)) -> Option<(f64, T)> {
        let mut best: Option<(f64, T)> = None;
        let mut bound = limit2;
        let mut stack = vec![0usize];
        while let Some(n) = stack.pop() {
            let node = &self.nodes[n];
            if box_distance2(p, node.lo, node.hi) >= bound {
                continue;
            }
            if node.count > 0 {
                for &f in &self.order[node.start as usize..(node.start + node.count) as usize] {
                    let (d2, keep) = item(f);
                    if d2 < bound {
                        bound = d2;
                        best = Some((d2, keep));
                    }
                }
            } else {
                let (a, b) = (node.start as usize, node.start as usize + 1);
                let da = box_distance2(p, self.nodes[a].lo, self.nodes[a].hi);
                let db = box_distance2(p, self.nodes[b].lo, self.nodes[b].hi);
                stack.extend(if da < db { [b, a] } else { [a, b] });
            }
        }
        best
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nearest_point_matches_a_brute_force_search_after_a_refit() {
        let mut seed = 99u64;
        let mut next = || {
            seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            (seed >> 11) as f64 / (1u64 << 53) as f64
        };
        let mut points: Vec<DVec3> = (0..300).map(|_| DVec3::new(next(), next(), next())).collect();
        let boxes = |pts: &[DVec3]| pts.iter().map(|p| (*p, *p)).collect::<Vec<_>>();
        let mut bvh = Bvh::build(&points.iter().map(|p| [*p; 3]).collect::<Vec<_>>());
        for p in &mut points {
            *p = DVec3::new(p.y * 2.0, p.x, p.z - 0.5);
        }
        bvh.refit(&boxes(&points));
        for _ in 0..200 {
            let q = DVec3::new(next() * 2.0, next(), next() - 0.5);
            let want = points
                .iter()
                .enumerate()
                .map(|(k, p)| ((*p - q).length_squared(), k as u32))
                .min_by(|a, b| a.0.total_cmp(&b.0))
                .unwrap();
            let got = bvh.nearest(q, f64::INFINITY, |f| ((points[f as usize] - q).length_squared(), f));
            assert_eq!(got, Some(want));
            // Nothing within a limit below the nearest distance.
            assert_eq!(
                bvh.nearest(q, want.0 * 0.99, |f| ((points[f as usize] - q).length_squared(), f)),
                None
            );
        }
    }
}
