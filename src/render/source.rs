//! What `crease render` draws: an OBJ file, or a frame of a run folder
//! (by default its last), with the folder's frame 0 as the rest shape the
//! `bend` colouring compares against.

use crate::error::{Error, Result};
use crate::mesh::{Topology, TriMesh, read_obj};
use crate::util::Table;
use glam::DVec3;
use std::path::{Path, PathBuf};

/// A mesh to draw and, when known, its rest positions.
pub struct Source {
    pub mesh: TriMesh,
    pub rest: Option<Vec<DVec3>>,
    /// The file the mesh came from.
    pub path: PathBuf,
    /// A run folder's frame: its number and simulated time.
    pub frame: Option<(usize, f64)>,
}

/// The frames of run folder `dir`, in order.
pub fn frames(dir: &Path) -> Result<Vec<PathBuf>> {
    let folder = dir.join("frames");
    let entries = std::fs::read_dir(&folder).map_err(|e| Error::io(&folder, e))?;
    let mut frames: Vec<PathBuf> = entries
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "obj"))
        .collect();
    frames.sort();
    if frames.is_empty() {
        return Err(Error::File {
            path: folder,
            message: "no frames: give a folder `crease run` wrote, or an OBJ file".into(),
        });
    }
    Ok(frames)
}

/// Loads `path`: an OBJ, or run folder's frame `frame` (default the last).
pub fn load(path: &Path, frame: Option<usize>) -> Result<Source> {
    if !path.is_dir() {
        if frame.is_some() {
            return Err(Error::Argument {
                arg: "--frame".into(),
                message: format!("{} is a file; --frame picks a frame of a run folder", path.display()),
            });
        }
        return Ok(Source {
            mesh: read_obj(path, 1.0)?,
            rest: None,
            path: path.to_path_buf(),
            frame: None,
        });
    }
    let frames = frames(path)?;
    let k = frame.unwrap_or(frames.len() - 1);
    let file = frames.get(k).ok_or_else(|| Error::Argument {
        arg: "--frame".into(),
        message: format!("{} has frames 0 to {}, not {k}", path.display(), frames.len() - 1),
    })?;
    let mesh = read_obj(file, 1.0)?;
    let rest = read_obj(&frames[0], 1.0)?;
    if rest.faces != mesh.faces {
        return Err(Error::mesh(
            file.display().to_string(),
            format!(
                "its triangles differ from frame 0's ({}): not frames of one run",
                frames[0].display()
            ),
        ));
    }
    Ok(Source {
        mesh,
        rest: Some(rest.positions),
        path: file.clone(),
        frame: Some((k, frame_time(path, k)?)),
    })
}

/// The simulated time of frame `k` of run folder `dir`, from its
/// `metrics.csv` (a row a frame).
fn frame_time(dir: &Path, k: usize) -> Result<f64> {
    let table = Table::read(&dir.join("metrics.csv"))?;
    let column = table.column("time", "a crease run's metrics")?;
    let row = table
        .rows()
        .nth(k)
        .ok_or_else(|| table.error(format!("has no row for frame {k}: the run folder is incomplete")))?;
    row.get(column)
        .and_then(|t| t.parse::<f64>().ok())
        .filter(|t| t.is_finite())
        .ok_or_else(|| table.error(format!("frame {k}'s row has no time: the file is damaged")))
}

impl Source {
    /// Per vertex, the largest |theta - theta_rest| of its hinges (zero
    /// everywhere without a rest shape).
    pub fn bend(&self) -> Result<Vec<f64>> {
        let Some(rest) = &self.rest else {
            return Err(Error::Argument {
                arg: "--colour bend".into(),
                message: format!(
                    "{} is a lone OBJ with no rest shape to compare with: render a run folder instead",
                    self.path.display()
                ),
            });
        };
        let topology = Topology::build(&self.mesh)?;
        Ok(super::bend_values(
            &topology,
            &self.mesh.positions,
            &super::hinge_angles(&topology, rest),
        ))
    }
}
