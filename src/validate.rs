//! `crease validate`: the GPU backend against the CPU reference.
//!
//! A tandem backend steps the CPU reference and, each step, copies its state
//! (positions, velocities, warm start, every channel) into a synced GPU
//! backend: forces, updated channel states and the velocity update are
//! compared from identical states. A second GPU backend runs freely from the
//! start, and its positions are compared with the reference's. From a later
//! step (`from`), the reference runs alone up to it and both GPU backends
//! then take its state: the contact phase of a long scene is checked
//! without the device running the whole approach to it.

use crate::cloth::Cloth;
use crate::cpu::CpuBackend;
use crate::error::{Error, Result};
use crate::gpu::GpuBackend;
use crate::model::channel::ChannelState;
use crate::model::channel::Channels;
use crate::scene::Scene;
use crate::sim::Simulation;
use crate::step::Scales;
use crate::step::{Backend, BackendState, StepInput, StepReport};
use glam::DVec3;
use std::sync::{Arc, Mutex};

/// The acceptance bounds. Forces are compared element by element (each
/// element's corner forces), relative to the largest reference element force
/// but at least a floor: the larger of the force a 1e-5 strain makes on a
/// mean edge and a mean vertex's weight. An unstressed reference is compared
/// against that floor instead of against zero: f32 resolves strains to about
/// 1e-7 near the origin, but a garment a metre up with 5 mm edges only to
/// about 1e-5 (a dihedral angle to a few 1e-6 rad), and a force far below
/// what its own weight puts on a vertex moves nothing. dv on the free
/// vertices (pinned ones follow their handles by construction).
#[derive(Clone, Copy, Debug, serde::Serialize)]
pub struct Tolerances {
    /// Max |f_gpu - f_cpu| over vertices, relative to max |f_cpu|.
    pub forces: f64,
    /// The same for the velocity update dv, relative to max |dv_cpu| with
    /// a floor of `h F / m`, the change the forces' floor `F` makes on a
    /// mean vertex of mass `m` in a step: at least `|g| h`, what gravity
    /// alone makes (a hanging cloth at the turn of a swing changes its
    /// velocity by almost nothing, and f32 rounding against almost nothing
    /// is no disagreement), and without gravity what a 1e-5 strain makes
    /// (the pressed specimen of `crease-recovery` at rest failed 7 of 30
    /// steps at dv 2.2e-4 against `|g| h = 0`, its positions the same to
    /// 1.8e-9 of the diagonal).
    /// At a vertex an obstacle acted on, the difference counts beyond
    /// `2 eps_f32 |x|_max / h`: the obstacle is probed in world
    /// coordinates, where the point and the surface (a deforming body's
    /// triangle corners) are each rounded to f32, and each rounding moves
    /// the response's landing velocity `(t - phi) / h` by up to
    /// `eps_f32 |x| / h` (on the trousers, 5.6e-5 m/s a metre up; as the
    /// hips slide past the cloth at 0.4 m/s the backends differ by up to
    /// 1.0e-4 m/s there, the friction's share included, and by 6e-6 m/s
    /// away from the body).
    pub dv: f64,
    /// Fraction of channels in the same stick/slip and yielded state.
    pub channels: f64,
    /// Max position deviation of the free-running GPU, relative to the
    /// cloth's bounding-box diagonal.
    pub position: f64,
    /// Max difference, m, of the step's three depths under the obstacles
    /// (`ContactReport`: a vertex after and before the §5.3 lift, an edge
    /// midpoint).
    pub depths: f64,
}

impl Default for Tolerances {
    fn default() -> Self {
        Tolerances {
            forces: 1e-4,
            dv: 1e-4,
            channels: 0.99,
            position: 1e-3,
            depths: 1e-5,
        }
    }
}

/// The comparison after one step.
#[derive(Clone, Copy, Debug, Default, serde::Serialize)]
pub struct StepCheck {
    /// The scene's step it follows, from 1.
    pub step: u64,
    pub forces: f64,
    pub dv: f64,
    pub channels: f64,
    pub position: f64,
    pub depths: f64,
    pub cg_cpu: usize,
    pub cg_gpu: usize,
}

impl StepCheck {
    pub fn within(&self, t: &Tolerances) -> bool {
        self.forces <= t.forces
            && self.dv <= t.dv
            && self.channels >= t.channels
            && self.position <= t.position
            && self.depths <= t.depths
    }
}

fn max_diff(a: &[DVec3], b: &[DVec3]) -> f64 {
    a.iter().zip(b).map(|(p, q)| (*p - *q).length()).fold(0.0, f64::max)
}

/// Max |a - b| relative to max(max |b|, floor), each difference counted
/// beyond its vertex's `resolution` when one is given.
fn relative(a: &[DVec3], b: &[DVec3], resolution: Option<&[f64]>, floor: f64) -> f64 {
    let scale = b.iter().map(|q| q.length()).fold(floor, f64::max);
    let diff = a
        .iter()
        .zip(b)
        .enumerate()
        .map(|(i, (p, q))| ((*p - *q).length() - resolution.map_or(0.0, |r| r[i])).max(0.0))
        .fold(0.0, f64::max);
    if scale == 0.0 { diff } else { diff / scale }
}

/// Fraction of channels in the same state: the same plastic state (yielded
/// or not) and the same friction state (stick or slip), where a channel
/// whose anchors agree to f32 resolution counts as the same (a channel
/// creeping along its threshold may take either branch in f32 and in f64
/// while its anchor moves by less than f32 can resolve).
pub fn channel_agreement(a: &Channels, b: &Channels) -> f64 {
    let same = |x: &ChannelState, y: &ChannelState| {
        let anchors = (x.friction.anchor - y.friction.anchor).abs() <= 1e-8 + 1e-5 * x.friction.anchor.abs();
        (x.friction.slip == y.friction.slip || anchors) && x.plastic.yielded() == y.plastic.yielded()
    };
    let hinges = a.hinges.iter().zip(&b.hinges).filter(|(x, y)| same(x, y)).count();
    let faces = a
        .faces
        .iter()
        .flatten()
        .zip(b.faces.iter().flatten())
        .filter(|(x, y)| same(x, y))
        .count();
    let total = a.hinges.len() + 3 * a.faces.len();
    if total == 0 {
        1.0
    } else {
        (hinges + faces) as f64 / total as f64
    }
}

struct Tandem {
    /// Steps the reference runs alone before the comparison, and the steps
    /// taken so far.
    from: u64,
    taken: u64,
    cpu: CpuBackend,
    synced: GpuBackend,
    free: GpuBackend,
    gravity: DVec3,
    diagonal: f64,
    /// The forces' floor (`Tolerances`), and a mean vertex's mass.
    force_floor: f64,
    mean_mass: f64,
    checks: Arc<Mutex<Vec<StepCheck>>>,
}

impl Backend for Tandem {
    fn name(&self) -> &'static str {
        "cpu+gpu"
    }

    fn step(&mut self, input: &StepInput) -> Result<StepReport> {
        self.taken += 1;
        if self.taken <= self.from {
            return self.cpu.step(input);
        }
        let (x, v, dv0) = (
            self.cpu.positions()?,
            self.cpu.velocities()?,
            self.cpu.warm_start().to_vec(),
        );
        let channels = self.cpu.channels()?;
        let sync = |g: &mut GpuBackend| {
            g.set_state(&x, &v, &dv0);
            g.set_channels(&channels);
        };
        // With `from`, the free-running backend starts at the reference's
        // state of the first compared step.
        if self.taken == self.from + 1 && self.from > 0 {
            sync(&mut self.free);
        }
        // Forces and channel updates from the reference's state.
        let scales = Scales::new(input.dt, input.material_dt, self.cpu.cloth().damping);
        let mut probe = self.cpu.clone();
        probe.forces(self.gravity, &scales);
        let f_cpu = probe.element_forces();
        sync(&mut self.synced);
        self.synced.forces(self.gravity, &scales)?;
        let f_gpu = self.synced.element_forces()?;
        let agreement = channel_agreement(&self.synced.channels()?, &probe.channels()?);
        // The step from the same state.
        sync(&mut self.synced);
        let report = self.cpu.step(input)?;
        let gpu_report = self.synced.step(input)?;
        // dv of the free vertices (pinned ones follow their handles).
        let mut free = vec![true; v.len()];
        for &p in input.pinned {
            free[p as usize] = false;
        }
        let dv_of = |after: Vec<DVec3>| {
            after
                .iter()
                .zip(&v)
                .zip(&free)
                .filter(|(_, f)| **f)
                .map(|((a, b), _)| *a - *b)
                .collect::<Vec<_>>()
        };
        let dv_cpu = dv_of(self.cpu.velocities()?);
        let dv_gpu = dv_of(self.synced.velocities()?);
        // Where an obstacle acted, what two f32 roundings of the vertex's
        // world coordinates (the point's and the surface's) make of a
        // velocity over the step.
        let contacts = self.cpu.obstacle_contacts();
        let resolution: Vec<f64> = (0..v.len())
            .filter(|&i| free[i])
            .map(|i| match contacts[i] {
                true => 2.0 * f32::EPSILON as f64 * x[i].abs().max_element() / input.dt,
                false => 0.0,
            })
            .collect();
        self.free.step(input)?;
        let position = max_diff(&self.free.positions()?, &self.cpu.positions()?) / self.diagonal;
        let mut checks = self
            .checks
            .lock()
            .map_err(|_| crate::Error::Step("validation state poisoned".into()))?;
        let step = self.taken;
        let depths = report
            .contact
            .depths()
            .iter()
            .zip(gpu_report.contact.depths())
            .map(|(a, b)| (a - b).abs())
            .fold(0.0, f64::max);
        checks.push(StepCheck {
            step,
            forces: relative(&f_gpu, &f_cpu, None, self.force_floor),
            dv: relative(
                &dv_gpu,
                &dv_cpu,
                Some(&resolution),
                self.force_floor / self.mean_mass * input.dt,
            ),
            channels: agreement,
            position,
            depths,
            cg_cpu: report.cg_iterations,
            cg_gpu: gpu_report.cg_iterations,
        });
        Ok(report)
    }

    fn positions(&self) -> Result<Vec<DVec3>> {
        self.cpu.positions()
    }

    fn velocities(&self) -> Result<Vec<DVec3>> {
        self.cpu.velocities()
    }

    fn channels(&self) -> Result<Channels> {
        self.cpu.channels()
    }

    fn cloth(&self) -> Arc<Cloth> {
        self.cpu.cloth()
    }

    fn save_state(&self) -> Result<BackendState> {
        Err(crate::Error::Step("a validation run keeps no checkpoints".into()))
    }

    fn restore_state(&mut self, _: &BackendState) -> Result<()> {
        Err(crate::Error::Step("a validation run keeps no checkpoints".into()))
    }

    fn drop_caches(&mut self) {
        self.cpu.drop_caches();
        self.synced.drop_caches();
        self.free.drop_caches();
    }
}

/// Runs `from` steps of `scene` on the CPU reference, then `steps` steps on
/// both backends from its state, and returns one check per step of those;
/// `each` is called after every checked step.
pub fn validate(scene: Scene, from: u64, steps: u64, each: &mut dyn FnMut(&StepCheck)) -> Result<Vec<StepCheck>> {
    let total = scene.total_steps();
    if from > 0 && from >= total {
        return Err(Error::Argument {
            arg: "--from".into(),
            message: format!(
                "the scene has {total} steps, so there is nothing to compare from step {from}: give a smaller --from"
            ),
        });
    }
    let cloth = Arc::clone(&scene.cloth);
    let checks = Arc::new(Mutex::new(Vec::new()));
    let mean_mass = cloth.mass.iter().sum::<f64>() / cloth.mass.len().max(1) as f64;
    let tandem = Tandem {
        from,
        taken: 0,
        cpu: CpuBackend::new(Arc::clone(&cloth)),
        synced: GpuBackend::new(Arc::clone(&cloth))?,
        free: GpuBackend::new(Arc::clone(&cloth))?,
        gravity: scene.gravity,
        diagonal: cloth.diagonal(),
        force_floor: {
            let s = cloth.material.stretching;
            let edges: Vec<f64> = cloth.face_rest.iter().flat_map(|r| r.edge_len).collect();
            let strain = s.k11.max(s.k22) * 1e-5 * edges.iter().sum::<f64>() / edges.len().max(1) as f64;
            strain.max(scene.gravity.length() * mean_mass)
        },
        mean_mass,
        checks: Arc::clone(&checks),
    };
    let mut sim = Simulation::new(scene, Box::new(tandem));
    while !sim.done() && sim.steps() < from.saturating_add(steps) {
        sim.step()?;
        if sim.steps() > from {
            let last = checks.lock().ok().and_then(|c| c.last().copied()).unwrap_or_default();
            each(&last);
        }
    }
    let out = checks.lock().map(|c| c.clone()).unwrap_or_default();
    Ok(out)
}
