//! Greedy aggregation of a level's graph (Vaněk, Mandel & Brezina 1996,
//! §5: phases 1-3): the coarse level's unknowns are groups of the fine
//! level's, each a vertex with its neighbours. On a cloth's matrix (faces
//! and bending hinges) an aggregate holds about a dozen vertices.

use super::bsr::Bsr;

/// A level's graph: each node's neighbours (itself included), where a node
/// is `group` consecutive rows of the level's matrix (a vertex on the
/// finest level; the translation and rotation rows of an aggregate on the
/// coarser ones).
pub struct Graph(Vec<Vec<usize>>);

impl Graph {
    pub fn of(a: &Bsr, group: usize) -> Graph {
        Graph(
            (0..a.rows() / group)
                .map(|node| {
                    let mut adj: Vec<usize> = (0..group)
                        .flat_map(|k| a.row(node * group + k).map(|(j, _)| j / group))
                        .collect();
                    adj.sort_unstable();
                    adj.dedup();
                    adj
                })
                .collect(),
        )
    }

    fn row(&self, i: usize) -> impl Iterator<Item = usize> + '_ {
        self.0[i].iter().copied()
    }
}

/// Each node's aggregate and the number of aggregates, from the graph
/// alone (the matrix's pattern), so it is built once per mesh.
pub fn aggregate(a: &Graph) -> (Vec<u32>, usize) {
    const NONE: u32 = u32::MAX;
    let n = a.0.len();
    let mut of = vec![NONE; n];
    let mut count = 0u32;
    // 1: a vertex whose neighbours are all free starts an aggregate of them.
    for i in 0..n {
        if of[i] == NONE && a.row(i).all(|j| of[j] == NONE) {
            for j in a.row(i) {
                of[j] = count;
            }
            of[i] = count;
            count += 1;
        }
    }
    // 2: the rest join the first neighbouring aggregate of phase 1.
    let first = of.clone();
    for (i, o) in of.iter_mut().enumerate() {
        if *o == NONE
            && let Some(j) = a.row(i).find(|&j| first[j] != NONE)
        {
            *o = first[j];
        }
    }
    // 3: what is left (a vertex with no aggregated neighbour) groups with
    // its free neighbours.
    for i in 0..n {
        if of[i] == NONE {
            for j in a.row(i) {
                if of[j] == NONE {
                    of[j] = count;
                }
            }
            of[i] = count;
            count += 1;
        }
    }
    (of, count as usize)
}

#[cfg(test)]
mod tests {
    use super::*;
    use glam::DMat3;

    /// A path graph of 10 vertices: every vertex in an aggregate of
    /// neighbours, aggregates numbered 0..count.
    #[test]
    fn a_path_falls_into_aggregates_of_neighbours() {
        let rows = (0..10u32)
            .map(|i| {
                let lo = i.saturating_sub(1);
                (lo..=(i + 1).min(9)).map(|j| (j, DMat3::IDENTITY)).collect()
            })
            .collect();
        let (of, count) = aggregate(&Graph::of(&Bsr::from_rows(10, rows), 1));
        assert_eq!(of, [0, 0, 1, 1, 1, 2, 2, 2, 3, 3]);
        assert_eq!(count, 4);
    }
}
