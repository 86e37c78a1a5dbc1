//! `crease validate`: the GPU against the CPU reference, step by step.

use anyhow::{Result, bail};

#[derive(clap::Args)]
pub struct ValidateArgs {
    pub scene: String,
    /// Steps compared.
    #[arg(long, default_value_t = 100)]
    pub steps: u64,
    /// Steps the CPU reference runs alone first; both GPU backends then
    /// take its state (positions, velocities, warm start, channels).
    #[arg(long, default_value_t = 0)]
    pub from: u64,
    #[arg(long = "set", value_name = "PATH=VALUE")]
    pub set: Vec<String>,
    /// Relative force tolerance.
    #[arg(long, default_value_t = 1e-4)]
    pub forces: f64,
    /// Relative velocity-update tolerance.
    #[arg(long, default_value_t = 1e-4)]
    pub dv: f64,
    /// Minimum fraction of channels in the same state.
    #[arg(long, default_value_t = 0.99)]
    pub channels: f64,
    /// Position deviation tolerance, relative to the bounding-box diagonal.
    #[arg(long, default_value_t = 1e-3)]
    pub position: f64,
    /// Tolerance on the depths under the obstacles, m.
    #[arg(long, default_value_t = 1e-5)]
    pub depths: f64,
    /// Print only the totals.
    #[arg(long)]
    pub quiet: bool,
}

pub fn validate(args: ValidateArgs) -> Result<()> {
    let ValidateArgs {
        scene,
        steps,
        from,
        set,
        forces,
        dv,
        channels,
        position,
        depths,
        quiet,
    } = args;
    // Both backends solve to 1e-6 unless --set says otherwise, so
    // dv differences measure the kernels, not where PCG stopped.
    let mut sets = vec!["solver.tolerance=1e-6".to_string()];
    sets.extend(set);
    let s = super::load_scene(&scene, &sets)?;
    let tol = crease::validate::Tolerances {
        forces,
        dv,
        channels,
        position,
        depths,
    };
    // The header comes with the first compared step (not before an error).
    let mut header = !quiet;
    let checks = crease::validate::validate(s, from, steps, &mut |c| {
        if std::mem::take(&mut header) {
            println!(
                "{:>6} {:>11} {:>11} {:>9} {:>11} {:>11} {:>7} {:>7}",
                "step", "forces", "dv", "channels", "position", "depths", "cg_cpu", "cg_gpu"
            );
        }
        if !quiet {
            println!(
                "{:>6} {:>11.3e} {:>11.3e} {:>9.4} {:>11.3e} {:>11.3e} {:>7} {:>7}{}",
                c.step,
                c.forces,
                c.dv,
                c.channels,
                c.position,
                c.depths,
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
         max position {:.3e} of the diagonal (tol {:.0e}), max depth difference {:.3e} m (tol {:.0e})",
        checks.len(),
        worst(|c| c.forces),
        tol.forces,
        worst(|c| c.dv),
        tol.dv,
        min_channels,
        tol.channels,
        worst(|c| c.position),
        tol.position,
        worst(|c| c.depths),
        tol.depths
    );
    let failed = checks.iter().filter(|c| !c.within(&tol)).count();
    if failed > 0 {
        bail!(
            "validation failed: {failed} of {} steps exceed a tolerance",
            checks.len()
        );
    }
    Ok(())
}
