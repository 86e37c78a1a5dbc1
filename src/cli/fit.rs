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
}

pub fn fit(which: FitKind) -> Result<()> {
    let (FitKind::Stretch { data, .. } | FitKind::Bending { data, .. }) = &which;
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
    }
    Ok(())
}
