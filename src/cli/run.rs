//! `crease run` and `crease resume`: a scene to disk, with a progress bar and Ctrl-C checkpoints.

use super::{BackendChoice, check_output, check_seconds, make_backend};
use anyhow::{Result, bail};
use crease::output::{self, Checkpoint, Progress, RunOptions, SceneKey};
use crease::scene::{self};
use crease::sim::Simulation;
use indicatif::{ProgressBar, ProgressStyle};
use std::io::IsTerminal;
use std::path::{Path, PathBuf};

#[derive(clap::Args)]
pub struct RunArgs {
    pub scene: Option<String>,
    /// Output folder (default: out/<scene name>).
    #[arg(long)]
    pub out: Option<PathBuf>,
    #[arg(long, value_enum, default_value = "auto")]
    pub backend: BackendChoice,
    /// Stop at this simulated time, seconds.
    #[arg(long)]
    pub until: Option<f64>,
    /// Override a scene field: PATH=VALUE (repeatable).
    #[arg(long = "set", value_name = "PATH=VALUE")]
    pub set: Vec<String>,
    /// No progress bar.
    #[arg(long)]
    pub quiet: bool,
    /// Also write every channel's friction/plastic state at the last
    /// frame (state_hinges.csv, state_faces.csv).
    #[arg(long)]
    pub dump_state: bool,
    /// Count the cloth's crossing triangle pairs in every frame (metric
    /// `intersections`; exact, and slower on large meshes).
    #[arg(long)]
    pub check_intersections: bool,
    /// Write DIR/checkpoint.json at the first frame past every multiple
    /// of this many simulated seconds, and where --until stops the run
    /// (Ctrl-C always writes one); continue with `crease resume DIR`.
    #[arg(long, value_name = "SECONDS")]
    pub checkpoint_every: Option<f64>,
    /// Replace the outputs of another scene's run in the output folder
    /// (without it, that is an error; a run of the same scene replaces
    /// its own outputs).
    #[arg(long)]
    pub force: bool,
}

pub fn run(args: RunArgs) -> Result<()> {
    let RunArgs {
        scene,
        out,
        backend,
        until,
        set,
        quiet,
        dump_state,
        check_intersections,
        checkpoint_every,
        force,
    } = args;
    let name = scene.as_deref().unwrap_or(scene::DEFAULT_SCENE);
    let scene = super::load_scene(name, &set)?;
    check_seconds("--until", until)?;
    check_seconds("--checkpoint-every", checkpoint_every)?;
    let out_dir = out.unwrap_or_else(|| PathBuf::from("out").join(&scene.name));
    check_output("--out", &out_dir, true)?;
    let backend = make_backend(backend, &scene)?;
    let mut sim = Simulation::new(scene, backend);
    let scene_key = SceneKey::new(&sim.scene, name, &set);
    if !force {
        refuse_another_scene(&out_dir, &scene_key)?;
    }
    let opts = RunOptions {
        out_dir,
        until,
        dump_state,
        check_intersections,
        checkpoint_every,
        scene_key,
        resume: None,
    };
    run_with_progress(&mut sim, &opts, quiet)?;
    Ok(())
}

#[derive(clap::Args)]
pub struct ResumeArgs {
    pub dir: PathBuf,
    /// Default: the backend that wrote the checkpoint.
    #[arg(long, value_enum)]
    pub backend: Option<BackendChoice>,
    /// Stop at this simulated time (default: the timeline's end).
    #[arg(long)]
    pub until: Option<f64>,
    /// No progress bar.
    #[arg(long)]
    pub quiet: bool,
}

pub fn resume(args: ResumeArgs) -> Result<()> {
    let ResumeArgs {
        dir,
        backend,
        until,
        quiet,
    } = args;
    check_seconds("--until", until)?;
    super::check_input("DIR", &dir)?;
    let c = Checkpoint::read(&dir)?;
    let scene = c.scene.load(&Checkpoint::path(&dir))?;
    // A checkpoint holds one backend's exact state: resume on it.
    let (wrote, kind) = match c.state {
        crease::step::BackendState::Cpu { .. } => (BackendChoice::Cpu, "cpu"),
        crease::step::BackendState::Gpu { .. } => (BackendChoice::Gpu, "gpu"),
    };
    if backend.is_some_and(|b| b != wrote) {
        bail!(
            "argument --backend: the checkpoint in {} holds the {kind} backend's state: resume it with --backend {kind}",
            dir.display()
        );
    }
    let backend = make_backend(wrote, &scene)?;
    let mut sim = Simulation::new(scene, backend);
    let opts = RunOptions {
        out_dir: dir,
        until,
        dump_state: c.dump_state,
        check_intersections: c.check_intersections,
        checkpoint_every: c.checkpoint_every,
        scene_key: c.scene.clone(),
        resume: Some(c),
    };
    run_with_progress(&mut sim, &opts, quiet)?;
    Ok(())
}

/// A folder holding another scene's run (by its `run.json`) is not
/// written over: a mistyped `--out` would delete that run's frames. A run
/// of the same scene (edited, or with other `--set`s) replaces its own.
fn refuse_another_scene(out_dir: &Path, key: &SceneKey) -> Result<()> {
    let held = match SceneKey::read_run(out_dir) {
        Ok(None) => return Ok(()),
        Ok(Some(old)) if old.source == key.source => return Ok(()),
        Ok(Some(old)) => format!("the outputs of a run of {}", old.source),
        Err(e) => format!("a damaged run.json ({e})"),
    };
    bail!(
        "argument --out: {} holds {held}: pass --force to replace them, or choose another folder",
        out_dir.display()
    )
}

/// Runs `sim` to disk with a progress bar (unless `quiet`) and prints the
/// summary line.
fn run_with_progress(sim: &mut Simulation, opts: &RunOptions, quiet: bool) -> Result<()> {
    let bar = (!quiet && std::io::stderr().is_terminal()).then(|| {
        let bar = ProgressBar::new(1000);
        bar.set_style(
            ProgressStyle::with_template("{bar:30} {msg} [{elapsed} < {eta}]")
                .unwrap_or_else(|_| ProgressStyle::default_bar()),
        );
        bar
    });
    let started = std::time::Instant::now();
    let summary = output::run(sim, opts, &mut |p: &Progress| {
        if let Some(bar) = &bar {
            bar.set_position((1000.0 * p.time / p.end_time) as u64);
            let rate = p.steps as f64 / started.elapsed().as_secs_f64().max(1e-9);
            bar.set_message(format!(
                "{} t={:.3}/{:.3}s {:.1} steps/s",
                p.phase, p.time, p.end_time, rate
            ));
        }
    })?;
    if let Some(bar) = bar {
        bar.finish_and_clear();
    }
    if let Some(w) = output::unconverged_warning(summary["scene"].as_str().unwrap_or(""), &summary) {
        eprintln!("{w}");
    }
    if !quiet {
        println!(
            "{}: {} steps, {} frames in {:.1}s ({:.2} ms/step, {:.1} CG iterations/step) -> {}",
            summary["scene"].as_str().unwrap_or(""),
            summary["steps"],
            summary["frames"],
            summary["wall_seconds"].as_f64().unwrap_or(0.0),
            summary["ms_per_step"].as_f64().unwrap_or(0.0),
            summary["cg_iterations_mean"].as_f64().unwrap_or(0.0),
            opts.out_dir.display()
        );
    }
    Ok(())
}
