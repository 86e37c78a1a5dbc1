//! Obstacle collisions, per vertex (GPU twin: shaders/collide.wgsl), after
//! Baraff & Witkin 1998 and Bridson, Marino & Fedkiw 2003:
//!
//! - `resting` and `release` (Baraff & Witkin §5, in the solve): a vertex
//!   lying on an obstacle is a constraint of the implicit solve in the
//!   normal direction only, so the solve sees the obstacle's reaction (a
//!   cloth on a table can lift part of itself by its own bending moment);
//!   after each solve the contacts that pull are released and the system
//!   solved again, and the others' reactions are kept as friction impulses.
//! - `respond` (§5.2, interface forecasting): each free vertex against each
//!   obstacle, with the obstacle's distance `phi`, outward normal `N` and
//!   velocity `v_o` at the point, the response of model/contact.rs: landing
//!   on the thickness contour from outside, only stopping inside it (the
//!   rest a position correction along `N`), and Coulomb friction on the
//!   relative tangential velocity.
//! - `settle` (§5.3, wrinkle-preserving post-process): a point still closer
//!   than `t` after the position update is moved along `N` to the contour
//!   `lift(phi)`, a monotone map of `(-inf, t]` into `(0, t]`
//!   ([`crate::collide::lift`]), so wrinkles that dipped in keep their
//!   shape instead of being flattened. Points within `t` of two or more
//!   obstacles (pinched) are left to the forecast alone.
//!
//! Obstacles are handled one after another in scene order. A rigid
//! obstacle is probed through its grid at its pose, a deforming body
//! directly (collide/body.rs); both give the distance `phi`, the outward
//! normal and the obstacle's velocity at the point.

use crate::collide::body::{BodyStep, Probe};
use crate::collide::{ContactReport, Field, ObstacleStep, SdfGrid, lift};
use crate::model::contact::response;
use glam::DVec3;
use rayon::prelude::*;
use std::sync::Arc;

/// Newton-like moves of `settle` towards the target contour (the same in
/// shaders/collide.wgsl).
const SETTLE_ITERATIONS: usize = 3;

/// A vertex within this many thicknesses of an obstacle rests on it (the
/// same in shaders/collide.wgsl): `settle` leaves points on the contour,
/// and rounding must not drop them from the next step's contacts.
const RESTING: f64 = 1.01;

/// A vertex moving away from an obstacle faster than this many thicknesses
/// a step is separating (the same in shaders/collide.wgsl): far above the
/// rounding a held contact's normal velocity keeps, far below any motion.
const SEPARATING: f64 = 1e-6;

/// The surfaces of a step's obstacles.
#[derive(Clone, Copy)]
pub struct Surfaces<'a> {
    pub grids: &'a [Arc<SdfGrid>],
    pub bodies: &'a [BodyStep],
}

impl Surfaces<'_> {
    /// Obstacle `o` at world point `p` at the step's start or end; a body
    /// out of reach is infinitely far, with no normal.
    fn probe(&self, o: &ObstacleStep, p: DVec3, end: bool, h: f64) -> Probe {
        match o.field {
            Field::Grid(k) => {
                let pose = if end { &o.end } else { &o.start };
                let (phi, g) = self.grids[k].sample(pose.to_local(p));
                Probe {
                    phi,
                    normal: (pose.rot * g).normalize_or_zero(),
                    velocity: o.velocity_at(p, h),
                }
            }
            Field::Body(k) => self.bodies[k].probe(p, end, h).unwrap_or(Probe {
                phi: f64::INFINITY,
                normal: DVec3::ZERO,
                velocity: DVec3::ZERO,
            }),
        }
    }
}

/// §5.2: forecasts each free vertex against each obstacle and corrects its
/// velocity; sets `touched[i]` where it did.
#[allow(clippy::too_many_arguments)]
pub fn respond(
    surfaces: Surfaces,
    obstacles: &[ObstacleStep],
    h: f64,
    x: &mut [DVec3],
    v: &mut [DVec3],
    free: &[bool],
    held: &[f64],
    touched: &mut [bool],
) {
    x.par_iter_mut()
        .zip(v.par_iter_mut())
        .zip(touched.par_iter_mut())
        .enumerate()
        .for_each(|(i, ((xi, vi), hit))| {
            *hit = false;
            if !free[i] {
                return;
            }
            let mut push = DVec3::ZERO;
            for o in obstacles {
                let Probe {
                    phi,
                    normal: n,
                    velocity: v_obs,
                } = surfaces.probe(o, *xi, false, h);
                if n == DVec3::ZERO {
                    continue;
                }
                let rel = *vi - v_obs;
                let vn = rel.dot(n);
                let tangent = rel - n * vn;
                // The normal velocity that lands the point on the contour.
                let target = (o.thickness - phi) / h;
                // The normal velocity change the solve's resting contact gave.
                let impulse = if phi < RESTING * o.thickness { held[i] } else { 0.0 };
                let Some((vn_new, keep)) = response(vn, target, impulse, tangent.length(), o.friction) else {
                    continue;
                };
                if vn < target {
                    push += n * (h * (target - vn_new));
                }
                *vi = v_obs + n * vn_new + tangent * keep;
                *hit = true;
            }
            *xi += push;
        });
}

/// Resting contacts, held inside the solve as unilateral constraints
/// (Baraff & Witkin 1998 §5): each free vertex within the thickness of
/// exactly one obstacle at the step's start (on the contour counts: the
/// post-process leaves points at `t`), and not moving away from it (a
/// vertex a contact was released from goes on lifting without one) gets
/// that obstacle's outward normal in
/// `normals` (zero: none), and its `dv` the normal component that makes its
/// normal velocity the obstacle's there: it neither sinks in nor is pushed
/// out by the solve, and moves freely along the surface.
#[allow(clippy::too_many_arguments)]
pub fn resting(
    surfaces: Surfaces,
    obstacles: &[ObstacleStep],
    h: f64,
    x: &[DVec3],
    v: &[DVec3],
    free: &[bool],
    normals: &mut [DVec3],
    dv: &mut [DVec3],
) {
    normals
        .par_iter_mut()
        .zip(dv.par_iter_mut())
        .enumerate()
        .for_each(|(i, (normal, dvi))| {
            *normal = DVec3::ZERO;
            if !free[i] {
                return;
            }
            let xi = x[i];
            let mut inside = obstacles.iter().filter_map(|o| {
                let Probe {
                    phi,
                    normal: n,
                    velocity: v_obs,
                } = surfaces.probe(o, xi, false, h);
                (phi < RESTING * o.thickness && n != DVec3::ZERO).then(|| {
                    let separating = (v[i] - v_obs).dot(n) > SEPARATING * o.thickness / h;
                    (n, v_obs.dot(n), separating)
                })
            });
            if let (Some((n, vn, false)), None) = (inside.next(), inside.next()) {
                *normal = n;
                *dvi += n * (vn - n.dot(v[i] + *dvi));
            }
        });
}

/// After a solve with resting contacts: the reaction of each contact is
/// `n . (A dv - b)`, the normal impulse the constraint supplied. A contact
/// whose reaction pulls the cloth in is released (its normal zeroed) for
/// the next solve; the others leave their normal velocity change
/// (reaction / mass) in `held`, the impulse of the response's Coulomb
/// friction. Returns how many were released and how many are kept.
pub fn release(normals: &mut [DVec3], held: &mut [f64], a_dv: &[DVec3], rhs: &[DVec3], mass: &[f64]) -> (usize, usize) {
    normals
        .par_iter_mut()
        .zip(held.par_iter_mut())
        .enumerate()
        .map(|(i, (n, held))| {
            *held = 0.0;
            if *n == DVec3::ZERO {
                return (0, 0);
            }
            let reaction = n.dot(a_dv[i] - rhs[i]);
            if reaction < 0.0 {
                *n = DVec3::ZERO;
                return (1, 0);
            }
            *held = reaction / mass[i];
            (0, 1)
        })
        .reduce(|| (0, 0), |a, b| (a.0 + b.0, a.1 + b.1))
}

/// §5.3: lifts free vertices within the thickness of exactly one obstacle
/// onto `lift(phi)`; with `depths`, returns the step's contact figures
/// (counting `touched`; the resting contacts are the solve's): the deepest
/// vertex before and after the lift, and the deepest midpoint of an
/// `edges` edge with a free end after it. Without (`StepInput::depths`),
/// the report is empty and the probes after the lift, of every vertex and
/// every edge's midpoint, are not made: with one obstacle, four a vertex of
/// the five a vertex out of contact takes.
#[allow(clippy::too_many_arguments)]
pub fn settle(
    surfaces: Surfaces,
    obstacles: &[ObstacleStep],
    h: f64,
    x: &mut [DVec3],
    free: &[bool],
    touched: &mut [bool],
    edges: &[[u32; 2]],
    depths: bool,
) -> ContactReport {
    if !depths {
        x.par_iter_mut()
            .zip(touched.par_iter_mut())
            .enumerate()
            .filter(|(i, _)| free[*i])
            .for_each(|(_, (xi, hit))| {
                lift_vertex(&surfaces, obstacles, h, xi, hit);
            });
        return ContactReport::default();
    }
    if obstacles.is_empty() {
        return ContactReport {
            contacts: touched.iter().filter(|t| **t).count(),
            ..ContactReport::default()
        };
    }
    let nearest = |p: DVec3| {
        obstacles
            .iter()
            .map(|o| surfaces.probe(o, p, true, h).phi)
            .fold(f64::INFINITY, f64::min)
    };
    let deepest: Vec<(f64, f64)> = x
        .par_iter_mut()
        .zip(touched.par_iter_mut())
        .enumerate()
        .map(|(i, (xi, hit))| match free[i] {
            true => (lift_vertex(&surfaces, obstacles, h, xi, hit), nearest(*xi)),
            false => (f64::INFINITY, f64::INFINITY),
        })
        .collect();
    let x = &*x;
    let edge_deepest = edges
        .par_iter()
        .filter(|e| free[e[0] as usize] || free[e[1] as usize])
        .map(|e| nearest(0.5 * (x[e[0] as usize] + x[e[1] as usize])))
        .reduce(|| f64::INFINITY, f64::min);
    let depth = |phi: f64| (-phi).max(0.0);
    ContactReport {
        contacts: touched.iter().filter(|t| **t).count(),
        penetration: deepest.iter().fold(0.0f64, |m, d| m.max(depth(d.1))),
        unlifted: deepest.iter().fold(0.0f64, |m, d| m.max(depth(d.0))),
        edge_penetration: depth(edge_deepest),
        resting: 0,
    }
}

/// One free vertex of `settle`: lifted onto `lift(phi)` when within the
/// thickness of exactly one obstacle (`hit` then set); the nearest
/// surface's distance before the lift.
fn lift_vertex(surfaces: &Surfaces, obstacles: &[ObstacleStep], h: f64, xi: &mut DVec3, hit: &mut bool) -> f64 {
    // One probe per obstacle (as shaders/collide.wgsl): the nearest
    // surface before the lift, and the obstacles whose thickness the
    // vertex is within.
    let (mut before, mut inside, mut within) = (f64::INFINITY, None, 0);
    for o in obstacles {
        let phi = surfaces.probe(o, *xi, true, h).phi;
        before = before.min(phi);
        if phi < o.thickness {
            inside.get_or_insert((o, phi));
            within += 1;
        }
    }
    if let (Some((o, phi)), 1) = (inside, within) {
        let target = lift(phi, o.thickness);
        for _ in 0..SETTLE_ITERATIONS {
            let hit = surfaces.probe(o, *xi, true, h);
            if hit.normal == DVec3::ZERO {
                break;
            }
            *xi += hit.normal * (target - hit.phi);
        }
        *hit = true;
    }
    before
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::collide::{Pose, Shape};
    use glam::DQuat;

    fn floor(normal: DVec3, offset: f64) -> Arc<SdfGrid> {
        let shape = Shape::Plane {
            point: normal * offset,
            normal,
        };
        Arc::new(SdfGrid::bake(DVec3::splat(-0.2), DVec3::splat(0.2), 0.01, |p| shape.distance(p)).unwrap())
    }

    fn on(grids: &[Arc<SdfGrid>]) -> Surfaces<'_> {
        Surfaces { grids, bodies: &[] }
    }

    /// `settle` on `grids` at 10 ms steps, every vertex free.
    fn settle_free(
        grids: &[Arc<SdfGrid>],
        obstacles: &[ObstacleStep],
        x: &mut [DVec3],
        touched: &mut [bool],
        edges: &[[u32; 2]],
        depths: bool,
    ) -> ContactReport {
        let free = vec![true; x.len()];
        settle(on(grids), obstacles, 0.01, x, &free, touched, edges, depths)
    }

    fn still(grid: usize, thickness: f64) -> ObstacleStep {
        ObstacleStep {
            obstacle: grid,
            field: Field::Grid(grid),
            start: Pose::default(),
            end: Pose::default(),
            friction: 0.3,
            thickness,
        }
    }

    #[test]
    fn settle_lifts_a_wavy_row_into_the_band_keeping_its_order() {
        let t = 0.004;
        // A wrinkled row dipping up to 3 cm into a tilted floor.
        let n = (DQuat::from_rotation_z(0.3) * DVec3::Y).normalize();
        let grids = vec![floor(n, 0.0)];
        let tangent = n.cross(DVec3::Z);
        let depth = |i: usize| 0.01 * (i as f64 * 0.7).sin() - 0.02 + 0.001 * i as f64 / 10.0;
        let mut x: Vec<DVec3> = (0..40)
            .map(|i| tangent * (i as f64 * 0.004 - 0.08) + n * depth(i))
            .collect();
        let before: Vec<f64> = x.iter().map(|p| p.dot(n)).collect();
        let mut touched = vec![false; x.len()];
        let edges: Vec<[u32; 2]> = (0..x.len() as u32 - 1).map(|i| [i, i + 1]).collect();
        // Unmeasured (a step between output frames), the same lift and
        // contacts to the bit, and an empty report.
        let (mut unmeasured, mut unmeasured_touched) = (x.clone(), touched.clone());
        let empty = settle_free(
            &grids,
            &[still(0, t)],
            &mut unmeasured,
            &mut unmeasured_touched,
            &edges,
            false,
        );
        let report = settle_free(&grids, &[still(0, t)], &mut x, &mut touched, &edges, true);
        assert_eq!((unmeasured, unmeasured_touched), (x.clone(), touched.clone()));
        assert_eq!(empty, ContactReport::default());
        assert!(report.contacts > 0 && report.unlifted > 0.0);
        let after: Vec<f64> = x.iter().map(|p| p.dot(n)).collect();
        // The response's control: with no response before it, the lift
        // hides every dip from the depth after it, not from the one before.
        let dip = before.iter().fold(0.0f64, |m, &d| m.max(-d));
        assert!(dip > 0.025, "{dip}");
        assert_eq!(report.penetration, 0.0);
        assert!((report.unlifted - dip).abs() < 1e-9, "{} vs {dip}", report.unlifted);
        assert_eq!(report.edge_penetration, 0.0);
        for i in 0..x.len() {
            assert!(
                after[i] > 0.0 && after[i] <= t + 1e-9,
                "{i}: {} -> {}",
                before[i],
                after[i]
            );
            assert!((after[i] - lift(before[i], t)).abs() < 1e-9, "{i}: lands on lift(phi)");
            for j in 0..x.len() {
                if before[i] < before[j] {
                    assert!(after[i] < after[j], "order of {i} and {j} swapped");
                }
            }
        }
    }

    /// Contact is per vertex: an edge across a 6 mm bar, its ends 7 mm
    /// clear of it, cuts 3 mm into it. Only the edge depth sees it.
    #[test]
    fn an_edge_across_a_thin_bar_is_seen_only_by_the_edge_depth() {
        let t = 0.002;
        let bar = Shape::Box {
            center: DVec3::ZERO,
            half: DVec3::new(0.04, 0.003, 0.003),
            rounding: 0.0,
        };
        let grids = vec![Arc::new(
            SdfGrid::bake(DVec3::splat(-0.05), DVec3::splat(0.05), 0.001, |p| bar.distance(p)).unwrap(),
        )];
        let mut x = vec![DVec3::new(0.0, 0.0, -0.01), DVec3::new(0.0, 0.0, 0.01)];
        let mut touched = vec![false; 2];
        let report = settle_free(&grids, &[still(0, t)], &mut x, &mut touched, &[[0, 1]], true);
        assert_eq!((report.penetration, report.unlifted, report.contacts), (0.0, 0.0, 0));
        assert!(
            (report.edge_penetration - 0.003).abs() < 1e-6,
            "{}",
            report.edge_penetration
        );
    }

    #[test]
    fn a_point_inside_the_band_is_moved_out_not_launched() {
        let (t, h) = (0.004, 0.002);
        let grids = vec![floor(DVec3::Y, 0.0)];
        // Inside the band and sinking: stopped, moved onto the contour.
        let mut x = vec![DVec3::new(0.0, 0.001, 0.0), DVec3::new(0.05, 0.01, 0.0)];
        let mut v = vec![DVec3::new(0.1, -0.2, 0.0), DVec3::new(0.0, -3.0, 0.0)];
        let (free, mut touched) = (vec![true; 2], vec![false; 2]);
        respond(
            on(&grids),
            &[still(0, t)],
            h,
            &mut x,
            &mut v,
            &free,
            &[0.0; 2],
            &mut touched,
        );
        assert!(v[0].y.abs() < 1e-12, "no launch speed is left: {}", v[0]);
        assert!((x[0].y + h * v[0].y - t).abs() < 1e-9, "lands on the contour: {}", x[0]);
        // Friction acts on the stopped approach only (0.2 m/s): 0.1 - 0.3 x 0.2 = 0.04.
        assert!((v[0].x - 0.04).abs() < 1e-9, "{}", v[0]);
        // Outside and approaching fast: slowed to land on the contour.
        assert!(
            (x[1].y + h * v[1].y - t).abs() < 1e-9 && x[1].y == 0.01,
            "{} {}",
            x[1],
            v[1]
        );
        assert_eq!(touched, vec![true, true]);
    }

    #[test]
    fn vertices_on_one_obstacle_rest_on_it_with_its_normal_velocity() {
        let (t, h) = (0.004, 0.002);
        let grids = vec![floor(DVec3::Y, 0.0), floor(-DVec3::Y, -0.0045)];
        // The floor rises 1 mm over the step: 0.5 m/s.
        let rising = ObstacleStep {
            end: Pose {
                trans: DVec3::new(0.0, 0.001, 0.0),
                ..Pose::default()
            },
            ..still(0, t)
        };
        let x = [
            DVec3::new(0.0, t, 0.0),         // on the contour, sliding: rests
            DVec3::new(0.01, 1.02 * t, 0.0), // above the band
            DVec3::new(0.02, 0.5 * t, 0.0),  // inside, moving away
            DVec3::new(0.03, 0.5 * t, 0.0),  // inside, but pinned
        ];
        let v = [
            DVec3::new(0.1, -0.2, 0.0),
            DVec3::ZERO,
            DVec3::new(0.0, 0.6, 0.0),
            DVec3::ZERO,
        ];
        let free = [true, true, true, false];
        let mut normals = [DVec3::ONE; 4];
        let mut dv = [DVec3::new(0.01, 0.02, 0.03); 4];
        resting(on(&grids), &[rising], h, &x, &v, &free, &mut normals, &mut dv);
        assert!((normals[0] - DVec3::Y).length() < 1e-12, "{}", normals[0]);
        assert_eq!(normals[1..], [DVec3::ZERO; 3]);
        // The resting vertex moves up with the floor; its tangential dv is kept.
        assert!((v[0].y + dv[0].y - 0.5).abs() < 1e-9, "{}", dv[0]);
        assert!(
            (dv[0].x - 0.01).abs() < 1e-12 && (dv[0].z - 0.03).abs() < 1e-12,
            "{}",
            dv[0]
        );
        assert!(dv[1..].iter().all(|d| *d == DVec3::new(0.01, 0.02, 0.03)));
        // Within the thickness of two obstacles (a ceiling 4.5 mm up): none.
        let still_two = [still(0, t), still(1, t)];
        resting(
            on(&grids),
            &still_two,
            h,
            &x[..1],
            &v[..1],
            &free[..1],
            &mut normals[..1],
            &mut dv[..1],
        );
        assert_eq!(normals[0], DVec3::ZERO);
    }

    #[test]
    fn a_contact_that_pulls_is_released_and_one_that_pushes_keeps_its_impulse() {
        let mut normals = [DVec3::Y, DVec3::Y, DVec3::ZERO];
        let mut held = [9.0; 3];
        // Reactions A dv - b: 0.2 N s out of the floor, 0.1 N s into it.
        let a_dv = [DVec3::new(1.0, 0.3, 0.0), DVec3::new(0.0, 0.0, 0.0), DVec3::ONE];
        let rhs = [DVec3::new(1.0, 0.1, 5.0), DVec3::new(0.0, 0.1, 0.0), DVec3::ZERO];
        let mass = [0.5, 0.5, 0.5];
        let counts = release(&mut normals, &mut held, &a_dv, &rhs, &mass);
        assert_eq!(counts, (1, 1));
        assert_eq!(normals, [DVec3::Y, DVec3::ZERO, DVec3::ZERO]);
        assert!(
            (held[0] - 0.4).abs() < 1e-12 && held[1] == 0.0 && held[2] == 0.0,
            "{held:?}"
        );
    }

    #[test]
    fn a_point_pinched_between_two_obstacles_is_left_to_the_forecast() {
        let t = 0.004;
        let grids = vec![floor(DVec3::Y, 0.0), floor(-DVec3::Y, -0.004)];
        let mut x = vec![DVec3::new(0.0, 0.001, 0.0)];
        let mut touched = vec![false];
        settle_free(&grids, &[still(0, t), still(1, t)], &mut x, &mut touched, &[], true);
        assert_eq!(x[0], DVec3::new(0.0, 0.001, 0.0));
        settle_free(&grids, &[still(0, t)], &mut x, &mut touched, &[], true);
        assert!((x[0].y - lift(0.001, t)).abs() < 1e-9, "{}", x[0].y);
    }
}
