//! The built-in mannequin: an adult of 1.75 m generated in code (a
//! skeleton, an implicit shape of blended parts, and the skin meshed from
//! it), posed by the clips the paper's garment experiments play.

pub mod body;
pub mod clips;
pub mod cut;
pub mod shape;
pub mod skeleton;
pub mod trousers;
pub mod tshirt;

use crate::collide::cache::cache_dir;
use crate::error::{Error, Result};
use crate::util::Fnv;
use clips::{Clip, Timing};
use std::path::{Path, PathBuf};

/// Bumped when the mannequin's making changes in a way its parts, joints,
/// held pose and seat do not show (meshing, skinning, untangling, the way
/// to the pose): cached clips made before are then made again.
const VERSION: u32 = 2;

/// Writes `clip` into `dir` (see [`clips::write`]); the number of frames.
pub fn write_clip(clip: Clip, timing: &Timing, fps: f64, dir: &Path) -> Result<usize> {
    let m = body::Mannequin::new()?;
    clips::write(&m, clip, timing, fps, dir)
}

/// Removes the scratch folders (`.NAME...`) in the clips' cache `root` that
/// a writer killed mid-clip left: untouched for an hour, where a clip is
/// written in seconds, so no live writer's.
fn remove_abandoned(root: &Path) {
    let Ok(entries) = std::fs::read_dir(root) else {
        return;
    };
    for entry in entries.flatten() {
        let scratch = entry.file_name().to_string_lossy().starts_with('.');
        let age = entry
            .metadata()
            .and_then(|m| m.modified())
            .ok()
            .and_then(|t| t.elapsed().ok());
        if scratch && age.is_some_and(|a| a.as_secs() > 3600) {
            let _ = std::fs::remove_dir_all(entry.path());
        }
    }
}

/// The folder of `clip`'s frames in the cache (`$CREASE_CACHE_DIR`, ...),
/// written first if it is not there. A folder appears whole or not at all:
/// the frames are written beside it and the folder renamed into place.
pub fn cached_clip(clip: Clip, timing: &Timing, fps: f64) -> Result<PathBuf> {
    let bones: Vec<_> = skeleton::BONES.iter().map(|b| (b, b.joint())).collect();
    let recipe = format!(
        "{VERSION} {:?} {bones:?} {} {:?} {timing:?} {fps} {:?} {}",
        shape::parts(),
        clip.name(),
        clip.pose(1.0),
        clips::SEAT_FOOTPRINT,
        clips::SEAT_GAP
    );
    let key = Fnv::default().bytes(recipe.as_bytes()).finish();
    let root = cache_dir().join("mannequin");
    let dir = root.join(format!("{}-{key:016x}", clip.name()));
    if dir.is_dir() {
        return Ok(dir);
    }
    // The scratch folder is this writer's alone: two threads of one process
    // (tests running side by side) may write the same clip at once.
    static WRITERS: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let writer = WRITERS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let scratch = root.join(format!(".{}-{key:016x}.{}.{writer}", clip.name(), std::process::id()));
    remove_abandoned(&root);
    let _ = std::fs::remove_dir_all(&scratch);
    if let Err(e) = write_clip(clip, timing, fps, &scratch) {
        let _ = std::fs::remove_dir_all(&scratch);
        return Err(Error::Step(format!(
            "cannot write the mannequin's {} clip into the cache {} ({e}): set CREASE_CACHE_DIR to a writable folder",
            clip.name(),
            root.display()
        )));
    }
    // Another process may have put the same clip there first: then its
    // copy serves, and this one goes.
    if std::fs::rename(&scratch, &dir).is_err() {
        let _ = std::fs::remove_dir_all(&scratch);
        if !dir.is_dir() {
            return Err(Error::io(
                &dir,
                std::io::Error::other("the clip's folder could not be put in place"),
            ));
        }
    }
    Ok(dir)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A killed writer's scratch folder goes once it is an hour old; a
    /// live writer's (recent) and the finished clips stay.
    #[test]
    fn abandoned_scratch_folders_are_removed_and_nothing_else() {
        let root = std::env::temp_dir().join(format!("crease-clips-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&root);
        let two_hours_ago = std::time::SystemTime::now() - std::time::Duration::from_secs(7200);
        for name in [".sit-1.99.0", ".sit-2.98.0", "sit-3"] {
            std::fs::create_dir_all(root.join(name)).unwrap();
            std::fs::write(root.join(name).join("body0001.obj"), "o mannequin\n").unwrap();
        }
        for name in [".sit-1.99.0", "sit-3"] {
            std::fs::File::open(root.join(name))
                .and_then(|d| d.set_modified(two_hours_ago))
                .unwrap();
        }
        remove_abandoned(&root);
        let left: std::collections::BTreeSet<String> = std::fs::read_dir(&root)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        assert_eq!(left, [".sit-2.98.0", "sit-3"].map(String::from).into());
        std::fs::remove_dir_all(&root).unwrap();
    }
}
