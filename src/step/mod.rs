//! The one interface the simulation driver uses to step a cloth, whichever
//! backend computes it, and the settings a step runs under.

pub mod sequence;
mod settings;

pub use settings::{
    CORRECTION_ITERATIONS, Integrator, Preconditioner, SOLVE_RESTARTS, Scales, SelfCollision, SolverSettings,
    StrainLimit,
};

use crate::collide::body::BodyStep;
use crate::collide::{ObstacleStep, SdfGrid};
use crate::error::Result;
use crate::measure::Measures;
use crate::model::channel::Channels;
use glam::DVec3;
use std::sync::Arc;

/// What one time step needs besides the backend's own state.
pub struct StepInput<'a> {
    pub dt: f64,
    /// Material time the step stands for (the friction and plastic clocks
    /// advance by it; docs/physics.md "Material time").
    pub material_dt: f64,
    pub gravity: DVec3,
    /// Hard-pinned vertices (sorted) and where each must be at the step's end.
    pub pinned: &'a [u32],
    pub targets: &'a [DVec3],
    pub solver: SolverSettings,
    /// Every obstacle grid of the scene (the same slice every step, so a
    /// device uploads them once), the deforming bodies over this step, and
    /// the obstacles enabled in this step (each on a grid or a body).
    pub grids: &'a [Arc<SdfGrid>],
    pub bodies: &'a [BodyStep],
    pub obstacles: &'a [ObstacleStep],
    pub self_collision: SelfCollision,
    /// Bridson 2003 §3 strain limiting, applied after the solve and before
    /// the obstacle response; `None`: off.
    pub strain_limit: Option<StrainLimit>,
    /// Drag and wind (Melo et al. Eq. 14-16).
    pub air: crate::model::air::Air,
    pub integrator: Integrator,
    /// The step's sticking springs.
    pub sticks: &'a [Stick],
    /// The step's loads (the scene's `loads` switched on), at most one per
    /// vertex, sorted by vertex.
    pub loads: &'a [VertexLoad],
    /// Whether the step measures how deep the cloth lies in its obstacles
    /// (`ContactReport`): the probes of every vertex after the lift and of
    /// every edge's midpoint serve only the report. A run asks at its
    /// output frames, whose rows print them; at the other steps its depths
    /// and contact count are zero on both backends (its resting count, the
    /// solve's, stays).
    pub depths: bool,
}

/// A constant external force on one vertex over the step (a share of a
/// scene load: a weight pressing the cloth, a hand pushing it), N. It adds
/// to the right-hand side only: it does not depend on the state, so the
/// system matrix does not change.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct VertexLoad {
    pub vertex: u32,
    pub force: DVec3,
}

/// A sticking spring (sim/sticking.rs) over one step: energy
/// `stiffness/2 |x - target|^2` on `vertex`, implicit like the elastic
/// forces (explicit in the mixed scheme).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Stick {
    pub vertex: u32,
    pub target: DVec3,
    pub stiffness: f64,
}

/// What a step reports back.
#[derive(Clone, Debug, Default)]
pub struct StepReport {
    pub cg_iterations: usize,
    /// Final relative residual of the PCG solve.
    pub cg_residual: f64,
    /// Per pinned vertex (same order as `StepInput::pinned`): the force the
    /// cloth exerts on the handle holding it, N.
    pub reactions: Vec<DVec3>,
    /// Wall time of force and Hessian evaluation, and of the solve, ms.
    pub forces_ms: f64,
    pub solve_ms: f64,
    /// Compute dispatches the step recorded (0 on the CPU).
    pub dispatches: u64,
    /// Vertices the obstacles acted on, and the deepest penetration left.
    pub contact: crate::collide::ContactReport,
    /// Wall time of the stages after the solve, ms: strain limiting; the
    /// obstacles' response and post-process; self-collision, its search and
    /// its correction; and the wait for the pair count the GPU's search
    /// reads back (0 on the CPU).
    pub strain_limit_ms: f64,
    pub obstacles_ms: f64,
    pub self_collision_ms: f64,
    pub readback_ms: f64,
    /// Self-collision pairs closer than the thickness at the step's start.
    pub proximity_pairs: usize,
    /// What the self-collision fail-safe did (nothing when it is off).
    pub impacts: crate::collide::impact::Impacts,
}

/// Everything a backend carries from step to step, exactly (a checkpoint):
/// the CPU's f64 state, or the GPU's buffers word for word.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
#[serde(tag = "backend", rename_all = "lowercase")]
pub enum BackendState {
    Cpu {
        x: Vec<DVec3>,
        v: Vec<DVec3>,
        /// The last velocity change (the next solve's warm start).
        dv: Vec<DVec3>,
        channels: Channels,
    },
    Gpu {
        /// `(buffer name, its 32-bit words)`.
        buffers: Vec<(String, Vec<u32>)>,
    },
}

pub trait Backend {
    fn name(&self) -> &'static str;
    /// Advances the state by one linearised backward-Euler step.
    fn step(&mut self, input: &StepInput) -> Result<StepReport>;
    /// State readback (a GPU backend copies it from the device, which can fail).
    fn positions(&self) -> Result<Vec<DVec3>>;
    fn velocities(&self) -> Result<Vec<DVec3>>;
    /// Friction and plastic state of every channel.
    fn channels(&self) -> Result<Channels>;
    fn measure(&self) -> Result<Measures> {
        Ok(crate::measure::measure(
            &self.cloth(),
            &self.positions()?,
            &self.velocities()?,
            &self.channels()?,
        ))
    }
    fn cloth(&self) -> std::sync::Arc<crate::cloth::Cloth>;
    /// The state a checkpoint keeps, and its restoration (an error when the
    /// state is another backend's or another cloth's).
    fn save_state(&self) -> Result<BackendState>;
    fn restore_state(&mut self, state: &BackendState) -> Result<()>;
    /// Drops what the backend keeps from step to step only for speed (the
    /// multilevel hierarchy), which a checkpoint does not hold: the
    /// simulation calls it at the end of each output frame's last step,
    /// where a resumed run starts, so that both do the same arithmetic.
    fn drop_caches(&mut self);
}
