//! The paper's experiments: each is a built-in scene run in several variants
//! (`--set` overrides), compared by a few metrics of the final state and,
//! for a garment, by the bends of its groups (knees, seat...).

mod catalogue;
mod crease_recovery;
pub mod garment;
mod recovery;

pub use catalogue::{HOLD_LONG, all, variant};

use crate::error::{Error, Result};
use crate::output::{self, RunOptions};
use crate::plot::Metrics;
use crate::render::{Camera, Picture, Renderer, VIEW, add_obstacles, obstacle_surfaces, sheet, source};
use crate::scene::{self, Scene};
use crate::sim::Simulation;
use crate::step::Backend;
use crate::util::Image;
use glam::DVec3;
use serde_json::{Value, json};
use std::path::Path;

pub struct Variant {
    pub name: String,
    pub sets: Vec<String>,
}

/// Draws an experiment's own pictures into its output folder, from its
/// variants' runs and their scenes (by name); returns the files' names.
pub type Draw = fn(&Path, &[(String, Scene)], &Renderer) -> Result<Vec<String>>;

pub struct Experiment {
    pub name: &'static str,
    /// The built-in scene it runs.
    pub scene: &'static str,
    pub variants: Vec<Variant>,
    /// Metrics the comparison table shows: a variant's `derived` value of
    /// that name where the analysis made one, else its `summary.final`;
    /// a name that starts with [`WORST`] reads the rest of the name in
    /// `summary.worst` (the worst frame of the run).
    pub columns: &'static [&'static str],
    /// Run after every variant: adds each variant's `derived` values to the
    /// result and draws the experiment's figures into the output folder.
    pub analyse: Option<fn(&Path, &mut Value) -> Result<()>>,
    /// Whether the contact sheet draws the obstacles where they stood at
    /// the last frame (the character a garment is on).
    pub obstacles_drawn: bool,
    /// Whether every frame counts the cloth's crossing triangle pairs
    /// (`metrics.csv`'s `intersections`, as `crease run
    /// --check-intersections`): the garments' claims ask for none.
    pub check_intersections: bool,
    /// Its own pictures, drawn after the contact sheet.
    pub draw: Option<Draw>,
}

/// Adds `point` to the line named `name` in `series`, starting that line
/// (with markers) if there is none yet: a chart's line per variant family.
fn add_point(series: &mut Vec<crate::plot::Series>, name: &str, point: (f64, f64)) {
    match series.iter_mut().find(|s| s.name == name) {
        Some(s) => s.points.push(point),
        None => series.push(crate::plot::Series {
            name: name.to_string(),
            points: vec![point],
            markers: true,
        }),
    }
}

/// Size of one variant's picture on the contact sheet.
const TILE: (u32, u32) = (400, 300);

/// The last output frame of the run in `dir` (of `scene`) at or before the
/// phase named `phase` begins.
fn frame_before(dir: &Path, scene: &Scene, phase: &str) -> Result<Option<usize>> {
    let Some(k) = scene.phases.iter().position(|p| p.name == phase) else {
        return Ok(None);
    };
    let start = scene.phases[..k].iter().map(|p| p.steps).sum::<u64>() as f64 * scene.dt;
    let m = Metrics::read(&dir.join("metrics.csv"))?;
    let times = m.column("time").unwrap_or_default();
    Ok(times.iter().rposition(|t| *t <= start + 0.5 * scene.dt))
}

/// Each variant's last frame (or, with `frames`, the frame given where it
/// is given), seen by one camera that frames them all (from the default
/// view), side by side and labelled. `obstacles`: each variant's scene, to
/// draw its obstacles where they stood at that frame (the camera frames
/// the cloth alone).
pub fn contact_sheet(
    out_dir: &Path,
    variants: &[&str],
    frames: Option<&[Option<usize>]>,
    obstacles: Option<&[(String, Scene)]>,
    renderer: &Renderer,
) -> Result<Image> {
    let (mut lo, mut hi) = (DVec3::INFINITY, DVec3::NEG_INFINITY);
    let mut pictures = Vec::new();
    for (k, name) in variants.iter().enumerate() {
        let frame = frames.and_then(|f| f.get(k).copied().flatten());
        let s = source::load(&out_dir.join(name), frame)?;
        let mut picture = Picture::new(&s.mesh.positions, &s.mesh.faces, None);
        let (a, b) = picture.bounds();
        (lo, hi) = (lo.min(a), hi.max(b));
        if let (Some((_, scene)), Some((_, t))) = (obstacles.and_then(|o| o.get(k)), s.frame) {
            let steps = (t / scene.dt).round() as u64;
            add_obstacles(&mut picture, scene, &obstacle_surfaces(scene), steps);
        }
        pictures.push(picture);
    }
    let aspect = TILE.0 as f64 / TILE.1 as f64;
    let frame = Camera::framing(lo, hi, VIEW, aspect)?.frame(aspect, false);
    let tiles = variants
        .iter()
        .zip(&pictures)
        .map(|(name, picture)| Ok((name.to_string(), renderer.draw(picture, &frame, TILE.0, TILE.1)?)))
        .collect::<Result<Vec<_>>>()?;
    let across = (variants.len() as f64).sqrt().ceil() as usize;
    sheet::contact_sheet(&tiles, across)
}

impl Experiment {
    /// Keeps only the variants `names` (in the experiment's order), e.g.
    /// to rerun one at a higher resolution; an unknown name is an error
    /// that lists the experiment's variants.
    pub fn keep(&mut self, names: &[String]) -> Result<()> {
        if let Some(bad) = names.iter().find(|n| !self.variants.iter().any(|v| &v.name == *n)) {
            let all: Vec<&str> = self.variants.iter().map(|v| v.name.as_str()).collect();
            return Err(Error::Argument {
                arg: format!("--variants {bad}"),
                message: format!("{} has no such variant (its variants: {})", self.name, all.join(", ")),
            });
        }
        self.variants.retain(|v| names.contains(&v.name));
        Ok(())
    }
}

/// The prefix of a table column read at the run's worst frame.
pub const WORST: &str = "worst_";

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

/// Runs variant `v` of `scene` into `out_dir/<variant>/`: its summary and
/// its garment groups (on the body as it is taken away, and at the end).
fn run_variant(
    exp: &Experiment,
    v: &Variant,
    scene: &Scene,
    user_sets: &[String],
    out_dir: &Path,
    backend: &(dyn Fn(&Scene) -> Result<Box<dyn Backend>> + Sync),
) -> Result<Value> {
    let b = backend(scene)?;
    let mut sets = v.sets.clone();
    sets.extend_from_slice(user_sets);
    let scene_key = output::SceneKey::new(scene, exp.scene, &sets);
    let mut sim = Simulation::new(scene.clone(), b);
    let opts = RunOptions {
        out_dir: out_dir.join(&v.name),
        until: None,
        // The pictures of a garment's experiment read the final state.
        dump_state: exp.draw.is_some(),
        check_intersections: exp.check_intersections,
        checkpoint_every: None,
        scene_key,
        resume: None,
    };
    // A garment's groups as the body is taken away (`garment::BARE`), if
    // it is, and at the end.
    let groups = |sim: &Simulation| -> Result<_> {
        let b = sim.backend();
        Ok(crate::measure::group_bends(&b.cloth(), &b.positions()?, &b.channels()?))
    };
    let mut dressed = None;
    let summary = output::run(&mut sim, &opts, &mut |p| {
        if p.phase == garment::BARE && dressed.is_none() {
            dressed = Some(groups(p.sim));
        }
    })?;
    let last = groups(&sim)?;
    Ok(match dressed {
        Some(d) => json!({ "name": v.name, "summary": summary, "groups": d?, "bare_groups": last }),
        None => json!({ "name": v.name, "summary": summary, "groups": last }),
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
/// `out_dir/experiment.json` and the contact sheet `out_dir/sheet.png` (each
/// variant's last frame, drawn by `renderer`) and the experiment's own
/// pictures (their names in the JSON's `pictures`), and returns the JSON.
/// `backend` makes each variant's backend; `started` is told the variant
/// about to run. Up to `jobs` variants run at once, each in a thread of
/// its own (`backend` should then make backends that share the cores: a
/// small cloth's step gains little from a second thread, so on 2 cores two
/// variants on one thread each finish in about 0.6 of the time of one
/// after the other on both); the results are the same bytes whatever
/// `jobs`. Every variant's scene is loaded before any runs, so a bad
/// override fails at once; after a variant fails, no other starts.
pub fn run(
    exp: &Experiment,
    user_sets: &[String],
    out_dir: &Path,
    backend: &(dyn Fn(&Scene) -> Result<Box<dyn Backend>> + Sync),
    renderer: &Renderer,
    started: &(dyn Fn(usize, &str) + Sync),
    jobs: usize,
) -> Result<Value> {
    let scenes = exp
        .variants
        .iter()
        .map(|v| Ok((v.name.clone(), variant_scene(exp, v, user_sets)?)))
        .collect::<Result<Vec<(String, Scene)>>>()?;
    let planned: Vec<output::Planned> = scenes
        .iter()
        .map(|(name, scene)| output::Planned {
            scene,
            dir: out_dir.join(name),
            frames: scene.output_frames(scene.total_steps()),
        })
        .collect();
    output::check_room(&planned, out_dir, true)?;
    clear_previous(out_dir)?;
    let variants = crate::util::jobs::each(jobs, scenes.len(), |k| {
        started(k, &exp.variants[k].name);
        run_variant(exp, &exp.variants[k], &scenes[k].1, user_sets, out_dir, backend)
    })?;
    let mut result = json!({ "experiment": exp.name, "variants": variants });
    if let Some(analyse) = exp.analyse {
        analyse(out_dir, &mut result)?;
    }
    let names: Vec<&str> = exp.variants.iter().map(|v| v.name.as_str()).collect();
    let obstacles = exp.obstacles_drawn.then_some(&scenes[..]);
    // With the body taken away at the end, the sheet shows the garments on
    // it as it goes (Gong Fig. 6 a-d) and `bare.png` without it (e-h).
    let bare = scenes
        .iter()
        .all(|(_, s)| s.phases.iter().any(|p| p.name == garment::BARE));
    let dressed = match bare {
        true => Some(
            scenes
                .iter()
                .map(|(name, scene)| frame_before(&out_dir.join(name), scene, garment::BARE))
                .collect::<Result<Vec<_>>>()?,
        ),
        false => None,
    };
    contact_sheet(out_dir, &names, dressed.as_deref(), obstacles, renderer)?.save(&out_dir.join("sheet.png"))?;
    let mut pictures = vec!["sheet.png".to_string()];
    if bare {
        contact_sheet(out_dir, &names, None, obstacles, renderer)?.save(&out_dir.join("bare.png"))?;
        pictures.push("bare.png".into());
    }
    if let Some(draw) = exp.draw {
        pictures.extend(draw(out_dir, &scenes, renderer)?);
    }
    result["pictures"] = json!(pictures);
    let text = serde_json::to_string_pretty(&result).map_err(|e| Error::Step(format!("experiment.json: {e}")))?;
    crate::util::write_atomic(&out_dir.join("experiment.json"), text.as_bytes())?;
    Ok(result)
}

/// Removes an earlier experiment's record from `out_dir`: its
/// `experiment.json` and the pictures it names (plain file names in the
/// folder, nothing else), so that a run of fewer variants (`--variants`)
/// never leaves an older run's difference picture or figure beside its
/// own record. The variants' folders are each cleared by their own run;
/// other variants' folders are left as they are.
fn clear_previous(out_dir: &Path) -> Result<()> {
    let record = out_dir.join("experiment.json");
    let Ok(text) = std::fs::read_to_string(&record) else {
        return Ok(());
    };
    let old: Value = serde_json::from_str(&text).unwrap_or(Value::Null);
    let pictures = old["pictures"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|p| p.as_str());
    let plain = pictures.filter(|p| Path::new(p).file_name().is_some_and(|f| f == std::ffi::OsStr::new(p)));
    crate::util::remove_files(plain.map(|p| out_dir.join(p)).chain([record]))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every variant's overrides name real fields with valid values, and
    /// every experiment's name is a `find`able one.
    #[test]
    fn every_variant_of_every_experiment_resolves() {
        for exp in all() {
            assert!(find(exp.name).is_ok(), "{}", exp.name);
            for v in &exp.variants {
                if let Err(e) = variant_scene(&exp, v, &[]) {
                    panic!("{}/{}: {e}", exp.name, v.name);
                }
            }
        }
    }

    /// The trousers experiment runs its lift-leg variants from
    /// `trousers-sit` with the clip overridden: the built-in
    /// `trousers-lift-leg` must be that scene, but for its description.
    #[test]
    fn the_lift_leg_scene_is_the_sit_scene_with_the_lift_leg_clip() {
        let text = |name: &str| {
            let (_, text) = scene::BUILTIN.iter().find(|(n, _)| *n == name).unwrap();
            let mut v: Value = serde_json::from_str(text).unwrap();
            v.as_object_mut().unwrap().remove("description");
            v
        };
        let mut sit = text("trousers-sit");
        sit["obstacles"]["body"]["shape"]["mannequin"]["clip"] = json!("lift-leg");
        assert_eq!(sit, text("trousers-lift-leg"));
    }
}
