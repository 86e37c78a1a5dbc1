//! `cargo bench --bench body [-- gpu]`: the cost of a deforming body
//! (issue 19's target: at most 20% of a step). A 20K-vertex trouser leg on
//! a 10K-triangle leg bending its knee, on the CPU backend (or the GPU's,
//! with `gpu`): 100 steps to bring the cloth into contact, then 10 measured
//! steps, with the body and with it disabled. Prints ms per step, the
//! obstacles' response and post-process (ms), the host's per-step body
//! build (the same for both backends: the GPU uploads what it builds), and
//! the time of probing every
//! cloth vertex once on the CPU (in parallel, as the backend does; a step
//! probes each vertex in its resting contacts, its response and the
//! settle, up to three times more where it lifts, and at an output frame
//! once more and at every edge's midpoint for the depths it reports).
//! The measured steps are a run's between output frames.

// The tests' body writers (this bench uses the leg only).
#[allow(dead_code)]
#[path = "../tests/common/bodies.rs"]
mod bodies;

use crease::collide::body::BodyStep;
use crease::cpu::CpuBackend;
use crease::gpu::GpuBackend;
use crease::sim::Simulation;
use crease::step::Backend;
use rayon::prelude::*;
use std::sync::Arc;
use std::time::Instant;

fn main() -> anyhow::Result<()> {
    let gpu = std::env::args().any(|a| a == "gpu");
    let dir = std::env::temp_dir().join(format!("crease-bench-body-{}", std::process::id()));
    std::fs::create_dir_all(&dir)?;
    // A 10K-triangle leg (161 x 32 vertices).
    bodies::write_leg(&dir, 80.0, 0.5, 161, 32);
    println!("backend: {}", if gpu { "gpu" } else { "cpu" });
    println!(
        "{:>8} {:>10} {:>9} {:>11} {:>10} {:>11}",
        "body", "vertices", "ms/step", "obstacles_ms", "build_ms", "probe_all_ms"
    );
    for enabled in [true, false] {
        let json = serde_json::json!({
            "dt": 0.0025,
            "cloth": { "mesh": { "cylinder": { "radius": 0.075, "height": 0.65, "rings": 125, "segments": 160 } },
                "material": "cotton", "damping": 0.01 },
            "self_collision": { "thickness": 0.003 },
            "strain_limit": { "extension": 0.1 },
            "handles": { "waist": { "select": { "ring": "top" } } },
            "obstacles": { "leg": { "shape": { "sequence": { "path": "leg####.obj", "fps": 24 } },
                "friction": 0.1, "thickness": 0.003, "enabled": enabled } },
            "timeline": [ { "name": "bend", "duration": 0.5 } ]
        });
        let scene = crease::scene::parse("body.json", "body", &json.to_string(), &dir, &[])?;
        let vertices = scene.cloth.mesh.positions.len();
        let cloth = Arc::clone(&scene.cloth);
        let backend: Box<dyn Backend> = match gpu {
            true => Box::new(GpuBackend::new(cloth)?),
            false => Box::new(CpuBackend::new(cloth)),
        };
        let mut sim = Simulation::new(scene, backend);
        for _ in 0..100 {
            sim.step()?;
        }
        let (mut wall, mut obstacles, mut build, mut probe) = (0.0, 0.0, 0.0, 0.0);
        let steps = 10;
        for _ in 0..steps {
            let info = sim.step_measuring(false)?;
            wall += info.wall_ms;
            obstacles += info.report.obstacles_ms;
            if let Some(b) = sim.bodies().first() {
                let t = Instant::now();
                let again = BodyStep::new(Arc::clone(&b.mesh), b.start.clone(), b.end.clone(), 0.02);
                build += t.elapsed().as_secs_f64() * 1e3;
                let x = sim.backend().positions()?;
                let t = Instant::now();
                let seen = x
                    .par_iter()
                    .filter(|p| again.probe(**p, false, 0.0025).is_some())
                    .count();
                probe += t.elapsed().as_secs_f64() * 1e3;
                std::hint::black_box(seen);
            }
        }
        let n = steps as f64;
        println!(
            "{:>8} {:>10} {:>9.1} {:>11.1} {:>10.2} {:>11.1}",
            if enabled { "leg" } else { "none" },
            vertices,
            wall / n,
            obstacles / n,
            build / n,
            probe / n
        );
    }
    std::fs::remove_dir_all(&dir)?;
    Ok(())
}
