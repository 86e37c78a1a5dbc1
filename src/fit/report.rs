//! `crease fit stretch|bending|recovery`: read the measurements, fit, write the JSON
//! and the plot, and return the report the command prints.

use super::{Fit, bending, recovery, stretch};
use crate::error::{Error, Result};
use crate::plot::draw_charts;
use crate::util::write_atomic;
use serde_json::json;
use std::fmt::Write;
use std::path::{Path, PathBuf};

/// Names of the five parameters, in the order of `standard_errors`.
const NAMES: [&str; 5] = ["k", "k2", "a", "b", "tau"];

fn positive(arg: &str, value: f64) -> Result<()> {
    if value.is_finite() && value > 0.0 {
        Ok(())
    } else {
        Err(Error::Argument {
            arg: arg.into(),
            message: format!("{value} must be a positive number"),
        })
    }
}

/// Why a fit's parameters are not physical over the strains `eps` it was
/// measured at (and 0, where the model starts): a value or standard error
/// that is not finite (NaN fails no other test), a stiffness `k + k2 eps` that is not positive or a
/// friction threshold `a + b eps` below zero somewhere there (both are
/// linear, so the ends of the range decide), a tau that is not positive.
fn unphysical(fit: &Fit, eps: impl Iterator<Item = f64>) -> Vec<String> {
    let (lo, hi) = eps.fold((0.0f64, 0.0f64), |(l, h), e| (l.min(e), h.max(e)));
    let p = &fit.params;
    let mut why = Vec::new();
    for (j, (v, e)) in p.values().iter().zip(fit.standard_errors).enumerate() {
        if !v.is_finite() {
            why.push(format!("{} = {v} is not finite", NAMES[j]));
        }
        if let Some(e) = e.filter(|e| !e.is_finite()) {
            why.push(format!("the standard error of {} is {e}", NAMES[j]));
        }
    }
    for e in [lo, hi] {
        let k = p.k + p.k2 * e;
        if k <= 0.0 {
            why.push(format!("the stiffness k + k2 eps is {k:.4e} at eps = {e:.4}"));
        }
        let s = p.a + p.b * e;
        if s < 0.0 {
            why.push(format!("the friction threshold a + b eps is {s:.4e} at eps = {e:.4}"));
        }
    }
    if p.tau <= 0.0 {
        why.push(format!("tau = {} is not positive", p.tau));
    }
    why
}

/// An error naming what is not physical in the fit of `data`, unless
/// `allow`, which adds a warning to the report instead.
fn check_physical(fit: &Fit, eps: impl Iterator<Item = f64>, allow: bool, data: &Path, out: &mut String) -> Result<()> {
    let why = unphysical(fit, eps);
    if why.is_empty() {
        return Ok(());
    }
    if allow {
        let _ = writeln!(out, "warning: the parameters are not physical: {}", why.join("; "));
        return Ok(());
    }
    Err(Error::File {
        path: data.to_path_buf(),
        message: format!(
            "the fitted parameters are not physical: {}. The measurements may not determine them (too few loads or turns, or noise): check the data, or pass --allow-unphysical to print and write them anyway",
            why.join("; ")
        ),
    })
}

/// The plot's default place: beside the data, `<name>.fit.png`.
fn default_plot(data: &Path) -> PathBuf {
    data.with_extension("fit.png")
}

/// A line per parameter with its standard error (or why it has none), and
/// the caveat when tau is only bounded.
fn describe(
    out: &mut String,
    units: [&str; 5],
    values: [f64; 5],
    errors: [Option<f64>; 5],
    fixed: &[usize],
    tau_bound: Option<f64>,
) {
    for j in 0..5 {
        let error = match errors[j] {
            _ if fixed.contains(&j) => "  (given)".to_string(),
            Some(e) => format!(" +- {e:.3e}"),
            None => "  (not determined)".to_string(),
        };
        let _ = writeln!(out, "  {:4} = {:.6e}{error} {}", NAMES[j], values[j], units[j]);
    }
    if let Some(bound) = tau_bound {
        let _ = writeln!(
            out,
            "  note: every measurement lies more than 7 tau from its anchor, where friction is saturated whatever tau is: \
             the data say only tau < {bound:.3e}. Measure smaller steps right after each turn of the load."
        );
    }
}

/// Residual statistics and one line per measurement.
fn residual_lines(out: &mut String, unit: &str, rms: f64, residuals: &[f64], labels: impl Iterator<Item = String>) {
    let max = residuals.iter().fold(0.0_f64, |m, r| m.max(r.abs()));
    let _ = writeln!(out, "residuals: rms {rms:.3e} {unit}, largest {max:.3e} {unit}");
    for (label, r) in labels.zip(residuals) {
        let _ = writeln!(out, "  {label}  {r:+.3e}");
    }
}

/// `crease fit stretch`.
pub fn stretch(
    data: &Path,
    rest_length: f64,
    json_out: Option<&Path>,
    plot: Option<&Path>,
    allow_unphysical: bool,
) -> Result<String> {
    positive("--rest-length", rest_length)?;
    let samples = stretch::read(data, rest_length)?;
    let fit = stretch::fit(&samples, rest_length)?;
    let mut out = format!(
        "stretch friction of {} ({} measurements, rest length {rest_length} m), Miguel 2013 Eq. 4-6:\n",
        data.display(),
        samples.len()
    );
    describe(
        &mut out,
        ["N/m", "N/m", "N/m", "N/m", "(strain)"],
        fit.params.values(),
        fit.standard_errors,
        &[],
        fit.tau_upper_bound,
    );
    let _ = writeln!(
        out,
        "  elastic stress (k + k2 eps) eps, friction sigma_max = a + b eps; stages: k {:.4e} (no friction), a {:.4e} b {:.4e} (tau -> 0), tau {:.4e} (scan)",
        fit.stages[0].k, fit.stages[1].a, fit.stages[1].b, fit.stages[2].tau
    );
    let labels = samples.iter().map(|s| {
        format!(
            "step {:>5}  {:>7.3} N  {} from eps {:.4}",
            s.step,
            s.force,
            if s.direction > 0.0 { "loading  " } else { "unloading" },
            s.anchor
        )
    });
    residual_lines(&mut out, "N", fit.rms_residual, &fit.residuals, labels);
    let strains = samples.iter().map(|s| s.strain);
    check_physical(&fit, strains, allow_unphysical, data, &mut out)?;
    let value = fit_json(&fit);
    finish(
        &mut out,
        &value,
        json_out,
        plot,
        data,
        &stretch::charts(&fit, rest_length, &samples),
    )?;
    Ok(out)
}

/// `crease fit bending`.
pub fn bending(
    data: &Path,
    density: f64,
    stiffness: Option<(f64, f64)>,
    json_out: Option<&Path>,
    plot: Option<&Path>,
    allow_unphysical: bool,
) -> Result<String> {
    positive("--density", density)?;
    if let Some((k, k2)) = stiffness {
        positive("--stiffness", k)?;
        if !k2.is_finite() {
            return Err(Error::Argument {
                arg: "--stiffness".into(),
                message: format!("K2 = {k2} is not a finite number"),
            });
        }
    }
    let (samples, dropped) = bending::read(data)?;
    let fit = bending::fit(&samples, density, stiffness)?;
    let mut out = format!(
        "bending friction of {} ({} samples, {dropped} dropped where gravity and elasticity oppose; density {density} kg/m^2), Miguel 2013 Eq. 7:\n",
        data.display(),
        samples.len()
    );
    let fixed: &[usize] = if stiffness.is_some() { &[0, 1] } else { &[] };
    describe(
        &mut out,
        ["N m", "N m^2", "N", "N m", "1/m"],
        fit.params.values(),
        fit.standard_errors,
        fixed,
        fit.tau_upper_bound,
    );
    let _ = writeln!(
        out,
        "  strain eps = 3 kappa; stiffness k + k2 eps, friction sigma_max = a + b eps; stages: a {:.4e} b {:.4e} (tau -> 0), tau {:.4e} (scan)",
        fit.stages[1].a, fit.stages[1].b, fit.stages[2].tau
    );
    let labels = samples
        .iter()
        .map(|s| format!("R {:.4} m  kappa {:>8.2} 1/m", s.radius, s.curvature));
    residual_lines(&mut out, "N", fit.rms_residual, &fit.residuals, labels);
    let strains = samples.iter().map(|s| 3.0 * s.curvature);
    check_physical(&fit, strains, allow_unphysical, data, &mut out)?;
    let mut value = fit_json(&fit);
    value["stiffness_given"] = json!(stiffness.is_some());
    value["dropped_samples"] = json!(dropped);
    finish(
        &mut out,
        &value,
        json_out,
        plot,
        data,
        &bending::charts(&fit, density, &samples),
    )?;
    Ok(out)
}

/// `{"k", "k2", "a", "b", "tau", "rms_residual", "standard_errors": {...},
/// "tau_upper_bound"}`.
fn fit_json(fit: &Fit) -> serde_json::Value {
    let named = |v: Vec<serde_json::Value>| -> serde_json::Map<String, serde_json::Value> {
        NAMES.iter().map(|n| n.to_string()).zip(v).collect()
    };
    let mut v = named(fit.params.values().iter().map(|x| json!(x)).collect());
    v.insert("rms_residual".into(), json!(fit.rms_residual));
    v.insert(
        "standard_errors".into(),
        named(fit.standard_errors.iter().map(|e| json!(e)).collect()).into(),
    );
    v.insert("tau_upper_bound".into(), json!(fit.tau_upper_bound));
    v.into()
}

/// Writes the JSON (when asked) and the plot, atomically, and says where.
fn finish(
    out: &mut String,
    value: &serde_json::Value,
    json_out: Option<&Path>,
    plot: Option<&Path>,
    data: &Path,
    charts: &[crate::plot::Chart],
) -> Result<()> {
    if let Some(path) = json_out {
        let text = serde_json::to_string_pretty(value).map_err(|e| Error::File {
            path: path.to_path_buf(),
            message: e.to_string(),
        })?;
        write_atomic(path, text.as_bytes())?;
        let _ = writeln!(out, "wrote {}", path.display());
    }
    let plot = plot.map_or_else(|| default_plot(data), Path::to_path_buf);
    draw_charts(charts, 1)?.save(&plot)?;
    let _ = writeln!(out, "wrote {}", plot.display());
    Ok(())
}

/// `crease fit recovery`: fits `free` to the table at `table` by
/// simulating `specimen`, and writes the JSON and the plot.
pub fn recovery(
    table: &Path,
    specimen: &recovery::Specimen,
    free: &[recovery::Param],
    max_iterations: usize,
    json_out: Option<&Path>,
    plot: Option<&Path>,
) -> Result<String> {
    use recovery::Param;
    let rows = recovery::read(table)?;
    let fit = recovery::fit(&rows, specimen, free, max_iterations)?;
    let mut out = format!(
        "the core model's bending channel from crease recovery, {} ({} measurements; specimen `{}`{}), Gong 2025 Eq. 7-14:\n",
        table.display(),
        rows.len(),
        specimen.scene,
        if specimen.sets.is_empty() {
            String::new()
        } else {
            format!(" with {}", specimen.sets.join(" "))
        }
    );
    let _ = writeln!(
        out,
        "  {} Levenberg-Marquardt iterations, {} specimens simulated",
        fit.iterations, fit.simulations
    );
    for p in Param::ALL {
        let value = fit.values[p.index()];
        let note = match fit.free.iter().position(|q| *q == p) {
            None => "  (the scene's)".to_string(),
            Some(j) => {
                let from = format!(
                    "from {:.4e}, {:.2} deg per ln",
                    fit.start[p.index()],
                    fit.sensitivities[j]
                );
                match fit.standard_errors[j] {
                    Some(e) => format!(" +- {e:.2e}  ({from})"),
                    None if rows.len() <= free.len() => format!("  (no more rows than parameters; {from})"),
                    None => format!("  (not determined: no row's angle moves with it; {from})"),
                }
            }
        };
        let _ = writeln!(out, "  {:7} = {value:.4e}{note} {}", p.name(), p.unit());
    }
    for (a, b, c) in fit.correlations.iter().filter(|c| c.2.abs() > 0.9) {
        let _ = writeln!(
            out,
            "  note: {} and {} are correlated {c:+.3}: the table determines a combination of the two more than each",
            a.name(),
            b.name()
        );
    }
    let labels = rows.iter().zip(&fit.angles).map(|(r, a)| {
        format!(
            "line {:>3}  hold {:>8} s  {:>6} N  measured {:>6.2} deg  simulated {a:>6.2}",
            r.line, r.hold, r.load, r.angle
        )
    });
    residual_lines(&mut out, "deg", fit.rms_residual, &fit.residuals, labels);
    let material = recovery_material(&fit.values);
    let _ = writeln!(
        out,
        "in a scene, beside cloth.material's preset: {}",
        serde_json::to_string(&material).unwrap_or_default()
    );
    let named = |f: &dyn Fn(Param) -> serde_json::Value| -> serde_json::Map<String, serde_json::Value> {
        Param::ALL.iter().map(|p| (p.name().to_string(), f(*p))).collect()
    };
    let error = |p: Param| fit.free.iter().position(|q| *q == p).map(|j| fit.standard_errors[j]);
    let value = json!({
        "table": table.display().to_string(),
        "scene": specimen.scene,
        "sets": specimen.sets,
        "free": fit.free.iter().map(|p| p.name()).collect::<Vec<_>>(),
        "parameters": named(&|p| json!(fit.values[p.index()])),
        "start": named(&|p| json!(fit.start[p.index()])),
        "standard_errors": named(&|p| json!(error(p).flatten())),
        "correlations": fit.correlations.iter().map(|(a, b, c)| json!([a.name(), b.name(), c])).collect::<Vec<_>>(),
        "sensitivities_deg": fit.free.iter().zip(&fit.sensitivities).map(|(p, s)| (p.name().to_string(), json!(s))).collect::<serde_json::Map<_, _>>(),
        "material": material,
        "rows": rows.iter().zip(&fit.angles).map(|(r, a)| json!({
            "line": r.line, "hold_s": r.hold, "load_n": r.load, "recovery_deg": r.angle, "simulated_deg": a,
        })).collect::<Vec<_>>(),
        "rms_residual_deg": fit.rms_residual,
        "iterations": fit.iterations,
        "simulations": fit.simulations,
    });
    finish(
        &mut out,
        &value,
        json_out,
        plot,
        table,
        &[recovery_chart(&rows, &fit.angles)],
    )?;
    Ok(out)
}

/// The fitted values as `cloth.material`'s fields.
fn recovery_material(v: &recovery::Values) -> serde_json::Value {
    json!({
        "bending_friction": { "eps_0": v[0], "eps_inf": v[1], "tau": v[2] },
        "bending_plasticity": { "k_h0": v[3], "g": v[4], "tau": v[5], "yield_strain": v[6] },
    })
}

/// Measured and simulated recovery angles against the hold (log), per load.
fn recovery_chart(rows: &[recovery::Row], angles: &[f64]) -> crate::plot::Chart {
    let mut series: Vec<crate::plot::Series> = Vec::new();
    let mut loads: Vec<f64> = rows.iter().map(|r| r.load).collect();
    loads.sort_by(f64::total_cmp);
    loads.dedup();
    for load in loads {
        let mut points: Vec<(f64, f64, f64)> = rows
            .iter()
            .zip(angles)
            .filter(|(r, _)| r.load == load)
            .map(|(r, a)| (r.hold, r.angle, *a))
            .collect();
        points.sort_by(|a, b| a.0.total_cmp(&b.0));
        series.push(crate::plot::Series {
            name: format!("measured, {load} N"),
            points: points.iter().map(|p| (p.0, p.1)).collect(),
            markers: true,
        });
        series.push(crate::plot::Series {
            name: format!("simulated at the fit, {load} N"),
            points: points.iter().map(|p| (p.0, p.2)).collect(),
            markers: false,
        });
    }
    crate::plot::Chart {
        title: "Recovery angle (deg) against the time pressed".into(),
        x_label: "hold, s (log)".into(),
        log_x: true,
        series,
        marks: Vec::new(),
    }
}
