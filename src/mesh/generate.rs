//! Mesh generators: rectangle grids and open cylinders, with material
//! coordinates equal to their flat rest shape.

use super::TriMesh;
use glam::{DVec2, DVec3};
use std::collections::BTreeMap;

/// How each grid quad is split into two triangles.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Deserialize, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Pattern {
    /// Every quad split along the same diagonal.
    Regular,
    /// Diagonals alternate in a checkerboard (no preferred shear direction).
    Alternating,
}

/// Splits quad (a, b, c, d) — counter-clockwise, a at (i, j) — into two
/// counter-clockwise triangles; `flip` picks the other diagonal.
fn split_quad(a: u32, b: u32, c: u32, d: u32, flip: bool) -> [[u32; 3]; 2] {
    if flip {
        [[a, b, d], [b, c, d]]
    } else {
        [[a, b, c], [a, c, d]]
    }
}

/// A `width x height` rectangle of `nx x ny` quads. The in-plane axes are
/// `axes` (u direction, v direction); the grid spans `[0, width] x [0, height]`
/// from `origin`. Material coordinates are the in-plane coordinates (warp = u).
/// Named sets: `side:left|right|bottom|top` (u = 0, u = width, v = 0, v = height)
/// and `side:all` (the whole boundary).
pub fn grid(
    width: f64,
    height: f64,
    nx: usize,
    ny: usize,
    pattern: Pattern,
    origin: DVec3,
    axes: (DVec3, DVec3),
) -> TriMesh {
    let idx = |i: usize, j: usize| (j * (nx + 1) + i) as u32;
    let mut positions = Vec::with_capacity((nx + 1) * (ny + 1));
    let mut coords = Vec::with_capacity(positions.capacity());
    for j in 0..=ny {
        for i in 0..=nx {
            let uv = DVec2::new(width * i as f64 / nx as f64, height * j as f64 / ny as f64);
            positions.push(origin + axes.0 * uv.x + axes.1 * uv.y);
            coords.push(uv);
        }
    }
    let mut faces = Vec::with_capacity(2 * nx * ny);
    for j in 0..ny {
        for i in 0..nx {
            let flip = pattern == Pattern::Alternating && (i + j) % 2 == 1;
            let quad = split_quad(idx(i, j), idx(i + 1, j), idx(i + 1, j + 1), idx(i, j + 1), flip);
            faces.extend_from_slice(&quad);
        }
    }
    let uv = faces.iter().map(|f| f.map(|v| coords[v as usize])).collect();
    let mut named_sets = BTreeMap::new();
    named_sets.insert("side:left".into(), (0..=ny).map(|j| idx(0, j)).collect());
    named_sets.insert("side:right".into(), (0..=ny).map(|j| idx(nx, j)).collect());
    named_sets.insert("side:bottom".into(), (0..=nx).map(|i| idx(i, 0)).collect());
    named_sets.insert("side:top".into(), (0..=nx).map(|i| idx(i, ny)).collect());
    let mut all: Vec<u32> = named_sets.values().flatten().copied().collect();
    all.sort_unstable();
    all.dedup();
    named_sets.insert("side:all".into(), all);
    TriMesh {
        name: format!("grid {nx}x{ny}"),
        positions,
        faces,
        uv: Some(uv),
        named_sets,
        polygons: None,
    }
}

/// An open cylinder about the y axis, bottom ring at y = 0: `rings` rings of
/// `segments` vertices. Material coordinates unroll it with the chord length
/// as the u spacing, so the flat rest shape equals the initial triangles
/// exactly (no pre-stress); warp runs around, weft along the axis.
/// Faces are counter-clockwise seen from outside. Named sets: `ring:bottom|top`.
pub fn cylinder(radius: f64, height: f64, rings: usize, segments: usize) -> TriMesh {
    let idx = |i: usize, j: usize| (j * segments + i % segments) as u32;
    let chord = 2.0 * radius * (std::f64::consts::PI / segments as f64).sin();
    let mut positions = Vec::with_capacity(rings * segments);
    for j in 0..rings {
        let y = height * j as f64 / (rings - 1) as f64;
        for i in 0..segments {
            let phi = 2.0 * std::f64::consts::PI * i as f64 / segments as f64;
            // Counter-clockwise seen from +y: x = r cos, z = -r sin.
            positions.push(DVec3::new(radius * phi.cos(), y, -radius * phi.sin()));
        }
    }
    let mut faces = Vec::with_capacity(2 * segments * (rings - 1));
    let mut uv = Vec::with_capacity(faces.capacity());
    for j in 0..rings - 1 {
        for i in 0..segments {
            let corners = [(i, j), (i + 1, j), (i + 1, j + 1), (i, j + 1)];
            let quad = split_quad(idx(i, j), idx(i + 1, j), idx(i + 1, j + 1), idx(i, j + 1), false);
            let coord = |k: usize| {
                let (ci, cj) = corners[k];
                DVec2::new(chord * ci as f64, height * cj as f64 / (rings - 1) as f64)
            };
            faces.extend_from_slice(&quad);
            uv.push([coord(0), coord(1), coord(2)]);
            uv.push([coord(0), coord(2), coord(3)]);
        }
    }
    let mut named_sets = BTreeMap::new();
    named_sets.insert("ring:bottom".into(), (0..segments).map(|i| idx(i, 0)).collect());
    named_sets.insert("ring:top".into(), (0..segments).map(|i| idx(i, rings - 1)).collect());
    TriMesh {
        name: format!("cylinder {segments}x{rings}"),
        positions,
        faces,
        uv: Some(uv),
        named_sets,
        polygons: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cylinder_matches_the_paper_mesh_and_rest_shape() {
        let m = cylinder(0.04, 0.11, 28, 64);
        assert_eq!(m.positions.len(), 1792);
        assert_eq!(m.faces.len(), 3456);
        // Every face's material edge lengths equal its 3D edge lengths.
        let uv = m.uv.as_ref().unwrap();
        for (f, c) in m.faces.iter().zip(uv) {
            for k in 0..3 {
                let (a, b) = (f[k] as usize, f[(k + 1) % 3] as usize);
                let l3 = (m.positions[a] - m.positions[b]).length();
                let l2 = (c[k] - c[(k + 1) % 3]).length();
                assert!((l3 - l2).abs() < 1e-12, "face {f:?}: {l3} vs {l2}");
            }
        }
    }

    #[test]
    fn grid_sides_and_faces() {
        let m = grid(1.0, 0.5, 4, 2, Pattern::Alternating, DVec3::ZERO, (DVec3::X, DVec3::Y));
        assert_eq!(m.positions.len(), 15);
        assert_eq!(m.faces.len(), 16);
        assert_eq!(m.named_sets["side:left"], vec![0, 5, 10]);
        assert_eq!(m.named_sets["side:top"], vec![10, 11, 12, 13, 14]);
        for f in &m.faces {
            let [a, b, c] = f.map(|v| m.positions[v as usize]);
            assert!((b - a).cross(c - a).z > 0.0, "face {f:?} is not counter-clockwise");
        }
    }
}
