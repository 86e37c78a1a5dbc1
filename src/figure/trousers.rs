//! Trousers fitted to the mannequin standing at rest, cut as trousers are:
//! a tube around the pelvis from the waist to the crotch, and two leg tubes
//! below it that share the pelvis tube's halves and the crotch seam, the
//! curve under the crotch from the front's middle to the back's. Every
//! vertex lies on a ray from an axis (the pelvis's, a leg's, the seam's
//! centre) where the body's surface ends plus an ease; each ring, and the
//! seam, is pushed out to its convex hull, as cloth bridges the hollows it
//! spans. Faces are quads between consecutive rings, but for the band
//! between a leg's first ring (which climbs from the seam to the crotch
//! ring) and its second (level): there each column is divided into edges
//! of about the mesh's, and neighbouring columns are zipped with
//! triangles. The faces are kept as the mesh's polygons (for the OBJ and
//! USD output); each triangle's rest shape is its own fitted shape
//! flattened with the warp along the ring, so the trousers start
//! unstressed, warp around the body and weft along it. The texture
//! coordinates are in metres: along the rings and down the columns, one
//! chart for the pelvis tube and one per leg.

use super::cut::{Chart, bridge, exit, garment, horizontal, select, span};
use super::shape::Shape;
use super::skeleton::{ANKLE, HIP, KNEE};
use crate::mesh::TriMesh;
use glam::DVec3;
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
/// How far down a leg its rings' points go from ring 0's angles to even
/// spacing along the ring, m: by length, not by rings, so that at any
/// resolution a ring's points move along it by less than the rings are
/// apart (faster, the quads under the crotch seam would turn inside out).
/// Over 7 cm the inner thigh's ring edges under the crotch kept the seam's
/// crowding (8.4 mm at 2 cm edges) and lifting a leg stretched them 37.1%
/// (cotton; denim 35.3%); over 4 cm they are 10.4 mm and the worst edge,
/// under the back of the crotch seam, 30.4% (denim 31.8%; 29.3% and 31.2%
/// since 2026-12-07); over 2.5 cm the
/// band's columns under the seam's back split into 8 mm pieces (44%;
/// docs/garments.md).
const EVEN: f64 = 0.04;
/// The waistband's height below the waist, m: the band the scenes attach
/// to the hips, on the skin that rides on the pelvis alone. Below it, the
/// skin at the sides of the hips is in the thighs' blend and stretches as
/// they rise (15% sitting 2.5 to 3 cm below the waist, 44% at 5 cm):
/// attached down to 3 cm, the full trousers' lowest attached ring
/// stretched with it, 30.1% seated (7.8 mm edges, 2026-12-07).
const WAISTBAND: f64 = 0.0175;
/// The knees group's reach above and below the knee, m.
const KNEES: f64 = 0.08;
/// How far the crotch seam hangs below the body's crotch at most, m.
/// Without a floor the seam's rays, straight down between the thighs,
/// stay nearer the thighs than the ease for 8 cm more, and the seam hung
/// a web from leg to leg there, which a lifted leg stretched threefold.
/// At 2 cm (before 2026-12-01) the cloth at the crotch's corners had too
/// little room for a lifted leg: single edges there stretched 35% (2.5 cm
/// edges), where at 3.5 cm they stretch 29%.
const SEAM_DROP: f64 = 0.035;

/// Ease (the garment's distance from the skin) at height `y`: snug at the
/// waistband, looser over the hips, loosest round the knees, whose rings
/// a bent knee pulls over itself (at 3 cm the front of the knees
/// stretched 29% sitting and 48% lifting a leg, at 4 cm 26% and 40%;
/// lifting the thigh level, as the clip did before 2026-11-26).
fn ease(y: f64) -> f64 {
    let points = [
        (HEM, 0.03),
        (KNEE.y, 0.04),
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

/// The lengths along the closed polyline `ring` from its first point to
/// each of its points, and back to the first (`ring.len() + 1` of them).
fn cumulative(ring: &[DVec3]) -> Vec<f64> {
    let n = ring.len();
    let mut lengths = vec![0.0; n + 1];
    for i in 0..n {
        lengths[i + 1] = lengths[i] + (ring[(i + 1) % n] - ring[i]).length();
    }
    lengths
}

/// The fractions of the closed ring `ring`'s length, from its first
/// point, at the turns `turns` (from 0 to 1) of its points, which lie at
/// evenly spaced angles round its axis.
fn fractions(ring: &[DVec3], turns: &[f64]) -> Vec<f64> {
    let (n, lengths) = (ring.len(), cumulative(ring));
    turns
        .iter()
        .map(|t| {
            let at = t * n as f64;
            let k = (at.floor() as usize).min(n - 1);
            let u = at - k as f64;
            (lengths[k] + (lengths[k + 1] - lengths[k]) * u) / lengths[n]
        })
        .collect()
}

/// The points at fractions `at` (from 0 to 1, rising) of the closed
/// polyline `ring`'s length from its first point.
fn along(ring: &[DVec3], at: &[f64]) -> Vec<DVec3> {
    let (n, lengths) = (ring.len(), cumulative(ring));
    spaced(
        ring,
        &lengths[..=n],
        &at.iter().map(|f| f * lengths[n]).collect::<Vec<_>>(),
    )
}

/// The points at lengths `at` (rising) along the polyline `line` that
/// reaches its points (and, for a closed one, its first again) at lengths
/// `lengths`.
fn spaced(line: &[DVec3], lengths: &[f64], at: &[f64]) -> Vec<DVec3> {
    let (n, segments) = (line.len(), lengths.len() - 1);
    let mut k = 0;
    at.iter()
        .map(|&target| {
            while k + 1 < segments && lengths[k + 1] < target {
                k += 1;
            }
            let u = ((target - lengths[k]) / (lengths[k + 1] - lengths[k])).clamp(0.0, 1.0);
            line[k].lerp(line[(k + 1) % n], u)
        })
        .collect()
}

/// The trousers with edges of about `edge` metres (0.018: about 3K
/// vertices; 0.007: about 20K).
pub fn trousers(shape: &Shape, edge: f64) -> TriMesh {
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
    // A seam point: on its ray, the ease out of the body, but not below
    // the floor.
    let floor = exit(shape, seam_centre, DVec3::NEG_Y, 0.0, 1.0).y - SEAM_DROP;
    let seam_point = |psi: f64| {
        let dir = seam_dir(psi);
        let limit = match dir.y < -1e-9 {
            true => (CROTCH_RING - floor) / -dir.y,
            false => 1.0,
        };
        exit(shape, seam_centre, dir, ease(CROTCH_RING), limit)
    };
    let coarse_seam: Vec<DVec3> = (0..=32)
        .map(|j| seam_point(std::f64::consts::PI * j as f64 / 32.0))
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
    // The seam traced finely from the crotch ring's front point to its
    // back one, spanned over the hollow between the buttocks as the rings
    // are bridged (unspanned, it dipped 2 cm into it behind, and the
    // faces below it stood on edge), its points even along it.
    let dense = 8 * seam_count;
    let mut traced: Vec<DVec3> = (0..=dense)
        .map(|j| seam_point(std::f64::consts::PI * j as f64 / dense as f64))
        .collect();
    (traced[0], traced[dense]) = (x[bottom[0] as usize], x[bottom[half] as usize]);
    span(&mut traced, seam_centre, DVec3::NEG_Y, DVec3::Z, false);
    // The open curve's lengths: the closed ring's without its closing one.
    let lengths = &cumulative(&traced)[..=dense];
    let at: Vec<f64> = (1..seam_count)
        .map(|j| lengths[dense] * j as f64 / seam_count as f64)
        .collect();
    let seam: Vec<u32> = spaced(&traced, lengths, &at)
        .into_iter()
        .map(|p| {
            x.push(p);
            x.len() as u32 - 1
        })
        .collect();
    let lowest = seam.iter().map(|&v| x[v as usize].y).fold(f64::INFINITY, f64::min);

    // The legs: ring 0 is half the pelvis tube's last ring and the seam;
    // each ring below is traced round the leg's axis and its points placed
    // along it: first where ring 0's angles fall, then evened out by
    // length over [`EVEN`] (by length, not by angle: rays stopped at the
    // middle plane crowd the inner side's points together).
    let top = lowest - edge;
    let leg_rings = (((top - HEM) / edge).round() as usize).max(2) + 1;
    let mut legs: Vec<Vec<Vec<u32>>> = Vec::new();
    let mut bands: Vec<Vec<Vec<u32>>> = Vec::new();
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
        let start = {
            let d = x[first[0] as usize] - axis(0.0);
            d.x.atan2(d.z)
        };
        // Ring 0's points' angles round the axis, as turns from the first
        // point's, rising.
        let turns: Vec<f64> = first
            .iter()
            .map(|&v| {
                let d = x[v as usize] - axis(0.0);
                (d.x.atan2(d.z) - start).rem_euclid(std::f64::consts::TAU) / std::f64::consts::TAU
            })
            .collect();
        let mut leg = vec![first];
        for j in 1..leg_rings {
            let y = top - (top - HEM) * (j - 1) as f64 / (leg_rings - 2).max(1) as f64;
            let centre = axis(y);
            // Traced at eight times the ring's points, finely enough to
            // measure lengths along it.
            let dense = 8 * count;
            let mut traced: Vec<DVec3> = (0..dense)
                .map(|k| {
                    let dir = horizontal(start + std::f64::consts::TAU * k as f64 / dense as f64);
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
            bridge(&mut traced, centre);
            // Where ring 0's angles fall along the ring, evened out by
            // length over the first rings.
            let s = (j as f64 * edge / EVEN).min(1.0);
            let at: Vec<f64> = fractions(&traced, &turns)
                .iter()
                .enumerate()
                .map(|(i, f)| f + (i as f64 / count as f64 - f) * s)
                .collect();
            let first = x.len() as u32;
            x.extend(along(&traced, &at));
            leg.push((first..first + count as u32).collect());
        }
        // The band between rings 0 and 1: each column divided into edges
        // of about `edge` (below the crotch ring at the hip's back and
        // side a column is up to 10 cm long, where the seam's are one
        // edge), its points on the chord from ring 0 to ring 1, pushed out
        // round the leg's axis to the ease where the body bulges past it.
        let band: Vec<Vec<u32>> = (0..count)
            .map(|i| {
                let (upper, lower) = (x[leg[0][i] as usize], x[leg[1][i] as usize]);
                let divisions = ((upper - lower).length() / edge).round().max(1.0) as usize;
                (1..divisions)
                    .map(|k| {
                        let chord = upper.lerp(lower, k as f64 / divisions as f64);
                        let centre = axis(chord.y);
                        let out = DVec3::new(chord.x - centre.x, 0.0, chord.z - centre.z).normalize();
                        // Not towards the middle plane past MIDDLE from it.
                        let inward = -side * out.x;
                        let limit = match inward > 0.0 {
                            true => (side * chord.x - MIDDLE).max(0.0) / inward,
                            false => 1.0,
                        };
                        x.push(exit(shape, chord, out, ease(chord.y), limit));
                        x.len() as u32 - 1
                    })
                    .collect()
            })
            .collect();
        legs.push(leg);
        bands.push(band);
    }

    // Quads between consecutive rings, wound outward; a chart for the
    // pelvis tube and one per leg.
    let mut charts = vec![Chart {
        rings: &pelvis,
        closed: true,
        band: None,
    }];
    charts.extend(legs.iter().zip(&bands).map(|(leg, band)| Chart {
        rings: leg,
        closed: true,
        band: Some(band),
    }));
    let faces: Vec<_> = charts.iter().enumerate().flat_map(|(k, c)| c.faces(k, true)).collect();
    let groups = groups(&x, &pelvis, &legs, &bands, &seam);
    garment(format!("trousers (edge {edge} m)"), x, &charts, &faces, groups)
}

/// The named vertex groups.
fn groups(
    x: &[DVec3],
    pelvis: &[Vec<u32>],
    legs: &[Vec<Vec<u32>>],
    bands: &[Vec<Vec<u32>>],
    seam: &[u32],
) -> BTreeMap<String, Vec<u32>> {
    let all_pelvis = pelvis.iter().flatten().copied();
    let leg = |k: usize| legs[k].iter().chain(&bands[k]).flatten().copied();
    let all_legs = || leg(0).chain(leg(1));
    let crotch = DVec3::new(
        0.0,
        seam.iter().map(|&v| x[v as usize].y).fold(f64::INFINITY, f64::min),
        PELVIS_Z,
    );
    let mut g = BTreeMap::new();
    g.insert("waistband", select(x, all_pelvis.clone(), |p| p.y >= WAIST - WAISTBAND));
    g.insert("hems", select(x, all_legs(), |p| p.y <= HEM + 0.03));
    let knee = |p: DVec3| (p.y - KNEE.y).abs() <= KNEES;
    g.insert("knees", select(x, all_legs(), knee));
    // Each knee on its own too: lifting a leg bends one.
    g.insert("left_knee", select(x, leg(0), knee));
    g.insert("right_knee", select(x, leg(1), knee));
    // The seat: what sits on a seat, the back below the waistband, over
    // the buttocks and down the thighs to the knees' band. Sitting, the
    // cloth over the buttocks is pulled taut and the folds form below
    // them, behind the bottom.
    g.insert(
        "seat",
        select(x, all_pelvis.clone().chain(all_legs()), |p| {
            p.z < PELVIS_Z && p.y > KNEE.y + KNEES && p.y < WAIST - 0.05
        }),
    );
    g.insert(
        "crotch",
        select(x, all_pelvis.chain(all_legs()), |p| (p - crotch).length() <= 0.08),
    );
    g.insert("left_leg", select(x, leg(0), |_| true));
    g.insert("right_leg", select(x, leg(1), |_| true));
    g.into_iter().map(|(k, v)| (k.to_string(), v)).collect()
}

#[cfg(test)]
mod tests {
    use super::super::cut::tests::check_garment;
    use super::*;

    #[test]
    fn the_trousers_are_a_clean_unstressed_pair_of_pants_around_the_body() {
        let shape = Shape::default();
        let t = trousers(&shape, 0.02);
        // Three openings: the waist and the two hems; a leg's ring is about
        // 55 cm round at the thigh, the pelvis ring about a metre (its chart
        // centred on the ring's middle).
        check_garment(
            &t,
            &shape,
            2_500..4_000,
            3,
            &[
                "waistband",
                "hems",
                "knees",
                "left_knee",
                "right_knee",
                "seat",
                "crotch",
            ],
        );
        // Each knee's group is the knees' band on its own leg.
        let group = |g: &str| &t.named_sets[&format!("group:{g}")];
        let mut both: Vec<u32> = group("left_knee").iter().chain(group("right_knee")).copied().collect();
        both.sort_unstable();
        assert_eq!(&both, group("knees"));
        for (knee, leg) in [("left_knee", "left_leg"), ("right_knee", "right_leg")] {
            assert!(
                group(knee).iter().all(|v| group(leg).binary_search(v).is_ok()),
                "{knee}"
            );
        }
        let p = t.polygons.as_ref().unwrap();
        let (lo, hi) = p
            .texcoords
            .iter()
            .fold((0.0f64, 0.0f64), |(lo, hi), c| (lo.min(c.x), hi.max(c.x)));
        assert!(
            (0.8..1.4).contains(&(hi - lo)),
            "the pelvis ring is {} m round",
            hi - lo
        );
        // No face stands on edge: every side within twice the edge, and
        // every triangle at most 5 times as long as it is high (measured
        // 1.90 and 4.62, 1.81 and 4.76 with the leg rings evened over 7
        // cm; before the band below the crotch ring was divided
        // and the seam spanned, 5.0 and 9.7).
        let (mut longest, mut slimmest) = (0.0f64, 0.0f64);
        for f in &t.faces {
            let [a, b, c] = f.map(|v| t.positions[v as usize]);
            let side = (b - a).length().max((c - b).length()).max((a - c).length());
            let height = (b - a).cross(c - a).length() / side;
            (longest, slimmest) = (longest.max(side), slimmest.max(side / height));
        }
        println!("longest side {longest} m, longest triangle {slimmest} times its height");
        assert!(longest <= 2.0 * 0.02 && slimmest <= 5.0, "{longest} m, {slimmest}");
    }
}
