//! `crease fit`: Dahl friction parameters from measurements (Miguel 2013 §4).

use anyhow::Result;
use clap::Subcommand;
use std::path::PathBuf;

#[derive(Subcommand)]
pub enum FitKind {
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
        /// Print and write parameters that are not physical (a stiffness
        /// or friction threshold below zero within the measured strains, a
        /// non-positive tau, infinite errors), where the fit refuses them.
        #[arg(long)]
        allow_unphysical: bool,
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
        /// Print and write parameters that are not physical (a stiffness
        /// or friction threshold below zero within the measured strains, a
        /// non-positive tau, infinite errors), where the fit refuses them.
        #[arg(long)]
        allow_unphysical: bool,
    },
    /// The core model's bending time parameters from standard
    /// crease-recovery measurements (ISO 2313 / AATCC 66). TABLE.csv:
    /// header `hold_s,load_n,recovery_deg`, one row per measurement: the
    /// time the folded specimen was pressed, the load, and the recovery
    /// angle read after it (0 folded flat, 180 open). Each row is a
    /// simulated specimen (the scene `crease-recovery`, 40 x 15 mm, on
    /// the CPU) and the fit is Levenberg-Marquardt over the `--free`
    /// parameters; the others keep the scene's values (its fabric preset,
    /// `--set cloth.material.preset=denim`).
    Recovery {
        data: PathBuf,
        /// The parameters to fit, of eps_0, eps_inf, tau_f (dwell
        /// friction), k_h0, g, tau_p, yield (hardening plasticity), or
        /// `all`. Which ones a table sees depends on the fabric and the
        /// specimen: `--free all --max-iterations 0` prints each one's
        /// sensitivity.
        #[arg(long, value_delimiter = ',', required = true)]
        free: Vec<String>,
        /// The specimen's scene (built-in name or JSON path).
        #[arg(long, default_value = "crease-recovery")]
        scene: String,
        /// Override a field of the specimen's scene: PATH=VALUE (repeatable;
        /// e.g. `cloth.mesh.grid.resolution=[20, 6]` for a specimen 20x faster).
        #[arg(long)]
        set: Vec<String>,
        /// Levenberg-Marquardt iterations at most (0: only the angles at the
        /// scene's own values, and their sensitivities).
        #[arg(long, default_value_t = 20)]
        max_iterations: usize,
        /// Specimens simulated at once, one thread each (default: one per core).
        #[arg(long)]
        jobs: Option<usize>,
        /// Also write the parameters as JSON here.
        #[arg(long)]
        json: Option<PathBuf>,
        /// Where to draw the fit (default: DATA with extension .fit.png).
        #[arg(long)]
        plot: Option<PathBuf>,
    },
}

pub fn fit(which: FitKind) -> Result<()> {
    let (FitKind::Stretch { data, .. } | FitKind::Bending { data, .. } | FitKind::Recovery { data, .. }) = &which;
    super::check_input("DATA", data)?;
    match which {
        FitKind::Stretch {
            data,
            rest_length,
            json,
            plot,
            allow_unphysical,
        } => print!(
            "{}",
            crease::fit::report::stretch(&data, rest_length, json.as_deref(), plot.as_deref(), allow_unphysical)?
        ),
        FitKind::Bending {
            data,
            density,
            stiffness,
            json,
            plot,
            allow_unphysical,
        } => {
            let stiffness = stiffness
                .first()
                .map(|&k| (k, stiffness.get(1).copied().unwrap_or(0.0)));
            print!(
                "{}",
                crease::fit::report::bending(
                    &data,
                    density,
                    stiffness,
                    json.as_deref(),
                    plot.as_deref(),
                    allow_unphysical
                )?
            )
        }
        FitKind::Recovery {
            data,
            free,
            scene,
            set,
            max_iterations,
            jobs,
            json,
            plot,
        } => {
            use crease::fit::recovery::{Param, Specimen};
            let all = free.len() == 1 && free[0].trim() == "all";
            let free = if all {
                Param::ALL.map(|p| p.name().to_string()).to_vec()
            } else {
                free
            };
            let free = free
                .iter()
                .map(|name| {
                    Param::parse(name.trim()).ok_or_else(|| crease::Error::Argument {
                        arg: "--free".into(),
                        message: format!(
                            "`{name}` is not a parameter; choose from {}, or `all`",
                            Param::ALL.map(Param::name).join(", ")
                        ),
                    })
                })
                .collect::<crease::Result<Vec<Param>>>()?;
            if let Some(p) = free
                .iter()
                .enumerate()
                .find_map(|(i, p)| free[..i].contains(p).then_some(p))
            {
                return Err(crease::Error::Argument {
                    arg: "--free".into(),
                    message: format!("`{}` is named twice", p.name()),
                }
                .into());
            }
            super::check_jobs(jobs, "specimens simulated")?;
            let specimen = Specimen {
                scene,
                sets: set,
                jobs: jobs.unwrap_or_else(rayon::current_num_threads),
            };
            print!(
                "{}",
                crease::fit::report::recovery(
                    &data,
                    &specimen,
                    &free,
                    max_iterations,
                    json.as_deref(),
                    plot.as_deref()
                )?
            )
        }
    }
    Ok(())
}
