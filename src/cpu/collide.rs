//! Obstacle collisions, per vertex (GPU twin: shaders/collide.wgsl), after
//! Bridson, Marino & Fedkiw 2003:
//!
//! - `respond` (§5.2, interface forecasting): with the obstacle's distance
//!   `phi`, outward normal `N` and velocity `v_o` at a cloth point, the
//!   point is forecast to reach `phi + dt (v - v_o).N` after the step. If
//!   that is below the thickness `t`, the relative normal velocity becomes
//!   `(t - phi)/dt`, which lands the point on the `t` contour, and the
//!   relative tangential velocity is scaled by `max(0, 1 - mu dv_N/|v_T|)`
//!   (Coulomb friction with the normal velocity change `dv_N` as impulse:
//!   static when that reaches `|v_T|`, kinetic otherwise).
//! - `settle` (§5.3, wrinkle-preserving post-process): a point still closer
//!   than `t` after the position update is moved along `N` to the contour
//!   `lift(phi)`, a monotone map of `(-inf, t]` into `(0, t]`
//!   ([`crate::collide::lift`]), so wrinkles that dipped in keep their
//!   shape instead of being flattened. Points within `t` of two or more
//!   obstacles (pinched) are left to the forecast alone.
//!
//! Obstacles are handled one after another in scene order.

use crate::collide::{ObstacleStep, SdfGrid, lift};
use glam::DVec3;
use rayon::prelude::*;
use std::sync::Arc;

/// Newton-like moves of `settle` towards the target contour.
pub const SETTLE_ITERATIONS: usize = 3;

/// What the collision kernels found in a step.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct ContactReport {
    /// Vertices whose velocity or position an obstacle changed.
    pub contacts: usize,
    /// Deepest point under any enabled obstacle's surface after the step, m
    /// (0 when none is inside).
    pub penetration: f64,
}

fn normal_at(grid: &SdfGrid, o: &ObstacleStep, world: DVec3, end: bool) -> (f64, DVec3) {
    let pose = if end { &o.end } else { &o.start };
    let (phi, g) = grid.sample(pose.to_local(world));
    (phi, (pose.rot * g).normalize_or_zero())
}

/// §5.2: forecasts each free vertex against each obstacle and corrects its
/// velocity; sets `touched[i]` where it did.
pub fn respond(
    grids: &[Arc<SdfGrid>],
    obstacles: &[ObstacleStep],
    h: f64,
    x: &[DVec3],
    v: &mut [DVec3],
    free: &[bool],
    touched: &mut [bool],
) {
    v.par_iter_mut()
        .zip(touched.par_iter_mut())
        .enumerate()
        .for_each(|(i, (vi, hit))| {
            *hit = false;
            if !free[i] {
                return;
            }
            for o in obstacles {
                let grid = &grids[o.grid];
                let (phi, n) = normal_at(grid, o, x[i], false);
                if n == DVec3::ZERO {
                    continue;
                }
                let v_obs = (o.end.to_world(o.start.to_local(x[i])) - x[i]) / h;
                let rel = *vi - v_obs;
                let vn = rel.dot(n);
                if phi + h * vn >= o.thickness {
                    continue;
                }
                let vn_new = (o.thickness - phi) / h;
                let tangent = rel - n * vn;
                let speed = tangent.length();
                let keep = if speed > 0.0 {
                    (1.0 - o.friction * (vn_new - vn) / speed).max(0.0)
                } else {
                    0.0
                };
                *vi = v_obs + n * vn_new + tangent * keep;
                *hit = true;
            }
        });
}

/// §5.3: lifts free vertices within the thickness of exactly one obstacle
/// onto `lift(phi)`; returns the step's contact figures (counting `touched`).
pub fn settle(
    grids: &[Arc<SdfGrid>],
    obstacles: &[ObstacleStep],
    x: &mut [DVec3],
    free: &[bool],
    touched: &mut [bool],
) -> ContactReport {
    let deepest: Vec<f64> = x
        .par_iter_mut()
        .zip(touched.par_iter_mut())
        .enumerate()
        .map(|(i, (xi, hit))| {
            if !free[i] || obstacles.is_empty() {
                return f64::INFINITY;
            }
            let mut inside = obstacles
                .iter()
                .filter(|o| normal_at(&grids[o.grid], o, *xi, true).0 < o.thickness);
            if let (Some(o), None) = (inside.next(), inside.next()) {
                let grid = &grids[o.grid];
                let target = lift(normal_at(grid, o, *xi, true).0, o.thickness);
                for _ in 0..SETTLE_ITERATIONS {
                    let (phi, n) = normal_at(grid, o, *xi, true);
                    *xi += n * (target - phi);
                }
                *hit = true;
            }
            obstacles
                .iter()
                .map(|o| normal_at(&grids[o.grid], o, *xi, true).0)
                .fold(f64::INFINITY, f64::min)
        })
        .collect();
    ContactReport {
        contacts: touched.iter().filter(|t| **t).count(),
        penetration: deepest.iter().fold(0.0f64, |m, &d| m.max(-d)),
    }
}
