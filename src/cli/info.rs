//! `crease info`: the adapters, and a scene's device memory.

use anyhow::Result;
use crease::collide::Surface;
use crease::gpu::{GpuBackend, GpuContext};
use std::sync::Arc;

#[derive(clap::Args)]
pub struct InfoArgs {
    pub scene: Option<String>,
    #[arg(long = "set", value_name = "PATH=VALUE")]
    pub set: Vec<String>,
}

pub fn info(args: InfoArgs) -> Result<()> {
    let InfoArgs { scene, set } = args;
    let adapters = crease::gpu::adapters();
    if adapters.is_empty() {
        println!("no GPU adapters (install a Vulkan/Metal/DX12 driver; on Linux: mesa-vulkan-drivers)");
    }
    for (a, _) in &adapters {
        println!(
            "adapter: {} ({:?}, {:?}, driver {} {})",
            a.name, a.backend, a.device_type, a.driver, a.driver_info
        );
    }
    match GpuContext::new() {
        Ok(ctx) => {
            let l = &ctx.limits;
            println!("--backend gpu opens: {} ({:?})", ctx.adapter.name, ctx.adapter.backend);
            match super::auto_backend() {
                (_, Some(why)) => println!("--backend auto takes the CPU backend: {why}"),
                _ => println!("--backend auto takes the GPU"),
            }
            println!(
                "  limits: max_buffer_size {}, max_storage_buffer_binding_size {}, \
                 max_storage_buffers_per_shader_stage {}, max_compute_workgroups_per_dimension {}, \
                 max_compute_invocations_per_workgroup {}",
                l.max_buffer_size,
                l.max_storage_buffer_binding_size,
                l.max_storage_buffers_per_shader_stage,
                l.max_compute_workgroups_per_dimension,
                l.max_compute_invocations_per_workgroup
            );
            if let Some(name) = scene {
                let s = super::load_scene(&name, &set)?;
                let n = s.cloth.vertex_count();
                let b = GpuBackend::with_context(ctx, Arc::clone(&s.cloth))?;
                let bytes = b.device_bytes();
                println!(
                    "scene {}: {n} vertices, {} faces, {} hinges; {bytes} bytes on the device ({:.0} bytes per vertex)",
                    s.name,
                    s.cloth.mesh.faces.len(),
                    s.cloth.topology.hinges.len(),
                    bytes as f64 / n as f64
                );
                if !s.obstacles.is_empty() {
                    let grids: u64 = s
                        .obstacles
                        .iter()
                        .map(|o| match &o.surface {
                            Surface::Grid(g) => g.bytes(),
                            Surface::Sequence(_) => 0,
                        })
                        .sum();
                    println!(
                        "  and {grids} bytes of obstacle grids ({} obstacles), uploaded at the first step with an obstacle",
                        s.obstacles.len()
                    );
                }
            }
        }
        Err(e) => println!("--backend gpu opens none ({e}); --backend auto takes the CPU backend"),
    }
    Ok(())
}
