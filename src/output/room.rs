//! Room on disk for a run's output, checked before it starts: a frame
//! interval far shorter than meant (a millisecond for a second, or a
//! scene's `dt`) would otherwise fill the disk hours into the run.

use super::previous_outputs;
use super::usd::UsdFrames;
use crate::error::{Error, Result};
use crate::mesh::write_obj;
use crate::scene::{Format, Scene};
use crate::util::memory::size;
use std::path::{Path, PathBuf};

/// About the bytes one output frame of `scene` takes on disk: an OBJ
/// frame as large as the rest shape's (with a tenth more for longer
/// numbers), a USD frame by [`UsdFrames::frame_bytes`].
pub fn frame_bytes(scene: &Scene) -> u64 {
    let mut bytes = 0u64;
    if scene.formats.contains(&Format::Obj) {
        let mesh = &scene.cloth.mesh;
        bytes += write_obj(mesh, &mesh.positions).len() as u64 * 11 / 10;
    }
    if scene.formats.contains(&Format::Usd) {
        bytes += UsdFrames::frame_bytes(scene);
    }
    bytes
}

/// One run's output: its scene, its folder and the frames it will write.
pub struct Planned<'a> {
    pub scene: &'a Scene,
    pub dir: PathBuf,
    pub frames: u64,
}

/// Refuses `runs` (one, or an experiment's variants side by side) whose
/// frames would need more room than the disk under `out_dir` has free
/// (counting, when `fresh`, each run's previous outputs in its folder,
/// which it replaces). Each run checks its own frames as it starts; an
/// experiment checks all of its runs first, since each alone may fit
/// where together they do not.
pub fn check_room(runs: &[Planned], out_dir: &Path, fresh: bool) -> Result<()> {
    // Frame counts come from the scene's durations: a sum of huge ones
    // saturates rather than wraps.
    let frames = runs.iter().fold(0u64, |sum, r| sum.saturating_add(r.frames));
    let needed = runs.iter().fold(0u64, |sum, r| {
        sum.saturating_add(r.frames.saturating_mul(frame_bytes(r.scene)))
    });
    // The nearest folder that exists holds the disk the output goes to.
    let Some(disk) = out_dir.ancestors().find(|p| p.is_dir() || p.as_os_str().is_empty()) else {
        return Ok(());
    };
    let disk = if disk.as_os_str().is_empty() {
        Path::new(".")
    } else {
        disk
    };
    // A disk whose free space cannot be read is not checked: the writes
    // report a full disk anyway, naming the file.
    let Ok(free) = fs4::available_space(disk) else {
        return Ok(());
    };
    let reclaimed: u64 = match fresh {
        true => runs
            .iter()
            .flat_map(|r| previous_outputs(&r.dir))
            .filter_map(|p| std::fs::metadata(p).ok())
            .map(|m| m.len())
            .sum(),
        false => 0,
    };
    let (Some(first), true) = (runs.first(), needed > free.saturating_add(reclaimed)) else {
        return Ok(());
    };
    // `crease run` stops where `--until` says; an experiment's variants
    // run their whole timelines.
    let scene = first.scene;
    let (what, shorter) = match runs.len() {
        1 => ("the run".to_string(), "stop sooner with --until"),
        n => (
            format!("the {n} runs"),
            "shorten the phases (--set timeline.PHASE.duration=SECONDS)",
        ),
    };
    Err(Error::File {
        path: out_dir.to_path_buf(),
        message: format!(
            "{what} would write {frames} output frames of about {} each, {} in all, and the disk has {} free: \
             raise output.frame_interval (now {} s, {} step{} a frame), {shorter}, or choose another --out",
            size(needed / frames.max(1)),
            size(needed),
            size(free.saturating_add(reclaimed)),
            scene.frame_interval,
            scene.frame_steps(),
            if scene.frame_steps() == 1 { "" } else { "s" }
        ),
    })
}
