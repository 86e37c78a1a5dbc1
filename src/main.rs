//! The `crease` command line: its shape (clap) and the dispatch to the
//! subcommands in `cli/`.

mod cli;

use anyhow::Result;
use clap::{Parser, Subcommand};
use crease::output::{self};
use std::process::ExitCode;

#[derive(Parser)]
#[command(name = "crease", version, about = "A cloth simulator whose wrinkles remember")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Run a scene (built-in name or JSON path; default: the twist) and write
    /// frames, metrics.csv and summary.json.
    Run(cli::run::RunArgs),
    /// Continue a stopped or interrupted run from DIR/checkpoint.json, into
    /// the same folder: the frames are those an uninterrupted run writes.
    Resume(cli::run::ResumeArgs),
    /// Parse and validate a scene, print it resolved, and exit.
    Check(cli::check::CheckArgs),
    /// List the built-in scenes.
    Scenes,
    /// Run a scene on the GPU and the CPU reference side by side: per step,
    /// forces, channel states and the velocity update from identical states,
    /// and the free-running GPU's position deviation. Exits non-zero when a
    /// tolerance is exceeded.
    Validate(cli::validate::ValidateArgs),
    /// Print the GPU adapters wgpu sees, the one `auto` picks and its
    /// limits; with a scene, also its device memory.
    Info(cli::info::InfoArgs),
    /// Run one of the paper's experiments in all its variants, print a
    /// comparison table and write DIR/experiment.json (names: ablation-friction,
    /// ablation-plastic, twist-flatten, cylinder-twist, tensile-press, container,
    /// recovery, crease-recovery, trousers, tshirt, unroll, specimen).
    Experiment(cli::experiment::ExperimentArgs),
    /// Run a scene live in a window (cargo feature `preview`): drag to
    /// orbit, wheel to zoom, space pauses, N steps once, R restarts, C
    /// cycles the colouring (plain, |theta - theta_rest|, plastic strain,
    /// friction slipping), Escape quits.
    #[cfg(feature = "preview")]
    Preview(cli::preview::PreviewArgs),
    /// Draw the cloth as a PNG: a run folder's last frame (or --frame N),
    /// or an OBJ; lit by a grazing key light, optionally coloured by
    /// |theta - theta_rest|.
    Render(cli::render::RenderArgs),
    /// Draw a run's metrics.csv over time as a PNG (default DIR/metrics.png):
    /// energies, bending angles, handle reactions, slip and yield fractions,
    /// with the phases marked; or one panel per --column.
    Plot(cli::render::PlotArgs),
    /// Write a clip of the built-in mannequin (a-pose, lift-leg, sit,
    /// bend-arms) as an OBJ sequence, body0001.obj, ..., as a user's own
    /// animation would be exported.
    Body(cli::body::BodyArgs),
    /// Benchmark a standard setting.
    Bench {
        #[command(subcommand)]
        which: cli::bench::BenchKind,
    },
    /// Estimate Dahl friction parameters from measurements (Miguel et al.
    /// 2013, Section 4): prints the parameters with standard errors and the
    /// residuals, and draws the fitted hysteresis paths.
    Fit {
        #[command(subcommand)]
        which: cli::fit::FitKind,
    },
}

fn main() -> ExitCode {
    quiet_device_select();
    // wgpu's and naga's diagnostics, when asked for (`RUST_LOG=wgpu=warn`).
    env_logger::Builder::from_env(env_logger::Env::default().default_filter_or("off")).init();
    match real_main() {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e:#}");
            ExitCode::FAILURE
        }
    }
}

/// Mesa's Vulkan device-select layer looks for the desktop's display to
/// order the GPUs, and on a machine without one (no usable
/// `XDG_RUNTIME_DIR`: a server, a CI runner) prints `error: XDG_RUNTIME_DIR
/// is invalid or not set` each time wgpu lists the adapters. crease picks
/// its adapter itself, so there the layer is switched off through its own
/// switch (`NODEVICE_SELECT=1`), unless the user set that.
fn quiet_device_select() {
    let display = std::env::var_os("XDG_RUNTIME_DIR").is_some_and(|d| std::path::Path::new(&d).is_dir());
    if !display && std::env::var_os("NODEVICE_SELECT").is_none() {
        // SAFETY: first thing in `main`, before any other thread exists.
        unsafe { std::env::set_var("NODEVICE_SELECT", "1") };
    }
}

fn real_main() -> Result<()> {
    let cli = Cli::parse();
    if matches!(cli.command, Command::Run(_) | Command::Resume(_)) {
        // Ctrl-C: finish the frame, write a checkpoint, exit (output::run).
        let stop = || output::INTERRUPTED.store(true, std::sync::atomic::Ordering::SeqCst);
        if let Err(e) = ctrlc::set_handler(stop) {
            eprintln!("notice: Ctrl-C will stop the run without a checkpoint: {e}");
        }
    }
    match cli.command {
        Command::Run(args) => cli::run::run(args),
        Command::Resume(args) => cli::run::resume(args),
        Command::Check(args) => cli::check::check(args),
        Command::Scenes => cli::check::scenes(),
        Command::Validate(args) => cli::validate::validate(args),
        Command::Info(args) => cli::info::info(args),
        Command::Experiment(args) => cli::experiment::experiment(args),
        #[cfg(feature = "preview")]
        Command::Preview(args) => cli::preview::preview(args),
        Command::Render(args) => cli::render::render(args),
        Command::Plot(args) => cli::render::plot(args),
        Command::Body(args) => cli::body::body(args),
        Command::Bench { which } => cli::bench::bench(which),
        Command::Fit { which } => cli::fit::fit(which),
    }
}
