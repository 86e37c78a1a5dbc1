//! Helpers of the GPU parity tests (tests/gpu.rs, tests/gpu_constraints.rs):
//! `crease validate` runs and one step on both backends from the same state.

use crease::gpu::GpuBackend;
use crease::scene::{self, Scene};
use crease::step::Backend;
use crease::validate::{StepCheck, Tolerances, validate};
use std::sync::Arc;

pub fn sets(list: &[&str]) -> Vec<String> {
    list.iter().map(|s| s.to_string()).collect()
}

/// `crease validate` on `steps` steps of a scene (solves to 1e-6 on both).
pub fn checks(name: &str, extra: &[&str], steps: u64) -> Vec<StepCheck> {
    checks_from(name, extra, 0, steps)
}

/// `crease validate --from FROM` on `steps` steps of a scene.
pub fn checks_from(name: &str, extra: &[&str], from: u64, steps: u64) -> Vec<StepCheck> {
    let mut all = sets(&["solver.tolerance=1e-6"]);
    all.extend(sets(extra));
    let s = scene::load(name, &all).unwrap();
    validate(s, from, steps, &mut |_| {}).unwrap()
}

/// Asserts every step of `checks` within the default tolerances.
pub fn assert_within_defaults(label: &str, checks: &[StepCheck]) {
    let tol = Tolerances::default();
    for c in checks {
        assert!(c.within(&tol), "{label}, step {}: {c:?} exceeds {tol:?}", c.step);
    }
}

pub fn cpu_state_at(scene: &Scene, t: f64) -> (Vec<glam::DVec3>, Vec<glam::DVec3>, crease::model::channel::Channels) {
    use crease::cpu::CpuBackend;
    use crease::sim::Simulation;
    let mut sim = Simulation::new(scene.clone(), Box::new(CpuBackend::new(Arc::clone(&scene.cloth))));
    while !sim.done() && sim.time() < t {
        sim.step().unwrap();
    }
    let b = sim.backend();
    (b.positions().unwrap(), b.velocities().unwrap(), b.channels().unwrap())
}

/// One step on both backends from the same state: their reports, the
/// largest position and velocity differences, the fastest CPU speed and the
/// CPU velocities.
pub struct Both {
    pub rc: crease::step::StepReport,
    pub rg: crease::step::StepReport,
    pub dx: f64,
    pub dv: f64,
    pub speed: f64,
    pub vc: Vec<glam::DVec3>,
}

pub fn step_both(
    scene: &Scene,
    x: &[glam::DVec3],
    v: &[glam::DVec3],
    ch: &crease::model::channel::Channels,
    input: &crease::step::StepInput,
) -> Both {
    use crease::cpu::CpuBackend;
    let mut cpu = CpuBackend::new(Arc::clone(&scene.cloth));
    cpu.set_state(x, v);
    cpu.set_channels(ch);
    let mut gpu = GpuBackend::new(Arc::clone(&scene.cloth)).unwrap();
    gpu.set_state(x, v, &vec![glam::DVec3::ZERO; x.len()]);
    gpu.set_channels(ch);
    let rc = cpu.step(input).unwrap();
    let rg = gpu.step(input).unwrap();
    let most =
        |a: &[glam::DVec3], b: &[glam::DVec3]| a.iter().zip(b).map(|(a, b)| (*a - *b).length()).fold(0.0, f64::max);
    let vc = cpu.velocities().unwrap();
    Both {
        dx: most(&cpu.positions().unwrap(), &gpu.positions().unwrap()),
        dv: most(&vc, &gpu.velocities().unwrap()),
        speed: vc.iter().map(|v| v.length()).fold(0.0, f64::max),
        rc,
        rg,
        vc,
    }
}
