//! Reading a deforming obstacle's frames: the files a `#` pattern names
//! (`leg####.obj` is `leg0001.obj`, `leg0002.obj`, ..., as Blender's OBJ
//! exporter names an animation), every one present from the start frame
//! to the last, each with the first frame's vertices and triangles.

use super::schema::SequenceSpec;
use crate::collide::body::BodyMesh;
use crate::collide::sequence::Sequence;
use crate::error::{Error, Result};
use crate::util::numbered;
use glam::DVec3;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// Most frames a sequence may have.
const MAX_FRAMES: u64 = 100_000;

/// A frame pattern: the folder, and the file name around the `#` run.
struct Pattern {
    dir: PathBuf,
    prefix: String,
    suffix: String,
    width: usize,
}

impl Pattern {
    fn parse(base: &Path, path: &str) -> std::result::Result<Pattern, String> {
        let full = base.join(path);
        let name = full
            .file_name()
            .and_then(|n| n.to_str())
            .ok_or_else(|| format!("`{path}` does not end in a file name"))?
            .to_string();
        let Some(at) = name.find('#') else {
            return Err(format!(
                "`{path}` has no `#` for the frame number: write the file name with a run of `#` where the \
                 zero-padded frame number goes, as in `leg####.obj` for leg0001.obj, leg0002.obj, ..."
            ));
        };
        let width = name[at..].chars().take_while(|&c| c == '#').count();
        let suffix = name[at + width..].to_string();
        if suffix.contains('#') {
            return Err(format!("`{path}` has two runs of `#`; use one for the frame number"));
        }
        Ok(Pattern {
            // A scene in the working folder has the empty path as its base.
            dir: match full.parent() {
                Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
                _ => PathBuf::from("."),
            },
            prefix: name[..at].to_string(),
            suffix,
            width,
        })
    }

    fn file(&self, frame: u64) -> PathBuf {
        let width = self.width;
        self.dir.join(format!("{}{frame:0width$}{}", self.prefix, self.suffix))
    }

    /// The frame numbers of the files in the folder that fit the pattern:
    /// named as [`Pattern::file`] names them (`leg#.obj` is `leg1.obj`,
    /// `leg12.obj`, not `leg0001.obj`, whose frame `file` would not find).
    /// Also the digit counts of the files that differ from it only in
    /// their zero padding, to name in an error.
    fn present(&self) -> std::result::Result<(BTreeSet<u64>, BTreeSet<usize>), String> {
        let entries = std::fs::read_dir(&self.dir).map_err(|e| format!("cannot list {} ({e})", self.dir.display()))?;
        let (mut frames, mut widths) = (BTreeSet::new(), BTreeSet::new());
        for entry in entries.flatten() {
            let name = entry.file_name();
            let Some(name) = name.to_str() else { continue };
            let Some(digits) = numbered::digits(name, &self.prefix, &self.suffix) else {
                continue;
            };
            match numbered::frame(digits, self.width) {
                Some(k) => frames.insert(k),
                None => widths.insert(digits.len()),
            };
        }
        Ok((frames, widths))
    }
}

/// A body's `scale` and `translate`, checked with its `reach`.
pub(super) fn placement(
    scale: f64,
    translate: [f64; 3],
    reach: f64,
    err: &dyn Fn(&str, String) -> Error,
) -> Result<(f64, DVec3)> {
    if !(scale.is_finite() && scale > 0.0) {
        return Err(err("scale", format!("must be a positive number, got {scale}")));
    }
    if !(reach.is_finite() && reach > 0.0) {
        return Err(err(
            "reach",
            format!("must be a positive length in metres, got {reach}"),
        ));
    }
    let shift = DVec3::from_array(translate);
    if !shift.is_finite() {
        return Err(err(
            "translate",
            format!("must be three finite numbers, got {translate:?}"),
        ));
    }
    Ok((scale, shift))
}

/// Reads the frames of `spec`; `err(field, message)` builds the error.
pub fn load(base: &Path, spec: &SequenceSpec, err: &dyn Fn(&str, String) -> Error) -> Result<Sequence> {
    if !(spec.fps.is_finite() && spec.fps > 0.0) {
        return Err(err(
            "fps",
            format!("must be a positive number of frames per second, got {}", spec.fps),
        ));
    }
    let (scale, shift) = placement(spec.scale, spec.translate, spec.reach, err)?;
    let pattern = Pattern::parse(base, &spec.path).map_err(|m| err("path", m))?;
    let (present, widths) = pattern.present().map_err(|m| err("path", m))?;
    let first = spec.start_frame;
    if !present.contains(&first) {
        return Err(err(
            "path",
            format!(
                "the first frame, {}, does not exist (start_frame is {first}; paths are relative to the scene \
                 file's folder){}",
                pattern.file(first).display(),
                match (present.iter().next(), widths.first()) {
                    (Some(k), _) => format!("; the pattern's files start at frame {k}: set start_frame to it"),
                    (None, Some(w)) => format!(
                        "; files numbered with {w} digits are there: write {w} `#` ({}{}{})",
                        pattern.prefix,
                        "#".repeat(*w),
                        pattern.suffix
                    ),
                    (None, None) => String::new(),
                }
            ),
        ));
    }
    let last = *present.iter().next_back().unwrap_or(&first);
    if last - first >= MAX_FRAMES {
        return Err(err(
            "path",
            format!("frames {first} to {last} are more than {MAX_FRAMES}; split the animation"),
        ));
    }
    if let Some(missing) = (first..=last).find(|k| !present.contains(k)) {
        return Err(err(
            "path",
            format!(
                "frame {missing} is missing: {} does not exist, but frames up to {last} do; export every frame",
                pattern.file(missing).display()
            ),
        ));
    }
    let mut frames: Vec<Vec<DVec3>> = Vec::new();
    let mut faces: Vec<[u32; 3]> = Vec::new();
    for k in first..=last {
        let file = pattern.file(k);
        let mesh = crate::mesh::read_obj(&file, 1.0)?;
        let x: Vec<DVec3> = mesh.positions.iter().map(|p| *p * scale + shift).collect();
        if k == first {
            if mesh.faces.is_empty() {
                return Err(Error::mesh(
                    file.display().to_string(),
                    "has no faces; a body needs triangles",
                ));
            }
            faces = mesh.faces;
        } else {
            let first_file = pattern.file(first);
            if x.len() != frames[0].len() {
                return Err(Error::mesh(
                    file.display().to_string(),
                    format!(
                        "has {} vertices, but the first frame {} has {}: every frame must have the same vertices",
                        x.len(),
                        first_file.display(),
                        frames[0].len()
                    ),
                ));
            }
            if let Some(t) = (0..faces.len().max(mesh.faces.len())).find(|&t| faces.get(t) != mesh.faces.get(t)) {
                let show = |f: Option<&[u32; 3]>| match f {
                    Some(f) => format!("vertices {} {} {}", f[0] + 1, f[1] + 1, f[2] + 1),
                    None => "no triangle".into(),
                };
                return Err(Error::mesh(
                    file.display().to_string(),
                    format!(
                        "triangle {} has {} here but {} in the first frame {}: every frame must have the same \
                         faces (export with the same topology, no modifiers that change it)",
                        t + 1,
                        show(mesh.faces.get(t)),
                        show(faces.get(t)),
                        first_file.display()
                    ),
                ));
            }
        }
        frames.push(x);
    }
    Ok(Sequence {
        mesh: Arc::new(BodyMesh::new(&frames[0], &faces)),
        faces,
        frames,
        fps: spec.fps,
        looped: spec.looped,
        reach: spec.reach,
    })
}
