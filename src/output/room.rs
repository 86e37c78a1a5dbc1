//! Room on disk for a run's output, checked before it starts: a frame
//! interval far shorter than meant (a millisecond for a second, or a
//! scene's `dt`) would otherwise fill the disk hours into the run.

use super::previous_outputs;
use super::usd::UsdFrames;
use crate::error::{Error, Result};
use crate::mesh::write_obj;
use crate::scene::{Format, Scene};
use crate::util::memory::size;
use std::path::Path;

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

/// Refuses a run whose `frames` output frames would need more room than
/// the disk under `out_dir` has free (counting, on a fresh run, the
/// previous run's outputs there, which it replaces).
pub(super) fn check(scene: &Scene, out_dir: &Path, frames: u64, fresh: bool) -> Result<()> {
    let frame_bytes = frame_bytes(scene);
    let needed = frames.saturating_mul(frame_bytes);
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
        true => previous_outputs(out_dir)
            .iter()
            .filter_map(|p| std::fs::metadata(p).ok())
            .map(|m| m.len())
            .sum(),
        false => 0,
    };
    if needed <= free.saturating_add(reclaimed) {
        return Ok(());
    }
    Err(Error::File {
        path: out_dir.to_path_buf(),
        message: format!(
            "the run would write {frames} output frames of about {} each, {} in all, and the disk has {} free: \
             raise output.frame_interval (now {} s, {} step{} a frame), stop sooner with --until, or \
             choose another --out",
            size(frame_bytes),
            size(needed),
            size(free.saturating_add(reclaimed)),
            scene.frame_interval,
            scene.frame_steps(),
            if scene.frame_steps() == 1 { "" } else { "s" }
        ),
    })
}
