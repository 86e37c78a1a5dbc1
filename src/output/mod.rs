//! Running a simulation to disk: OBJ frames, `metrics.csv` (one row per
//! output frame) and `summary.json`, all written atomically.

mod checkpoint;
mod metrics;
mod room;
pub mod usd;

pub use room::{Planned, check_room, frame_bytes};

pub use checkpoint::{Checkpoint, SceneKey};
pub use metrics::MetricsRow;
use metrics::worst;
use usd::UsdFrames;

/// Set (by a Ctrl-C handler) to stop a run after its current frame, with a
/// checkpoint.
pub static INTERRUPTED: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

use crate::error::{Error, Result};
use crate::mesh::write_obj;
use crate::scene::Format;
use crate::sim::{Reaction, Simulation};
use crate::step::StepReport;
use crate::util::{Appended, numbered, remove_leftovers, write_atomic};
use serde_json::{Value, json};
use std::path::{Path, PathBuf};
use std::time::Instant;

/// Progress as a run goes, after every step: for a progress bar, and for
/// a caller that measures the state between phases.
pub struct Progress<'a> {
    pub phase: &'a str,
    pub time: f64,
    pub end_time: f64,
    pub steps: u64,
    pub sim: &'a Simulation,
}

/// Where to write and how far to go.
pub struct RunOptions {
    pub out_dir: PathBuf,
    /// Stop at this simulated time instead of the timeline's end.
    pub until: Option<f64>,
    /// Also write every channel's state at the last frame
    /// (`state_hinges.csv`, `state_faces.csv`).
    pub dump_state: bool,
    /// Count the cloth's crossing triangle pairs in every frame.
    pub check_intersections: bool,
    /// Write `checkpoint.json` at the first frame past every multiple of
    /// this many simulated seconds (and where the run stops early); a
    /// Ctrl-C writes one whatever this is.
    pub checkpoint_every: Option<f64>,
    /// How the scene was loaded, for the checkpoint.
    pub scene_key: SceneKey,
    /// Continue from this checkpoint (`crease resume`).
    pub resume: Option<Checkpoint>,
}

/// Runs `sim` to the end of its timeline (or `until`), writing
/// `out_dir/frames/NNNNN.obj` (frame 0 = initial state), `metrics.csv` and
/// `summary.json`. Returns the summary.
pub fn run(sim: &mut Simulation, opts: &RunOptions, progress: &mut dyn FnMut(&Progress)) -> Result<Value> {
    let frame_steps = sim.scene.frame_steps();
    let dt = sim.scene.dt;
    let total_steps = match opts.until {
        Some(t) => ((t / dt).round() as u64).min(sim.scene.total_steps()),
        None => sim.scene.total_steps(),
    };
    let written = opts.resume.as_ref().map_or(0, |c| c.frame as u64 + 1);
    let frames_left = sim.scene.output_frames(total_steps).saturating_sub(written);
    let planned = Planned {
        scene: &sim.scene,
        dir: opts.out_dir.clone(),
        frames: frames_left,
    };
    check_room(&[planned], &opts.out_dir, opts.resume.is_none())?;
    if opts.resume.is_none() {
        clear_previous(&opts.out_dir)?;
    }
    // What a killed run left half-written, whether this one resumes it or not.
    remove_leftovers(&opts.out_dir)?;
    remove_leftovers(&opts.out_dir.join("frames"))?;
    let formats_obj = sim.scene.formats.contains(&Format::Obj);
    let frames = match formats_obj {
        true => opts.out_dir.join("frames"),
        false => opts.out_dir.clone(),
    };
    std::fs::create_dir_all(&frames).map_err(|e| Error::io(&frames, e))?;
    let handles: Vec<String> = sim.scene.handles.iter().map(|h| h.name.clone()).collect();
    let end_time = total_steps as f64 * dt;
    let started = Instant::now();
    let mut csv = String::new();
    let mut frame = 0usize;
    // Since the last frame: CG iterations, wall time, steps, and vertices
    // in the self-collision fail-safe's zones.
    let mut acc = (0usize, 0.0f64, 0u64, 0usize);
    let mut total_cg = 0usize;
    let mut stepping_ms = 0.0;
    if let Some(c) = &opts.resume {
        sim.restore_state(&c.sim, &c.state)?;
        // The metrics written up to the checkpoint's frame, header included.
        let path = opts.out_dir.join("metrics.csv");
        let text = std::fs::read_to_string(&path).map_err(|e| Error::io(&path, e))?;
        let lines: Vec<&str> = text.lines().take(c.metrics_rows + 1).collect();
        if lines.len() < c.metrics_rows + 1 {
            return Err(Error::Checkpoint {
                path: Checkpoint::path(&opts.out_dir),
                message: format!(
                    "metrics.csv has {} rows, the checkpoint wrote {}: the output folder was changed",
                    lines.len().saturating_sub(1),
                    c.metrics_rows
                ),
            });
        }
        if formats_obj && let Some(k) = (0..=c.frame).find(|&k| !frame_path(&opts.out_dir, k).is_file()) {
            return Err(Error::Checkpoint {
                path: Checkpoint::path(&opts.out_dir),
                message: format!(
                    "frame {} of the {} the checkpoint wrote is missing ({}): the output folder was changed",
                    k,
                    c.frame + 1,
                    frame_path(&opts.out_dir, k).display()
                ),
            });
        }
        csv = lines.join("\n") + "\n";
        frame = c.frame;
        total_cg = c.total_cg;
        stepping_ms = c.stepping_ms;
    }
    let every = opts.checkpoint_every.filter(|e| *e > 0.0);
    // The first multiple of `every` past time t (half a step counts as
    // reached: times are sums of steps).
    let next_after = |t: f64| every.map(|e| (((t + 0.5 * dt) / e).floor() + 1.0) * e);
    let mut next_checkpoint = next_after(sim.time());
    // A checkpoint of this run exists (a resume may continue its frames).
    let mut checkpointed = opts.resume.is_some();
    let checkpoint = |sim: &Simulation, frame: usize, total_cg: usize, stepping_ms: f64| -> Result<()> {
        Checkpoint::new(opts, frame, total_cg, stepping_ms, sim.save_state()?).write(&opts.out_dir)
    };
    let mut reactions = vec![Reaction::default(); handles.len()];
    let formats = sim.scene.formats.clone();
    let mut usd = match (formats.contains(&Format::Usd), &opts.resume) {
        (false, _) => None,
        (true, None) => Some(UsdFrames::create(&opts.out_dir, &sim.scene)?),
        (true, Some(c)) => Some(UsdFrames::resume(&opts.out_dir, &sim.scene, c.frame + 1)?),
    };
    // metrics.csv: written whole at the first frame (or a resume's), then
    // a row appended at each.
    let mut metrics: Option<Appended> = None;
    let write_frame = |sim: &Simulation,
                       row: &MetricsRow,
                       frame: usize,
                       csv: &mut String,
                       metrics: &mut Option<Appended>,
                       usd: &mut Option<UsdFrames>|
     -> Result<()> {
        let x = sim.backend().positions()?;
        if formats.contains(&Format::Obj) {
            write_atomic(
                &frame_path(&opts.out_dir, frame),
                write_obj(&sim.scene.cloth.mesh, &x).as_bytes(),
            )?;
        }
        if let Some(usd) = usd {
            usd.push(&sim.scene, sim.steps(), &x)?;
        }
        if csv.is_empty() {
            csv.push_str(&row.header(&handles));
            csv.push('\n');
        }
        let line = row.csv(&handles) + "\n";
        csv.push_str(&line);
        match metrics {
            Some(file) => file.append(line.as_bytes()),
            None => {
                *metrics = Some(Appended::create(&opts.out_dir.join("metrics.csv"), csv.as_bytes())?);
                Ok(())
            }
        }
    };
    let row_now = |sim: &Simulation,
                   acc: (usize, f64, u64, usize),
                   report: &StepReport,
                   reactions: &[Reaction]|
     -> Result<MetricsRow> {
        Ok(MetricsRow {
            time: sim.time(),
            material_time: sim.material_time(),
            phase: sim.phase_name().to_string(),
            measures: sim.backend().measure()?,
            cg_iterations: if acc.2 > 0 { acc.0 as f64 / acc.2 as f64 } else { 0.0 },
            cg_residual: report.cg_residual,
            ms_per_step: if acc.2 > 0 { acc.1 / acc.2 as f64 } else { 0.0 },
            reactions: reactions.to_vec(),
            contact: report.contact,
            proximity_pairs: report.proximity_pairs,
            stuck: sim.stuck(),
            impact_vertices: sim.scene.self_collision.impact_zones.then_some(acc.3),
            intersections: match opts.check_intersections {
                true => Some(crate::collide::intersect::intersecting_pairs(
                    &sim.scene.cloth.mesh.faces,
                    &sim.backend().positions()?,
                )),
                false => None,
            },
        })
    };
    let mut row = row_now(sim, acc, &StepReport::default(), &reactions)?;
    if opts.resume.is_none() {
        opts.scene_key.write_run(&opts.out_dir)?;
        write_frame(sim, &row, frame, &mut csv, &mut metrics, &mut usd)?;
    }
    while !sim.done() && sim.steps() < total_steps {
        // Whether this step ends a frame (every `frame_steps`, the last
        // step asked for, the timeline's end): only its row prints the
        // obstacle depths, so only it measures them.
        let next = sim.steps() + 1;
        let frame_due = next.is_multiple_of(frame_steps) || next == total_steps || sim.last_step();
        let info = sim.step_measuring(frame_due)?;
        acc = (
            acc.0 + info.report.cg_iterations,
            acc.1 + info.wall_ms,
            acc.2 + 1,
            acc.3 + info.report.impacts.vertices,
        );
        total_cg += info.report.cg_iterations;
        stepping_ms += info.wall_ms;
        reactions = info.reactions;
        if frame_due {
            frame += 1;
            row = row_now(sim, acc, &info.report, &reactions)?;
            blown_up(sim, &row)?;
            write_frame(sim, &row, frame, &mut csv, &mut metrics, &mut usd)?;
            acc = (0, 0.0, 0, 0);
            let stopping = sim.steps() == total_steps && !sim.done();
            let interrupted = INTERRUPTED.load(std::sync::atomic::Ordering::SeqCst);
            let due = next_checkpoint.is_some_and(|t| sim.time() >= t - 0.5 * dt);
            if interrupted || due || (stopping && every.is_some()) {
                if let Some(usd) = &mut usd {
                    usd.flush()?;
                }
                checkpoint(sim, frame, total_cg, stepping_ms)?;
                checkpointed = true;
                next_checkpoint = next_after(sim.time());
            }
            if interrupted {
                if let Some(usd) = &mut usd {
                    usd.write(&sim.scene, false)?;
                }
                return Err(Error::Interrupted {
                    time: sim.time(),
                    out_dir: opts.out_dir.clone(),
                });
            }
        }
        progress(&Progress {
            phase: sim.phase_name(),
            time: sim.time(),
            end_time,
            steps: sim.steps(),
            sim,
        });
    }
    if let Some(usd) = &mut usd {
        // The frames stay only for a resume to continue them.
        usd.write(&sim.scene, sim.done() || !checkpointed)?;
    }
    let steps = sim.steps();
    let summary = json!({
        "scene": sim.scene.name,
        "source": sim.scene.source,
        "backend": sim.backend().name(),
        "vertices": sim.scene.cloth.vertex_count(),
        "faces": sim.scene.cloth.mesh.faces.len(),
        "hinges": sim.scene.cloth.topology.hinges.len(),
        "dt": dt,
        "steps": steps,
        "frames": frame + 1,
        "sim_time": sim.time(),
        "material_time": sim.material_time(),
        "wall_seconds": started.elapsed().as_secs_f64(),
        "ms_per_step": if steps > 0 { stepping_ms / steps as f64 } else { 0.0 },
        "cg_iterations_mean": if steps > 0 { total_cg as f64 / steps as f64 } else { 0.0 },
        "unconverged": sim.unconverged(),
        "final": row.json(&handles),
        "worst": worst(&csv),
    });
    if opts.dump_state {
        dump_state(&opts.out_dir, sim)?;
    }
    let text = serde_json::to_string_pretty(&summary).map_err(|e| Error::Step(format!("summary: {e}")))?;
    write_atomic(&opts.out_dir.join("summary.json"), text.as_bytes())?;
    Ok(summary)
}

/// Writes `state_hinges.csv` (one row per hinge) and `state_faces.csv`
/// (one row per face channel) with every channel's friction and plastic state.
pub fn dump_state(out_dir: &Path, sim: &Simulation) -> Result<()> {
    let backend = sim.backend();
    let cloth = &sim.scene.cloth;
    let x = backend.positions()?;
    let ch = backend.channels()?;
    const STATE: &str = "anchor,t_stick,sigma,slip,eps_p,eps_hp,eps_y,t_p,dir";
    let state = |c: &crate::model::channel::ChannelState| {
        let (f, p) = (&c.friction, &c.plastic);
        format!(
            "{},{},{},{},{},{},{},{},{}",
            f.anchor, f.t_stick, f.sigma, f.slip as u8, p.eps_p, p.eps_hp, p.eps_y, p.t_p, p.dir
        )
    };
    let mut hinges = format!("hinge,v0,v1,theta,theta_rest,strain,{STATE}\n");
    for (i, ((h, rest), c)) in cloth
        .topology
        .hinges
        .iter()
        .zip(&cloth.hinge_rest)
        .zip(&ch.hinges)
        .enumerate()
    {
        let theta = crate::model::bending::dihedral(h.v.map(|v| x[v as usize]));
        hinges.push_str(&format!(
            "{i},{},{},{theta},{},{},{}\n",
            h.v[0],
            h.v[1],
            rest.theta,
            theta - rest.theta,
            state(c)
        ));
    }
    write_atomic(&out_dir.join("state_hinges.csv"), hinges.as_bytes())?;
    let mut faces = format!("face,channel,strain,{STATE}\n");
    for (i, ((face, rest), c)) in cloth.mesh.faces.iter().zip(&cloth.face_rest).zip(&ch.faces).enumerate() {
        let (fu, fv) = rest.deformation(face.map(|v| x[v as usize]));
        let e = crate::model::membrane::green_strain(fu, fv);
        for (k, name) in ["uu", "vv", "uv"].iter().enumerate() {
            faces.push_str(&format!("{i},{name},{},{}\n", e[k], state(&c[k])));
        }
    }
    write_atomic(&out_dir.join("state_faces.csv"), faces.as_bytes())
}

/// The warning a run's summary calls for when some of its steps' solves
/// ended above the tolerance (`summary["unconverged"]`), naming the run
/// (`label`), how many, where the first was, and what to change; `None`
/// when every solve met it.
pub fn unconverged_warning(label: &str, summary: &Value) -> Option<String> {
    let u = &summary["unconverged"];
    let steps = u["steps"].as_u64().filter(|&n| n > 0)?;
    Some(format!(
        "warning: {}: the solve ended above solver.tolerance at {steps} of {} steps (the first at step {}, the worst \
         at a relative residual of {:.2e}); those steps are less accurate than asked: raise solver.max_iterations, \
         or reduce dt",
        label,
        summary["steps"],
        u["first_step"],
        u["worst_residual"].as_f64().unwrap_or(f64::NAN),
    ))
}

/// An edge past this strain (eleven times its rest length) is a simulation
/// that blew up, not cloth. Woven cloth tears at a few tens of percent, but
/// where a body drags cloth faster than the strain limiter can follow,
/// single edges pass that for a frame or two and recover (the built-in
/// trousers lifting a leg reached 3.1 times their length on 2026-11-24,
/// 1.32 now: docs/garments.md), and such a run must go on so that its
/// frames can be read.
const BLOWN_UP: f64 = 10.0;

/// Stops a run whose cloth blew up (finite but absurd: the backends stop
/// non-finite states themselves) before its frame is written.
fn blown_up(sim: &Simulation, row: &MetricsRow) -> Result<()> {
    let strain = row.measures.max_edge_strain;
    if strain <= BLOWN_UP {
        return Ok(());
    }
    Err(Error::Step(format!(
        "step {} (t = {:.4} s, phase {}): the cloth blew up: an edge is {:.1} times its rest length (kinetic energy \
         {:.3e} J); the frames before this one are written. {}",
        sim.steps(),
        sim.time(),
        sim.phase_name(),
        1.0 + strain,
        row.measures.kinetic_energy,
        crate::sim::blow_up::advice(&sim.scene)
    )))
}

/// Removes what an earlier run left in `out_dir` (its frames, metrics,
/// summary, checkpoint, state dumps, USD and run.json), so that a new run
/// into the folder never mixes with it: a shorter run would leave the
/// older one's later frames, which `crease render` draws, and its
/// checkpoint, which `crease resume` would continue. Nothing else there is
/// touched.
fn clear_previous(out_dir: &Path) -> Result<()> {
    crate::util::remove_files(previous_outputs(out_dir))
}

/// The files a run writes in `out_dir` (those there now, and the fixed
/// names whether there or not).
fn previous_outputs(out_dir: &Path) -> Vec<PathBuf> {
    let mut paths = Vec::new();
    if let Ok(entries) = std::fs::read_dir(out_dir.join("frames")) {
        for entry in entries.flatten() {
            let name = entry.file_name().to_string_lossy().into_owned();
            if numbered::digits(&name, "", ".obj").is_some_and(|d| d.len() >= 5) {
                paths.push(entry.path());
            }
        }
    }
    for name in [
        "metrics.csv",
        "summary.json",
        "run.json",
        "state_hinges.csv",
        "state_faces.csv",
        usd::FILE,
        usd::FRAMES,
    ] {
        paths.push(out_dir.join(name));
    }
    paths.push(Checkpoint::path(out_dir));
    paths
}

/// The path of output frame `k` under `out_dir`.
pub fn frame_path(out_dir: &Path, k: usize) -> PathBuf {
    out_dir.join("frames").join(format!("{k:05}.obj"))
}
