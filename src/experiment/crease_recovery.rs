//! The standard crease-recovery test (ISO 2313, AATCC 66; the core paper's
//! future work): a 40 x 15 mm specimen folded in half, pressed under a
//! 10 N weight for each of `HOLDS` material seconds, released with one
//! half clamped, and its recovery angle read 5 minutes later. Its analysis
//! reads the angle between the two halves from each run's frames.

use super::recovery::RECOVERY_HOLDS as HOLDS;
use super::{Variant, variant};
use crate::error::{Error, Result};
use crate::measure::fold::{FoldRows, NO_FOLD};
use crate::mesh::read_obj;
use crate::plot::{Chart, Metrics, Series, draw_charts};
use crate::render::source;
use glam::DVec3;
use serde_json::{Value, json};
use std::path::Path;

/// The fabric presets the test runs, and cotton with its hinges' dwell
/// times scattered over three decades on a spectrum leaning to the long
/// times (skew 0.27, model/decay.rs `scatter`; docs/physics.md "Scattered
/// dwell times"): `<family>-<hold>s`.
pub fn variants() -> Vec<Variant> {
    let mut out = Vec::new();
    for (family, sets) in [
        ("cotton", vec!["cloth.material.preset=cotton"]),
        ("denim", vec!["cloth.material.preset=denim"]),
        ("polyester", vec!["cloth.material.preset=polyester"]),
        (
            "cotton-scatter",
            vec![
                "cloth.material.preset=cotton",
                "cloth.material.bending_friction.scatter=3",
                "cloth.material.bending_friction.scatter_skew=0.27",
            ],
        ),
    ] {
        for hold in HOLDS {
            let mut v = variant(&format!("{family}-{hold}s"), &sets);
            v.sets.push(format!("timeline.hold.material_time={hold}"));
            out.push(v);
        }
    }
    out
}

/// Per variant: the hold's material time, the angle as the weight begins
/// to lift (`pressed_angle`), and the recovery angle at the end of the run
/// (`recovery_angle`: the standard reads it 5 minutes after the release,
/// the scene's `lift` and `recover` phases). Draws `crease-recovery.png`: the recovery
/// angle against the hold (log), one line per family, and the angle
/// against simulated time since the lift began for each cotton variant.
pub fn analyse(out_dir: &Path, result: &mut Value) -> Result<()> {
    let mut families: Vec<Series> = Vec::new();
    let mut curves: Vec<Series> = Vec::new();
    for v in result["variants"].as_array_mut().into_iter().flatten() {
        let name = v["name"].as_str().unwrap_or_default().to_string();
        let dir = out_dir.join(&name);
        let path = dir.join("metrics.csv");
        let m = Metrics::read(&path)?;
        let missing = |what: &str| Error::File {
            path: path.clone(),
            message: format!("no {what}: the crease-recovery analysis needs the scene's `hold` and `lift` phases"),
        };
        let material = m
            .column("material_time")
            .ok_or_else(|| missing("material_time column"))?;
        let time = m.column("time").ok_or_else(|| missing("time column"))?;
        // A frame is labelled with the phase that begins at its time.
        let first = m
            .phases
            .iter()
            .position(|p| p == "hold")
            .ok_or_else(|| missing("hold phase"))?;
        let release = m
            .phases
            .iter()
            .position(|p| p == "lift")
            .ok_or_else(|| missing("lift phase"))?;
        let frames = source::frames(&dir)?;
        if frames.len() != material.len() {
            return Err(Error::File {
                path: dir.join("frames"),
                message: format!(
                    "{} frames for {} rows of metrics.csv: the run did not finish, run the experiment again",
                    frames.len(),
                    material.len()
                ),
            });
        }
        let positions = |k: usize| -> Result<Vec<DVec3>> { Ok(read_obj(&frames[k], 1.0)?.positions) };
        let rows = FoldRows::of(&positions(0)?).ok_or_else(|| Error::File {
            path: frames[0].clone(),
            message: NO_FOLD.into(),
        })?;
        let angles = (release..frames.len())
            .map(|k| Ok((time[k] - time[release], rows.angle(&positions(k)?))))
            .collect::<Result<Vec<_>>>()?;
        let hold = material[release] - material[first];
        let (pressed, recovered) = (angles[0].1, angles[angles.len() - 1].1);
        v["derived"] = json!({
            "hold_material_seconds": hold,
            "pressed_angle": pressed,
            "recovery_angle": recovered,
            "recovery_material_seconds": material[material.len() - 1] - material[release],
        });
        let family = name.rsplit_once('-').map_or(name.as_str(), |(f, _)| f);
        if family == "cotton" {
            curves.push(Series {
                name: name.clone(),
                points: angles,
                markers: false,
            });
        }
        super::add_point(&mut families, family, (hold, recovered));
    }
    let charts = [
        Chart {
            title: "Recovery angle (deg) 5 min after release, against the time pressed".into(),
            x_label: "time under the weight, material seconds (log)".into(),
            log_x: true,
            series: families,
            marks: Vec::new(),
        },
        Chart {
            title: "Cotton: recovery angle (deg) as the weight lifts and after".into(),
            x_label: "simulated seconds since the weight began to lift (the recovery's 0.5 s stand for 5 min)".into(),
            log_x: false,
            series: curves,
            marks: Vec::new(),
        },
    ];
    draw_charts(&charts, 2)?.save(&out_dir.join("crease-recovery.png"))
}
