//! What the built-in garments are cut with: points placed where a ray from
//! an axis leaves the body plus an ease, rings bridged over hollows, quads
//! between consecutive rings, and each quad's triangles given their own
//! fitted shape as rest shape (so a garment starts unstressed) and texture
//! coordinates in metres.

use super::shape::Shape;
use crate::mesh::{Polygons, TriMesh};
use glam::{DVec2, DVec3};
use std::collections::BTreeMap;
use std::f64::consts::{PI, TAU};

/// Where a ray from `from` along the unit `dir` leaves the body, plus
/// `ease`: the first point `ease` out of the body (bisected to a tenth of a
/// millimetre), or where it reaches `limit` metres first.
pub fn exit(shape: &Shape, from: DVec3, dir: DVec3, ease: f64, limit: f64) -> DVec3 {
    let outside = |t: f64| shape.rest_distance(from + dir * t) >= ease;
    let step = 0.002;
    let mut t = 0.0;
    while !outside(t) && t < limit {
        t += step;
    }
    if t >= limit {
        return from + dir * limit;
    }
    let (mut lo, mut hi) = ((t - step).max(0.0), t);
    while hi - lo > 1e-4 {
        let mid = 0.5 * (lo + hi);
        if outside(mid) { hi = mid } else { lo = mid }
    }
    from + dir * hi
}

/// The unit direction at angle `theta` round the vertical axis: 0 is the
/// front (+z), a quarter turn the body's left (+x).
pub fn horizontal(theta: f64) -> DVec3 {
    DVec3::new(theta.sin(), 0.0, theta.cos())
}

/// Pushes a closed horizontal ring around `centre` out to its convex hull,
/// as cloth spans the hollows under it: each point that lies inside the
/// chord of its neighbours (in angle around the centre, less than half a
/// turn apart) moves out along its ray to the chord, until none does.
pub fn bridge(ring: &mut [DVec3], centre: DVec3) {
    let n = ring.len();
    let polar = |p: DVec3| {
        let d = p - centre;
        (d.x.atan2(d.z), DVec3::new(d.x, 0.0, d.z).length())
    };
    for _ in 0..200 {
        let mut moved = false;
        for i in 0..n {
            let (a0, r0) = polar(ring[(i + n - 1) % n]);
            let (a, r) = polar(ring[i]);
            let (a1, r1) = polar(ring[(i + 1) % n]);
            // Angles from the point to its neighbours, in (-pi, pi].
            let turn = |x: f64| (x + PI).rem_euclid(TAU) - PI;
            let (before, after) = (turn(a - a0), turn(a1 - a));
            if !(before > 0.0 && after > 0.0 && before + after < PI) {
                continue;
            }
            // The chord's radius at the point's angle.
            let chord = r0 * r1 * (before + after).sin() / (r0 * before.sin() + r1 * after.sin());
            if chord > r * (1.0 + 1e-9) {
                let d = ring[i] - centre;
                ring[i] = centre + DVec3::new(d.x * chord / r, d.y, d.z * chord / r);
                moved = true;
            }
        }
        if !moved {
            return;
        }
    }
}

/// Angles that start as `start` (made increasing, in turns of `TAU`) and
/// even out from `start[0]` over `over` rings: ring `j`'s angles, for a
/// garment's rings below (or beyond) a ring whose points are spaced
/// unevenly (a seam's, a shared half ring's).
pub fn evened(start: &[f64], j: usize, over: f64) -> Vec<f64> {
    let mut rising = Vec::with_capacity(start.len());
    for &a in start {
        let mut a = a;
        if let Some(&prev) = rising.last() {
            while a < prev {
                a += TAU;
            }
        }
        rising.push(a);
    }
    let s = (j as f64 / over).min(1.0);
    let n = start.len() as f64;
    rising
        .iter()
        .enumerate()
        .map(|(i, a)| a + (rising[0] + TAU * i as f64 / n - a) * s)
        .collect()
}

/// The vertices of `vertices` whose position in `x` passes `keep`, sorted
/// and each once: a garment's group.
pub fn select(x: &[DVec3], vertices: impl Iterator<Item = u32>, keep: impl Fn(DVec3) -> bool) -> Vec<u32> {
    let mut v: Vec<u32> = vertices.filter(|&v| keep(x[v as usize])).collect();
    v.sort_unstable();
    v.dedup();
    v
}

/// A quad between two consecutive rings: its corners (the first to the
/// fourth runs along the ring: the warp), its texture chart, and whether
/// it closes a closed ring (two of its corners are the ring's first
/// column, and take that column's texture coordinates at the ring's full
/// length).
#[derive(Clone, Copy, Debug)]
pub struct Quad {
    pub corners: [u32; 4],
    pub chart: usize,
    pub closing: bool,
}

/// A chart: consecutive rings of vertices (all of one length), closed
/// (a tube) or open (a panel).
pub struct Chart<'a> {
    pub rings: &'a [Vec<u32>],
    pub closed: bool,
}

impl Chart<'_> {
    /// The quads between its consecutive rings, wound as the rings run
    /// when `outward`, else every one flipped (so that their normals look
    /// away from the body).
    pub fn quads(&self, chart: usize, outward: bool) -> Vec<Quad> {
        let mut out = Vec::new();
        for w in self.rings.windows(2) {
            let (upper, lower) = (&w[0], &w[1]);
            let n = upper.len();
            let count = if self.closed { n } else { n - 1 };
            for i in 0..count {
                let (a, b) = (i, (i + 1) % n);
                let corners = match outward {
                    true => [upper[a], lower[a], lower[b], upper[b]],
                    false => [upper[b], lower[b], lower[a], upper[a]],
                };
                out.push(Quad {
                    corners,
                    chart,
                    closing: self.closed && i == n - 1,
                });
            }
        }
        out
    }
}

/// The garment as a mesh: the quads' triangles, each triangle's rest shape
/// its own shape flattened with the warp along its quad's ring, the quads
/// as polygons with texture coordinates in metres (per chart: along each
/// ring from its middle, and down each column across the rings), and the
/// groups.
pub fn garment(
    name: String,
    x: Vec<DVec3>,
    charts: &[Chart],
    quads: &[Quad],
    groups: BTreeMap<String, Vec<u32>>,
) -> TriMesh {
    let faces: Vec<[u32; 3]> = quads
        .iter()
        .flat_map(|q| {
            let c = q.corners;
            [[c[0], c[1], c[2]], [c[0], c[2], c[3]]]
        })
        .collect();
    let uv: Vec<[DVec2; 3]> = quads
        .iter()
        .flat_map(|q| {
            let c = q.corners;
            // Along the ring: first corner to fourth (either way round).
            let along = x[c[3] as usize] - x[c[0] as usize];
            [[c[0], c[1], c[2]], [c[0], c[2], c[3]]].map(|t| flatten(t.map(|v| x[v as usize]), along))
        })
        .collect();
    let polygons = texture(&x, charts, quads);
    TriMesh {
        name,
        positions: x,
        faces,
        uv: Some(uv),
        named_sets: groups.into_iter().map(|(k, v)| (format!("group:{k}"), v)).collect(),
        polygons: Some(polygons),
    }
}

/// A triangle's own shape in its plane, u along `along` projected into it.
fn flatten(t: [DVec3; 3], along: DVec3) -> [DVec2; 3] {
    let n = (t[1] - t[0]).cross(t[2] - t[0]).normalize_or_zero();
    let u = (along - n * n.dot(along)).normalize_or_zero();
    let v = n.cross(u);
    t.map(|p| DVec2::new((p - t[0]).dot(u), (p - t[0]).dot(v)))
}

/// The quads as polygons with texture coordinates in metres: along each
/// ring and across the rings, per chart (the seams between charts get
/// their own coordinates on each side).
fn texture(x: &[DVec3], charts: &[Chart], quads: &[Quad]) -> Polygons {
    let mut texcoords: Vec<DVec2> = Vec::new();
    // Per chart: (vertex, at the ring's closing column) -> texcoord; the
    // closing column repeats the first vertex at the ring's full length.
    let mut lookup: BTreeMap<(usize, u32, bool), u32> = BTreeMap::new();
    for (k, chart) in charts.iter().enumerate() {
        let rings = chart.rings;
        let n = rings[0].len();
        let columns = if chart.closed { n + 1 } else { n };
        // Across the rings: each column's length so far.
        let mut across = vec![0.0; columns];
        for (j, ring) in rings.iter().enumerate() {
            if j > 0 {
                for (i, d) in across.iter_mut().enumerate() {
                    *d += (x[ring[i % n] as usize] - x[rings[j - 1][i % n] as usize]).length();
                }
            }
            // Along the ring, from its middle (rings of different lengths
            // then shear the chart half as much at its ends).
            let mut along = vec![0.0; columns];
            for i in 1..columns {
                along[i] = along[i - 1] + (x[ring[i % n] as usize] - x[ring[i - 1] as usize]).length();
            }
            let middle = along[columns - 1] / 2.0;
            for i in 0..columns {
                lookup.insert((k, ring[i % n], i == n), texcoords.len() as u32);
                texcoords.push(DVec2::new(along[i] - middle, -across[i]));
            }
        }
    }
    let mut polygons = Polygons::default();
    let mut corner_texcoords = Vec::with_capacity(4 * quads.len());
    for q in quads {
        polygons.counts.push(4);
        polygons.corners.extend_from_slice(&q.corners);
        // A closing quad's corners in the ring's first column take the
        // closing column's coordinates.
        let rings = charts[q.chart].rings;
        let closing = |v: u32| q.closing && rings.iter().any(|r| r[0] == v);
        for &v in &q.corners {
            corner_texcoords.push(lookup[&(q.chart, v, closing(v))]);
        }
    }
    polygons.texcoords = texcoords;
    polygons.corner_texcoords = Some(corner_texcoords);
    polygons
}

#[cfg(test)]
pub mod tests {
    use super::super::skeleton::{BONE_COUNT, Rigid};
    use super::*;
    use crate::cloth::Cloth;
    use crate::mesh::Topology;

    /// A garment fresh from its cutting: `vertices` in range, manifold and
    /// consistently wound with `openings` boundary loops; every vertex
    /// outside the body by about an ease and every face looking away from
    /// it; unstressed (each triangle's rest shape its fitted shape); every
    /// group in `groups` with more than 20 vertices; its quads kept as
    /// polygons with a texture coordinate per corner.
    pub fn check_garment(
        t: &TriMesh,
        shape: &Shape,
        vertices: std::ops::Range<usize>,
        openings: usize,
        groups: &[&str],
    ) {
        let n = t.positions.len();
        println!("{}: {n} vertices, {} triangles", t.name, t.faces.len());
        assert!(vertices.contains(&n), "{n} vertices");
        let topology = Topology::build(t).unwrap();
        let mut boundary = topology.boundary_edges.clone();
        let mut loops = 0;
        while let Some([a, _]) = boundary.first().copied() {
            let mut at = a;
            loop {
                let k = boundary.iter().position(|e| e.contains(&at)).unwrap();
                let e = boundary.remove(k);
                at = if e[0] == at { e[1] } else { e[0] };
                if at == a {
                    break;
                }
            }
            loops += 1;
        }
        assert_eq!(loops, openings, "openings");
        for p in &t.positions {
            let d = shape.rest_distance(*p);
            assert!((0.004..0.08).contains(&d), "{p} is {d} m from the skin");
        }
        for f in &t.faces {
            let [a, b, c] = f.map(|v| t.positions[v as usize]);
            let n = (b - a).cross(c - a);
            let out = shape.gradient((a + b + c) / 3.0, &[Rigid::IDENTITY; BONE_COUNT]);
            assert!(
                n.dot(out) > 0.0,
                "a face at {a} {b} {c} faces the body: normal {n}, outward {out}"
            );
        }
        let uv = t.uv.as_ref().unwrap();
        for (f, rest) in t.faces.iter().zip(uv) {
            for k in 0..3 {
                let edge = (t.positions[f[(k + 1) % 3] as usize] - t.positions[f[k] as usize]).length();
                assert!((edge - (rest[(k + 1) % 3] - rest[k]).length()).abs() < 1e-12);
            }
        }
        let material = crate::model::material::preset("trousers-cotton").unwrap();
        Cloth::new(t.clone(), material, 0.0, DVec3::X).unwrap();
        for g in groups {
            let count = t.named_sets[&format!("group:{g}")].len();
            assert!(count > 20, "group {g}: {count} vertices");
        }
        let p = t.polygons.as_ref().unwrap();
        assert!(p.counts.iter().all(|&c| c == 4) && 2 * p.counts.len() == t.faces.len());
        let corners = p.corner_texcoords.as_ref().unwrap();
        assert_eq!(corners.len(), p.corners.len());
        // Texture coordinates in metres: within 20% as long in all as the
        // quads' edges, each within 5x (a leg's first ring, half the pelvis
        // ring and the crotch seam, is far from flat, and the texture
        // shears below it).
        let (mut cloth, mut texture) = (0.0, 0.0);
        for (q, c) in p.corners.chunks(4).zip(corners.chunks(4)) {
            for k in 0..4 {
                let (a, b) = (k, (k + 1) % 4);
                let on_cloth = (t.positions[q[b] as usize] - t.positions[q[a] as usize]).length();
                let in_texture = (p.texcoords[c[b] as usize] - p.texcoords[c[a] as usize]).length();
                assert!(
                    in_texture > 0.2 * on_cloth && in_texture < 5.0 * on_cloth,
                    "a quad edge of {on_cloth} m at {} is {in_texture} m in the texture",
                    t.positions[q[a] as usize]
                );
                (cloth, texture) = (cloth + on_cloth, texture + in_texture);
            }
        }
        assert!(
            (texture / cloth - 1.0).abs() < 0.2,
            "texture {texture} m of edges, cloth {cloth} m"
        );
    }
}
