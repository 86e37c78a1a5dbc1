//! Topology: edges, hinges (interior edges with their two wing vertices),
//! boundary edges, and vertex-to-element incidence in CSR form, which both
//! backends use to gather per-element contributions without atomics.
//! Building it validates the mesh.

use super::TriMesh;
use crate::error::{Error, Result};
use std::collections::HashMap;

/// Compressed rows: `entries[offsets[v]..offsets[v + 1]]` belong to vertex `v`.
/// Each entry is `(element, local index of v in that element)`.
#[derive(Clone, Debug, Default)]
pub struct Csr {
    pub offsets: Vec<u32>,
    pub entries: Vec<(u32, u32)>,
}

impl Csr {
    fn build(n: usize, items: impl Iterator<Item = (u32, u32, u32)> + Clone) -> Csr {
        let mut offsets = vec![0u32; n + 1];
        for (v, _, _) in items.clone() {
            offsets[v as usize + 1] += 1;
        }
        for i in 0..n {
            offsets[i + 1] += offsets[i];
        }
        let mut fill = offsets.clone();
        let mut entries = vec![(0, 0); offsets[n] as usize];
        // Elements are visited in increasing order, so each row is sorted:
        // the gather order is fixed and results are reproducible.
        for (v, e, l) in items {
            entries[fill[v as usize] as usize] = (e, l);
            fill[v as usize] += 1;
        }
        Csr { offsets, entries }
    }

    pub fn row(&self, v: usize) -> &[(u32, u32)] {
        let (lo, hi) = self.range(v);
        &self.entries[lo..hi]
    }

    /// Index range of row `v` in `entries` (and in arrays aligned with it).
    pub fn range(&self, v: usize) -> (usize, usize) {
        (self.offsets[v] as usize, self.offsets[v + 1] as usize)
    }
}

/// An interior edge. `v = [x0, x1, x2, x3]`: the edge runs x0 -> x1 in face
/// `faces[0]` = (x0, x1, x2) (up to rotation), and x1 -> x0 in `faces[1]`,
/// whose third vertex is x3.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Hinge {
    pub v: [u32; 4],
    pub faces: [u32; 2],
}

#[derive(Clone, Debug)]
pub struct Topology {
    /// Unique undirected edges, each `[lo, hi]`, sorted.
    pub edges: Vec<[u32; 2]>,
    pub hinges: Vec<Hinge>,
    /// Edges with one incident face.
    pub boundary_edges: Vec<[u32; 2]>,
    /// Vertex -> (face, corner).
    pub vertex_faces: Csr,
    /// Vertex -> (hinge, position in `Hinge::v`).
    pub vertex_hinges: Csr,
    /// Vertex -> (edge, 0 at its `lo` end or 1 at its `hi` end).
    pub vertex_edges: Csr,
}

/// A vertex a triangle names twice.
fn repeated(face: &[u32; 3]) -> u32 {
    if face[0] == face[1] || face[0] == face[2] {
        face[0]
    } else {
        face[1]
    }
}

impl Topology {
    /// The hinges whose edge has both ends in `vertices` (sorted): a
    /// region's or a group's bending elements.
    pub fn hinges_inside(&self, vertices: &[u32]) -> Vec<u32> {
        let inside = |v: u32| vertices.binary_search(&v).is_ok();
        (0..self.hinges.len() as u32)
            .filter(|&h| {
                let v = self.hinges[h as usize].v;
                inside(v[0]) && inside(v[1])
            })
            .collect()
    }

    /// Builds the topology, rejecting meshes the simulator cannot use: empty
    /// meshes, indices out of range, repeated corners, edges shared by more
    /// than two faces, inconsistently oriented neighbours, unused vertices.
    pub fn build(mesh: &TriMesh) -> Result<Topology> {
        let name = &mesh.name;
        let n = mesh.positions.len();
        if n == 0 || mesh.faces.is_empty() {
            return Err(Error::mesh(name, "the mesh is empty (no vertices or no faces)"));
        }
        for (i, p) in mesh.positions.iter().enumerate() {
            if !p.is_finite() {
                return Err(Error::mesh(
                    name,
                    format!("vertex {} has a non-finite position {p}", i + 1),
                ));
            }
        }
        for (f, face) in mesh.faces.iter().enumerate() {
            if let Some(v) = face.iter().find(|&&v| v as usize >= n) {
                return Err(Error::mesh(
                    name,
                    format!(
                        "{} refers to vertex {}, but the mesh has {n} vertices",
                        mesh.face_label(f),
                        v + 1
                    ),
                ));
            }
            if face[0] == face[1] || face[1] == face[2] || face[0] == face[2] {
                return Err(Error::mesh(
                    name,
                    format!("{} repeats vertex {}", mesh.face_label(f), repeated(face) + 1),
                ));
            }
        }
        // Directed half-edges: (a, b) -> (face, opposite vertex).
        let mut half: HashMap<(u32, u32), (u32, u32)> = HashMap::with_capacity(3 * mesh.faces.len());
        for (f, face) in mesh.faces.iter().enumerate() {
            for k in 0..3 {
                let (a, b, c) = (face[k], face[(k + 1) % 3], face[(k + 2) % 3]);
                if let Some((g, _)) = half.insert((a, b), (f as u32, c)) {
                    let (fg, ff) = (mesh.face_label(g as usize), mesh.face_label(f));
                    let message = if half.contains_key(&(b, a)) {
                        format!(
                            "the edge from vertex {} to {} is shared by more than two faces (non-manifold), among them {fg} and {ff}",
                            a + 1,
                            b + 1
                        )
                    } else {
                        format!(
                            "{fg} and {ff} both run the edge from vertex {} to {} in the same direction: their orientation is inconsistent (flip one of them)",
                            a + 1,
                            b + 1
                        )
                    };
                    return Err(Error::mesh(name, message));
                }
            }
        }
        let mut keys: Vec<(u32, u32)> = half.keys().copied().collect();
        keys.sort_unstable();
        let mut edges = Vec::new();
        let mut hinges = Vec::new();
        let mut boundary_edges = Vec::new();
        for &(a, b) in &keys {
            let twin = half.get(&(b, a));
            if a < b || twin.is_none() {
                let (lo, hi) = (a.min(b), a.max(b));
                edges.push([lo, hi]);
                match twin {
                    None => boundary_edges.push([lo, hi]),
                    Some(&(fb, x3)) => {
                        let (fa, x2) = half[&(a, b)];
                        hinges.push(Hinge {
                            v: [a, b, x2, x3],
                            faces: [fa, fb],
                        });
                    }
                }
            }
        }
        edges.sort_unstable();
        boundary_edges.sort_unstable();
        let vertex_faces = Csr::build(
            n,
            mesh.faces
                .iter()
                .enumerate()
                .flat_map(|(f, face)| (0..3).map(move |k| (face[k], f as u32, k as u32))),
        );
        if let Some(v) = (0..n).find(|&v| vertex_faces.row(v).is_empty()) {
            return Err(Error::mesh(
                name,
                format!("vertex {} is not used by any face (remove unused vertices)", v + 1),
            ));
        }
        let vertex_hinges = Csr::build(
            n,
            hinges
                .iter()
                .enumerate()
                .flat_map(|(h, hinge)| (0..4).map(move |k| (hinge.v[k], h as u32, k as u32))),
        );
        let vertex_edges = Csr::build(
            n,
            edges
                .iter()
                .enumerate()
                .flat_map(|(e, edge)| (0..2).map(move |k| (edge[k], e as u32, k as u32))),
        );
        Ok(Topology {
            edges,
            hinges,
            boundary_edges,
            vertex_faces,
            vertex_hinges,
            vertex_edges,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mesh::{Pattern, grid};
    use glam::DVec3;

    fn quad() -> TriMesh {
        grid(1.0, 1.0, 1, 1, Pattern::Regular, DVec3::ZERO, (DVec3::X, DVec3::Y))
    }

    #[test]
    fn euler_counts_of_a_grid() {
        let m = grid(1.0, 1.0, 3, 2, Pattern::Regular, DVec3::ZERO, (DVec3::X, DVec3::Y));
        let t = Topology::build(&m).unwrap();
        // V - E + F = 1 for a disk.
        assert_eq!(
            m.positions.len() as i64 - t.edges.len() as i64 + m.faces.len() as i64,
            1
        );
        assert_eq!(t.boundary_edges.len(), 10);
        assert_eq!(t.hinges.len(), t.edges.len() - 10);
        // Each edge appears in the rows of both its ends.
        assert_eq!(t.vertex_edges.entries.len(), 2 * t.edges.len());
        for v in 0..m.positions.len() {
            for &(e, end) in t.vertex_edges.row(v) {
                assert_eq!(t.edges[e as usize][end as usize] as usize, v);
            }
        }
        for h in &t.hinges {
            let fa = m.faces[h.faces[0] as usize];
            assert!(fa.contains(&h.v[2]) && fa.contains(&h.v[0]) && fa.contains(&h.v[1]));
            let fb = m.faces[h.faces[1] as usize];
            assert!(fb.contains(&h.v[3]));
        }
    }

    #[test]
    fn rejects_flipped_face() {
        let mut m = quad();
        m.faces[1] = [m.faces[1][0], m.faces[1][2], m.faces[1][1]];
        let e = Topology::build(&m).unwrap_err().to_string();
        assert!(e.contains("orientation is inconsistent"), "{e}");
    }

    #[test]
    fn rejects_non_manifold_edge() {
        let mut m = quad();
        // The quad's diagonal (0, 3) is interior; hang a third face on it.
        m.positions.push(DVec3::new(0.0, 0.0, 1.0));
        m.faces.push([3, 0, 4]);
        let e = Topology::build(&m).unwrap_err().to_string();
        assert!(e.contains("non-manifold"), "{e}");
    }

    #[test]
    fn rejects_out_of_range_and_unused() {
        let mut m = quad();
        m.faces[0][2] = 9;
        let e = Topology::build(&m).unwrap_err().to_string();
        assert!(e.contains("triangle 1 refers to vertex 10"), "{e}");
        let mut m = quad();
        m.positions.push(DVec3::ONE);
        let e = Topology::build(&m).unwrap_err().to_string();
        assert!(e.contains("vertex 5 is not used"), "{e}");
    }
}
