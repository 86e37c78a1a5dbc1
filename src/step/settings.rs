//! The settings a step runs under: the solver's, the integrator, self-collision
//! and strain limiting (read from a scene's JSON as they are), and the step
//! factors the element kernels scale their blocks by.

use serde::Deserialize;

#[derive(Deserialize, Debug, Clone, Copy, serde::Serialize)]
#[serde(deny_unknown_fields)]
pub struct SolverSettings {
    /// Relative residual at which PCG stops.
    #[serde(default = "default_tolerance")]
    pub tolerance: f64,
    #[serde(default = "default_max_iterations")]
    pub max_iterations: usize,
    /// GPU: PCG iterations recorded per submission between readbacks of the
    /// residual (the CPU checks every iteration).
    #[serde(default = "default_readback_interval")]
    pub readback_interval: usize,
    /// Solves per step with resting contacts: after each, the contacts that
    /// pull are released and the system solved again. 0: no resting
    /// contacts (obstacles act only after the solve).
    #[serde(default = "default_contact_solves")]
    pub contact_solves: usize,
    #[serde(default)]
    pub preconditioner: Preconditioner,
}

/// The preconditioner of the implicit solve's conjugate gradients.
#[derive(Deserialize, Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Preconditioner {
    /// The multilevel one where it wins on the backend at the cloth's size,
    /// else block Jacobi ([`Preconditioner::multilevel`]).
    #[default]
    Auto,
    /// The inverse 3x3 diagonal blocks.
    Jacobi,
    /// One smoothed-aggregation V-cycle (multigrid, cpu/multilevel,
    /// shaders/multilevel.wgsl).
    Multilevel,
}

/// The fewest vertices at which `auto` takes the multilevel preconditioner.
/// Below, on the GPU, a step is launch-bound and the V-cycle's many small
/// dispatches lose (H200: the 3.4K-vertex trousers 39 ms a step against
/// Jacobi's 28); from 7K up it wins on both (the 7K twist: CPU 89 ms
/// against 159, H200 16.3 against 24.3). The CPU gains from about 1000
/// vertices, but there the built-in trousers' lift-leg would stretch an
/// edge past its claim's 30% (docs/speed.md), so both backends start here.
pub const AUTO_FROM: usize = 5_000;

/// The most vertices at which the GPU's `auto` takes the multilevel
/// preconditioner. Its levels are built on the host from the finest one
/// read back, and as the mesh grows the budget of kept levels runs out
/// within a solve: on the twist (H200, 2026-11-26) it wins at 250K (199 ms
/// a step, 51 iterations, against Jacobi's 539 at the 2000-iteration cap)
/// and at 500K (401 against 1075, 66 iterations against the cap), and
/// loses at 1M (16.9 s a step, 1138 iterations and the levels rebuilt
/// mid-solve, against 4.0 s at the cap).
pub const AUTO_GPU_TO: usize = 600_000;

impl Preconditioner {
    pub fn name(self) -> &'static str {
        match self {
            Preconditioner::Auto => "auto",
            Preconditioner::Jacobi => "jacobi",
            Preconditioner::Multilevel => "multilevel",
        }
    }

    /// Whether a solve of `vertices` vertices on the CPU (`gpu` false) or
    /// the GPU takes the multilevel preconditioner (`auto` made concrete).
    pub fn multilevel(self, vertices: usize, gpu: bool) -> bool {
        match self {
            Preconditioner::Auto => vertices >= AUTO_FROM && (!gpu || vertices <= AUTO_GPU_TO),
            Preconditioner::Jacobi => false,
            Preconditioner::Multilevel => true,
        }
    }

    /// The preconditioner such a solve takes: `jacobi` or `multilevel`.
    pub fn concrete(self, vertices: usize, gpu: bool) -> Preconditioner {
        match self.multilevel(vertices, gpu) {
            true => Preconditioner::Multilevel,
            false => Preconditioner::Jacobi,
        }
    }
}

fn default_contact_solves() -> usize {
    4
}

fn default_readback_interval() -> usize {
    16
}

fn default_tolerance() -> f64 {
    1e-5
}
fn default_max_iterations() -> usize {
    2000
}

impl Default for SolverSettings {
    fn default() -> Self {
        SolverSettings {
            tolerance: default_tolerance(),
            max_iterations: default_max_iterations(),
            readback_interval: default_readback_interval(),
            contact_solves: default_contact_solves(),
            preconditioner: Preconditioner::default(),
        }
    }
}

/// Cloth self-collision (`collide/proximity.rs`, `cpu/repulsion.rs` and
/// its twin `shaders/repulsion.wgsl`): on unless a scene sets
/// `enabled: false`.
#[derive(Deserialize, Debug, Clone, Copy, PartialEq, serde::Serialize)]
#[serde(deny_unknown_fields)]
pub struct SelfCollision {
    #[serde(default = "enabled")]
    pub enabled: bool,
    /// Layers closer than this repel, m.
    #[serde(default = "default_self_thickness")]
    pub thickness: f64,
    /// Repulsion spring per proximity pair, N/m.
    #[serde(default = "default_self_stiffness")]
    pub stiffness: f64,
    /// Coulomb friction between layers.
    #[serde(default = "default_self_friction")]
    pub friction: f64,
    /// The fail-safe after the step's other constraints: rigid impact
    /// zones over the step's continuous collisions (collide/impact.rs).
    /// Off by default: on the GPU it reads the positions back every step.
    #[serde(default)]
    pub impact_zones: bool,
}

fn default_self_thickness() -> f64 {
    0.002
}
fn default_self_stiffness() -> f64 {
    100.0
}
fn default_self_friction() -> f64 {
    0.3
}

impl Default for SelfCollision {
    fn default() -> Self {
        SelfCollision {
            enabled: true,
            thickness: default_self_thickness(),
            stiffness: default_self_stiffness(),
            friction: default_self_friction(),
            impact_zones: false,
        }
    }
}

/// The time integrator (step/sequence.rs).
#[derive(Deserialize, Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Integrator {
    /// Linearised backward Euler, everything implicit (the paper's).
    #[default]
    BackwardEuler,
    /// Bridson, Marino & Fedkiw 2003 §3: elastic forces explicit, damping
    /// implicit, second order (their variable-step variant).
    BridsonMixed,
}

/// Strain limiting (Bridson, Marino & Fedkiw 2003 §3; `cpu/strain_limit.rs`
/// and its twin `shaders/strain_limit.wgsl`): before the position update,
/// velocities are adjusted so that every edge ends the step within
/// `[1 - compression, 1 + extension]` times its rest length.
#[derive(Deserialize, Debug, Clone, Copy, PartialEq, serde::Serialize)]
#[serde(deny_unknown_fields)]
pub struct StrainLimit {
    /// Largest extension, a fraction of the rest length (the paper: 10%).
    #[serde(default = "default_extension")]
    pub extension: f64,
    /// Largest compression, a fraction of the rest length (the paper: 0%,
    /// which makes cloth buckle out of plane instead of compressing).
    #[serde(default)]
    pub compression: f64,
    /// Jacobi sweeps over the edges per step.
    #[serde(default = "default_limit_iterations")]
    pub iterations: usize,
}

impl StrainLimit {
    /// The bounds on an edge's length, in rest lengths:
    /// `(1 - compression, 1 + extension)`.
    pub fn bounds(&self) -> (f64, f64) {
        (1.0 - self.compression, 1.0 + self.extension)
    }
}

fn default_extension() -> f64 {
    0.1
}
fn default_limit_iterations() -> usize {
    32
}

/// Step-dependent factors the element kernels need.
#[derive(Clone, Copy, Debug)]
pub struct Scales {
    /// The solve's step `h`: the force factor of its right-hand side
    /// `h f - S v` and the channels' dt (the whole step in backward Euler,
    /// half of it in the mixed scheme).
    pub dt: f64,
    pub material_dt: f64,
    /// Factor of elastic Hessians in the system: `h (h + alpha)`.
    pub elastic: f64,
    /// Factor of friction springs: `h^2`.
    pub friction: f64,
    /// Factor of friction damping: `h`.
    pub damping: f64,
}

impl Scales {
    pub fn new(dt: f64, material_dt: f64, alpha: f64) -> Scales {
        Scales {
            dt,
            material_dt,
            elastic: dt * (dt + alpha),
            friction: dt * dt,
            damping: dt,
        }
    }

    /// The factors of each solve of Bridson's mixed scheme over a step
    /// `dt`: half steps, with only the damping implicit (the elastic and
    /// friction-spring blocks drop out; Rayleigh damping keeps `h/2 alpha K`).
    pub fn mixed(dt: f64, material_dt: f64, alpha: f64) -> Scales {
        let half = dt / 2.0;
        Scales {
            dt: half,
            material_dt,
            elastic: half * alpha,
            friction: 0.0,
            damping: half,
        }
    }
}

fn enabled() -> bool {
    true
}

/// Times a solve goes on after its recurred residual met the tolerance but
/// the residual computed again from the solution did not (cpu/pcg.rs, the
/// same in gpu/executor.rs): f32's recurrence drifts below the true
/// residual, and the restarted iterations close the gap.
pub const SOLVE_RESTARTS: usize = 4;

/// Jacobi sweeps of the self-collision correction after the solve
/// (cpu/repulsion.rs `correct`, the same in repulsion.wgsl).
pub const CORRECTION_ITERATIONS: usize = 4;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn auto_takes_the_multilevel_preconditioner_where_it_was_measured_to_win() {
        let auto = Preconditioner::Auto;
        for gpu in [false, true] {
            assert!(!auto.multilevel(AUTO_FROM - 1, gpu));
            assert!(auto.multilevel(AUTO_FROM, gpu));
            assert!(!Preconditioner::Jacobi.multilevel(10 * AUTO_FROM, gpu));
            assert!(Preconditioner::Multilevel.multilevel(1, gpu));
        }
        assert!(auto.multilevel(AUTO_GPU_TO, true) && !auto.multilevel(AUTO_GPU_TO + 1, true));
        assert!(auto.multilevel(10 * AUTO_GPU_TO, false));
    }
}
