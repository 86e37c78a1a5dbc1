//! The validated scene `resolve.rs` builds: its handles, phases, loads
//! and sticking, ready to simulate.

use crate::cloth::Cloth;
use crate::collide::Obstacle;
use crate::collide::attach::Ride;
use crate::scene::schema::{Action, Format, ObstacleAction};
use crate::step::{SelfCollision, SolverSettings, StepInput, StrainLimit};
use glam::DVec3;

/// A line in space.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Axis {
    pub point: DVec3,
    /// Unit direction.
    pub direction: DVec3,
}

#[derive(Clone, Debug)]
pub struct Handle {
    pub name: String,
    /// Selected vertices, sorted, unique.
    pub vertices: Vec<u32>,
    /// Axis for the reported reaction torque, if any.
    pub torque_axis: Option<Axis>,
    /// The obstacle the handle rides on, if any.
    pub attach: Option<Attach>,
}

/// A handle riding on an obstacle.
#[derive(Clone, Debug)]
pub struct Attach {
    /// The obstacle's index in `Scene::obstacles`.
    pub obstacle: usize,
    /// How the handle's vertices ride on it from the start.
    pub ride: Ride,
}

#[derive(Clone, Debug)]
pub struct Phase {
    pub name: String,
    /// Number of time steps (duration / dt, rounded, at least 1).
    pub steps: u64,
    /// Material seconds the phase stands for (its duration unless a
    /// `material_time` is given).
    pub material_time: f64,
    /// Per handle (same order as `Scene::handles`): the action, or `None` to
    /// keep the handle's state.
    pub actions: Vec<Option<Action>>,
    /// Per obstacle (same order as `Scene::obstacles`), likewise.
    pub obstacle_actions: Vec<Option<ObstacleAction>>,
    /// Sticking switched off (`false`) or on again, or `None` to keep it.
    pub sticking: Option<bool>,
    /// Per load (same order as `Scene::loads`): its scale at the phase's
    /// start and end (1: the full force; linear in between).
    pub load_scales: Vec<[f64; 2]>,
}

/// The scene's sticking (sim/sticking.rs).
#[derive(Clone, Debug)]
pub struct Sticking {
    /// Adhering vertices, sorted, unique.
    pub vertices: Vec<u32>,
    /// The cloth's sticky faces (indices, ascending).
    pub sticky_faces: Vec<u32>,
    pub stiffness: f64,
    pub tolerance: f64,
    pub release: f64,
}

/// A validated scene, ready to simulate.
#[derive(Clone, Debug)]
pub struct Scene {
    /// Short name (built-in name or file stem).
    pub name: String,
    /// Where it came from, for messages.
    pub source: String,
    pub description: String,
    /// FNV-1a of the scene's JSON after the overrides (a checkpoint is
    /// resumed only into the same scene).
    pub digest: u64,
    pub dt: f64,
    pub gravity: DVec3,
    pub solver: SolverSettings,
    pub self_collision: SelfCollision,
    pub strain_limit: Option<StrainLimit>,
    pub air: crate::model::air::Air,
    pub integrator: crate::step::Integrator,
    pub sticking: Option<Sticking>,
    pub cloth: std::sync::Arc<Cloth>,
    pub handles: Vec<Handle>,
    pub obstacles: Vec<Obstacle>,
    pub loads: Vec<super::loads::Load>,
    pub phases: Vec<Phase>,
    /// Simulated seconds between output frames: a whole number of steps.
    pub frame_interval: f64,
    /// What a run writes, each once.
    pub formats: Vec<Format>,
    /// What loads but looks wrong, each a sentence naming its field (the
    /// commands print them).
    pub warnings: Vec<String>,
}

impl Scene {
    /// Total steps of the timeline.
    pub fn total_steps(&self) -> u64 {
        self.phases.iter().map(|p| p.steps).sum()
    }

    /// Steps between output frames (at least 1; the interval is checked to
    /// be a whole number of them).
    pub fn frame_steps(&self) -> u64 {
        ((self.frame_interval / self.dt).round() as u64).max(1)
    }

    /// Output frames a run of `steps` steps writes: frame 0, one every
    /// [`Scene::frame_steps`], and the last step's.
    pub fn output_frames(&self, steps: u64) -> u64 {
        1 + steps.div_ceil(self.frame_steps())
    }

    /// A step of the scene's settings with nothing held, no obstacles and no
    /// sticking springs (tests and validation fill in what they need).
    pub fn unconstrained_step(&self) -> StepInput<'_> {
        StepInput {
            dt: self.dt,
            material_dt: self.dt,
            gravity: self.gravity,
            pinned: &[],
            targets: &[],
            solver: self.solver,
            grids: &[],
            bodies: &[],
            obstacles: &[],
            self_collision: self.self_collision,
            strain_limit: self.strain_limit,
            air: self.air,
            integrator: self.integrator,
            sticks: &[],
            loads: &[],
            depths: true,
        }
    }
}
