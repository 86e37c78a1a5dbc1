//! The simulation driver: walks the timeline phase by phase, moves the
//! handles along their scripted rigid motions, steps the backend, and turns
//! per-vertex reactions into per-handle force and torque. It never knows
//! which backend it drives.

pub mod blow_up;
mod handles;
mod obstacles;
mod solves;
mod sticking;

use crate::collide::body::BodyStep;
use crate::collide::{Field, ObstacleStep, SdfGrid, Surface};
use crate::error::Result;
use crate::scene::Scene;
use crate::step::{Backend, BackendState, StepInput, StepReport, Stick, VertexLoad};
use glam::DVec3;
use handles::HandleState;
use obstacles::ObstacleState;
pub use obstacles::{ObstacleAt, obstacles_at};
pub use solves::Unconverged;
use std::sync::Arc;
use sticking::StickState;

/// Reaction of the cloth on one handle.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Reaction {
    pub force: DVec3,
    /// Torque about the handle's torque axis, N m (0 without an axis).
    pub torque: f64,
}

/// What one step did.
#[derive(Clone, Debug)]
pub struct StepInfo {
    pub report: StepReport,
    /// Per handle, in scene order (zero for released handles).
    pub reactions: Vec<Reaction>,
    pub wall_ms: f64,
}

/// The driver's own state between steps: a checkpoint holds it beside the
/// backend's.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct SimState {
    phase: usize,
    phase_step: u64,
    steps: u64,
    material_time: f64,
    handles: Vec<HandleState>,
    obstacles: Vec<ObstacleState>,
    #[serde(default)]
    sticking: Option<StickState>,
    /// Absent from checkpoints written before 2026-12-02: none counted.
    #[serde(default)]
    unconverged: Unconverged,
}

pub struct Simulation {
    pub scene: Scene,
    backend: Box<dyn Backend>,
    handles: Vec<HandleState>,
    obstacles: Vec<ObstacleState>,
    /// The grids of the rigid obstacles, in scene order.
    grids: Vec<Arc<SdfGrid>>,
    active: Vec<ObstacleStep>,
    bodies: Vec<BodyStep>,
    phase: usize,
    phase_step: u64,
    steps: u64,
    material_time: f64,
    pinned: Vec<u32>,
    targets: Vec<DVec3>,
    sticking: Option<StickState>,
    sticks: Vec<Stick>,
    /// The loads acting, and the scales they were gathered at.
    loads: Vec<VertexLoad>,
    load_scales: Vec<f64>,
    unconverged: Unconverged,
}

/// The shares of the scene's loads at `scales` (each load's, in scene
/// order), one per vertex (where loads overlap, their shares add), by
/// vertex; a load at scale 0 is left out.
fn acting_loads(scene: &Scene, scales: &[f64]) -> Vec<VertexLoad> {
    let mut shares: Vec<VertexLoad> = scene
        .loads
        .iter()
        .zip(scales)
        .filter(|(_, scale)| **scale != 0.0)
        .flat_map(|(l, &scale)| {
            l.shares.iter().map(move |v| VertexLoad {
                vertex: v.vertex,
                force: v.force * scale,
            })
        })
        .collect();
    shares.sort_by_key(|s| s.vertex);
    shares.dedup_by(|next, kept| {
        let same = next.vertex == kept.vertex;
        if same {
            kept.force += next.force;
        }
        same
    });
    shares
}

impl Simulation {
    pub fn new(scene: Scene, backend: Box<dyn Backend>) -> Simulation {
        let x = &scene.cloth.mesh.positions;
        let handles = scene
            .handles
            .iter()
            .map(|h| HandleState::grab(&h.vertices, x, h.attach.as_ref().map(|a| a.ride.clone())))
            .collect();
        let obstacles = scene.obstacles.iter().map(ObstacleState::new).collect();
        let grids = scene
            .obstacles
            .iter()
            .filter_map(|o| match &o.surface {
                Surface::Grid(g) => Some(Arc::clone(g)),
                Surface::Sequence(_) => None,
            })
            .collect();
        Simulation {
            backend,
            handles,
            obstacles,
            grids,
            active: Vec::new(),
            bodies: Vec::new(),
            phase: 0,
            phase_step: 0,
            steps: 0,
            material_time: 0.0,
            pinned: Vec::new(),
            targets: Vec::new(),
            sticking: scene.sticking.as_ref().map(StickState::new),
            sticks: Vec::new(),
            loads: Vec::new(),
            load_scales: Vec::new(),
            unconverged: Unconverged::default(),
            scene,
        }
    }

    pub fn backend(&self) -> &dyn Backend {
        self.backend.as_ref()
    }

    /// The obstacles enabled in the last step, with their poses.
    pub fn obstacles(&self) -> &[ObstacleStep] {
        &self.active
    }

    /// The deforming bodies of the last step (`Field::Body` indexes them).
    pub fn bodies(&self) -> &[BodyStep] {
        &self.bodies
    }

    /// The driver's and the backend's state, exactly.
    pub fn save_state(&self) -> Result<(SimState, BackendState)> {
        let sim = SimState {
            phase: self.phase,
            phase_step: self.phase_step,
            steps: self.steps,
            material_time: self.material_time,
            handles: self.handles.clone(),
            obstacles: self.obstacles.clone(),
            sticking: self.sticking.clone(),
            unconverged: self.unconverged,
        };
        Ok((sim, self.backend.save_state()?))
    }

    /// Continues from a saved state of the same scene.
    pub fn restore_state(&mut self, sim: &SimState, backend: &BackendState) -> Result<()> {
        if sim.handles.len() != self.handles.len()
            || sim.obstacles.len() != self.obstacles.len()
            || sim.phase > self.scene.phases.len()
        {
            return Err(crate::Error::Step(format!(
                "the checkpoint's timeline ({} handles, {} obstacles, phase {}) does not fit scene {}",
                sim.handles.len(),
                sim.obstacles.len(),
                sim.phase,
                self.scene.name
            )));
        }
        self.backend.restore_state(backend)?;
        self.phase = sim.phase;
        self.phase_step = sim.phase_step;
        self.steps = sim.steps;
        self.material_time = sim.material_time;
        self.handles.clone_from(&sim.handles);
        self.obstacles.clone_from(&sim.obstacles);
        if sim.sticking.is_some() {
            self.sticking.clone_from(&sim.sticking);
        }
        self.unconverged = sim.unconverged;
        Ok(())
    }

    /// The steps so far whose solve ended above the tolerance.
    pub fn unconverged(&self) -> Unconverged {
        self.unconverged
    }

    /// Simulated time, seconds.
    pub fn time(&self) -> f64 {
        self.steps as f64 * self.scene.dt
    }

    pub fn steps(&self) -> u64 {
        self.steps
    }

    /// Material time elapsed (docs/physics.md "Material time"), seconds.
    pub fn material_time(&self) -> f64 {
        self.material_time
    }

    pub fn done(&self) -> bool {
        self.phase >= self.scene.phases.len()
    }

    /// Vertices stuck to sticky obstacles now (0 without sticking).
    pub fn stuck(&self) -> usize {
        self.sticking.as_ref().map_or(0, |s| s.stuck())
    }

    /// Name of the current phase (the last one once done).
    pub fn phase_name(&self) -> &str {
        let k = self.phase.min(self.scene.phases.len() - 1);
        &self.scene.phases[k].name
    }

    /// Advances one time step, measuring how deep the cloth lies in its
    /// obstacles; an error once the timeline has ended.
    pub fn step(&mut self) -> Result<StepInfo> {
        self.step_measuring(true)
    }

    /// Whether the next step ends the timeline.
    pub fn last_step(&self) -> bool {
        self.phase + 1 == self.scene.phases.len() && self.phase_step + 1 == self.scene.phases[self.phase].steps
    }

    /// [`Simulation::step`], with the obstacle depths of its report measured
    /// only if `depths` (`StepInput::depths`: a run's output frames).
    pub fn step_measuring(&mut self, depths: bool) -> Result<StepInfo> {
        if self.done() {
            return Err(crate::Error::Step(format!(
                "the timeline of {} has ended at t = {} s; there is no step to take",
                self.scene.name,
                self.time()
            )));
        }
        let start = std::time::Instant::now();
        let phase = &self.scene.phases[self.phase];
        let (t0, t1) = (self.time(), self.time() + self.scene.dt);
        if self.phase_step == 0 {
            for (k, state) in self.obstacles.iter_mut().enumerate() {
                state.begin_phase(phase.obstacle_actions[k].as_ref());
            }
            let x = self.backend.positions()?;
            for (k, state) in self.handles.iter_mut().enumerate() {
                let handle = &self.scene.handles[k];
                let rebind = || -> Result<_> {
                    let Some(a) = &handle.attach else { return Ok(None) };
                    let o = &self.scene.obstacles[a.obstacle];
                    let pose = self.obstacles[a.obstacle].pose_at(phase.obstacle_actions[a.obstacle].as_ref(), 0.0);
                    let ride = o.carrier(t0, &pose, |c| c.bind(&handle.vertices, &x)).map_err(|m| {
                        crate::Error::Step(format!(
                            "phase {}: handle `{}` grabs again, but on obstacle `{}` its {m}: hold the handle before \
                             the cloth leaves the obstacle",
                            phase.name, handle.name, o.name
                        ))
                    })?;
                    Ok(Some(ride))
                };
                state.begin_phase(phase.actions[k].as_ref(), &handle.vertices, &x, rebind)?;
            }
            if let Some(st) = &mut self.sticking {
                st.begin_phase(phase.sticking);
            }
        }
        let s0 = self.phase_step as f64 / phase.steps as f64;
        let s = (self.phase_step + 1) as f64 / phase.steps as f64;
        self.pinned.clear();
        self.targets.clear();
        for (k, state) in self.handles.iter().enumerate() {
            if !state.held {
                continue;
            }
            let handle = &self.scene.handles[k];
            self.pinned.extend_from_slice(&handle.vertices);
            match (&handle.attach, &state.ride) {
                (Some(a), Some(ride)) => {
                    // Where the obstacle is at the step's end, removed or not.
                    let action = phase.obstacle_actions[a.obstacle].as_ref();
                    let pose = self.obstacles[a.obstacle].pose_at(action, s);
                    let o = &self.scene.obstacles[a.obstacle];
                    o.carrier(t1, &pose, |c| c.place(ride, &mut self.targets));
                }
                _ => state.targets(phase.actions[k].as_ref(), s, &mut self.targets),
            }
        }
        self.active.clear();
        self.bodies.clear();
        let mut grid = 0;
        for (k, (state, o)) in self.obstacles.iter().zip(&self.scene.obstacles).enumerate() {
            let field = match &o.surface {
                Surface::Grid(_) => Field::Grid(grid),
                Surface::Sequence(_) => Field::Body(self.bodies.len()),
            };
            grid += matches!(field, Field::Grid(_)) as usize;
            let Some(step) = state.step(o, k, field, phase.obstacle_actions[k].as_ref(), s0, s) else {
                continue;
            };
            // A deforming body is placed at the step's start and end times
            // (simulated time: its animation's clock), by the obstacle's pose.
            if let Surface::Sequence(seq) = &o.surface {
                self.bodies.push(seq.step(t0, t1, &step.start, &step.end));
            }
            self.active.push(step);
        }
        if let (Some(st), Some(spec)) = (&mut self.sticking, &self.scene.sticking) {
            let x = self.backend.positions()?;
            let v = match spec.sticky_faces.is_empty() {
                true => Vec::new(),
                false => self.backend.velocities()?,
            };
            let sc = &self.scene.self_collision;
            let now = sticking::ClothNow {
                faces: &self.scene.cloth.mesh.faces,
                rest: &self.scene.cloth.mesh.positions,
                x: &x,
                v: &v,
                h: self.scene.dt,
                band: if sc.enabled { sc.thickness } else { 0.0 },
            };
            let mut pinned = self.pinned.clone();
            pinned.sort_unstable();
            st.step(
                spec,
                &self.scene.obstacles,
                &self.active,
                &now,
                &pinned,
                &mut self.sticks,
            );
        }
        // Each load at its scale at the step's end (a ramp's, linear over
        // the phase).
        let scales: Vec<f64> = phase.load_scales.iter().map(|[a, b]| a + (b - a) * s).collect();
        if scales != self.load_scales {
            self.loads = acting_loads(&self.scene, &scales);
            self.load_scales = scales;
        }
        let material_dt = phase.material_time / phase.steps as f64;
        let report = self.backend.step(&StepInput {
            dt: self.scene.dt,
            material_dt,
            gravity: self.scene.gravity,
            pinned: &self.pinned,
            targets: &self.targets,
            solver: self.scene.solver,
            grids: &self.grids,
            bodies: &self.bodies,
            obstacles: &self.active,
            self_collision: self.scene.self_collision,
            strain_limit: self.scene.strain_limit,
            air: self.scene.air,
            integrator: self.scene.integrator,
            sticks: &self.sticks,
            loads: &self.loads,
            depths,
        });
        // A backend says what broke; the run says where, and what to change.
        let report = report.map_err(|e| match e {
            crate::Error::Step(what) => crate::Error::Step(format!(
                "step {} (t = {:.4} s, phase {}): {what}. {}",
                self.steps + 1,
                self.time(),
                phase.name,
                blow_up::advice(&self.scene)
            )),
            other => other,
        })?;
        let time = self.time();
        self.unconverged
            .judge(&self.scene.solver, &report, self.steps + 1, time, &phase.name)?;
        let mut reactions = vec![Reaction::default(); self.handles.len()];
        let mut offset = 0;
        for (k, state) in self.handles.iter().enumerate() {
            if !state.held {
                continue;
            }
            let count = self.scene.handles[k].vertices.len();
            let range = offset..offset + count;
            offset += count;
            let axis = self.scene.handles[k].torque_axis;
            for (f, x) in report.reactions[range.clone()].iter().zip(&self.targets[range]) {
                reactions[k].force += *f;
                if let Some(a) = axis {
                    reactions[k].torque += (*x - a.point).cross(*f).dot(a.direction);
                }
            }
        }
        self.material_time += material_dt;
        self.steps += 1;
        self.phase_step += 1;
        if self.phase_step == phase.steps {
            for (k, state) in self.handles.iter_mut().enumerate() {
                state.end_phase(phase.actions[k].as_ref());
            }
            for (k, state) in self.obstacles.iter_mut().enumerate() {
                state.end_phase(phase.obstacle_actions[k].as_ref());
            }
            self.phase += 1;
            self.phase_step = 0;
        }
        // Each output frame ends with what the backend keeps only for
        // speed dropped (`Backend::drop_caches`: the multilevel hierarchy,
        // which the next solve builds afresh), where a checkpoint is
        // written and a resumed run starts without it: whatever drives the
        // simulation (a run, an experiment, a fit continuing from a saved
        // state, a benchmark), it does the same arithmetic.
        if self.steps.is_multiple_of(self.scene.frame_steps()) {
            self.backend.drop_caches();
        }
        Ok(StepInfo {
            report,
            reactions,
            wall_ms: start.elapsed().as_secs_f64() * 1e3,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cloth::Cloth;
    use crate::collide::Pose;
    use crate::cpu::CpuBackend;
    use crate::model::channel::Channels;

    /// The CPU reference, except that every solve ends at its iteration
    /// cap worse than it started.
    struct Diverging(CpuBackend);

    impl Backend for Diverging {
        fn name(&self) -> &'static str {
            "diverging"
        }
        fn step(&mut self, input: &StepInput) -> Result<StepReport> {
            let mut r = self.0.step(input)?;
            (r.cg_iterations, r.cg_residual) = (input.solver.max_iterations, 3.0);
            Ok(r)
        }
        fn positions(&self) -> Result<Vec<DVec3>> {
            self.0.positions()
        }
        fn velocities(&self) -> Result<Vec<DVec3>> {
            self.0.velocities()
        }
        fn channels(&self) -> Result<Channels> {
            self.0.channels()
        }
        fn cloth(&self) -> Arc<Cloth> {
            self.0.cloth()
        }
        fn save_state(&self) -> Result<BackendState> {
            self.0.save_state()
        }
        fn restore_state(&mut self, state: &BackendState) -> Result<()> {
            self.0.restore_state(state)
        }
        fn drop_caches(&mut self) {
            self.0.drop_caches()
        }
    }

    /// The timeline replayed without a run puts every obstacle where the
    /// run's steps had it: moved, removed, added back.
    #[test]
    fn obstacles_at_replays_the_steps_obstacles() {
        let json = r#"{"dt": 0.01, "gravity": [0, 0, 0],
            "cloth": {"mesh": {"grid": {"size": [0.1, 0.1], "resolution": [2, 2], "origin": [0, 1, 0]}}, "material": "cotton"},
            "obstacles": {"ball": {"shape": {"sphere": {"center": [0, 0, 0], "radius": 0.1}}},
                          "late": {"shape": {"sphere": {"center": [0, -1, 0], "radius": 0.1}}, "enabled": false}},
            "timeline": [
                {"name": "move", "duration": 0.05, "obstacles": {"ball": {"translate": [0.1, 0, 0]}}},
                {"name": "gone", "duration": 0.03, "obstacles": {"ball": "remove", "late": "add"}},
                {"name": "back", "duration": 0.04, "obstacles": {"ball": "add", "late": "remove"}},
                {"name": "turn", "duration": 0.02, "obstacles": {"ball": {"rotate": {"axis": [0, 0, 1], "angle": 1}}}}
            ]}"#;
        let scene = crate::scene::parse("t", "t", json, std::path::Path::new("."), &[]).unwrap();
        // Where the steps found them: enabled ones only, at their end poses.
        let present = |all: Vec<ObstacleAt>| -> Vec<Option<Pose>> {
            all.into_iter().map(|o| o.enabled.then_some(o.pose)).collect()
        };
        assert_eq!(present(obstacles_at(&scene, 0)), vec![Some(Pose::default()), None]);
        let backend = CpuBackend::new(Arc::clone(&scene.cloth));
        let mut sim = Simulation::new(scene.clone(), Box::new(backend));
        let mut seen = [0; 2];
        while !sim.done() {
            sim.step().unwrap();
            let want = present(obstacles_at(&scene, sim.steps()));
            let mut got = vec![None; 2];
            for o in sim.obstacles() {
                got[o.obstacle] = Some(o.end);
                seen[o.obstacle] += 1;
            }
            assert_eq!(got, want, "step {}", sim.steps());
        }
        assert_eq!(seen, [5 + 4 + 2, 3]);
        let end = obstacles_at(&scene, 14);
        assert!(!end[1].enabled && end[0].enabled);
        assert!((end[0].pose.trans.x - 0.1 * 1f64.cos()).abs() < 1e-12, "{:?}", end[0]);
        assert_eq!(obstacles_at(&scene, 100), end);
    }

    /// Solves cut short at the cap, but not diverging, are counted (and
    /// the count travels with the saved state); met ones are not.
    #[test]
    fn solves_ended_above_the_tolerance_are_counted_and_kept_across_a_resume() {
        let run = |sets: &[&str], steps: usize| {
            let sets: Vec<String> = sets.iter().map(|s| s.to_string()).collect();
            let scene = crate::scene::load("hang", &sets).unwrap();
            let mut sim = Simulation::new(scene.clone(), Box::new(CpuBackend::new(Arc::clone(&scene.cloth))));
            for _ in 0..steps {
                sim.step().unwrap();
            }
            sim
        };
        assert_eq!(run(&[], 4).unconverged(), Unconverged::default());
        let cut = ["solver.max_iterations=10"];
        let sim = run(&cut, 4);
        let u = sim.unconverged();
        assert_eq!((u.steps, u.first_step), (4, Some(1)), "{u:?}");
        assert!(
            u.worst_residual > sim.scene.solver.tolerance && u.worst_residual <= 1.0,
            "{u:?}"
        );
        // Resumed from the state after 4 steps, 2 more count on from it.
        let (state, backend) = sim.save_state().unwrap();
        let mut resumed = run(&cut, 0);
        resumed.restore_state(&state, &backend).unwrap();
        resumed.step().unwrap();
        resumed.step().unwrap();
        let whole = run(&cut, 6);
        assert_eq!(resumed.unconverged(), whole.unconverged());
        assert_eq!(whole.unconverged().steps, 6);
    }

    #[test]
    fn an_unconverged_solve_stops_the_run_with_a_clear_error() {
        let scene = crate::scene::load("hang", &[]).unwrap();
        let backend = Diverging(CpuBackend::new(Arc::clone(&scene.cloth)));
        let mut sim = Simulation::new(scene, Box::new(backend));
        let e = sim.step().unwrap_err().to_string();
        assert!(
            e.contains("step 1") && e.contains("did not converge") && e.contains("raise solver.max_iterations"),
            "{e}"
        );
    }
}
