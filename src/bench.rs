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
    pub ms_per_step: f64,
    pub forces_ms: f64,
    pub solve_ms: f64,
    /// Obstacle collisions (with the position update).
    pub collide_ms: f64,
    /// Vertices in contact per step.
    pub contacts: f64,
    /// Everything else: handle targets, reactions, velocity update.
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

/// Steps `steps` times from the start of the twist and averages.
pub fn run_twist(scene: Scene, backend: Box<dyn Backend>, steps: u64) -> Result<BenchRow> {
    let (vertices, faces) = (scene.cloth.vertex_count(), scene.cloth.mesh.faces.len());
    let mut sim = Simulation::new(scene, backend);
    let (mut total, mut forces, mut solve, mut cg, mut dispatches) = (0.0, 0.0, 0.0, 0usize, 0u64);
    let (mut collide, mut contacts) = (0.0, 0usize);
    let mut done = 0;
    while done < steps && !sim.done() {
        let info = sim.step()?;
        total += info.wall_ms;
        forces += info.report.forces_ms;
        solve += info.report.solve_ms;
        collide += info.report.collide_ms;
        contacts += info.report.contact.contacts;
        cg += info.report.cg_iterations;
        dispatches += info.report.dispatches;
        done += 1;
    }
    let n = done.max(1) as f64;
    Ok(BenchRow {
        backend: sim.backend().name().to_string(),
        vertices,
        faces,
        steps: done,
        ms_per_step: total / n,
        forces_ms: forces / n,
        solve_ms: solve / n,
        collide_ms: collide / n,
        contacts: contacts as f64 / n,
        other_ms: (total - forces - solve - collide) / n,
        cg_iterations: cg as f64 / n,
        dispatches_per_step: (dispatches > 0).then(|| dispatches as f64 / n),
        bytes_per_iteration: None,
        pcg_gbps: None,
        copy_gbps: None,
    })
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
