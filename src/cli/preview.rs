//! `crease preview`: a scene live in a window.

use super::{BackendChoice, make_backend, resolve};
use anyhow::Result;
use crease::scene::Scene;

#[derive(clap::Args)]
pub struct PreviewArgs {
    /// Built-in scene name or JSON path (default: the twist).
    #[arg(default_value = "twist")]
    pub scene: String,
    #[arg(long, value_enum, default_value = "auto")]
    pub backend: BackendChoice,
    /// Override a scene field: PATH=VALUE (repeatable).
    #[arg(long = "set", value_name = "PATH=VALUE")]
    pub set: Vec<String>,
    /// Simulation steps per drawn frame.
    #[arg(long, default_value_t = 2)]
    pub steps_per_frame: u32,
    /// Quit after this many frames (scripted runs).
    #[arg(long)]
    pub exit_after: Option<u64>,
}

pub fn preview(args: PreviewArgs) -> Result<()> {
    let PreviewArgs {
        scene,
        backend,
        set,
        steps_per_frame,
        exit_after,
    } = args;
    let scene = super::load_scene(&scene, &set)?;
    let backend = resolve(backend);
    crease::preview::run(
        scene,
        &|s: &Scene| make_backend(backend, s),
        crease::preview::Options {
            steps_per_frame: steps_per_frame.max(1),
            exit_after,
        },
    )?;
    Ok(())
}
