//! Exact signed distance to a closed triangle mesh: the nearest triangle
//! through a bounding-volume hierarchy, the sign from the angle-weighted
//! pseudo-normal of the nearest feature (face, edge or vertex; Bærentzen &
//! Aanæs 2005), which is correct for any closed, outward-oriented mesh,
//! concave ones included.

use super::bvh::Bvh;
use crate::mesh::TriMesh;
use glam::DVec3;
use std::collections::HashMap;

/// The feature of a triangle a closest point lies on.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Feature {
    Face,
    /// Edge `k`: from corner k to corner k+1.
    Edge(usize),
    Vertex(usize),
}

#[derive(Debug)]
pub struct MeshSdf {
    positions: Vec<DVec3>,
    faces: Vec<[u32; 3]>,
    face_normal: Vec<DVec3>,
    /// Per face, per edge k (corner k to k+1): the sum of the two faces' normals.
    edge_normal: Vec<[DVec3; 3]>,
    vertex_normal: Vec<DVec3>,
    tree: Bvh,
}

/// Closest point to `p` on triangle `t` (Ericson, Real-Time Collision
/// Detection, 5.1.5) and the feature it lies on.
pub(crate) fn closest_on_triangle(p: DVec3, t: [DVec3; 3]) -> (DVec3, Feature) {
    let [a, b, c] = t;
    let (ab, ac, ap) = (b - a, c - a, p - a);
    let (d1, d2) = (ab.dot(ap), ac.dot(ap));
    if d1 <= 0.0 && d2 <= 0.0 {
        return (a, Feature::Vertex(0));
    }
    let bp = p - b;
    let (d3, d4) = (ab.dot(bp), ac.dot(bp));
    if d3 >= 0.0 && d4 <= d3 {
        return (b, Feature::Vertex(1));
    }
    let vc = d1 * d4 - d3 * d2;
    if vc <= 0.0 && d1 >= 0.0 && d3 <= 0.0 {
        return (a + ab * (d1 / (d1 - d3)), Feature::Edge(0));
    }
    let cp = p - c;
    let (d5, d6) = (ab.dot(cp), ac.dot(cp));
    if d6 >= 0.0 && d5 <= d6 {
        return (c, Feature::Vertex(2));
    }
    let vb = d5 * d2 - d1 * d6;
    if vb <= 0.0 && d2 >= 0.0 && d6 <= 0.0 {
        return (a + ac * (d2 / (d2 - d6)), Feature::Edge(2));
    }
    let va = d3 * d6 - d5 * d4;
    if va <= 0.0 && (d4 - d3) >= 0.0 && (d5 - d6) >= 0.0 {
        return (b + (c - b) * ((d4 - d3) / ((d4 - d3) + (d5 - d6))), Feature::Edge(1));
    }
    let denom = 1.0 / (va + vb + vc);
    (a + ab * (vb * denom) + ac * (vc * denom), Feature::Face)
}

/// The unit normal of triangle `t` (zero when degenerate).
pub(crate) fn unit_normal(x: &[DVec3], t: [u32; 3]) -> DVec3 {
    let [a, b, c] = t.map(|v| x[v as usize]);
    (b - a).cross(c - a).normalize_or_zero()
}

/// The pseudo-normals at the vertices (unnormalised): each triangle's unit
/// normal times its angle there; a degenerate triangle adds nothing.
pub(crate) fn angle_weighted_normals(x: &[DVec3], faces: &[[u32; 3]]) -> Vec<DVec3> {
    let mut n = vec![DVec3::ZERO; x.len()];
    for &t in faces {
        let normal = unit_normal(x, t);
        let p = t.map(|v| x[v as usize]);
        for k in 0..3 {
            let angle = (p[(k + 1) % 3] - p[k]).angle_between(p[(k + 2) % 3] - p[k]);
            if angle.is_finite() {
                n[t[k] as usize] += normal * angle;
            }
        }
    }
    n
}

impl MeshSdf {
    /// Builds the distance structure, or says why the mesh cannot bound a
    /// solid: a degenerate triangle, an edge not shared by exactly two
    /// consistently oriented faces, or inward-facing triangles.
    pub fn new(mesh: &TriMesh) -> Result<MeshSdf, String> {
        let x = &mesh.positions;
        let nf = mesh.faces.len();
        if nf < 4 {
            return Err(format!("has {nf} triangles; a closed mesh needs at least 4"));
        }
        let mut face_normal = Vec::with_capacity(nf);
        for (f, t) in mesh.faces.iter().enumerate() {
            let [a, b, c] = t.map(|v| x[v as usize]);
            let n = (b - a).cross(c - a);
            if n.length() <= 1e-14 * (b - a).length_squared().max((c - a).length_squared()) || n.length() == 0.0 {
                return Err(format!(
                    "{} (vertices {}, {}, {}) is degenerate (zero area): remove it",
                    mesh.face_label(f),
                    t[0] + 1,
                    t[1] + 1,
                    t[2] + 1
                ));
            }
            face_normal.push(n.normalize());
        }
        // Each directed edge once; its twin must exist (closed, oriented).
        let mut directed: HashMap<(u32, u32), (usize, usize)> = HashMap::with_capacity(3 * nf);
        for (f, t) in mesh.faces.iter().enumerate() {
            for k in 0..3 {
                let e = (t[k], t[(k + 1) % 3]);
                if directed.insert(e, (f, k)).is_some() {
                    return Err(format!(
                        "the edge from vertex {} to {} is used twice in the same direction (faces are inconsistently oriented or the edge is non-manifold)",
                        e.0 + 1,
                        e.1 + 1
                    ));
                }
            }
        }
        let mut edge_normal = vec![[DVec3::ZERO; 3]; nf];
        for (&(a, b), &(f, k)) in &directed {
            let &(g, _) = directed.get(&(b, a)).ok_or_else(|| {
                format!(
                    "the edge from vertex {} to {} borders only one face ({}): an obstacle mesh must be closed (watertight)",
                    a + 1,
                    b + 1,
                    mesh.face_label(f)
                )
            })?;
            edge_normal[f][k] = face_normal[f] + face_normal[g];
        }
        let vertex_normal = angle_weighted_normals(x, &mesh.faces);
        let volume: f64 = mesh
            .faces
            .iter()
            .map(|t| {
                let p = t.map(|v| x[v as usize]);
                p[0].dot(p[1].cross(p[2])) / 6.0
            })
            .sum();
        if volume <= 0.0 {
            return Err(format!(
                "encloses a volume of {volume} m^3: its triangles face inward; flip their winding"
            ));
        }
        let mut sdf = MeshSdf {
            positions: x.clone(),
            faces: mesh.faces.clone(),
            face_normal,
            edge_normal,
            vertex_normal,
            tree: Bvh::build(&[]),
        };
        sdf.tree = Bvh::build(&(0..nf as u32).map(|f| sdf.triangle(f)).collect::<Vec<_>>());
        Ok(sdf)
    }

    fn triangle(&self, f: u32) -> [DVec3; 3] {
        self.faces[f as usize].map(|v| self.positions[v as usize])
    }

    pub fn bounds(&self) -> (DVec3, DVec3) {
        (self.tree.nodes[0].lo, self.tree.nodes[0].hi)
    }

    /// Signed distance from `p` to the surface, negative inside.
    pub fn distance(&self, p: DVec3) -> f64 {
        let Some((d2, (f, q, feature))) = self.tree.nearest(p, f64::INFINITY, |f| {
            let (q, feature) = closest_on_triangle(p, self.triangle(f));
            ((p - q).length_squared(), (f, q, feature))
        }) else {
            return f64::INFINITY;
        };
        let f = f as usize;
        let normal = match feature {
            Feature::Face => self.face_normal[f],
            Feature::Edge(k) => self.edge_normal[f][k],
            Feature::Vertex(k) => self.vertex_normal[self.faces[f][k] as usize],
        };
        let d = d2.sqrt();
        if (p - q).dot(normal) < 0.0 { -d } else { d }
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use std::collections::BTreeMap;

    /// A prism over a polygon in xz (clockwise seen from +y, star-shaped
    /// from its first vertex), from y = 0 to y = `height`.
    pub fn prism(polygon: &[(f64, f64)], height: f64) -> TriMesh {
        let n = polygon.len() as u32;
        let mut positions = Vec::new();
        for y in [0.0, height] {
            positions.extend(polygon.iter().map(|&(x, z)| DVec3::new(x, y, z)));
        }
        let mut faces = Vec::new();
        for k in 1..n - 1 {
            faces.push([0, k, k + 1]);
            faces.push([n, n + k + 1, n + k]);
        }
        for k in 0..n {
            let j = (k + 1) % n;
            faces.push([k, n + k, n + j]);
            faces.push([k, n + j, j]);
        }
        TriMesh {
            name: "prism".into(),
            positions,
            faces,
            uv: None,
            named_sets: BTreeMap::new(),
            polygons: None,
        }
    }

    /// A UV sphere.
    pub fn uv_sphere(radius: f64, rings: usize, segments: usize) -> TriMesh {
        let mut positions = vec![DVec3::new(0.0, radius, 0.0)];
        for r in 1..rings {
            let phi = std::f64::consts::PI * r as f64 / rings as f64;
            for s in 0..segments {
                let t = std::f64::consts::TAU * s as f64 / segments as f64;
                positions.push(DVec3::new(phi.sin() * t.cos(), phi.cos(), -phi.sin() * t.sin()) * radius);
            }
        }
        positions.push(DVec3::new(0.0, -radius, 0.0));
        let south = positions.len() as u32 - 1;
        let ring = |r: usize, s: usize| (1 + (r - 1) * segments + s % segments) as u32;
        let mut faces = Vec::new();
        for s in 0..segments {
            faces.push([0, ring(1, s), ring(1, s + 1)]);
            faces.push([south, ring(rings - 1, s + 1), ring(rings - 1, s)]);
            for r in 1..rings - 1 {
                faces.push([ring(r, s), ring(r + 1, s), ring(r + 1, s + 1)]);
                faces.push([ring(r, s), ring(r + 1, s + 1), ring(r, s + 1)]);
            }
        }
        TriMesh {
            name: "sphere".into(),
            positions,
            faces,
            uv: None,
            named_sets: BTreeMap::new(),
            polygons: None,
        }
    }

    #[test]
    fn sign_is_right_inside_and_outside_a_concave_prism() {
        // An L in xz: [0, 1] x [-1, 0] without the notch [0.5, 1] x [-0.5, 0],
        // listed from its reflex corner, clockwise seen from +y.
        let l = [
            (0.5, -0.5),
            (0.5, 0.0),
            (0.0, 0.0),
            (0.0, -1.0),
            (1.0, -1.0),
            (1.0, -0.5),
        ];
        let mesh = prism(&l, 1.0);
        let sdf = MeshSdf::new(&mesh).unwrap_or_else(|e| panic!("{e}"));
        let cases = [
            (DVec3::new(0.25, 0.5, -0.25), -0.25), // in the L's corner square
            (DVec3::new(0.75, 0.5, -0.75), -0.25), // in the right arm
            (DVec3::new(0.75, 0.5, -0.25), 0.25),  // in the notch: outside, 0.25 from both walls
            (DVec3::new(0.25, 1.3, -0.25), 0.3),   // above
        ];
        for (p, want) in cases {
            let d = sdf.distance(p);
            assert!((d - want).abs() < 1e-12, "{p}: {d} vs {want}");
        }
    }

    #[test]
    fn a_baked_mesh_sphere_agrees_with_the_analytic_sphere() {
        let r = 0.1;
        let segments = 96;
        let sdf = MeshSdf::new(&uv_sphere(r, segments / 2, segments)).unwrap();
        // The polygonal sphere lies inside the true one by at most the
        // sagitta of its edges.
        let sagitta = r * (1.0 - (std::f64::consts::PI / segments as f64).cos());
        let cell = 0.005;
        let grid =
            crate::collide::SdfGrid::bake(DVec3::splat(-0.15), DVec3::splat(0.15), cell, |p| sdf.distance(p)).unwrap();
        let mut seed = 7u64;
        for _ in 0..3000 {
            let mut next = || {
                seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                (seed >> 11) as f64 / (1u64 << 53) as f64 * 0.28 - 0.14
            };
            let p = DVec3::new(next(), next(), next());
            let exact = p.length() - r;
            let (d, _) = grid.sample(p);
            assert!(
                (d - exact).abs() <= 0.5 * cell + 2.0 * sagitta,
                "{p}: mesh grid {d}, sphere {exact}"
            );
            assert!(
                (sdf.distance(p) - exact).abs() <= 2.0 * sagitta,
                "{p}: mesh {}, sphere {exact}",
                sdf.distance(p)
            );
        }
    }

    #[test]
    fn open_and_inverted_meshes_are_refused() {
        let mut open = uv_sphere(1.0, 6, 8);
        open.faces.pop();
        let e = MeshSdf::new(&open).unwrap_err();
        assert!(e.contains("closed"), "{e}");
        let mut inverted = uv_sphere(1.0, 6, 8);
        for f in &mut inverted.faces {
            f.swap(1, 2);
        }
        let e = MeshSdf::new(&inverted).unwrap_err();
        assert!(e.contains("inward"), "{e}");
    }
}
