//! The paper's experiments: each is a built-in scene run in several variants
//! (`--set` overrides), compared by a few metrics of the final state.

use crate::backend::Backend;
use crate::error::{Error, Result};
use crate::output::{self, RunOptions};
use crate::scene::{self, Scene};
use crate::sim::Simulation;
use serde_json::{Value, json};
use std::path::Path;

pub struct Variant {
    pub name: String,
    pub sets: Vec<String>,
}

pub struct Experiment {
    pub name: &'static str,
    /// The built-in scene it runs.
    pub scene: &'static str,
    pub variants: Vec<Variant>,
    /// Metrics of `summary.final` the comparison table shows.
    pub columns: &'static [&'static str],
}

const HOLD_LONG: &str = "timeline.hold.material_time=500";

fn variant(name: &str, sets: &[&str]) -> Variant {
    Variant {
        name: name.to_string(),
        sets: sets.iter().map(|s| s.to_string()).collect(),
    }
}

/// Both friction families switched to Dahl.
const DAHL: [&str; 2] = [
    "cloth.material.bending_friction.model=dahl",
    "cloth.material.in_plane_friction.model=dahl",
];
/// Both plasticity families switched to time-independent hardening.
const TIME_INDEPENDENT: [&str; 2] = [
    "cloth.material.bending_plasticity.model=time-independent",
    "cloth.material.in_plane_plasticity.model=time-independent",
];

/// Short and long holds, with the paper's plasticity and with
/// time-independent hardening.
fn ours_and_time_independent() -> Vec<Variant> {
    vec![
        variant("short", &[]),
        variant("long", &[HOLD_LONG]),
        variant("time-independent-short", &TIME_INDEPENDENT),
        variant(
            "time-independent-long",
            &[TIME_INDEPENDENT[0], TIME_INDEPENDENT[1], HOLD_LONG],
        ),
    ]
}

/// The specimen's extreme deformation: the folded flap is lowered onto the
/// lower layer under a pressing plate, and unfolded about the lower axis.
const EXTREME: [&str; 4] = [
    "obstacles.plate.enabled=true",
    "timeline.press.obstacles.plate={\"translate\": [0, -0.036, 0]}",
    "timeline.press.handles.flap={\"translate\": [0, -0.006, 0]}",
    "timeline.unfold.handles.flap.rotate.point=[0.05, 0.002, 0]",
];

/// The container's heavy plunger: down into the glass during `press`, to
/// 4 mm over its floor (a single layer of cloth at the contact thickness
/// from both).
const PRESSED: [&str; 2] = [
    "obstacles.plunger.enabled=true",
    "timeline.press.obstacles.plunger={\"translate\": [0, -0.301, 0]}",
];

/// Per material: moderate and extreme deformation, each held short and long.
fn specimen_variants() -> Vec<Variant> {
    let mut out = Vec::new();
    for m in ["cotton", "denim", "polyester"] {
        let mat = format!("cloth.material={m}");
        for (kind, extra) in [("moderate", &[][..]), ("extreme", &EXTREME[..])] {
            for (hold, long) in [("short", false), ("long", true)] {
                let mut sets: Vec<&str> = vec![&mat];
                sets.extend_from_slice(extra);
                if long {
                    sets.push(HOLD_LONG);
                }
                out.push(variant(&format!("{m}-{kind}-{hold}"), &sets));
            }
        }
    }
    out
}

/// The experiments, by name.
pub fn all() -> Vec<Experiment> {
    let bend_cols: &[&str] = &[
        "region_mean_abs_bend",
        "region_max_abs_bend",
        "max_abs_plastic_bend",
        "slip_fraction",
    ];
    vec![
        Experiment {
            name: "ablation-friction",
            scene: "ablation-friction",
            variants: vec![
                variant("short", &[]),
                variant("long", &[HOLD_LONG]),
                variant("elastic", &["cloth.material=elastic"]),
                variant("dahl-short", &DAHL),
                variant("dahl-long", &[DAHL[0], DAHL[1], HOLD_LONG]),
            ],
            columns: bend_cols,
        },
        Experiment {
            name: "ablation-plastic",
            scene: "ablation-plastic",
            variants: ours_and_time_independent(),
            columns: bend_cols,
        },
        Experiment {
            name: "twist-flatten",
            scene: "twist-flatten",
            variants: ours_and_time_independent(),
            columns: &[
                "mean_abs_bend",
                "max_abs_bend",
                "mean_abs_plastic_in_plane",
                "max_displacement",
            ],
        },
        Experiment {
            name: "cylinder-twist",
            scene: "cylinder-twist",
            variants: ["cotton", "denim", "polyester"]
                .iter()
                .flat_map(|m| {
                    let mat = format!("cloth.material.preset={m}");
                    [
                        variant(&format!("{m}-short"), &[&mat]),
                        variant(&format!("{m}-long"), &[&mat, HOLD_LONG]),
                    ]
                })
                .collect(),
            columns: &[
                "mean_abs_bend",
                "max_abs_bend",
                "torque_bottom",
                "mean_abs_plastic_in_plane",
            ],
        },
        Experiment {
            name: "tensile-press",
            scene: "tensile-press",
            variants: vec![
                variant(
                    "small-short",
                    &["timeline.press.handles.center.translate=[0, -0.01, 0]"],
                ),
                variant(
                    "small-long",
                    &["timeline.press.handles.center.translate=[0, -0.01, 0]", HOLD_LONG],
                ),
                variant(
                    "large-short",
                    &["timeline.press.handles.center.translate=[0, -0.03, 0]"],
                ),
                variant(
                    "large-long",
                    &["timeline.press.handles.center.translate=[0, -0.03, 0]", HOLD_LONG],
                ),
            ],
            columns: &[
                "max_displacement",
                "mean_abs_plastic_in_plane",
                "slip_fraction",
                "mean_abs_bend",
            ],
        },
        Experiment {
            name: "container",
            scene: "container",
            variants: vec![
                variant("moderate-short", &[]),
                variant("moderate-long", &[HOLD_LONG]),
                variant("pressed-short", &PRESSED),
                variant("pressed-long", &[PRESSED[0], PRESSED[1], HOLD_LONG]),
            ],
            columns: &[
                "mean_abs_bend",
                "max_abs_bend",
                "mean_abs_plastic_bend",
                "max_abs_plastic_bend",
            ],
        },
        Experiment {
            name: "specimen",
            scene: "specimen",
            variants: specimen_variants(),
            columns: &[
                "region_mean_abs_bend",
                "region_max_abs_bend",
                "max_abs_plastic_bend",
                "penetration",
            ],
        },
    ]
}

pub fn find(name: &str) -> Result<Experiment> {
    let list = all();
    let names: Vec<&str> = list.iter().map(|e| e.name).collect();
    let joined = names.join(", ");
    list.into_iter()
        .find(|e| e.name == name)
        .ok_or_else(|| Error::Argument {
            arg: format!("experiment {name}"),
            message: format!("unknown experiment (experiments: {joined})"),
        })
}

/// The scene of one variant, with the user's overrides applied after the
/// variant's.
pub fn variant_scene(exp: &Experiment, v: &Variant, user_sets: &[String]) -> Result<Scene> {
    let mut sets = v.sets.clone();
    sets.extend_from_slice(user_sets);
    scene::load(exp.scene, &sets)
}

/// Runs every variant into `out_dir/<variant>/`, writes
/// `out_dir/experiment.json` and returns it. `backend` makes each variant's
/// backend; `started` is told the variant about to run.
pub fn run(
    exp: &Experiment,
    user_sets: &[String],
    out_dir: &Path,
    backend: &dyn Fn(&Scene) -> Result<Box<dyn Backend>>,
    started: &mut dyn FnMut(usize, &str),
) -> Result<Value> {
    let mut variants = Vec::new();
    for (k, v) in exp.variants.iter().enumerate() {
        started(k, &v.name);
        let scene = variant_scene(exp, v, user_sets)?;
        let b = backend(&scene)?;
        let mut sets = v.sets.clone();
        sets.extend_from_slice(user_sets);
        let scene_key = output::SceneKey::new(&scene, exp.scene, &sets);
        let mut sim = Simulation::new(scene, b);
        let opts = RunOptions {
            out_dir: out_dir.join(&v.name),
            until: None,
            dump_state: false,
            check_intersections: false,
            checkpoint_every: None,
            scene_key,
            resume: None,
        };
        let summary = output::run(&mut sim, &opts, &mut |_| {})?;
        variants.push(json!({ "name": v.name, "summary": summary }));
    }
    let result = json!({ "experiment": exp.name, "variants": variants });
    let text = serde_json::to_string_pretty(&result).map_err(|e| Error::Step(format!("experiment.json: {e}")))?;
    output::write_atomic(&out_dir.join("experiment.json"), text.as_bytes())?;
    Ok(result)
}
