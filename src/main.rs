//! The `crease` command line. All printing happens here; the library
//! returns values and errors.

use anyhow::{Context, Result, bail};
use clap::{Parser, Subcommand, ValueEnum};
use crease::cpu::CpuBackend;
use crease::gpu::{GpuBackend, GpuContext};
use crease::model::channel::{Channel, FrictionModel, PlasticModel};
use crease::output::{self, Checkpoint, Progress, RunOptions, SceneKey};
use crease::scene::{self, Action, ObstacleAction, Scene};
use crease::sim::Simulation;
use crease::step::Backend;
use indicatif::{ProgressBar, ProgressStyle};
use std::io::IsTerminal;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;

#[derive(Parser)]
#[command(name = "crease", version, about = "A cloth simulator whose wrinkles remember")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
enum BackendChoice {
    /// The GPU when wgpu finds an adapter, else the CPU (with a notice).
    Auto,
    /// The f32 wgpu compute backend.
    Gpu,
    /// The f64 CPU reference (rayon).
    Cpu,
    /// Both, one after the other (bench only).
    Both,
}

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
enum ColourChoice {
    /// Cloth colours: the wrinkles in light and shade.
    Plain,
    /// |theta - theta_rest| per vertex (run folders: against frame 0).
    Bend,
}

#[derive(Subcommand)]
enum Command {
    /// Run a scene (built-in name or JSON path; default: the twist) and write
    /// frames, metrics.csv and summary.json.
    Run {
        scene: Option<String>,
        /// Output folder (default: out/<scene name>).
        #[arg(long)]
        out: Option<PathBuf>,
        #[arg(long, value_enum, default_value = "auto")]
        backend: BackendChoice,
        /// Stop at this simulated time, seconds.
        #[arg(long)]
        until: Option<f64>,
        /// Override a scene field: PATH=VALUE (repeatable).
        #[arg(long = "set", value_name = "PATH=VALUE")]
        set: Vec<String>,
        /// No progress bar.
        #[arg(long)]
        quiet: bool,
        /// Also write every channel's friction/plastic state at the last
        /// frame (state_hinges.csv, state_faces.csv).
        #[arg(long)]
        dump_state: bool,
        /// Count the cloth's crossing triangle pairs in every frame (metric
        /// `intersections`; exact, and slower on large meshes).
        #[arg(long)]
        check_intersections: bool,
        /// Write DIR/checkpoint.json at the first frame past every multiple
        /// of this many simulated seconds, and where --until stops the run
        /// (Ctrl-C always writes one); continue with `crease resume DIR`.
        #[arg(long, value_name = "SECONDS")]
        checkpoint_every: Option<f64>,
    },
    /// Continue a stopped or interrupted run from DIR/checkpoint.json, into
    /// the same folder: the frames are those an uninterrupted run writes.
    Resume {
        dir: PathBuf,
        /// Default: the backend that wrote the checkpoint.
        #[arg(long, value_enum)]
        backend: Option<BackendChoice>,
        /// Stop at this simulated time (default: the timeline's end).
        #[arg(long)]
        until: Option<f64>,
        /// No progress bar.
        #[arg(long)]
        quiet: bool,
    },
    /// Parse and validate a scene, print it resolved, and exit.
    Check {
        scene: String,
        #[arg(long = "set", value_name = "PATH=VALUE")]
        set: Vec<String>,
    },
    /// List the built-in scenes.
    Scenes,
    /// Run a scene on the GPU and the CPU reference side by side: per step,
    /// forces, channel states and the velocity update from identical states,
    /// and the free-running GPU's position deviation. Exits non-zero when a
    /// tolerance is exceeded.
    Validate {
        scene: String,
        #[arg(long, default_value_t = 100)]
        steps: u64,
        #[arg(long = "set", value_name = "PATH=VALUE")]
        set: Vec<String>,
        /// Relative force tolerance.
        #[arg(long, default_value_t = 1e-4)]
        forces: f64,
        /// Relative velocity-update tolerance.
        #[arg(long, default_value_t = 1e-4)]
        dv: f64,
        /// Minimum fraction of channels in the same state.
        #[arg(long, default_value_t = 0.99)]
        channels: f64,
        /// Position deviation tolerance, relative to the bounding-box diagonal.
        #[arg(long, default_value_t = 1e-3)]
        position: f64,
        /// Print only the totals.
        #[arg(long)]
        quiet: bool,
    },
    /// Print the GPU adapters wgpu sees, the one `auto` picks and its
    /// limits; with a scene, also its device memory.
    Info {
        scene: Option<String>,
        #[arg(long = "set", value_name = "PATH=VALUE")]
        set: Vec<String>,
    },
    /// Run one of the paper's experiments in all its variants, print a
    /// comparison table and write DIR/experiment.json (names: ablation-friction,
    /// ablation-plastic, twist-flatten, cylinder-twist, tensile-press, container,
    /// recovery, unroll, specimen).
    Experiment {
        name: String,
        /// Output folder (default: out/<experiment>); each variant's run
        /// goes to DIR/<variant>/.
        #[arg(long)]
        out: Option<PathBuf>,
        #[arg(long, value_enum, default_value = "auto")]
        backend: BackendChoice,
        /// Override a field of every variant's scene: PATH=VALUE (repeatable).
        #[arg(long = "set", value_name = "PATH=VALUE")]
        set: Vec<String>,
        /// No per-variant progress lines.
        #[arg(long)]
        quiet: bool,
    },
    /// Run a scene live in a window (cargo feature `preview`): drag to
    /// orbit, wheel to zoom, space pauses, N steps once, R restarts, C
    /// cycles the colouring (plain, |theta - theta_rest|, plastic strain,
    /// friction slipping), Escape quits.
    #[cfg(feature = "preview")]
    Preview {
        /// Built-in scene name or JSON path (default: the twist).
        #[arg(default_value = "twist")]
        scene: String,
        #[arg(long, value_enum, default_value = "auto")]
        backend: BackendChoice,
        /// Override a scene field: PATH=VALUE (repeatable).
        #[arg(long = "set", value_name = "PATH=VALUE")]
        set: Vec<String>,
        /// Simulation steps per drawn frame.
        #[arg(long, default_value_t = 2)]
        steps_per_frame: u32,
        /// Quit after this many frames (scripted runs).
        #[arg(long)]
        exit_after: Option<u64>,
    },
    /// Draw the cloth as a PNG: a run folder's last frame (or --frame N),
    /// or an OBJ; lit by a grazing key light, optionally coloured by
    /// |theta - theta_rest|.
    Render {
        /// A run folder or an OBJ file.
        path: PathBuf,
        /// Default: DIR/render.png, or the OBJ's path with .png.
        #[arg(long)]
        out: Option<PathBuf>,
        /// Frame number of a run folder (default: the last).
        #[arg(long)]
        frame: Option<usize>,
        /// Picture size, WIDTHxHEIGHT.
        #[arg(long, default_value = "1024x768")]
        size: String,
        /// Direction from the cloth to the camera, X,Y,Z.
        #[arg(long, value_delimiter = ',', allow_hyphen_values = true)]
        view: Option<Vec<f64>>,
        #[arg(long, value_enum, default_value = "plain")]
        colour: ColourChoice,
        /// Where to draw: auto (the GPU when an adapter opens), gpu, or cpu
        /// (the rasterizer twin of the render shader).
        #[arg(long, value_enum, default_value = "auto")]
        backend: BackendChoice,
    },
    /// Draw a run's metrics.csv over time as a PNG (default DIR/metrics.png):
    /// energies, bending angles, handle reactions, slip and yield fractions,
    /// with the phases marked; or one panel per --column.
    Plot {
        /// A run folder, or a metrics.csv.
        dir: PathBuf,
        #[arg(long)]
        out: Option<PathBuf>,
        /// Draw this column in a panel of its own (repeatable).
        #[arg(long = "column", value_name = "NAME")]
        columns: Vec<String>,
    },
    /// Benchmark a standard setting.
    Bench {
        #[command(subcommand)]
        which: BenchKind,
    },
    /// Estimate Dahl friction parameters from measurements (Miguel et al.
    /// 2013, Section 4): prints the parameters with standard errors and the
    /// residuals, and draws the fitted hysteresis paths.
    Fit {
        #[command(subcommand)]
        which: FitKind,
    },
}

#[derive(Subcommand)]
enum FitKind {
    /// Stretch friction from a hanging-weights test (Section 4.2). DATA.csv:
    /// header `step,force_newton,length_m`, one row per measurement in the
    /// order taken, loads [0, 1, ..., n, ..., 1, 0] N cycle after cycle,
    /// starting with the lightest. Fits (k, k2, a, b, tau).
    Stretch {
        data: PathBuf,
        /// Rest length of the square sample, m.
        #[arg(long, default_value_t = 0.1)]
        rest_length: f64,
        /// Also write the parameters as JSON here.
        #[arg(long)]
        json: Option<PathBuf>,
        /// Where to draw the fit (default: DATA with extension .fit.png).
        #[arg(long)]
        plot: Option<PathBuf>,
    },
    /// Bending friction from unrolled spirals (Section 4.3). DATA.csv:
    /// header `radius_m,curvature_per_m,hanging_length_m,lever_m`, one row
    /// per spiral sample: the cylinder radius it was rolled on, the
    /// curvature there, the length of strip hanging beyond it and the
    /// horizontal distance from that piece's centre of mass. Fits (a, b,
    /// tau), and (k, k2) unless --stiffness gives them.
    Bending {
        data: PathBuf,
        /// Areal density of the strip, kg/m^2.
        #[arg(long)]
        density: f64,
        /// Bending stiffness from a cantilever test: K or K,K2 (N m; the
        /// stiffness is K + K2 eps with eps = 3 kappa).
        #[arg(long, value_delimiter = ',', num_args = 1..=2)]
        stiffness: Vec<f64>,
        /// Also write the parameters as JSON here.
        #[arg(long)]
        json: Option<PathBuf>,
        /// Where to draw the fit (default: DATA with extension .fit.png).
        #[arg(long)]
        plot: Option<PathBuf>,
    },
}

#[derive(Subcommand)]
enum BenchKind {
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

/// Resolves `auto` once: the GPU if an adapter opens, else the CPU with a
/// one-line notice naming the reason.
fn resolve(choice: BackendChoice) -> BackendChoice {
    if choice != BackendChoice::Auto {
        return choice;
    }
    match GpuContext::new() {
        Ok(_) => BackendChoice::Gpu,
        Err(e) => {
            eprintln!("notice: running on the CPU backend: {e}");
            BackendChoice::Cpu
        }
    }
}

/// Option `arg`, when given, is a positive number of seconds.
fn check_seconds(arg: &str, value: Option<f64>) -> Result<()> {
    if let Some(t) = value.filter(|t| !(t.is_finite() && *t > 0.0)) {
        bail!("argument {arg}: must be a positive number of seconds, got {t}");
    }
    Ok(())
}

/// `WIDTHxHEIGHT`.
fn parse_size(size: &str) -> crease::Result<(u32, u32)> {
    let bad = || crease::Error::Argument {
        arg: "--size".into(),
        message: format!("{size:?} is not WIDTHxHEIGHT (e.g. 1024x768)"),
    };
    let (w, h) = size.split_once('x').ok_or_else(bad)?;
    let (w, h): (u32, u32) = (
        w.trim().parse().map_err(|_| bad())?,
        h.trim().parse().map_err(|_| bad())?,
    );
    if w == 0 || h == 0 || w > 16384 || h > 16384 {
        return Err(bad());
    }
    Ok((w, h))
}

/// Whether a command that runs on one backend runs on the GPU: `auto`
/// resolved, `both` refused.
fn on_gpu(choice: BackendChoice) -> crease::Result<bool> {
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
fn make_renderer(choice: BackendChoice) -> crease::Result<crease::render::Renderer> {
    Ok(if on_gpu(choice)? {
        crease::render::Renderer::Gpu(Box::new(GpuContext::new()?))
    } else {
        crease::render::Renderer::Cpu
    })
}

fn make_backend(choice: BackendChoice, scene: &Scene) -> crease::Result<Box<dyn Backend>> {
    Ok(if on_gpu(choice)? {
        Box::new(GpuBackend::new(Arc::clone(&scene.cloth))?)
    } else {
        Box::new(CpuBackend::new(Arc::clone(&scene.cloth)))
    })
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

fn main() -> ExitCode {
    match real_main() {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e:#}");
            ExitCode::FAILURE
        }
    }
}

fn real_main() -> Result<()> {
    let cli = Cli::parse();
    if matches!(cli.command, Command::Run { .. } | Command::Resume { .. }) {
        // Ctrl-C: finish the frame, write a checkpoint, exit (output::run).
        let stop = || output::INTERRUPTED.store(true, std::sync::atomic::Ordering::SeqCst);
        if let Err(e) = ctrlc::set_handler(stop) {
            eprintln!("notice: Ctrl-C will stop the run without a checkpoint: {e}");
        }
    }
    match cli.command {
        Command::Run {
            scene,
            out,
            backend,
            until,
            set,
            quiet,
            dump_state,
            check_intersections,
            checkpoint_every,
        } => {
            let name = scene.as_deref().unwrap_or(scene::DEFAULT_SCENE);
            let scene = scene::load(name, &set)?;
            check_seconds("--until", until)?;
            check_seconds("--checkpoint-every", checkpoint_every)?;
            let out_dir = out.unwrap_or_else(|| PathBuf::from("out").join(&scene.name));
            let backend = make_backend(backend, &scene)?;
            let mut sim = Simulation::new(scene, backend);
            let scene_key = SceneKey::new(&sim.scene, name, &set);
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
        }
        Command::Resume {
            dir,
            backend,
            until,
            quiet,
        } => {
            check_seconds("--until", until)?;
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
        }
        Command::Check { scene, set } => {
            let s = scene::load(&scene, &set)?;
            print_scene(&s);
        }
        Command::Experiment {
            name,
            out,
            backend,
            set,
            quiet,
        } => {
            let exp = crease::experiment::find(&name)?;
            let out_dir = out.unwrap_or_else(|| PathBuf::from("out").join(&name));
            let count = exp.variants.len();
            // Resolved once, not per variant (each would probe the GPU).
            let backend = resolve(backend);
            let renderer = make_renderer(backend)?;
            let result = crease::experiment::run(
                &exp,
                &set,
                &out_dir,
                &|scene: &Scene| make_backend(backend, scene),
                &renderer,
                &mut |k, variant| {
                    if !quiet {
                        eprintln!("[{}/{count}] {name}: {variant}", k + 1);
                    }
                },
            )?;
            print!("{:<24}", "variant");
            for c in exp.columns {
                print!(" {c:>26}");
            }
            println!(" {:>9}", "wall_s");
            for v in result["variants"].as_array().into_iter().flatten() {
                print!("{:<24}", v["name"].as_str().unwrap_or(""));
                for c in exp.columns {
                    let value = v["derived"][*c].as_f64().or(v["summary"]["final"][*c].as_f64());
                    print!(" {:>26.6}", value.unwrap_or(f64::NAN));
                }
                println!(" {:>9.1}", v["summary"]["wall_seconds"].as_f64().unwrap_or(0.0));
            }
            println!(
                "-> {}, {}",
                out_dir.join("experiment.json").display(),
                out_dir.join("sheet.png").display()
            );
        }
        Command::Info { scene, set } => {
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
                    println!("chosen: {} ({:?})", ctx.adapter.name, ctx.adapter.backend);
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
                        let s = scene::load(&name, &set)?;
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
                            let grids: u64 = s.obstacles.iter().map(|o| o.grid.bytes()).sum();
                            println!(
                                "  and {grids} bytes of obstacle grids ({} obstacles), uploaded at the first step with an obstacle",
                                s.obstacles.len()
                            );
                        }
                    }
                }
                Err(e) => println!("chosen: none ({e})"),
            }
        }
        Command::Validate {
            scene,
            steps,
            set,
            forces,
            dv,
            channels,
            position,
            quiet,
        } => {
            // Both backends solve to 1e-6 unless --set says otherwise, so
            // dv differences measure the kernels, not where PCG stopped.
            let mut sets = vec!["solver.tolerance=1e-6".to_string()];
            sets.extend(set);
            let s = scene::load(&scene, &sets)?;
            let tol = crease::validate::Tolerances {
                forces,
                dv,
                channels,
                position,
            };
            if !quiet {
                println!(
                    "{:>6} {:>11} {:>11} {:>9} {:>11} {:>7} {:>7}",
                    "step", "forces", "dv", "channels", "position", "cg_cpu", "cg_gpu"
                );
            }
            let checks = crease::validate::validate(s, steps, &mut |c| {
                if !quiet {
                    println!(
                        "{:>6} {:>11.3e} {:>11.3e} {:>9.4} {:>11.3e} {:>7} {:>7}{}",
                        c.step,
                        c.forces,
                        c.dv,
                        c.channels,
                        c.position,
                        c.cg_cpu,
                        c.cg_gpu,
                        if c.within(&tol) { "" } else { "  <- exceeds" }
                    );
                }
            })?;
            let worst = |f: fn(&crease::validate::StepCheck) -> f64| checks.iter().map(f).fold(0.0, f64::max);
            let min_channels = checks.iter().map(|c| c.channels).fold(1.0, f64::min);
            println!(
                "{} steps: max forces {:.3e} (tol {:.0e}), max dv {:.3e} (tol {:.0e}), min channel agreement {:.4} (tol {}), \
                 max position {:.3e} of the diagonal (tol {:.0e})",
                checks.len(),
                worst(|c| c.forces),
                tol.forces,
                worst(|c| c.dv),
                tol.dv,
                min_channels,
                tol.channels,
                worst(|c| c.position),
                tol.position
            );
            let failed = checks.iter().filter(|c| !c.within(&tol)).count();
            if failed > 0 {
                bail!(
                    "validation failed: {failed} of {} steps exceed a tolerance",
                    checks.len()
                );
            }
        }
        #[cfg(feature = "preview")]
        Command::Preview {
            scene,
            backend,
            set,
            steps_per_frame,
            exit_after,
        } => {
            let scene = scene::load(&scene, &set)?;
            let backend = resolve(backend);
            crease::preview::run(
                scene,
                &|s: &Scene| make_backend(backend, s),
                crease::preview::Options {
                    steps_per_frame: steps_per_frame.max(1),
                    exit_after,
                },
            )?;
        }
        Command::Render {
            path,
            out,
            frame,
            size,
            view,
            colour,
            backend,
        } => {
            let (width, height) = parse_size(&size)?;
            let source = crease::render::source::load(&path, frame)?;
            let view = match view.as_deref() {
                Some(&[x, y, z]) => glam::DVec3::new(x, y, z),
                Some(other) => bail!("argument --view: {other:?} is not three numbers X,Y,Z"),
                None => crease::render::VIEW,
            };
            let colour = match colour {
                ColourChoice::Plain => crease::render::Colour::Plain,
                ColourChoice::Bend => crease::render::Colour::Bend,
            };
            let renderer = make_renderer(backend)?;
            let image = crease::render::render(&renderer, &source, colour, view, width, height)?;
            let out = out.unwrap_or_else(|| {
                if path.is_dir() {
                    path.join("render.png")
                } else {
                    path.with_extension("png")
                }
            });
            image.save(&out)?;
            println!(
                "wrote {} ({}, {})",
                out.display(),
                source.path.display(),
                renderer.name()
            );
        }
        Command::Plot { dir, out, columns } => {
            let path = crease::plot::plot_run(&dir, out.as_deref(), &columns)?;
            println!("wrote {}", path.display());
        }
        Command::Fit { which } => match which {
            FitKind::Stretch {
                data,
                rest_length,
                json,
                plot,
            } => print!(
                "{}",
                crease::fit::report::stretch(&data, rest_length, json.as_deref(), plot.as_deref())?
            ),
            FitKind::Bending {
                data,
                density,
                stiffness,
                json,
                plot,
            } => {
                let stiffness = stiffness
                    .first()
                    .map(|&k| (k, stiffness.get(1).copied().unwrap_or(0.0)));
                print!(
                    "{}",
                    crease::fit::report::bending(&data, density, stiffness, json.as_deref(), plot.as_deref())?
                )
            }
        },
        Command::Scenes => {
            for (name, text) in scene::BUILTIN {
                println!("{name:18} {}", scene::builtin_description(text));
            }
        }
        Command::Bench { which } => match which {
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
                let backends = match backend {
                    BackendChoice::Both => vec![BackendChoice::Cpu, BackendChoice::Gpu],
                    other => vec![resolve(other)],
                };
                let mut rows = Vec::new();
                println!(
                    "{:>8} {:>8} {:>6} {:>10} {:>10} {:>10} {:>10} {:>8} {:>9} {:>8} {:>10} {:>11} {:>8} {:>8}",
                    "backend",
                    "vertices",
                    "steps",
                    "ms/step",
                    "forces_ms",
                    "solve_ms",
                    "collide_ms",
                    "contacts",
                    "other_ms",
                    "cg_iter",
                    "dispatch",
                    "bytes/iter",
                    "pcg_GB/s",
                    "copy_GB/s"
                );
                for target in vertices {
                    for &b in &backends {
                        let scene = crease::bench::twist_scene(crease::bench::refinement(target), &set)?;
                        let cloth = Arc::clone(&scene.cloth);
                        let backend = make_backend(b, &scene)?;
                        let mut row = crease::bench::run_twist(scene, backend, steps)?;
                        if b == BackendChoice::Gpu {
                            crease::bench::gpu_figures(&mut row, &cloth, &GpuContext::new()?)?;
                        }
                        let opt =
                            |v: Option<f64>, digits: usize| v.map(|x| format!("{x:.digits$}")).unwrap_or("-".into());
                        println!(
                            "{:>8} {:>8} {:>6} {:>10.2} {:>10.2} {:>10.2} {:>10.2} {:>8.0} {:>9.2} {:>8.1} {:>10} {:>11} {:>8} {:>8}",
                            row.backend,
                            row.vertices,
                            row.steps,
                            row.ms_per_step,
                            row.forces_ms,
                            row.solve_ms,
                            row.collide_ms,
                            row.contacts,
                            row.other_ms,
                            row.cg_iterations,
                            opt(row.dispatches_per_step, 0),
                            opt(row.bytes_per_iteration.map(|b| b as f64), 0),
                            opt(row.pcg_gbps, 2),
                            opt(row.copy_gbps, 2),
                        );
                        rows.push(row);
                    }
                }
                if let Some(path) = json {
                    let name = if backends.len() > 1 {
                        "both".to_string()
                    } else {
                        rows.first().map(|r| r.backend.clone()).unwrap_or_default()
                    };
                    let v = serde_json::json!({ "backend": name, "rows": rows });
                    crease::util::write_atomic(&path, serde_json::to_string_pretty(&v)?.as_bytes())
                        .with_context(|| format!("writing {}", path.display()))?;
                }
            }
        },
    }
    Ok(())
}

fn print_scene(s: &Scene) {
    let c = &s.cloth;
    println!("scene {} ({})", s.name, s.source);
    if !s.description.is_empty() {
        println!("  {}", s.description);
    }
    println!(
        "  dt {} s, gravity {:?}, solver tolerance {} max {} iterations, {}",
        s.dt,
        s.gravity.to_array(),
        s.solver.tolerance,
        s.solver.max_iterations,
        match s.solver.contact_solves {
            0 => "no resting contacts".to_string(),
            n => format!("resting contacts (up to {n} solves a step)"),
        }
    );
    println!(
        "  mesh {}: {} vertices, {} faces, {} hinges, {} boundary edges",
        c.mesh.name,
        c.vertex_count(),
        c.mesh.faces.len(),
        c.topology.hinges.len(),
        c.topology.boundary_edges.len()
    );
    let m = &c.material;
    println!(
        "  material: density {} kg/m^2, bending {} N m, stretching k11 {} k12 {} k22 {} k33 {} N/m; damping {} s",
        m.density, m.bending, m.stretching.k11, m.stretching.k12, m.stretching.k22, m.stretching.k33, c.damping
    );
    // Enum values as scenes spell them.
    let name = |v: serde_json::Value| v.as_str().unwrap_or("?").to_string();
    let friction = |model: FrictionModel, ch: &Channel| match model {
        FrictionModel::Dwell => format!(
            "dwell (stiffness {}, eps_0 {}, eps_inf {}, tau {} s)",
            ch.dwell.stiffness, ch.dwell.eps_0, ch.dwell.eps_inf, ch.dwell.tau
        ),
        FrictionModel::Dahl => format!("dahl (a {}, b {}, tau {})", ch.dahl.a, ch.dahl.b, ch.dahl.tau),
        FrictionModel::None => "none".to_string(),
    };
    let plastic = |model: PlasticModel| name(serde_json::json!(model));
    println!(
        "  bending: {} model on the {} strain, friction {}, plasticity {}",
        name(serde_json::json!(m.bending_model)),
        name(serde_json::json!(m.bending_strain)),
        friction(m.bending_models.friction, &m.bending_channel),
        plastic(m.bending_models.plasticity)
    );
    println!(
        "  in-plane (uu channel): friction {}, plasticity {}",
        friction(m.in_plane_models.friction, &m.in_plane_channels[0]),
        plastic(m.in_plane_models.plasticity)
    );
    if c.initial_channels.is_some() {
        println!("  starts deformed, its channels loaded as if rolled there (cloth.roll)");
    }
    let sc = &s.self_collision;
    if sc.enabled {
        println!(
            "  self-collision: thickness {} m, stiffness {} N/m, friction {}",
            sc.thickness, sc.stiffness, sc.friction
        );
    } else {
        println!("  self-collision: off");
    }
    for h in &s.handles {
        let axis = h
            .torque_axis
            .map(|a| {
                format!(
                    ", torque about {:?} through {:?}",
                    a.direction.to_array(),
                    a.point.to_array()
                )
            })
            .unwrap_or_default();
        println!("  handle {}: {} vertices{axis}", h.name, h.vertices.len());
    }
    for o in &s.obstacles {
        let g = &o.grid;
        println!(
            "  obstacle {}: friction {}, thickness {} m, grid {} x {} x {} at {} m ({:.1} MiB){}",
            o.name,
            o.friction,
            o.thickness,
            g.dims[0],
            g.dims[1],
            g.dims[2],
            g.cell,
            g.bytes() as f64 / (1 << 20) as f64,
            if o.enabled { "" } else { ", added later" }
        );
    }
    for p in &s.phases {
        let mut actions: Vec<String> = s
            .handles
            .iter()
            .zip(&p.actions)
            .filter_map(|(h, a)| {
                a.as_ref().map(|a| match a {
                    Action::Hold => format!("{} hold", h.name),
                    Action::Release => format!("{} release", h.name),
                    Action::Move(m) => format!("{} move {:?}", h.name, m),
                })
            })
            .collect();
        actions.extend(s.obstacles.iter().zip(&p.obstacle_actions).filter_map(|(o, a)| {
            a.as_ref().map(|a| match a {
                ObstacleAction::Hold => format!("{} hold", o.name),
                ObstacleAction::Remove => format!("{} remove", o.name),
                ObstacleAction::Add => format!("{} add", o.name),
                ObstacleAction::Move(m) => format!("{} move {:?}", o.name, m),
            })
        }));
        println!(
            "  phase {}: {} steps ({} s), material time {} s{}",
            p.name,
            p.steps,
            p.steps as f64 * s.dt,
            p.material_time,
            if actions.is_empty() {
                String::new()
            } else {
                format!("; {}", actions.join(", "))
            }
        );
    }
    println!("  output every {} s ({} steps)", s.frame_interval, s.frame_steps());
}
