//! A long-sleeved t-shirt fitted to the mannequin in its T pose (the rest
//! pose, arms level along x), cut in three parts that share their seams:
//!
//! - the yoke over the shoulders: a front and a back panel of arcs round
//!   the arms' axis (the line through both shoulders), one arc per column
//!   across the chest, from the armpits' height over the shoulder to the
//!   ridge on top, where front and back meet; round the neck the arcs stop
//!   short of the ridge, at the neckline;
//! - the sleeves: rings round the arms' axis from the armpit to the wrist,
//!   the first made of the yoke's outermost arcs and the underarm seam
//!   below them;
//! - the body: rings round the vertical axis from the armpits down to the
//!   hem, the first made of the yoke's lowest points and both underarm
//!   seams.
//!
//! Points are placed as the trousers' are (`cut.rs`): where a ray from the
//! part's axis leaves the body, plus an ease. Rest shapes are the fitted
//! shapes, so the shirt starts unstressed; the warp runs round the body and
//! the arms.

use super::cut::{Chart, bridge, evened, exit, garment, horizontal, select};
use super::shape::Shape;
use super::skeleton::{ELBOW, WRIST};
use crate::mesh::TriMesh;
use glam::DVec3;
use std::collections::BTreeMap;
use std::f64::consts::{FRAC_PI_2, PI, TAU};

/// The arms' axis: the line along x at this height (and z = 0), m.
const ARM_AXIS_Y: f64 = 1.43;
/// Where the sleeves begin, |x|, m: just outside the chest's side.
const ARMPIT_X: f64 = 0.2;
/// The height of the body tube's top ring (the yoke's lowest points), m.
const ARMPIT_Y: f64 = 1.355;
/// Where the neckline's opening spans, |x| < this, m.
const NECK_X: f64 = 0.085;
/// How far below the ridge the neckline dips at the middle, as an angle
/// round the arms' axis: deeper at the front than at the back, rad.
const NECK_FRONT: f64 = 1.15;
const NECK_BACK: f64 = 0.55;
/// The cuffs' |x| and the hem's height, m.
const CUFF_X: f64 = WRIST.x - 0.03;
const HEM: f64 = 0.86;
/// The body tube's axis, off the body's middle plane, m.
const BODY_Z: f64 = -0.005;

/// About the yoke's and the underarm seam's distances from the arms' axis,
/// m: how many points an arc round it takes.
const YOKE_RADIUS: f64 = 0.07;
const UNDERARM_RADIUS: f64 = 0.075;

/// Ease over the shoulders (snug: the shirt hangs there), in the body tube
/// and in the sleeves, m.
const EASE_SHOULDER: f64 = 0.006;
const EASE_BODY: f64 = 0.03;
const EASE_SLEEVE: f64 = 0.025;

/// The direction at angle `a` round the arms' axis: 0 is the front (+z), a
/// quarter turn up.
fn round_arm(a: f64) -> DVec3 {
    DVec3::new(0.0, a.sin(), a.cos())
}

/// The t-shirt with edges of about `edge` metres.
pub fn tshirt(shape: &Shape, edge: f64) -> TriMesh {
    let axis = |x: f64| DVec3::new(x, ARM_AXIS_Y, 0.0);
    // The yoke's ease: the sleeve's at the armpits, the shoulder's on top.
    let yoke_ease = |a: f64, bottom: f64| {
        let s = ((a - bottom) / (FRAC_PI_2 - bottom)).clamp(0.0, 1.0);
        EASE_SLEEVE + (EASE_SHOULDER - EASE_SLEEVE) * s
    };
    // The front angle of column x's lowest point: where its ray's exit
    // comes down to the armpits' height (bisected).
    let bottom_angle = |x: f64| {
        let (mut lo, mut hi) = (-1.5f64, 0.2f64);
        for _ in 0..40 {
            let mid = 0.5 * (lo + hi);
            let p = exit(shape, axis(x), round_arm(mid), EASE_SLEEVE, 1.0);
            if p.y < ARMPIT_Y { lo = mid } else { hi = mid }
        }
        hi
    };
    // Columns across the chest: from one armpit to the neckline's corner,
    // across the neckline, and on to the other armpit.
    let across = |from: f64, to: f64| ((to - from) / edge).round().max(1.0) as usize;
    let (side, neck) = (across(NECK_X, ARMPIT_X), across(-NECK_X, NECK_X));
    let mut columns: Vec<f64> = (0..side)
        .map(|k| -ARMPIT_X + (ARMPIT_X - NECK_X) * k as f64 / side as f64)
        .collect();
    columns.extend((0..neck).map(|k| -NECK_X + 2.0 * NECK_X * k as f64 / neck as f64));
    columns.extend((0..=side).map(|k| NECK_X + (ARMPIT_X - NECK_X) * k as f64 / side as f64));
    // Rows per half arc, from the arc's length at an armpit.
    let rows = ((bottom_angle(ARMPIT_X).abs() + FRAC_PI_2) * YOKE_RADIUS / edge)
        .round()
        .max(3.0) as usize;

    let mut x: Vec<DVec3> = Vec::new();
    let add = |p: DVec3, x: &mut Vec<DVec3>| {
        x.push(p);
        x.len() as u32 - 1
    };
    // front[k], back[k]: column k's arc from its lowest point up to the
    // ridge or the neckline; where there is no neckline the two share the
    // ridge point.
    let (mut front, mut back) = (Vec::new(), Vec::new());
    for &cx in &columns {
        let dip = (1.0 - (cx / NECK_X).powi(2)).max(0.0).sqrt();
        let bottom = bottom_angle(cx);
        let arc = |top: f64, x: &mut Vec<DVec3>| -> Vec<u32> {
            (0..=rows)
                .map(|r| {
                    let a = bottom + (top - bottom) * r as f64 / rows as f64;
                    add(exit(shape, axis(cx), round_arm(a), yoke_ease(a, bottom), 1.0), x)
                })
                .collect()
        };
        let f = arc(FRAC_PI_2 - NECK_FRONT * dip, &mut x);
        // The back half, mirrored front to back (angle pi - a), its top
        // shared with the front's where the ridge closes.
        let mut b: Vec<u32> = (0..=rows)
            .map(|r| {
                let a = bottom + (FRAC_PI_2 - NECK_BACK * dip - bottom) * r as f64 / rows as f64;
                if r == rows && dip == 0.0 {
                    return f[rows];
                }
                add(
                    exit(shape, axis(cx), round_arm(PI - a), yoke_ease(a, bottom), 1.0),
                    &mut x,
                )
            })
            .collect();
        b.reverse();
        front.push(f);
        back.push(b);
    }

    // The underarm seams: below the outermost arcs, round the arms' axis
    // from the back's lowest point to the front's.
    let seam_count = ((PI - 2.0 * bottom_angle(ARMPIT_X).abs()) * UNDERARM_RADIUS / edge)
        .round()
        .max(2.0) as usize;
    let mut seams = Vec::new();
    for (k, sx) in [(0, -ARMPIT_X), (columns.len() - 1, ARMPIT_X)] {
        let bottom = bottom_angle(sx);
        let (from, to) = (PI - bottom, TAU + bottom);
        let seam: Vec<u32> = (1..seam_count)
            .map(|j| {
                let a = from + (to - from) * j as f64 / seam_count as f64;
                add(exit(shape, axis(sx), round_arm(a), EASE_SLEEVE, 1.0), &mut x)
            })
            .collect();
        seams.push((k, seam));
    }

    // The sleeves: ring 0 is the outermost column's front arc up, its back
    // arc down and the seam under the arm; the rings beyond go round the
    // arm's axis at ring 0's angles, evened out over the first rings.
    let mut sleeves: Vec<Vec<Vec<u32>>> = Vec::new();
    for (k, seam) in &seams {
        let outer = if *k == 0 { -1.0 } else { 1.0 };
        let mut first: Vec<u32> = front[*k].clone();
        first.extend(back[*k].iter().skip(1));
        first.extend(seam.iter());
        let angle = |p: DVec3| (p.y - ARM_AXIS_Y).atan2(p.z);
        let start: Vec<f64> = first.iter().map(|&v| angle(x[v as usize])).collect();
        let count = ((CUFF_X - ARMPIT_X) / edge).round().max(2.0) as usize;
        let mut sleeve = vec![first];
        for j in 1..=count {
            let sx = outer * (ARMPIT_X + (CUFF_X - ARMPIT_X) * j as f64 / count as f64);
            let angles = evened(&start, j, 4.0);
            let ring: Vec<u32> = angles
                .iter()
                .map(|&a| add(exit(shape, axis(sx), round_arm(a), EASE_SLEEVE, 1.0), &mut x))
                .collect();
            sleeve.push(ring);
        }
        sleeves.push(sleeve);
    }

    // The body: ring 0 is the front's lowest points (right to left), the
    // left seam (front to back), the back's lowest points (left to right)
    // and the right seam (back to front); the rings below go round the
    // vertical axis at its angles, evened out, bridged over hollows.
    let mut top: Vec<u32> = front.iter().map(|f| f[0]).collect();
    let left_seam: Vec<u32> = seams[1].1.iter().rev().copied().collect();
    top.extend(left_seam);
    top.extend(back.iter().rev().map(|b| *b.last().unwrap()));
    top.extend(seams[0].1.iter().copied());
    let centre = |y: f64| DVec3::new(0.0, y, BODY_Z);
    let angle = |p: DVec3| {
        let d = p - centre(p.y);
        d.x.atan2(d.z)
    };
    let start: Vec<f64> = top.iter().map(|&v| angle(x[v as usize])).collect();
    // The rings below start an edge under the seams' lowest point.
    let below = top.iter().map(|&v| x[v as usize].y).fold(f64::INFINITY, f64::min) - edge;
    let count = ((below - HEM) / edge).round().max(1.0) as usize + 1;
    // A shirt hangs straight down from the chest: no ring comes in closer
    // to the axis than the ones above it.
    let mut widest = vec![0.0f64; start.len()];
    let mut body = vec![top];
    for j in 1..=count {
        let y = below - (below - HEM) * (j - 1) as f64 / (count - 1) as f64;
        let mut ring: Vec<DVec3> = evened(&start, j, 4.0)
            .into_iter()
            .map(|a| exit(shape, centre(y), horizontal(a), EASE_BODY, 1.0))
            .collect();
        bridge(&mut ring, centre(y));
        for (p, w) in ring.iter_mut().zip(&mut widest) {
            let d = *p - centre(y);
            let r = d.length();
            *w = w.max(r);
            *p = centre(y) + d * (*w / r);
        }
        let first = x.len() as u32;
        x.extend(ring);
        body.push((first..x.len() as u32).collect());
    }

    // The yoke's panels as charts of arcs (one ring per column), the body
    // and the sleeves as tubes; each wound so that its faces look out.
    let mut charts = vec![
        Chart {
            rings: &front,
            closed: false,
            band: None,
        },
        Chart {
            rings: &back,
            closed: false,
            band: None,
        },
        Chart {
            rings: &body,
            closed: true,
            band: None,
        },
    ];
    charts.extend(sleeves.iter().map(|s| Chart {
        rings: s,
        closed: true,
        band: None,
    }));
    let faces: Vec<_> = charts
        .iter()
        .enumerate()
        .flat_map(|(k, c)| {
            let wound = c.faces(k, true);
            let q: Vec<DVec3> = wound[0].corners.iter().map(|&v| x[v as usize]).collect();
            let normal = (q[1] - q[0]).cross(q[3] - q[0]);
            let mid = (q[0] + q[1] + q[2] + q[3]) / 4.0;
            let out = shape.gradient(mid, &[super::skeleton::Rigid::IDENTITY; super::skeleton::BONE_COUNT]);
            match normal.dot(out) > 0.0 {
                true => wound,
                false => c.faces(k, false),
            }
        })
        .collect();
    // The neckline: the tops of the arcs that stop short of the ridge.
    let neck_columns = || columns.iter().enumerate().filter(|(_, cx)| cx.abs() <= NECK_X);
    let neckline: Vec<u32> = neck_columns()
        .map(|(k, _)| front[k][rows])
        .chain(neck_columns().map(|(k, _)| back[k][0]))
        .collect();
    let groups = groups(&x, &neckline, &body, &sleeves);
    garment(format!("t-shirt (edge {edge} m)"), x, &charts, &faces, groups)
}

/// The named vertex groups: the elbows, the underarms, the cuffs, the
/// hem, the neckline, and each sleeve.
fn groups(x: &[DVec3], neckline: &[u32], body: &[Vec<u32>], sleeves: &[Vec<Vec<u32>>]) -> BTreeMap<String, Vec<u32>> {
    let all = 0..x.len() as u32;
    let sleeve = |k: usize| sleeves[k].iter().flatten().copied();
    let both_sleeves = || sleeve(0).chain(sleeve(1));
    let neck: Vec<DVec3> = neckline.iter().map(|&v| x[v as usize]).collect();
    let mut g = BTreeMap::new();
    g.insert(
        "elbows",
        select(x, both_sleeves(), |p| (p.x.abs() - ELBOW.x).abs() <= 0.07),
    );
    g.insert(
        "underarms",
        select(x, all.clone(), |p| {
            (DVec3::new(p.x.abs(), p.y, p.z) - DVec3::new(ARMPIT_X, ARMPIT_Y, 0.0)).length() <= 0.07
        }),
    );
    g.insert("cuffs", select(x, both_sleeves(), |p| p.x.abs() >= CUFF_X - 0.03));
    g.insert("hem", select(x, body.iter().flatten().copied(), |p| p.y <= HEM + 0.03));
    g.insert(
        "neckline",
        select(x, all.clone(), |p| neck.iter().any(|q| (p - *q).length() <= 0.03)),
    );
    g.insert("left_sleeve", select(x, sleeve(1), |_| true));
    g.insert("right_sleeve", select(x, sleeve(0), |_| true));
    g.into_iter().map(|(k, v)| (k.to_string(), v)).collect()
}

#[cfg(test)]
mod tests {
    use super::super::cut::tests::check_garment;
    use super::*;

    #[test]
    fn the_tshirt_is_a_clean_unstressed_shirt_around_the_body() {
        let shape = Shape::default();
        let t = tshirt(&shape, 0.02);
        // Four openings: the neck, the hem and the two cuffs.
        check_garment(
            &t,
            &shape,
            2_000..4_000,
            4,
            &[
                "elbows",
                "underarms",
                "cuffs",
                "hem",
                "neckline",
                "left_sleeve",
                "right_sleeve",
            ],
        );
    }
}
