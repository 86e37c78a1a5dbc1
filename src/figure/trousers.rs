//! Trousers fitted to the mannequin standing at rest, cut as trousers are:
//! a tube around the pelvis from the waist to the crotch, and two leg tubes
//! below it that share the pelvis tube's halves and the crotch seam, the
//! curve under the crotch from the front's middle to the back's. Every
//! vertex lies on a ray from an axis (the pelvis's, a leg's, the seam's
//! centre) where the body's surface ends plus an ease; each ring is pushed
//! out to its convex hull, as cloth bridges the hollows it spans. Faces are
//! quads, kept as the mesh's polygons (for the OBJ and USD output); each
//! triangle's rest shape is its own fitted shape flattened with the warp
//! along the ring, so the trousers start unstressed, warp around the body
//! and weft along it. The texture coordinates are in metres: along the
//! rings and down the columns, one chart for the pelvis tube and one per
//! leg.

use super::shape::Shape;
use super::skeleton::{ANKLE, HIP, KNEE};
use crate::mesh::{Polygons, TriMesh};
use glam::{DVec2, DVec3};
use std::collections::BTreeMap;

/// The waist's height, m.
const WAIST: f64 = 1.03;
/// Where the pelvis tube ends and the legs begin, m.
const CROTCH_RING: f64 = 0.84;
/// The hems' height, m.
const HEM: f64 = ANKLE.y + 0.03;
/// The pelvis tube's axis, off the body's middle plane, m.
const PELVIS_Z: f64 = -0.01;
/// The closest a leg of the trousers comes to the body's middle plane, m
/// (the legs' inner sides stay twice this apart).
const MIDDLE: f64 = 0.012;

/// Ease (the garment's distance from the skin) at height `y`: snug at the
/// waistband, looser over the hips, loosest at the hems.
fn ease(y: f64) -> f64 {
    let points = [
        (HEM, 0.03),
        (KNEE.y, 0.03),
        (CROTCH_RING, 0.025),
        (WAIST - 0.05, 0.02),
        (WAIST, 0.006),
    ];
    let k = points.iter().position(|p| p.0 >= y).unwrap_or(points.len() - 1);
    if k == 0 {
        return points[0].1;
    }
    let ((y0, e0), (y1, e1)) = (points[k - 1], points[k]);
    if y >= y1 {
        return e1;
    }
    e0 + (e1 - e0) * (y - y0) / (y1 - y0)
}

/// Where a ray from `from` along the unit `dir` leaves the body, plus
/// `ease`: the first point `ease` out of the body (bisected to a tenth of a
/// millimetre), or where it reaches `limit` metres first.
fn exit(shape: &Shape, from: DVec3, dir: DVec3, ease: f64, limit: f64) -> DVec3 {
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

/// Pushes a closed horizontal ring around `centre` out to its convex hull,
/// as cloth spans the hollows under it: each point that lies inside the
/// chord of its neighbours (in angle around the centre, less than half a
/// turn apart) moves out along its ray to the chord, until none does.
fn bridge(ring: &mut [DVec3], centre: DVec3) {
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
            let turn = |x: f64| (x + std::f64::consts::PI).rem_euclid(std::f64::consts::TAU) - std::f64::consts::PI;
            let (before, after) = (turn(a - a0), turn(a1 - a));
            if !(before > 0.0 && after > 0.0 && before + after < std::f64::consts::PI) {
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

/// The trousers with edges of about `edge` metres (0.018: about 3K
/// vertices; 0.007: about 20K).
pub fn trousers(shape: &Shape, edge: f64) -> TriMesh {
    let horizontal = |theta: f64| DVec3::new(theta.sin(), 0.0, theta.cos());
    let pelvis_ring = |y: f64, count: usize| -> Vec<DVec3> {
        let centre = DVec3::new(0.0, y, PELVIS_Z);
        let mut ring: Vec<DVec3> = (0..count)
            .map(|i| {
                let dir = horizontal(std::f64::consts::TAU * i as f64 / count as f64);
                exit(shape, centre, dir, ease(y), 1.0)
            })
            .collect();
        bridge(&mut ring, centre);
        ring
    };
    let perimeter = |ring: &[DVec3]| {
        (0..ring.len())
            .map(|i| (ring[(i + 1) % ring.len()] - ring[i]).length())
            .sum::<f64>()
    };
    // Half a pelvis ring, N, from the crotch ring's perimeter; the seam's M
    // from what a leg ring adds to the half ring.
    let half = ((perimeter(&pelvis_ring(CROTCH_RING, 96)) / (2.0 * edge)).round() as usize).max(6);
    let rings = (((WAIST - CROTCH_RING) / edge).round() as usize).max(2) + 1;
    let seam_centre = DVec3::new(0.0, CROTCH_RING, PELVIS_Z);
    let seam_dir = |psi: f64| DVec3::new(0.0, -psi.sin(), psi.cos());
    let coarse_seam: Vec<DVec3> = (0..=32)
        .map(|j| {
            let dir = seam_dir(std::f64::consts::PI * j as f64 / 32.0);
            exit(shape, seam_centre, dir, ease(CROTCH_RING), 1.0)
        })
        .collect();
    let seam_length: f64 = coarse_seam.windows(2).map(|w| (w[1] - w[0]).length()).sum();
    let seam_count = ((seam_length / edge).round() as usize).max(2);

    let mut x: Vec<DVec3> = Vec::new();
    let mut pelvis = Vec::new();
    for p in 0..rings {
        let y = WAIST - (WAIST - CROTCH_RING) * p as f64 / (rings - 1) as f64;
        let start = x.len() as u32;
        x.extend(pelvis_ring(y, 2 * half));
        pelvis.push((start..start + 2 * half as u32).collect::<Vec<u32>>());
    }
    let bottom = pelvis[rings - 1].clone();
    let seam: Vec<u32> = (1..seam_count)
        .map(|j| {
            x.push(exit(
                shape,
                seam_centre,
                seam_dir(std::f64::consts::PI * j as f64 / seam_count as f64),
                ease(CROTCH_RING),
                1.0,
            ));
            x.len() as u32 - 1
        })
        .collect();
    let lowest = seam.iter().map(|&v| x[v as usize].y).fold(f64::INFINITY, f64::min);

    // The legs: ring 0 is half the pelvis tube's last ring and the seam; the
    // rings below go round the leg's axis at the angles of ring 0's points,
    // evened out over the first rings.
    let top = lowest - edge;
    let leg_rings = (((top - HEM) / edge).round() as usize).max(2) + 1;
    let mut legs: Vec<Vec<Vec<u32>>> = Vec::new();
    for side in [1.0, -1.0] {
        let first: Vec<u32> = match side > 0.0 {
            true => bottom[..=half].iter().chain(seam.iter().rev()).copied().collect(),
            false => bottom[half..]
                .iter()
                .chain(std::iter::once(&bottom[0]))
                .chain(seam.iter())
                .copied()
                .collect(),
        };
        let axis = |y: f64| DVec3::new(side * HIP.x, y, 0.0);
        let count = first.len();
        let angle = |p: DVec3| {
            let d = p - axis(p.y);
            d.x.atan2(d.z)
        };
        // Ring 0's angles made increasing, and even ones from the same start.
        let mut start_angles = Vec::with_capacity(count);
        for &v in &first {
            let mut a = angle(x[v as usize]);
            if let Some(&prev) = start_angles.last() {
                while a < prev {
                    a += std::f64::consts::TAU;
                }
            }
            start_angles.push(a);
        }
        let even: Vec<f64> = (0..count)
            .map(|i| start_angles[0] + std::f64::consts::TAU * i as f64 / count as f64)
            .collect();
        let mut leg = vec![first];
        for j in 1..leg_rings {
            let y = top - (top - HEM) * (j - 1) as f64 / (leg_rings - 1) as f64;
            let s = ((j as f64 - 1.0) / 4.0).min(1.0);
            let centre = axis(y);
            let mut ring: Vec<DVec3> = (0..count)
                .map(|i| {
                    let a = start_angles[i] + (even[i] - start_angles[i]) * s;
                    let dir = horizontal(a);
                    // Not past the middle plane, where the other leg's
                    // trousers are: at most MIDDLE from it.
                    let inward = -side * dir.x;
                    let limit = match inward > 0.0 {
                        true => (HIP.x - MIDDLE) / inward,
                        false => 1.0,
                    };
                    exit(shape, centre, dir, ease(y), limit)
                })
                .collect();
            bridge(&mut ring, centre);
            let start = x.len() as u32;
            x.extend(ring);
            leg.push((start..start + count as u32).collect());
        }
        legs.push(leg);
    }

    // Quads between consecutive rings, wound outward, each with its chart
    // (0: the pelvis tube, 1 and 2: the legs) and whether it closes its
    // ring (its last two corners are the ring's first column).
    let mut quads: Vec<([u32; 4], usize, bool)> = Vec::new();
    let mut band = |upper: &[u32], lower: &[u32], chart: usize| {
        let n = upper.len();
        for i in 0..n {
            quads.push((
                [upper[i], lower[i], lower[(i + 1) % n], upper[(i + 1) % n]],
                chart,
                i == n - 1,
            ));
        }
    };
    for p in 0..rings - 1 {
        band(&pelvis[p], &pelvis[p + 1], 0);
    }
    for (k, leg) in legs.iter().enumerate() {
        for j in 0..leg.len() - 1 {
            band(&leg[j], &leg[j + 1], k + 1);
        }
    }
    let faces: Vec<[u32; 3]> = quads
        .iter()
        .flat_map(|(q, _, _)| [[q[0], q[1], q[2]], [q[0], q[2], q[3]]])
        .collect();

    // Rest shapes: each triangle flattened, the warp along its ring edge
    // (a quad's first to fourth corner runs along the ring).
    let uv: Vec<[DVec2; 3]> = quads
        .iter()
        .flat_map(|(q, _, _)| {
            let along = x[q[3] as usize] - x[q[0] as usize];
            [[q[0], q[1], q[2]], [q[0], q[2], q[3]]].map(|t| flatten(t.map(|v| x[v as usize]), along))
        })
        .collect();

    let groups = groups(&x, &pelvis, &legs, &seam);
    let polygons = texture(&x, &pelvis, &legs, &quads);
    TriMesh {
        name: format!("trousers (edge {edge} m)"),
        positions: x,
        faces,
        uv: Some(uv),
        named_sets: groups,
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

/// The named vertex groups (`group:NAME`).
fn groups(x: &[DVec3], pelvis: &[Vec<u32>], legs: &[Vec<Vec<u32>>], seam: &[u32]) -> BTreeMap<String, Vec<u32>> {
    let all_pelvis = pelvis.iter().flatten().copied();
    let all_legs = || legs.iter().flatten().flatten().copied();
    let select = |it: &mut dyn Iterator<Item = u32>, keep: &dyn Fn(DVec3) -> bool| {
        let mut v: Vec<u32> = it.filter(|&v| keep(x[v as usize])).collect();
        v.sort_unstable();
        v.dedup();
        v
    };
    let crotch = DVec3::new(
        0.0,
        seam.iter().map(|&v| x[v as usize].y).fold(f64::INFINITY, f64::min),
        PELVIS_Z,
    );
    let mut g = BTreeMap::new();
    g.insert("waistband", select(&mut all_pelvis.clone(), &|p| p.y >= WAIST - 0.03));
    g.insert("hems", select(&mut all_legs(), &|p| p.y <= HEM + 0.03));
    g.insert("knees", select(&mut all_legs(), &|p| (p.y - KNEE.y).abs() <= 0.08));
    g.insert(
        "seat",
        select(&mut all_pelvis.clone().chain(all_legs()), &|p| {
            p.z < PELVIS_Z && p.y > CROTCH_RING - 0.1 && p.y < WAIST - 0.05
        }),
    );
    g.insert(
        "crotch",
        select(&mut all_pelvis.chain(all_legs()), &|p| (p - crotch).length() <= 0.08),
    );
    g.insert("left_leg", select(&mut legs[0].iter().flatten().copied(), &|_| true));
    g.insert("right_leg", select(&mut legs[1].iter().flatten().copied(), &|_| true));
    g.into_iter().map(|(k, v)| (format!("group:{k}"), v)).collect()
}

/// The quads as polygons with texture coordinates in metres: along each
/// ring (from its first point) and down each column, a chart for the pelvis
/// tube and one for each leg (the seams between them get their own
/// coordinates on each side).
fn texture(x: &[DVec3], pelvis: &[Vec<u32>], legs: &[Vec<Vec<u32>>], quads: &[([u32; 4], usize, bool)]) -> Polygons {
    let mut texcoords: Vec<DVec2> = Vec::new();
    // Per chart: (vertex, at the ring's closing column) -> texcoord; the
    // closing column repeats the first vertex at the ring's full length.
    let mut lookup: BTreeMap<(usize, u32, bool), u32> = BTreeMap::new();
    for (chart, tube) in std::iter::once(pelvis)
        .chain(legs.iter().map(|l| l.as_slice()))
        .enumerate()
    {
        let n = tube[0].len();
        let mut down = vec![0.0; n + 1];
        for (j, ring) in tube.iter().enumerate() {
            if j > 0 {
                for (i, d) in down.iter_mut().enumerate() {
                    *d += (x[ring[i % n] as usize] - x[tube[j - 1][i % n] as usize]).length();
                }
            }
            let mut along = 0.0;
            for i in 0..=n {
                if i > 0 {
                    along += (x[ring[i % n] as usize] - x[ring[i - 1] as usize]).length();
                }
                lookup.insert((chart, ring[i % n], i == n), texcoords.len() as u32);
                texcoords.push(DVec2::new(along, -down[i]));
            }
        }
    }
    let mut polygons = Polygons::default();
    let mut corner_texcoords = Vec::with_capacity(4 * quads.len());
    for (q, chart, closing) in quads {
        polygons.counts.push(4);
        polygons.corners.extend_from_slice(q);
        for (c, &v) in q.iter().enumerate() {
            corner_texcoords.push(lookup[&(*chart, v, *closing && c >= 2)]);
        }
    }
    polygons.texcoords = texcoords;
    polygons.corner_texcoords = Some(corner_texcoords);
    polygons
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cloth::Cloth;
    use crate::mesh::Topology;

    #[test]
    fn the_trousers_are_a_clean_unstressed_pair_of_pants_around_the_body() {
        let shape = Shape::default();
        let t = trousers(&shape, 0.02);
        let n = t.positions.len();
        println!("trousers: {n} vertices, {} triangles", t.faces.len());
        assert!((2_500..4_000).contains(&n), "{n} vertices");
        // Manifold and consistently wound, with three openings: the waist
        // and the two hems.
        let topology = Topology::build(&t).unwrap();
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
        assert_eq!(loops, 3);
        // Outside the body by about the ease, every face facing away from it.
        for p in &t.positions {
            let d = shape.rest_distance(*p);
            assert!((0.004..0.08).contains(&d), "{p} is {d} m from the skin");
        }
        for f in &t.faces {
            let [a, b, c] = f.map(|v| t.positions[v as usize]);
            let n = (b - a).cross(c - a);
            let out = shape.gradient((a + b + c) / 3.0, &[super::super::skeleton::Rigid::IDENTITY; 17]);
            assert!(n.dot(out) > 0.0, "a face at {a} faces the body");
        }
        // Unstressed as fitted: every triangle's rest shape is its shape.
        let uv = t.uv.as_ref().unwrap();
        for (f, rest) in t.faces.iter().zip(uv) {
            for k in 0..3 {
                let edge = (t.positions[f[(k + 1) % 3] as usize] - t.positions[f[k] as usize]).length();
                assert!((edge - (rest[(k + 1) % 3] - rest[k]).length()).abs() < 1e-12);
            }
        }
        let material = crate::model::material::preset("trousers-cotton").unwrap();
        Cloth::new(t.clone(), material, 0.0, DVec3::X).unwrap();
        for g in ["waistband", "hems", "knees", "seat", "crotch"] {
            let count = t.named_sets[&format!("group:{g}")].len();
            assert!(count > 20, "group {g}: {count} vertices");
        }
        // Quads kept for output, with texture coordinates in metres: a leg's
        // ring is about 55 cm round at the thigh.
        let p = t.polygons.as_ref().unwrap();
        assert!(p.counts.iter().all(|&c| c == 4) && 2 * p.counts.len() == t.faces.len());
        let widest = p.texcoords.iter().map(|c| c.x).fold(0.0, f64::max);
        assert!((0.8..1.4).contains(&widest), "the pelvis ring is {widest} m round");
    }
}
