//! The crease recovery experiment (Gong Fig. 1 c/d): a fold held for each
//! of `RECOVERY_HOLDS` material seconds, with friction only, plasticity
//! only and both, and the recovery its analysis reads from each run.

use super::{Variant, variant};
use crate::error::{Error, Result};
use crate::plot::{Chart, Metrics, Series, draw_charts};
use serde_json::{Value, json};
use std::path::Path;

/// Plasticity off, friction off (the recovery experiment's families).
const FRICTION_ONLY: [&str; 2] = [
    "cloth.material.bending_plasticity.model=none",
    "cloth.material.in_plane_plasticity.model=none",
];
const PLASTIC_ONLY: [&str; 2] = [
    "cloth.material.bending_friction.model=none",
    "cloth.material.in_plane_friction.model=none",
];

/// Material seconds the recovery experiment holds its fold.
pub const RECOVERY_HOLDS: [f64; 7] = [1.0, 3.0, 10.0, 30.0, 100.0, 300.0, 1000.0];

/// Friction only, plasticity only and both, each held for every time in
/// `RECOVERY_HOLDS`: `<family>-<hold>s`.
pub fn variants() -> Vec<Variant> {
    let mut out = Vec::new();
    for (family, sets) in [
        ("friction", &FRICTION_ONLY[..]),
        ("plastic", &PLASTIC_ONLY[..]),
        ("both", &[][..]),
    ] {
        for hold in RECOVERY_HOLDS {
            let mut v = variant(&format!("{family}-{hold}s"), sets);
            v.sets.push(format!("timeline.hold.material_time={hold}"));
            out.push(v);
        }
    }
    out
}

/// The crease recovery test of Fig. 1 c/d, from each variant's metrics.csv:
/// the fold line's angle at the end of `hold` and at the end of the run,
/// recovery = 100 (held - residual) / held percent, and the material time
/// the hold lasted. Draws `recovery.png`: recovery against hold time (log),
/// one line per family (the variant name's part before the first `-`).
pub fn analyse(out_dir: &Path, result: &mut Value) -> Result<()> {
    let mut families: Vec<Series> = Vec::new();
    for v in result["variants"].as_array_mut().into_iter().flatten() {
        let name = v["name"].as_str().unwrap_or_default().to_string();
        let path = out_dir.join(&name).join("metrics.csv");
        let m = Metrics::read(&path)?;
        let missing = |what: &str| Error::File {
            path: path.clone(),
            message: format!("no {what}: the recovery analysis needs the scene's region metrics and a `hold` phase"),
        };
        let angle = m
            .column("region_mean_abs_bend")
            .ok_or_else(|| missing("region_mean_abs_bend column"))?;
        let material = m
            .column("material_time")
            .ok_or_else(|| missing("material_time column"))?;
        // A frame is labelled with the phase that begins at its time, so
        // the state at the end of the hold is the frame after the last
        // `hold` one, and the hold began at the first.
        let first = m
            .phases
            .iter()
            .position(|p| p == "hold")
            .ok_or_else(|| missing("hold phase"))?;
        let end = m.phases.iter().rposition(|p| p == "hold").unwrap_or(first) + 1;
        if end >= angle.len() {
            return Err(missing("frame after the hold (the run ended during it)"));
        }
        let hold = material[end] - material[first];
        let (held, residual) = (angle[end], angle[angle.len() - 1]);
        let recovery = 100.0 * (held - residual) / held;
        v["derived"] = json!({
            "hold_material_seconds": hold,
            "held_angle": held,
            "residual_angle": residual,
            "recovery_percent": recovery,
        });
        let family = name.split('-').next().unwrap_or_default();
        super::add_point(&mut families, family, (hold, recovery));
    }
    let chart = Chart {
        title: "Crease recovery after a hold (Fig. 1 c/d)".into(),
        x_label: "hold, material seconds (log)".into(),
        log_x: true,
        series: families,
        marks: Vec::new(),
    };
    draw_charts(&[chart], 1)?.save(&out_dir.join("recovery.png"))
}
