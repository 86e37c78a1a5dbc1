//! `crease bench`: the paper's Table 1 timing, per backend.

use super::{BackendChoice, make_backend, resolve};
use anyhow::{Context, Result, bail};
use clap::Subcommand;
use crease::gpu::GpuContext;
use std::path::PathBuf;
use std::sync::Arc;

#[derive(Subcommand)]
pub enum BenchKind {
    /// The paper's Table 1 twist (1 ms steps, no obstacles; self-collision
    /// on unless --set self_collision.enabled=false).
    Twist {
        /// Target vertex counts, comma-separated (each rounded to the
        /// nearest 64k x (27k+1) cylinder).
        #[arg(long, value_delimiter = ',', default_value = "2000,7000,27000")]
        vertices: Vec<usize>,
        /// Steps to time per size.
        #[arg(long, default_value_t = 20)]
        steps: u64,
        /// Also write the rows as JSON here.
        #[arg(long)]
        json: Option<PathBuf>,
        #[arg(long, value_enum, default_value = "auto")]
        backend: BackendChoice,
        /// Override a scene field of the twist: PATH=VALUE (repeatable).
        #[arg(long = "set", value_name = "PATH=VALUE")]
        set: Vec<String>,
        /// Put a rod inside the cylinder (3.5 cm capsule) to time collisions.
        #[arg(long)]
        obstacle: bool,
    },
}

pub fn bench(which: BenchKind) -> Result<()> {
    match which {
        BenchKind::Twist {
            vertices,
            steps,
            json,
            backend,
            mut set,
            obstacle,
        } => {
            if obstacle {
                set.insert(0, crease::bench::ROD.to_string());
            }
            if steps == 0 {
                bail!("argument --steps: must be at least 1");
            }
            if let Some(path) = &json {
                super::check_output("--json", path, false)?;
            }
            if vertices.contains(&0) {
                bail!(
                    "argument --vertices: 0 is not a vertex count: give at least 1 (each count takes the nearest twist cylinder, the smallest 1792 vertices)"
                );
            }
            if let Some(v) = vertices.iter().find(|&&v| v as u64 > crease::mesh::MAX_VERTICES) {
                bail!(
                    "argument --vertices: {v} is more than the {} vertices a cloth may have",
                    crease::mesh::MAX_VERTICES
                );
            }
            let backends = match backend {
                BackendChoice::Both => vec![BackendChoice::Cpu, BackendChoice::Gpu],
                other => vec![resolve(other)],
            };
            let mut rows = Vec::new();
            println!("{}", crease::bench::header());
            let measured = (|| -> Result<()> {
                for &target in &vertices {
                    for &b in &backends {
                        let scene = crease::bench::twist_scene(crease::bench::refinement(target), &set)?;
                        let cloth = Arc::clone(&scene.cloth);
                        let backend = make_backend(b, &scene)?;
                        let mut row = crease::bench::run_twist(scene, backend, steps)?;
                        if b == BackendChoice::Gpu {
                            crease::bench::gpu_figures(&mut row, &cloth, &GpuContext::new()?)?;
                        }
                        println!("{}", crease::bench::row(&row));
                        rows.push(row);
                    }
                }
                Ok(())
            })();
            // A size that fails (a mesh larger than the adapter binds)
            // keeps the rows measured before it, with the error beside them.
            if let Some(path) = json.filter(|_| measured.is_ok() || !rows.is_empty()) {
                let name = if backends.len() > 1 {
                    "both".to_string()
                } else {
                    rows.first().map(|r| r.backend.clone()).unwrap_or_default()
                };
                let mut v = serde_json::json!({ "backend": name, "rows": rows });
                if let Err(e) = &measured {
                    v["error"] = serde_json::json!(format!("{e:#}"));
                }
                crease::util::write_atomic(&path, serde_json::to_string_pretty(&v)?.as_bytes())
                    .context("argument --json")?;
            }
            measured?;
        }
    }
    Ok(())
}
