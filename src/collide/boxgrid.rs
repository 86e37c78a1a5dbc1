//! The broad phase the cloth's self-collision and self-intersection checks
//! share: which boxes of a set overlap a query box.
//!
//! Each box is listed once, in the cell of its low corner, in a uniform
//! grid whose cells are as large as the boxes. A box that overlaps the query
//! then has its low corner at most one cell below the query's low corner and
//! no higher than the query's high corner, so the cells from
//! `cell(query.lo) - 1` to `cell(query.hi)` hold every candidate: 27 cells
//! for a query no larger than a cell. Listing each box once (rather than in
//! every cell it touches) finds each overlap once, with no deduplication,
//! and keeps the work per query near the number of boxes around it, which
//! matters on a cloth finer than its thickness, where every primitive
//! overlaps dozens of its neighbours.
//!
//! The cell is the largest box extent up to four times the median; boxes
//! larger than that (stretched elements of a state that is blowing up) are
//! kept aside and tested against every query, and a query spans at most
//! `MAX_SPAN` cells per axis, so one runaway vertex costs neither unbounded
//! memory nor time (`overlapping` may then miss far candidates, the step
//! reporting the blow-up anyway; `overlapping_after` finds a large box's
//! pairs with the listed boxes from the listed side, and misses none).
//!
//! The cells are a sorted list of `(key, box)`: no hash map, no allocation
//! per cell, the same order on every run and thread count.

use glam::{DVec3, I64Vec3};

/// An axis-aligned box, `(lo, hi)`.
pub type Aabb = (DVec3, DVec3);

/// Cells per axis one query visits, at most.
const MAX_SPAN: i64 = 64;

/// Cell coordinates are offset by this so that a row of cells along x has
/// consecutive keys within a million cells of the origin.
const OFFSET: i64 = 1 << 20;

/// The box of vertices `v` at positions `x`, grown by `pad` on every side.
pub fn bounds(v: &[u32], x: &[DVec3], pad: f64) -> Aabb {
    let first = x[v[0] as usize];
    let (lo, hi) = v[1..].iter().fold((first, first), |(lo, hi), &i| {
        (lo.min(x[i as usize]), hi.max(x[i as usize]))
    });
    (lo - DVec3::splat(pad), hi + DVec3::splat(pad))
}

pub fn overlap(a: &Aabb, b: &Aabb) -> bool {
    a.0.cmple(b.1).all() && b.0.cmple(a.1).all()
}

pub struct BoxGrid {
    cell: f64,
    boxes: Vec<Aabb>,
    /// `(key of the low corner's cell, box)` for the boxes no larger than a
    /// cell, sorted.
    listed: Vec<(u64, u32)>,
    /// Boxes larger than a cell.
    large: Vec<u32>,
}

impl BoxGrid {
    pub fn new(boxes: Vec<Aabb>) -> BoxGrid {
        let extent = |b: &Aabb| (b.1 - b.0).max_element();
        let mut extents: Vec<f64> = boxes.iter().map(extent).collect();
        let cap = if extents.is_empty() {
            0.0
        } else {
            let mid = extents.len() / 2;
            4.0 * *extents.select_nth_unstable_by(mid, f64::total_cmp).1
        };
        let largest = extents.iter().copied().filter(|e| *e <= cap).fold(0.0, f64::max);
        let cell = if largest > 0.0 && largest.is_finite() {
            largest
        } else {
            1.0
        };
        let mut grid = BoxGrid {
            cell,
            boxes,
            listed: Vec::new(),
            large: Vec::new(),
        };
        for (i, b) in grid.boxes.iter().enumerate() {
            if extent(b) <= cell {
                grid.listed.push((Self::key(grid.coord(b.0)), i as u32));
            } else {
                grid.large.push(i as u32);
            }
        }
        grid.listed.sort_unstable();
        grid
    }

    pub fn boxes(&self) -> &[Aabb] {
        &self.boxes
    }

    fn coord(&self, p: DVec3) -> I64Vec3 {
        let c = (p / self.cell).floor();
        // Non-finite or far coordinates saturate (no panic; a state that far
        // out is blowing up).
        I64Vec3::new(c.x as i64, c.y as i64, c.z as i64).saturating_add(I64Vec3::splat(OFFSET))
    }

    /// 21 bits per axis, x lowest (far cells may share a key, which only
    /// adds candidates that the box test then drops).
    fn key(c: I64Vec3) -> u64 {
        let b = |v: i64| (v as u64) & 0x1f_ffff;
        b(c.x) | (b(c.y) << 21) | (b(c.z) << 42)
    }

    /// Calls `f` once with each box that overlaps `query`.
    pub fn overlapping(&self, query: &Aabb, mut f: impl FnMut(u32)) {
        self.listed_overlapping(query, None, &mut f);
        for &i in &self.large {
            if overlap(&self.boxes[i as usize], query) {
                f(i);
            }
        }
    }

    /// Calls `f` with each box that overlaps box `i` of the set and comes
    /// after it in the grid's order (by cell key, then index; the large
    /// boxes after all listed ones, by index): over every `i`, each
    /// overlapping pair once. A listed box's scan covers every listed box
    /// that overlaps it (see [`BoxGrid::overlapping`]), so of two that
    /// overlap, the earlier one's scan finds the later one; skipping the
    /// earlier entries halves a self-query's work (the cloth's edge-edge
    /// pairs, its crossing triangles).
    pub fn overlapping_after(&self, i: u32, mut f: impl FnMut(u32)) {
        let query = &self.boxes[i as usize];
        let large = self.large.binary_search(&i).is_ok();
        if !large {
            self.listed_overlapping(query, Some((Self::key(self.coord(query.0)), i)), &mut f);
        }
        for &j in self.large.iter().filter(|&&j| !large || j > i) {
            if overlap(&self.boxes[j as usize], query) {
                f(j);
            }
        }
    }

    /// Calls `f` with each listed box that overlaps `query`; with `after`,
    /// only those whose entry `(key, index)` comes after it.
    fn listed_overlapping(&self, query: &Aabb, after: Option<(u64, u32)>, f: &mut impl FnMut(u32)) {
        let lo = self.coord(query.0).saturating_sub(I64Vec3::ONE);
        let hi = self.coord(query.1).min(lo.saturating_add(I64Vec3::splat(MAX_SPAN - 1)));
        let before = |e: &(u64, u32)| after.is_some_and(|a| *e <= a);
        // The rows come in increasing key order, so each one's entries
        // start at or after the last one's: each search goes on from there
        // (unless a far key wrapped round).
        let (mut start, mut previous) = (0, 0);
        for z in lo.z..=hi.z {
            for y in lo.y..=hi.y {
                // One row of cells is one run of consecutive keys.
                let (first, last) = (Self::key(I64Vec3::new(lo.x, y, z)), Self::key(I64Vec3::new(hi.x, y, z)));
                // A row whose keys all come before `after`'s holds nothing.
                if after.is_some_and(|a| last < a.0) {
                    continue;
                }
                if first < previous {
                    start = 0;
                }
                previous = first;
                start += gallop(&self.listed[start..], |e| e.0 < first || before(e));
                for &(_, j) in self.listed[start..].iter().take_while(|e| e.0 <= last) {
                    if overlap(&self.boxes[j as usize], query) {
                        f(j);
                    }
                }
            }
        }
    }
}

/// The number of leading entries of `list` for which `ahead` holds (it
/// holds for a prefix), found by doubling steps from the front and then
/// bisecting: as `partition_point`, in about 2 log2 of the answer steps
/// rather than log2 of the list's length, for a short way ahead.
fn gallop<T>(list: &[T], ahead: impl Fn(&T) -> bool) -> usize {
    let mut end = 1;
    while end <= list.len() && ahead(&list[end - 1]) {
        end *= 2;
    }
    let from = end / 2;
    from + list[from..end.min(list.len())].partition_point(ahead)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Random boxes of mixed sizes (some far larger than the rest): the grid
    /// reports exactly the overlaps a brute-force search finds, each once.
    #[test]
    fn overlaps_match_a_brute_force_search() {
        let mut seed = 7u64;
        let mut rnd = || {
            seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            (seed >> 11) as f64 / (1u64 << 53) as f64
        };
        let mut boxes = Vec::new();
        for i in 0..600 {
            let lo = DVec3::new(rnd() - 0.5, rnd() - 0.5, rnd() - 0.5) * 0.4;
            let size = if i % 97 == 0 { 0.3 } else { 0.03 * rnd() };
            boxes.push((lo, lo + DVec3::new(rnd(), rnd(), rnd()) * size));
        }
        let grid = BoxGrid::new(boxes.clone());
        assert!(!grid.large.is_empty(), "the test should cover large boxes");
        for q in &boxes {
            let mut found = Vec::new();
            grid.overlapping(q, |i| found.push(i));
            found.sort_unstable();
            let expected: Vec<u32> = (0..boxes.len() as u32)
                .filter(|&i| overlap(&boxes[i as usize], q))
                .collect();
            assert_eq!(found, expected);
        }
        // Each overlapping pair once, self-pairs never.
        let mut once = Vec::new();
        for i in 0..boxes.len() as u32 {
            grid.overlapping_after(i, |j| once.push((i.min(j), i.max(j))));
        }
        let count = once.len();
        once.sort_unstable();
        once.dedup();
        assert_eq!(once.len(), count, "a pair reported twice");
        let expected: Vec<(u32, u32)> = (0..boxes.len() as u32)
            .flat_map(|i| (i + 1..boxes.len() as u32).map(move |j| (i, j)))
            .filter(|&(i, j)| overlap(&boxes[i as usize], &boxes[j as usize]))
            .collect();
        assert_eq!(once, expected);
    }

    /// Rows of cells a million cells out, whose keys wrap round to low
    /// ones, are still searched: a query over the wrap finds the boxes
    /// either side of it (each row's search going on from the last row's
    /// start would miss the one past the wrap).
    #[test]
    fn rows_whose_keys_wrap_round_are_searched() {
        let y = (1u64 << 20) as f64;
        let unit = |lo: DVec3| (lo, lo + DVec3::ONE);
        let below = unit(DVec3::new(0.0, y - 1.5, 0.0));
        let above = unit(DVec3::new(0.0, y + 0.25, 0.0));
        let grid = BoxGrid::new(vec![below, above]);
        assert_eq!(grid.cell, 1.0);
        let query = (DVec3::new(0.0, y - 0.75, 0.0), DVec3::new(1.0, y + 0.5, 1.0));
        let mut found = Vec::new();
        grid.overlapping(&query, |i| found.push(i));
        found.sort_unstable();
        assert_eq!(found, [0, 1]);
    }
}
