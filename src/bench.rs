//! `crease bench twist`: the paper's Table 1 setting (docs/physics.md "The
//! paper's figures"): the twist cylinder (r 0.04 m, h 0.11 m, bottom ring
//! fixed, top ring turned at 180 deg/s), no obstacles (self-collision as
//! the scene has it: on), 1 ms steps, refined by an integer factor k to 64k
//! segments x (27k + 1) rings: 1792, 7040, 27904 vertices for k = 1, 2, 4.
//! With an obstacle: a rod inside the cylinder that its twisted wall wraps
//! onto ([`ROD`]), to time the collision kernels.

use crate::error::Result;
use crate::scene::{self, Scene};
use crate::sim::Simulation;
use crate::step::Backend;

/// One benchmark measurement.
#[derive(Clone, Debug, serde::Serialize)]
pub struct BenchRow {
    pub backend: String,
    pub vertices: usize,
    pub faces: usize,
    pub steps: u64,
    /// The solve's preconditioner (`solver.preconditioner`, `auto` made
    /// concrete).
    pub preconditioner: String,
    pub ms_per_step: f64,
    pub forces_ms: f64,
    pub solve_ms: f64,
    /// Strain limiting.
    pub strain_limit_ms: f64,
    /// The obstacles' response and post-process.
    pub obstacles_ms: f64,
    /// Self-collision: the search and the correction.
    pub self_collision_ms: f64,
    /// The wait for the pair count the GPU's search reads back.
    pub readback_ms: f64,
    /// Vertices in contact at the last timed step.
    pub contacts: f64,
    /// Everything else: the holds' upload, handle targets, the position
    /// update, the output's bookkeeping.
    pub other_ms: f64,
    pub cg_iterations: f64,
    /// GPU only: compute dispatches per step.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub dispatches_per_step: Option<f64>,
    /// GPU only: bytes one CG iteration moves (a model of its kernels).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bytes_per_iteration: Option<u64>,
    /// GPU only: effective bandwidth of the CG iterations, GB/s.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pcg_gbps: Option<f64>,
    /// GPU only: a plain streaming copy of the same size on the same adapter, GB/s.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub copy_gbps: Option<f64>,
}

/// The `--set` that puts a 3.5 cm rod inside the twist cylinder (4 cm).
pub const ROD: &str = r#"obstacles={"rod": {"shape": {"capsule": {"a": [0, -0.02, 0], "b": [0, 0.13, 0], "radius": 0.035}}, "thickness": 0.002}}"#;

/// The refinement factor whose mesh is closest to `vertices`.
pub fn refinement(vertices: usize) -> usize {
    ((vertices as f64 / 1792.0).sqrt().round() as usize).max(1)
}

/// The twist scene at refinement `k`, with extra `--set` overrides.
pub fn twist_scene(k: usize, overrides: &[String]) -> Result<Scene> {
    let mut all = vec![
        format!("cloth.mesh.cylinder.segments={}", 64 * k),
        format!("cloth.mesh.cylinder.rings={}", 27 * k + 1),
    ];
    all.extend_from_slice(overrides);
    scene::load("twist", &all)
}

/// Steps `steps` times from the start of the twist and averages, after
/// one step that is not timed: it builds what a run builds once (the GPU's
/// pipelines of self-collision and of the multilevel preconditioner, the
/// preconditioner's first hierarchy). As in a run, only the last step, an
/// output frame's, measures the obstacle depths (`StepInput::depths`);
/// its contacts are the row's.
pub fn run_twist(scene: Scene, backend: Box<dyn Backend>, steps: u64) -> Result<BenchRow> {
    let (vertices, faces) = (scene.cloth.vertex_count(), scene.cloth.mesh.faces.len());
    // `auto` made concrete for the row, as the backend makes it.
    let gpu = backend.name() == "gpu";
    let preconditioner = scene.solver.preconditioner.concrete(vertices, gpu).name().to_string();
    let mut sim = Simulation::new(scene, backend);
    sim.step()?;
    let (mut total, mut cg, mut dispatches, mut contacts) = (0.0, 0usize, 0u64, 0usize);
    // forces, solve, strain limit, obstacles, self-collision, readback.
    let mut stages = [0.0; 6];
    let mut done = 0;
    while done < steps && !sim.done() {
        let info = sim.step_measuring(done + 1 == steps || sim.last_step())?;
        let r = &info.report;
        total += info.wall_ms;
        let each = [
            r.forces_ms,
            r.solve_ms,
            r.strain_limit_ms,
            r.obstacles_ms,
            r.self_collision_ms,
            r.readback_ms,
        ];
        for (s, t) in stages.iter_mut().zip(each) {
            *s += t;
        }
        contacts = r.contact.contacts;
        cg += r.cg_iterations;
        dispatches += r.dispatches;
        done += 1;
    }
    let n = done.max(1) as f64;
    let [forces, solve, strain_limit, obstacles, self_collision, readback] = stages.map(|t| t / n);
    Ok(BenchRow {
        backend: sim.backend().name().to_string(),
        vertices,
        faces,
        steps: done,
        preconditioner,
        ms_per_step: total / n,
        forces_ms: forces,
        solve_ms: solve,
        strain_limit_ms: strain_limit,
        obstacles_ms: obstacles,
        self_collision_ms: self_collision,
        readback_ms: readback,
        contacts: contacts as f64,
        other_ms: total / n - stages.iter().sum::<f64>() / n,
        cg_iterations: cg as f64 / n,
        dispatches_per_step: (dispatches > 0).then(|| dispatches as f64 / n),
        bytes_per_iteration: None,
        pcg_gbps: None,
        copy_gbps: None,
    })
}

/// The table's header, and one row of it (`crease bench`, `cargo bench`).
pub fn header() -> String {
    format!(
        "{:>8} {:>8} {:>6} {:>10} {:>9} {:>8} {:>9} {:>8} {:>9} {:>9} {:>9} {:>8} {:>8} {:>8} {:>9} {:>10} {:>8} {:>8}",
        "backend",
        "vertices",
        "steps",
        "precond",
        "ms/step",
        "cg_iter",
        "forces_ms",
        "solve_ms",
        "limit_ms",
        "obstac_ms",
        "selfco_ms",
        "read_ms",
        "other_ms",
        "contacts",
        "dispatch",
        "bytes/iter",
        "pcg_GB/s",
        "copy_GB/s"
    )
}

pub fn row(r: &BenchRow) -> String {
    let opt = |v: Option<f64>, digits: usize| v.map(|x| format!("{x:.digits$}")).unwrap_or("-".into());
    format!(
        "{:>8} {:>8} {:>6} {:>10} {:>9.2} {:>8.1} {:>9.2} {:>8.2} {:>9.2} {:>9.2} {:>9.2} {:>8.2} {:>8.2} {:>8.0} {:>9} {:>10} {:>8} {:>8}",
        r.backend,
        r.vertices,
        r.steps,
        r.preconditioner,
        r.ms_per_step,
        r.cg_iterations,
        r.forces_ms,
        r.solve_ms,
        r.strain_limit_ms,
        r.obstacles_ms,
        r.self_collision_ms,
        r.readback_ms,
        r.other_ms,
        r.contacts,
        opt(r.dispatches_per_step, 0),
        opt(r.bytes_per_iteration.map(|b| b as f64), 0),
        opt(r.pcg_gbps, 2),
        opt(r.copy_gbps, 2),
    )
}

/// The GPU's figures for a measured row of `cloth`: bytes per iteration,
/// the PCG's effective bandwidth (over the solve time) and that of a
/// same-size copy on the same adapter.
pub fn gpu_figures(row: &mut BenchRow, cloth: &crate::cloth::Cloth, ctx: &crate::gpu::GpuContext) -> Result<()> {
    let bytes = crate::gpu::bytes_per_iteration(cloth);
    row.bytes_per_iteration = Some(bytes);
    row.pcg_gbps = Some(bytes as f64 * row.cg_iterations / (row.solve_ms / 1e3) / 1e9);
    row.copy_gbps = Some(crate::gpu::copy_bandwidth(ctx, bytes, 20)?);
    Ok(())
}
