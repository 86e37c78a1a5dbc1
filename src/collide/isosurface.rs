//! The zero level set of a signed-distance grid as triangles (naive
//! surface nets): a vertex in every cell whose corners change sign, at the
//! mean of the zero crossings on its edges, and a quad (two triangles) for
//! every grid edge that changes sign, joining the four cells around it. Used
//! to draw obstacles, whatever their source (shape or mesh).

use crate::collide::SdfGrid;
use glam::DVec3;

/// Vertices (grid-local, i.e. the obstacle's own frame) and triangles,
/// counter-clockwise seen from outside.
pub fn surface(grid: &SdfGrid) -> (Vec<DVec3>, Vec<[u32; 3]>) {
    let [nx, ny, nz] = grid.dims.map(|d| d as usize);
    let (mut vertices, mut faces) = (Vec::new(), Vec::new());
    if nx < 2 || ny < 2 || nz < 2 {
        return (vertices, faces);
    }
    let node = |i: usize, j: usize, k: usize| grid.values[i + nx * (j + ny * k)];
    let at = |i: usize, j: usize, k: usize| grid.origin + DVec3::new(i as f64, j as f64, k as f64) * grid.cell;
    let (cx, cy) = (nx - 1, ny - 1);
    let cell = |i: usize, j: usize, k: usize| i + cx * (j + cy * k);
    let mut index = vec![u32::MAX; cx * cy * (nz - 1)];
    const CORNERS: [[usize; 3]; 8] = [
        [0, 0, 0],
        [1, 0, 0],
        [0, 1, 0],
        [1, 1, 0],
        [0, 0, 1],
        [1, 0, 1],
        [0, 1, 1],
        [1, 1, 1],
    ];
    for k in 0..nz - 1 {
        for j in 0..ny - 1 {
            for i in 0..nx - 1 {
                let v = CORNERS.map(|[a, b, c]| node(i + a, j + b, k + c));
                if v.iter().all(|x| *x < 0.0) || v.iter().all(|x| *x >= 0.0) {
                    continue;
                }
                let (mut sum, mut n) = (DVec3::ZERO, 0.0);
                for a in 0..8usize {
                    for b in a + 1..8 {
                        // Corners joined by a cell edge differ in one bit.
                        if (a ^ b).count_ones() == 1 && (v[a] < 0.0) != (v[b] < 0.0) {
                            let t = (v[a] / (v[a] - v[b])) as f64;
                            let [pa, pb] = [a, b].map(|c| {
                                let [x, y, z] = CORNERS[c];
                                at(i + x, j + y, k + z)
                            });
                            sum += pa + (pb - pa) * t;
                            n += 1.0;
                        }
                    }
                }
                index[cell(i, j, k)] = vertices.len() as u32;
                vertices.push(sum / n);
            }
        }
    }
    // Each sign-changing grid edge inside the grid: the four cells around
    // it, in order around the edge's axis, wound so that the quad faces
    // from the inside (negative) node to the outside one.
    for k in 0..nz {
        for j in 0..ny {
            for i in 0..nx {
                let here = node(i, j, k) < 0.0;
                let mut quad = |ring: [[usize; 3]; 4], outward: bool| {
                    let ids = ring.map(|[a, b, c]| index[cell(a, b, c)]);
                    if ids.contains(&u32::MAX) {
                        return;
                    }
                    match outward {
                        true => faces.extend([[ids[0], ids[1], ids[2]], [ids[0], ids[2], ids[3]]]),
                        false => faces.extend([[ids[0], ids[2], ids[1]], [ids[0], ids[3], ids[2]]]),
                    }
                };
                // The rings turn about +x, -y and +z: outward along the axis
                // when this node is the inside one, except for y.
                if i + 1 < nx && j > 0 && k > 0 && j < ny - 1 && k < nz - 1 && (node(i + 1, j, k) < 0.0) != here {
                    quad([[i, j - 1, k - 1], [i, j, k - 1], [i, j, k], [i, j - 1, k]], here);
                }
                if j + 1 < ny && i > 0 && k > 0 && i < nx - 1 && k < nz - 1 && (node(i, j + 1, k) < 0.0) != here {
                    quad([[i - 1, j, k - 1], [i, j, k - 1], [i, j, k], [i - 1, j, k]], !here);
                }
                if k + 1 < nz && i > 0 && j > 0 && i < nx - 1 && j < ny - 1 && (node(i, j, k + 1) < 0.0) != here {
                    quad([[i - 1, j - 1, k], [i, j - 1, k], [i, j, k], [i - 1, j, k]], here);
                }
            }
        }
    }
    (vertices, faces)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A sphere's grid: the surface's vertices lie on the sphere within a
    /// fraction of a cell, and it closes (every edge in two triangles).
    #[test]
    fn a_sphere_grid_gives_a_closed_surface_on_the_sphere() {
        let r = 0.1;
        let grid = SdfGrid::bake(DVec3::splat(-0.15), DVec3::splat(0.15), 0.01, |p| p.length() - r).unwrap();
        let (v, f) = surface(&grid);
        assert!(f.len() > 500, "{} triangles", f.len());
        for p in &v {
            assert!((p.length() - r).abs() < 0.3 * grid.cell, "{p}: {}", p.length());
        }
        let mut edges = std::collections::HashMap::new();
        for t in &f {
            for e in 0..3 {
                let (a, b) = (t[e], t[(e + 1) % 3]);
                *edges.entry((a.min(b), a.max(b))).or_insert(0) += 1;
            }
        }
        assert!(edges.values().all(|c| *c == 2), "open or non-manifold edges");
        // Wound outward: a closed, outward mesh by MeshSdf's own checks.
        let mesh = crate::mesh::TriMesh {
            name: "sphere".into(),
            positions: v,
            faces: f,
            uv: None,
            named_sets: Default::default(),
            polygons: None,
        };
        crate::collide::mesh_sdf::MeshSdf::new(&mesh).unwrap();
    }
}
