//! Obstacles (Bridson, Marino & Fedkiw 2003, §5): rigid shapes ([`shape`],
//! [`mesh_sdf`]) baked once into signed-distance grids ([`grid`], cached on
//! disk for meshes by [`cache`]) and moved rigidly over the timeline, and
//! deforming triangle meshes ([`sequence`], probed directly by [`body`]
//! through a [`bvh`]; cloth vertices ride on them through [`attach`]);
//! [`isosurface`] turns a grid back into triangles, to draw and export it.
//! The response itself is a kernel: `src/cpu/collide.rs` and its
//! twin `shaders/collide.wgsl`. [`intersect`] counts the cloth's own
//! crossing triangle pairs (`--check-intersections`); [`proximity`] finds
//! the cloth's close vertex-triangle and edge-edge pairs for self-collision,
//! and [`impact`] is its fail-safe: rigid impact zones over the
//! continuous collisions [`ccd`] finds.

pub mod attach;
pub mod body;
pub mod boxgrid;
pub mod bvh;
pub mod cache;
pub mod ccd;
pub mod grid;
pub mod impact;
pub mod intersect;
pub mod isosurface;
pub mod mesh_sdf;
pub mod proximity;
pub mod sequence;
pub mod shape;

pub use grid::SdfGrid;
pub use shape::Shape;

use attach::{Carrier, Skin};
use glam::{DQuat, DVec3};
use std::sync::Arc;

/// What an obstacle's surface is made of.
#[derive(Clone, Debug)]
pub enum Surface {
    /// A rigid shape baked into a grid (in the obstacle's frame, which is
    /// the world frame at the start).
    Grid(Arc<SdfGrid>),
    /// A deforming triangle mesh, probed directly ([`body`]).
    Sequence(Arc<sequence::Sequence>),
}

/// An obstacle of a scene: its surface, Coulomb friction and contact
/// thickness.
#[derive(Clone, Debug)]
pub struct Obstacle {
    pub name: String,
    pub surface: Surface,
    pub friction: f64,
    /// Points are kept at least this far outside the surface (m).
    pub thickness: f64,
    /// Present from the start (a phase can add or remove it).
    pub enabled: bool,
    /// Where cloth sticks to it (with the scene's sticking): the surface
    /// inside this box, in its start coordinates; `None`: not sticky.
    pub sticky: Option<(DVec3, DVec3)>,
}

impl Obstacle {
    /// A rigid obstacle's grid (`None` for a deforming body).
    pub fn grid(&self) -> Option<&Arc<SdfGrid>> {
        match &self.surface {
            Surface::Grid(g) => Some(g),
            Surface::Sequence(_) => None,
        }
    }

    /// Calls `f` with the obstacle as it is at time `t`, placed by `pose`,
    /// as the handles that ride on it see it.
    pub fn carrier<T>(&self, t: f64, pose: &Pose, f: impl FnOnce(&Carrier) -> T) -> T {
        match &self.surface {
            Surface::Grid(grid) => f(&Carrier::Rigid { pose: *pose, grid }),
            Surface::Sequence(seq) => {
                let x = seq.at(t, pose);
                f(&Carrier::Body(Skin { mesh: &seq.mesh, x: &x }))
            }
        }
    }
}

/// A rigid pose: `world = rot * local + trans`.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Pose {
    pub rot: DQuat,
    pub trans: DVec3,
}

impl Default for Pose {
    fn default() -> Self {
        Pose {
            rot: DQuat::IDENTITY,
            trans: DVec3::ZERO,
        }
    }
}

impl Pose {
    pub fn to_local(&self, p: DVec3) -> DVec3 {
        self.rot.inverse() * (p - self.trans)
    }

    pub fn to_world(&self, p: DVec3) -> DVec3 {
        self.rot * p + self.trans
    }
}

/// Where a step finds an enabled obstacle's surface: one of its grids, or
/// one of its bodies (`StepInput::grids`, `StepInput::bodies`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Field {
    Grid(usize),
    Body(usize),
}

/// An enabled obstacle during one step: where it is at the step's start
/// and end (its velocity is the difference over the step).
#[derive(Clone, Copy, Debug)]
pub struct ObstacleStep {
    /// The obstacle's index in the scene.
    pub obstacle: usize,
    pub field: Field,
    pub start: Pose,
    pub end: Pose,
    pub friction: f64,
    pub thickness: f64,
}

impl ObstacleStep {
    /// A rigid obstacle's velocity over a step of `h` seconds at world
    /// point `x` (collide.wgsl `obstacle_velocity`).
    pub fn velocity_at(&self, x: DVec3, h: f64) -> DVec3 {
        (self.end.to_world(self.start.to_local(x)) - x) / h
    }
}

/// What the collision kernels found in a step (either backend).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct ContactReport {
    /// Vertices whose velocity or position an obstacle changed.
    pub contacts: usize,
    /// Deepest free vertex under any enabled obstacle's surface after the
    /// step, m (0 when none is inside): what the §5.3 post-process left,
    /// which lifts every vertex inside a single obstacle, so it reads 0
    /// unless a vertex is pinched between two.
    pub penetration: f64,
    /// Deepest free vertex under a surface before the post-process lifted
    /// it, m: what the velocity response (and the solve's resting
    /// contacts) left, the figure that shows a response that failed.
    pub unlifted: f64,
    /// Deepest edge midpoint under a surface after the step, m: an edge
    /// can cut through a thin obstacle or a corner between two vertices
    /// that stay outside (the contact is per vertex).
    pub edge_penetration: f64,
    /// Vertices held by a resting contact through the step's solve (not
    /// released).
    pub resting: usize,
}

impl ContactReport {
    /// The step's three depths, m: `penetration`, `unlifted`,
    /// `edge_penetration`.
    pub fn depths(&self) -> [f64; 3] {
        [self.penetration, self.unlifted, self.edge_penetration]
    }
}

/// The wrinkle-preserving post-process map of §5.3: distances below the
/// thickness `t` go monotonically into `(0, t]`, so the up-and-down pattern
/// of a wrinkle that dipped into an obstacle survives instead of being
/// flattened onto the surface. `t exp((phi - t)/t)` meets the identity at
/// `phi = t` with slope 1 and falls off to 0 within a few `t` of depth.
pub fn lift(phi: f64, t: f64) -> f64 {
    if phi >= t { phi } else { t * ((phi - t) / t).exp() }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lift_keeps_the_order_of_depths_and_lands_in_the_band() {
        // A deterministic pseudo-random set of depths, deep and shallow.
        let t = 0.002;
        let mut seed = 12345u64;
        let mut depths: Vec<f64> = (0..2000)
            .map(|_| {
                seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                ((seed >> 11) as f64 / (1u64 << 53) as f64) * 0.05 - 0.045
            })
            .collect();
        depths.sort_by(f64::total_cmp);
        let lifted: Vec<f64> = depths.iter().map(|&d| lift(d, t)).collect();
        for (w, d) in lifted.windows(2).zip(depths.windows(2)) {
            assert!(w[0] <= w[1], "order broken at {d:?}: {w:?}");
            if d[0] < d[1] && d[1] < t {
                assert!(w[0] < w[1] || w[0] == 0.0, "distinct depths {d:?} merged: {w:?}");
            }
        }
        for (&d, &l) in depths.iter().zip(&lifted) {
            if d < t {
                assert!((0.0..=t).contains(&l) && l >= d, "{d} -> {l}");
            } else {
                assert_eq!(l, d);
            }
        }
    }
}
