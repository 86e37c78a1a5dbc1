//! The subcommands, a file each; `main.rs` holds only the command line's
//! shape and the dispatch. Everything printed is printed here: the library
//! returns values and errors.

pub mod bench;
pub mod body;
pub mod check;
pub mod experiment;
pub mod fit;
pub mod info;
#[cfg(feature = "preview")]
pub mod preview;
pub mod render;
pub mod run;
pub mod validate;

use anyhow::{Result, bail};
use clap::ValueEnum;
use crease::cpu::CpuBackend;
use crease::gpu::{GpuBackend, GpuContext};
use crease::scene::Scene;
use crease::step::Backend;
use std::sync::Arc;

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum BackendChoice {
    /// A hardware GPU when wgpu finds one, else the CPU (with a notice).
    Auto,
    /// The f32 wgpu compute backend, on whichever adapter wgpu picks
    /// (a software one included).
    Gpu,
    /// The f64 CPU reference (rayon).
    Cpu,
    /// Both, one after the other (bench only).
    Both,
}

/// What `auto` takes: the GPU if wgpu sees a hardware adapter and it
/// opens, else the CPU, with the reason. A software adapter (Mesa's
/// llvmpipe, WARP: wgpu's `DeviceType::Cpu`) is passed over: it runs the
/// same kernels many times slower than the CPU backend.
pub fn auto_backend() -> (BackendChoice, Option<String>) {
    let adapters = crease::gpu::adapters();
    if adapters.iter().any(|(a, _)| a.device_type != wgpu::DeviceType::Cpu) {
        return match GpuContext::new() {
            Ok(_) => (BackendChoice::Gpu, None),
            Err(e) => (BackendChoice::Cpu, Some(e.to_string())),
        };
    }
    let why = match adapters.first() {
        Some((a, _)) => format!(
            "the only GPU adapter, {}, renders in software, slower than the CPU backend; \
             --backend gpu uses it anyway",
            a.name
        ),
        None => "no GPU adapter (install a Vulkan, Metal or DX12 driver, or pass --backend cpu)".into(),
    };
    (BackendChoice::Cpu, Some(why))
}

/// Resolves `auto` once ([`auto_backend`]), printing a one-line notice when
/// it falls to the CPU.
pub fn resolve(choice: BackendChoice) -> BackendChoice {
    if choice != BackendChoice::Auto {
        return choice;
    }
    let (backend, why) = auto_backend();
    if let Some(why) = why {
        eprintln!("notice: running on the CPU backend: {why}");
    }
    backend
}

/// An output named by option `arg`, checked before any work: a folder
/// (`folder`) must not be an existing file, a file not an existing folder.
pub fn check_output(arg: &str, path: &std::path::Path, folder: bool) -> Result<()> {
    if folder && path.exists() && !path.is_dir() {
        bail!(
            "argument {arg}: {} is a file; give a folder (created if missing)",
            path.display()
        );
    }
    if !folder && path.is_dir() {
        bail!(
            "argument {arg}: {} is a folder; give a file's path in it",
            path.display()
        );
    }
    Ok(())
}

/// Loads a scene (`crease::scene::load`) and prints what it loaded with
/// but looks wrong.
pub fn load_scene(source: &str, overrides: &[String]) -> crease::Result<crease::scene::Scene> {
    let scene = crease::scene::load(source, overrides)?;
    for w in &scene.warnings {
        eprintln!("warning: {w}");
    }
    Ok(scene)
}

/// An input named by argument `arg` (a positional one in capitals, as
/// `--help` shows it) exists.
pub fn check_input(arg: &str, path: &std::path::Path) -> Result<()> {
    if !path.exists() {
        bail!("argument {arg}: {} does not exist", path.display());
    }
    Ok(())
}

/// `--jobs`, when given, is at least 1; `what` says what runs at once.
pub fn check_jobs(jobs: Option<usize>, what: &str) -> Result<()> {
    if jobs == Some(0) {
        return Err(crease::Error::Argument {
            arg: "--jobs 0".into(),
            message: format!("must be at least 1 ({what} at once)"),
        }
        .into());
    }
    Ok(())
}

/// Option `arg`, when given, is a positive number of seconds.
pub fn check_seconds(arg: &str, value: Option<f64>) -> Result<()> {
    if let Some(t) = value.filter(|t| !(t.is_finite() && *t > 0.0)) {
        bail!("argument {arg}: must be a positive number of seconds, got {t}");
    }
    Ok(())
}

/// Whether a command that runs on one backend runs on the GPU: `auto`
/// resolved, `both` refused.
pub fn on_gpu(choice: BackendChoice) -> crease::Result<bool> {
    match resolve(choice) {
        BackendChoice::Gpu => Ok(true),
        BackendChoice::Cpu | BackendChoice::Auto => Ok(false),
        BackendChoice::Both => Err(crease::Error::Argument {
            arg: "--backend both".into(),
            message: "runs both backends only in `crease bench`; use auto, gpu or cpu".into(),
        }),
    }
}

/// The GPU renderer when the choice allows and an adapter opens, else the
/// CPU rasterizer.
pub fn make_renderer(choice: BackendChoice) -> crease::Result<crease::render::Renderer> {
    Ok(if on_gpu(choice)? {
        crease::render::Renderer::Gpu(Box::new(GpuContext::new()?))
    } else {
        crease::render::Renderer::Cpu
    })
}

pub fn make_backend(choice: BackendChoice, scene: &Scene) -> crease::Result<Box<dyn Backend>> {
    make_backend_on(choice, scene, 0)
}

/// As [`make_backend`], a CPU backend stepping on `threads` threads (0:
/// every core).
pub fn make_backend_on(choice: BackendChoice, scene: &Scene, threads: usize) -> crease::Result<Box<dyn Backend>> {
    Ok(if on_gpu(choice)? {
        Box::new(GpuBackend::new(Arc::clone(&scene.cloth))?)
    } else {
        Box::new(CpuBackend::with_threads(Arc::clone(&scene.cloth), threads))
    })
}
