//! What the built-in garments are cut with: points placed where a ray from
//! an axis leaves the body plus an ease, rings (and seams) bridged over
//! hollows, quads between consecutive rings (a band of zipped triangles
//! where a chart's first columns are long), and each face's triangles
//! given their own fitted shape as rest shape (so a garment starts
//! unstressed) and texture coordinates in metres.

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
    span(ring, centre, DVec3::X, DVec3::Z, true);
}

/// [`bridge`] in the plane through `centre` of the unit axes `u` and `v`
/// (angles run from `v` towards `u`), for a closed ring, or for an open
/// curve whose ends stay where they are (a seam between two rings).
pub fn span(points: &mut [DVec3], centre: DVec3, u: DVec3, v: DVec3, closed: bool) {
    let n = points.len();
    let polar = |p: DVec3| {
        let d = p - centre;
        (d.dot(u).atan2(d.dot(v)), DVec2::new(d.dot(u), d.dot(v)).length())
    };
    let inner = match closed {
        true => 0..n,
        false => 1..n.saturating_sub(1),
    };
    for _ in 0..200 {
        let mut moved = false;
        for i in inner.clone() {
            let (a0, r0) = polar(points[(i + n - 1) % n]);
            let (a, r) = polar(points[i]);
            let (a1, r1) = polar(points[(i + 1) % n]);
            // Angles from the point to its neighbours, in (-pi, pi].
            let turn = |x: f64| (x + PI).rem_euclid(TAU) - PI;
            let (before, after) = (turn(a - a0), turn(a1 - a));
            if !(before > 0.0 && after > 0.0 && before + after < PI) {
                continue;
            }
            // The chord's radius at the point's angle.
            let chord = r0 * r1 * (before + after).sin() / (r0 * before.sin() + r1 * after.sin());
            if chord > r * (1.0 + 1e-9) {
                let d = points[i] - centre;
                let planar = u * d.dot(u) + v * d.dot(v);
                points[i] = centre + (d - planar) + planar * chord / r;
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

/// A face between two consecutive rings: a quad, or, in a chart's band,
/// a triangle. Its corners run as the rings' quads do (down its first
/// column, then up its last: the first corner to the last runs along the
/// ring, the warp), its texture chart, and whether it closes a closed ring
/// (some of its corners are the ring's first column, and take that
/// column's texture coordinates at the ring's full length).
#[derive(Clone, Debug)]
pub struct Face {
    pub corners: Vec<u32>,
    pub chart: usize,
    pub closing: bool,
}

/// A chart: consecutive rings of vertices (all of one length), closed
/// (a tube) or open (a panel). Its `band`, if any, subdivides the columns
/// between its first two rings where they are long: column `i` of the
/// band holds the vertices between `rings[0][i]` and `rings[1][i]`, top
/// to bottom (none where one quad's height will do).
pub struct Chart<'a> {
    pub rings: &'a [Vec<u32>],
    pub closed: bool,
    pub band: Option<&'a [Vec<u32>]>,
}

impl Chart<'_> {
    /// Column `i` between rings `j` and `j + 1`, both ends included.
    fn column(&self, j: usize, i: usize) -> Vec<u32> {
        let middle = match (j, self.band) {
            (0, Some(band)) => band[i].as_slice(),
            _ => &[],
        };
        std::iter::once(self.rings[j][i])
            .chain(middle.iter().copied())
            .chain(std::iter::once(self.rings[j + 1][i]))
            .collect()
    }

    /// The faces between its consecutive rings, wound as the rings run
    /// when `outward`, else every one flipped (so that their normals look
    /// away from the body).
    pub fn faces(&self, chart: usize, outward: bool) -> Vec<Face> {
        let mut out = Vec::new();
        for j in 0..self.rings.len() - 1 {
            let n = self.rings[j].len();
            let count = if self.closed { n } else { n - 1 };
            for i in 0..count {
                let (a, b) = (self.column(j, i), self.column(j, (i + 1) % n));
                for mut corners in zip(&a, &b) {
                    if !outward {
                        corners.reverse();
                    }
                    out.push(Face {
                        corners,
                        chart,
                        closing: self.closed && i == n - 1,
                    });
                }
            }
        }
        out
    }
}

/// The faces between two neighbouring columns `a` and `b` (each top to
/// bottom, evenly divided): quads where both are divided alike, else the
/// triangles of a zipper that steps down whichever column's next point
/// lies higher in its column's length, so that no face spans much more
/// than a division of either.
fn zip(a: &[u32], b: &[u32]) -> Vec<Vec<u32>> {
    let (na, nb) = (a.len() - 1, b.len() - 1);
    let (mut i, mut j) = (0, 0);
    let mut faces = Vec::with_capacity(na + nb);
    while i < na || j < nb {
        // Column a's next point at (i + 1) / na of its length against b's
        // at (j + 1) / nb, in whole numbers.
        let (ahead_a, ahead_b) = ((i + 1) * nb, (j + 1) * na);
        if i < na && j < nb && ahead_a == ahead_b {
            faces.push(vec![a[i], a[i + 1], b[j + 1], b[j]]);
            (i, j) = (i + 1, j + 1);
        } else if j == nb || (i < na && ahead_a < ahead_b) {
            faces.push(vec![a[i], a[i + 1], b[j]]);
            i += 1;
        } else {
            faces.push(vec![a[i], b[j + 1], b[j]]);
            j += 1;
        }
    }
    faces
}

/// The garment as a mesh: the faces' triangles (fanned from each face's
/// first corner), each triangle's rest shape its own shape flattened with
/// the warp along its face's ring, the faces as polygons with texture
/// coordinates in metres (per chart: along each ring from its middle, and
/// down each column across the rings), and the groups.
pub fn garment(
    name: String,
    x: Vec<DVec3>,
    charts: &[Chart],
    faces: &[Face],
    groups: BTreeMap<String, Vec<u32>>,
) -> TriMesh {
    let fan = |c: &[u32]| (1..c.len() - 1).map(|k| [c[0], c[k], c[k + 1]]).collect::<Vec<_>>();
    let triangles: Vec<[u32; 3]> = faces.iter().flat_map(|f| fan(&f.corners)).collect();
    let uv: Vec<[DVec2; 3]> = faces
        .iter()
        .flat_map(|f| {
            let c = &f.corners;
            // Along the ring: the first corner's column to the last's
            // (either way round).
            let along = x[c[c.len() - 1] as usize] - x[c[0] as usize];
            fan(c)
                .into_iter()
                .map(|t| flatten(t.map(|v| x[v as usize]), along))
                .collect::<Vec<_>>()
        })
        .collect();
    let polygons = texture(&x, charts, faces);
    TriMesh {
        name,
        positions: x,
        faces: triangles,
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

/// The faces as polygons with texture coordinates in metres: along each
/// ring and across the rings, per chart (the seams between charts get
/// their own coordinates on each side); a band's points lie down their
/// columns, along the ring as far between the rings above and below as
/// they are down the column.
fn texture(x: &[DVec3], charts: &[Chart], faces: &[Face]) -> Polygons {
    let mut texcoords: Vec<DVec2> = Vec::new();
    // Per chart: (vertex, at the ring's closing column) -> texcoord; the
    // closing column repeats the first column at the ring's full length.
    let mut lookup: BTreeMap<(usize, u32, bool), u32> = BTreeMap::new();
    for (k, chart) in charts.iter().enumerate() {
        let rings = chart.rings;
        let n = rings[0].len();
        let columns = if chart.closed { n + 1 } else { n };
        // Across the rings: each column's length so far.
        let mut across = vec![0.0; columns];
        let mut above: Vec<f64> = Vec::new();
        for (j, ring) in rings.iter().enumerate() {
            // Along the ring, from its middle (rings of different lengths
            // then shear the chart half as much at its ends).
            let mut along = vec![0.0; columns];
            for i in 1..columns {
                along[i] = along[i - 1] + (x[ring[i % n] as usize] - x[ring[i - 1] as usize]).length();
            }
            let middle = along[columns - 1] / 2.0;
            along.iter_mut().for_each(|a| *a -= middle);
            if j > 0 {
                for i in 0..columns {
                    let column = chart.column(j - 1, i % n);
                    let mut down = vec![0.0; column.len()];
                    for m in 1..column.len() {
                        down[m] = down[m - 1] + (x[column[m] as usize] - x[column[m - 1] as usize]).length();
                    }
                    let total = down[column.len() - 1];
                    for m in 1..column.len() - 1 {
                        let s = down[m] / total;
                        lookup.insert((k, column[m], i == n), texcoords.len() as u32);
                        texcoords.push(DVec2::new(above[i] + (along[i] - above[i]) * s, -(across[i] + down[m])));
                    }
                    across[i] += total;
                }
            }
            for i in 0..columns {
                lookup.insert((k, ring[i % n], i == n), texcoords.len() as u32);
                texcoords.push(DVec2::new(along[i], -across[i]));
            }
            above = along;
        }
    }
    let mut polygons = Polygons::default();
    let mut corner_texcoords = Vec::with_capacity(4 * faces.len());
    for f in faces {
        polygons.counts.push(f.corners.len() as u32);
        polygons.corners.extend_from_slice(&f.corners);
        // A closing face's corners in the ring's first column (the ones
        // with closing coordinates) take them.
        for &v in &f.corners {
            let closing = f.closing && lookup.contains_key(&(f.chart, v, true));
            corner_texcoords.push(lookup[&(f.chart, v, closing)]);
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
        assert!(p.counts.iter().all(|&c| c == 3 || c == 4));
        assert_eq!(p.counts.iter().map(|&c| c as usize - 2).sum::<usize>(), t.faces.len());
        let corners = p.corner_texcoords.as_ref().unwrap();
        assert_eq!(corners.len(), p.corners.len());
        // Texture coordinates in metres: within 20% as long in all as the
        // faces' edges, each within 5x (a leg's first ring, half the pelvis
        // ring and the crotch seam, is far from flat, and the texture
        // shears below it).
        let (mut cloth, mut texture, mut first) = (0.0, 0.0, 0);
        for &count in &p.counts {
            let count = count as usize;
            let (q, c) = (&p.corners[first..first + count], &corners[first..first + count]);
            first += count;
            for k in 0..count {
                let (a, b) = (k, (k + 1) % count);
                let on_cloth = (t.positions[q[b] as usize] - t.positions[q[a] as usize]).length();
                let in_texture = (p.texcoords[c[b] as usize] - p.texcoords[c[a] as usize]).length();
                assert!(
                    in_texture > 0.2 * on_cloth && in_texture < 5.0 * on_cloth,
                    "a face's edge of {on_cloth} m at {} is {in_texture} m in the texture",
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
