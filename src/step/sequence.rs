//! One step, written once. Both backends run this sequence of stages: the
//! CPU reference executes each stage at once in f64 (`cpu::CpuBackend`),
//! the GPU records each as compute dispatches and submits them where the
//! host needs a result (`gpu::GpuBackend`). A stage added here is a stage
//! both must execute, or the crate does not compile.
//!
//! Backward Euler (Baraff & Witkin 1998; the core paper's Eq. 1): one
//! solve of `(M + S) dv = h f - S v` at the step's start, with the vertices
//! resting on obstacles as constraints (solved again when some pull:
//! Baraff & Witkin §5), then the velocity constraints (strain limiting,
//! obstacles, self-collision) and `x += h v`.
//!
//! Bridson, Marino & Fedkiw 2003 §3's mixed scheme (its variable-step
//! variant): elastic forces explicit, damping implicit, `S` holding only the
//! damping blocks scaled by `h/2`:
//! 1. `v_half = v + h/2 a(x, v_half)`, implicit (a solve at `x^n`);
//! 2. the velocity constraints modify `v_half`; `x += h v_half`;
//! 3. `v_tilde = v + h/2 a(x^n, v)`, explicit (`v + M^-1 rhs` of 1), plus
//!    the constraints' changes to `v_half` (so a stopped vertex stays
//!    stopped);
//! 4. `v = v_tilde + h/2 a(x^{n+1}, v)`, implicit (a second solve): the
//!    trapezoidal rule between `v^n` and `v^{n+1}`.
//!
//! The channels advance at the evaluation at `x^{n+1}`; the one at `x^n`
//! re-evaluates them with no material time (at the positions the last step
//! ended at, where the update changes nothing).

use super::{Backend, Integrator, Scales, StepInput, StepReport, StrainLimit};
use crate::cloth::Cloth;
use crate::collide::ContactReport;
use crate::collide::impact::{self, Impacts};
use crate::error::Result;
use glam::DVec3;
use std::time::Instant;

/// One linear solve's outcome.
#[derive(Clone, Copy, Debug, Default)]
pub struct Solve {
    pub iterations: usize,
    /// `|r| / |r_ref|`, where `r_ref` is the residual with the free part of
    /// the guess set to zero (on the unpinned rows, before the contacts'
    /// filter): the stopping test does not depend on the warm start.
    pub residual: f64,
}

/// What a self-collision search found.
#[derive(Clone, Copy, Debug, Default)]
pub struct Found {
    pub pairs: usize,
    /// The host's wait for the count (the device's search; 0 on the host).
    pub readback_ms: f64,
}

/// The stages of a step, as a backend executes them. Each names the
/// kernel files that implement it (`cpu/<k>.rs`, `shaders/<k>.wgsl`).
pub trait Executor: Backend {
    /// Finds the self-collision pairs at the step's start positions,
    /// closer than `input.self_collision.thickness` (collide/proximity.rs
    /// on the host, shaders/proximity.wgsl on the device), for `load`; with
    /// `impact_zones` on, keeps the start positions for `fail_safe`.
    fn find_pairs(&mut self, input: &StepInput) -> Result<Found>;
    /// Takes the step's holds: the pinned vertices and their targets, the
    /// sticking springs, the enabled obstacles, strain limiting, and the
    /// self-collision pairs `find_pairs` found this step (none if it did
    /// not run) with their springs' system factor `spring_scale`.
    fn load(&mut self, input: &StepInput, spring_scale: f64) -> Result<()>;
    /// Updates the channels by `scales.material_dt` and evaluates, at the
    /// current `x` and `v`, the total force (elements, gravity, repulsion,
    /// air, sticking) and the preconditioner's blocks (membrane, bending,
    /// gather).
    fn evaluate(&mut self, input: &StepInput, scales: &Scales) -> Result<()>;
    /// `rhs = k f - S v`, `k = scales.dt` (hessian, integrate).
    fn right_hand_side(&mut self, input: &StepInput, scales: &Scales) -> Result<()>;
    /// The pinned vertices' `dv`: landing them on their targets, or
    /// (`to_targets` false) holding them still; with `resting`, the
    /// vertices resting on obstacles hold their normal velocity (integrate,
    /// collide).
    fn prescribe(&mut self, input: &StepInput, to_targets: bool, resting: bool) -> Result<()>;
    /// Solves `(M + S) dv = rhs` by PCG from the warm start in `dv`,
    /// filtered by the prescribed rows, to `tolerance * max(|r_ref|,
    /// floor)` (see [`residual_floor`]), and leaves `A dv` (pcg, hessian).
    fn solve(&mut self, input: &StepInput, scales: &Scales, floor: f64) -> Result<Solve>;
    /// Releases the resting contacts whose reaction pulls; returns how many
    /// it released and how many it kept (collide).
    fn release(&mut self) -> Result<(usize, usize)>;
    /// The force the cloth exerts on each pinned vertex's handle,
    /// `(rhs - A dv) / k` with the sign turned (integrate).
    fn reactions(&mut self, input: &StepInput, k: f64) -> Result<Vec<DVec3>>;
    /// The mixed scheme's explicit half step `v_tilde = v + M^-1 rhs`.
    fn explicit_half(&mut self) -> Result<()>;
    /// `v += dv`.
    fn advance_velocity(&mut self) -> Result<()>;
    /// Keeps the velocities before the constraints change them.
    fn keep_velocity(&mut self) -> Result<()>;
    /// Bridson 2003 §3 strain limiting on the velocities (strain_limit).
    fn limit_strain(&mut self, limit: &StrainLimit, h: f64) -> Result<()>;
    /// The obstacles' velocity response (collide); with none enabled, it
    /// clears what the last step's response touched.
    fn respond(&mut self, input: &StepInput, h: f64) -> Result<()>;
    /// The self-collision impulses after the solve (repulsion).
    fn correct(&mut self, input: &StepInput, h: f64) -> Result<()>;
    /// Carries the constraints' velocity changes into `v_tilde`.
    fn carry(&mut self) -> Result<()>;
    /// `x += h v`.
    fn advance_position(&mut self, h: f64) -> Result<()>;
    /// Lifts the vertices left inside an obstacle back to its surface and
    /// reports the step's contact (collide).
    fn settle(&mut self, input: &StepInput) -> Result<ContactReport>;
    /// The self-collision fail-safe (collide/impact.rs, on the host: the
    /// GPU reads the positions back): the motion from the step's start
    /// positions to the current ones made free of collisions by rigid
    /// impact zones; a moved vertex's velocity becomes its motion over the
    /// step (and `v_tilde` changes by as much in the mixed scheme).
    fn fail_safe(&mut self, input: &StepInput, h: f64) -> Result<Impacts>;
    /// `v := v_tilde` (the mixed scheme's second half).
    fn take_explicit_half(&mut self) -> Result<()>;
    /// Waits for the work recorded so far (the stage timings measure work
    /// done, not recorded).
    fn sync(&mut self) -> Result<()>;
    /// Compute dispatches recorded since the last call (0 on the CPU).
    fn take_dispatches(&mut self) -> u64;
    /// An error if the step blew up, by what the backend can see of its
    /// state on the host.
    fn check_finite(&mut self, report: &StepReport) -> Result<()>;
}

fn ms(since: Instant) -> f64 {
    since.elapsed().as_secs_f64() * 1e3
}

/// Advances `exec`'s state by one step of `input`.
pub fn step(exec: &mut impl Executor, input: &StepInput) -> Result<StepReport> {
    let h = input.dt;
    let mixed = input.integrator == Integrator::BridsonMixed;
    let cloth = exec.cloth();
    let damping = cloth.damping;
    let scales = match mixed {
        false => Scales::new(h, input.material_dt, damping),
        true => Scales::mixed(h, 0.0, damping),
    };
    // Self-collision pairs are found where the positions are (the host's
    // search on the CPU, the device's on the GPU). A step without pairs has
    // no repulsion at all; the springs are elastic, explicit in the mixed
    // scheme.
    let (mut found, mut self_collision_ms) = (Found::default(), 0.0);
    if input.self_collision.enabled {
        let t = Instant::now();
        found = exec.find_pairs(input)?;
        self_collision_ms = ms(t) - found.readback_ms;
    }
    let pairs = found.pairs;
    exec.load(input, if mixed { 0.0 } else { h * h })?;

    let t0 = Instant::now();
    exec.evaluate(input, &scales)?;
    exec.sync()?;
    let mut forces_ms = ms(t0);

    let t1 = Instant::now();
    let (solve, resting) = solve_with_contacts(exec, input, &scales, true)?;
    let reactions = exec.reactions(input, scales.dt)?;
    if mixed {
        exec.explicit_half()?;
    }
    exec.advance_velocity()?;
    exec.sync()?;
    let mut solve_ms = ms(t1);

    // The velocity constraints, each timed to its end.
    let t = Instant::now();
    exec.keep_velocity()?;
    if let Some(limit) = &input.strain_limit {
        exec.limit_strain(limit, h)?;
    }
    exec.sync()?;
    let strain_limit_ms = ms(t);
    let t = Instant::now();
    exec.respond(input, h)?;
    exec.sync()?;
    let mut obstacles_ms = ms(t);
    if pairs > 0 {
        let t = Instant::now();
        exec.correct(input, h)?;
        exec.sync()?;
        self_collision_ms += ms(t);
    }
    if mixed {
        exec.carry()?;
    }
    exec.advance_position(h)?;
    exec.sync()?;
    let t = Instant::now();
    let contact = ContactReport {
        resting,
        ..exec.settle(input)?
    };
    obstacles_ms += ms(t);
    // The fail-safe comes last: "adjustments for object collisions before
    // running the self-collision code" (Bridson, Marino & Fedkiw 2003 §5),
    // so that where a body pinches cloth, the cloth may end inside the body
    // but never through itself.
    let mut impacts = Impacts::default();
    if input.self_collision.enabled && input.self_collision.impact_zones {
        let t = Instant::now();
        impacts = exec.fail_safe(input, h)?;
        self_collision_ms += ms(t);
    }

    let mut solves = [solve, Solve::default()];
    if mixed {
        let t3 = Instant::now();
        exec.take_explicit_half()?;
        let end = Scales::mixed(h, input.material_dt, damping);
        exec.evaluate(input, &end)?;
        exec.sync()?;
        forces_ms += ms(t3);
        let t4 = Instant::now();
        solves[1] = solve_with_contacts(exec, input, &end, false)?.0;
        exec.advance_velocity()?;
        exec.sync()?;
        solve_ms += ms(t4);
    }
    let report = StepReport {
        cg_iterations: solves[0].iterations + solves[1].iterations,
        cg_residual: solves[0].residual.max(solves[1].residual),
        reactions,
        forces_ms,
        solve_ms,
        dispatches: exec.take_dispatches(),
        contact,
        strain_limit_ms,
        obstacles_ms,
        self_collision_ms,
        readback_ms: found.readback_ms,
        proximity_pairs: pairs,
        impacts,
    };
    exec.check_finite(&report)?;
    Ok(report)
}

/// The least reference residual the solve's tolerance is taken of: the
/// impulse gravity gives the unpinned vertices over the solve's step,
/// `h |g| |m|`. A cloth at rest balances its weight, so its reference
/// residual vanishes, and a tolerance relative to that alone chases
/// round-off (a damped 561-vertex strip hanging still took 950
/// iterations a step); this stops once the forces left unbalanced are
/// `tolerance` of the cloth's weight. Without gravity it is 0.
pub fn residual_floor(mass: &[f64], input: &StepInput, scales: &Scales) -> f64 {
    let mut free = vec![true; mass.len()];
    for &p in input.pinned {
        free[p as usize] = false;
    }
    let m2: f64 = mass.iter().zip(&free).filter(|(_, f)| **f).map(|(m, _)| m * m).sum();
    scales.dt * input.gravity.length() * m2.sqrt()
}

/// [`impact::resolve`] for a step of `cloth` from `x0` to `x1`: the step's pinned
/// vertices prescribed, collisions within [`impact::ETA`] of its self-collision
/// thickness.
pub fn resolve_impacts(cloth: &Cloth, input: &StepInput, x0: &[DVec3], x1: &mut [DVec3]) -> Impacts {
    let mut pinned = vec![false; x0.len()];
    for &p in input.pinned {
        pinned[p as usize] = true;
    }
    let eta = impact::ETA * input.self_collision.thickness;
    impact::resolve(
        &cloth.mesh.faces,
        &cloth.topology.edges,
        x0,
        x1,
        &cloth.mass,
        &pinned,
        eta,
    )
}

/// The right-hand side, the prescribed rows and the solve, with the
/// vertices resting on obstacles held (`to_targets`: the step's first
/// solve; the mixed scheme's second holds the pinned vertices still and has
/// no contacts). A contact whose reaction pulls is released and the system
/// solved again, at most `solver.contact_solves` times (Baraff & Witkin
/// 1998 §5). Returns the solve and how many resting contacts it kept.
fn solve_with_contacts(
    exec: &mut impl Executor,
    input: &StepInput,
    scales: &Scales,
    to_targets: bool,
) -> Result<(Solve, usize)> {
    exec.right_hand_side(input, scales)?;
    let floor = residual_floor(&exec.cloth().mass, input, scales);
    let holding = to_targets && input.solver.contact_solves > 0 && !input.obstacles.is_empty();
    exec.prescribe(input, to_targets, holding)?;
    let rounds = if holding { input.solver.contact_solves } else { 1 };
    let (mut solve, mut kept) = (Solve::default(), 0);
    for _ in 0..rounds {
        let s = exec.solve(input, scales, floor)?;
        solve.iterations += s.iterations;
        solve.residual = s.residual;
        if !holding {
            break;
        }
        let (released, held) = exec.release()?;
        kept = held;
        if released == 0 {
            break;
        }
    }
    Ok((solve, kept))
}
