//! Checkpoints: `DIR/checkpoint.json`, the full state of a run at a frame
//! boundary (the driver's timeline position, handle and obstacle poses, and
//! the backend's state exactly: f64 on the CPU, the device buffers word for
//! word on the GPU), with where the outputs stood. `crease resume DIR`
//! continues from it and writes the same frames an uninterrupted run would.
//! Written atomically, so an interrupted write leaves the previous one.

use super::RunOptions;
use crate::error::{Error, Result};
use crate::scene::Scene;
use crate::sim::SimState;
use crate::step::BackendState;
use crate::util::{Fnv, write_atomic};
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// The format tag; a file without it is not a checkpoint.
const FORMAT: &str = "crease checkpoint 2";

/// The checkpoint's last member: the FNV-1a hash, in hex, of the file's
/// text before it (closed by `}`), so that an edited number, frame or
/// row count is caught on resume rather than resumed from.
const CHECKSUM: &str = ",\"checksum\":\"";

/// How to load the scene again, and the digest it must have.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct SceneKey {
    /// A built-in name or an absolute path.
    pub source: String,
    pub sets: Vec<String>,
    /// `Scene::digest`, in hex.
    pub digest: String,
}

impl SceneKey {
    /// The key of `scene`, loaded from `source` with `sets`.
    pub fn new(scene: &Scene, source: &str, sets: &[String]) -> SceneKey {
        let source = match std::fs::canonicalize(source) {
            Ok(p) if !scene.source.starts_with("builtin:") => p.to_string_lossy().into_owned(),
            _ => source.to_string(),
        };
        SceneKey {
            source,
            sets: sets.to_vec(),
            digest: format!("{:016x}", scene.digest),
        }
    }

    /// Loads the scene and checks it is the one the checkpoint was made of.
    pub fn load(&self, path: &Path) -> Result<Scene> {
        let scene = crate::scene::load(&self.source, &self.sets)?;
        let digest = format!("{:016x}", scene.digest);
        if digest != self.digest {
            return Err(Error::Checkpoint {
                path: path.to_path_buf(),
                message: format!(
                    "scene {} has changed since the checkpoint (digest {digest}, checkpoint {}): \
                     restore the scene file or start the run again",
                    self.source, self.digest
                ),
            });
        }
        Ok(scene)
    }
}

/// `DIR/run.json`: how the run in `DIR` was loaded, so that tools that
/// read the folder later (`crease render`) can place its obstacles.
const RUN_FORMAT: &str = "crease run 1";

impl SceneKey {
    pub fn run_path(out_dir: &Path) -> PathBuf {
        out_dir.join("run.json")
    }

    /// Writes `out_dir/run.json`.
    pub fn write_run(&self, out_dir: &Path) -> Result<()> {
        let text = serde_json::to_string_pretty(&serde_json::json!({ "format": RUN_FORMAT, "scene": self }))
            .map_err(|e| Error::Step(format!("run.json: {e}")))?;
        write_atomic(&Self::run_path(out_dir), text.as_bytes())
    }

    /// Reads `out_dir/run.json` (`None` without one: a folder of an older
    /// crease, or not a run's).
    pub fn read_run(out_dir: &Path) -> Result<Option<SceneKey>> {
        let path = Self::run_path(out_dir);
        let Ok(text) = std::fs::read_to_string(&path) else {
            return Ok(None);
        };
        let damaged = |m: String| Error::File {
            path: path.clone(),
            message: format!("{m}: the file is damaged; run the scene again"),
        };
        let value: serde_json::Value = serde_json::from_str(&text).map_err(|e| damaged(e.to_string()))?;
        if value.get("format").and_then(|f| f.as_str()) != Some(RUN_FORMAT) {
            return Err(damaged(format!("is not a `{RUN_FORMAT}` file")));
        }
        serde_json::from_value(value["scene"].clone())
            .map(Some)
            .map_err(|e| damaged(e.to_string()))
    }
}

/// Everything a run needs to continue.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Checkpoint {
    pub format: String,
    pub scene: SceneKey,
    /// Where the run was to stop, and its other options.
    pub until: Option<f64>,
    pub checkpoint_every: Option<f64>,
    pub dump_state: bool,
    pub check_intersections: bool,
    /// The last frame written and the metrics rows written with it.
    pub frame: usize,
    pub metrics_rows: usize,
    /// Sums for the summary.
    pub total_cg: usize,
    pub stepping_ms: f64,
    pub sim: SimState,
    pub state: BackendState,
}

impl Checkpoint {
    pub fn path(out_dir: &Path) -> PathBuf {
        out_dir.join("checkpoint.json")
    }

    /// The checkpoint of a run with options `opts` after frame `frame`.
    pub fn new(
        opts: &RunOptions,
        frame: usize,
        total_cg: usize,
        stepping_ms: f64,
        (sim, state): (SimState, BackendState),
    ) -> Checkpoint {
        Checkpoint {
            format: FORMAT.to_string(),
            scene: opts.scene_key.clone(),
            until: opts.until,
            checkpoint_every: opts.checkpoint_every,
            dump_state: opts.dump_state,
            check_intersections: opts.check_intersections,
            frame,
            metrics_rows: frame + 1,
            total_cg,
            stepping_ms,
            sim,
            state,
        }
    }

    pub fn write(&self, out_dir: &Path) -> Result<()> {
        let text = serde_json::to_string(self).map_err(|e| Error::Step(format!("checkpoint: {e}")))?;
        let sum = Fnv::default().bytes(text.as_bytes()).finish();
        let body = text.strip_suffix('}').expect("a JSON object");
        write_atomic(
            &Self::path(out_dir),
            format!("{body}{CHECKSUM}{sum:016x}\"}}").as_bytes(),
        )
    }

    /// Reads `out_dir/checkpoint.json`; a missing, corrupt or foreign file is
    /// an error that says so.
    pub fn read(out_dir: &Path) -> Result<Checkpoint> {
        let path = Self::path(out_dir);
        let corrupt = |message: String| Error::Checkpoint {
            path: path.clone(),
            message,
        };
        if !path.exists() && out_dir.is_dir() {
            return Err(corrupt(
                "does not exist: a checkpoint is written by `crease run --checkpoint-every` or Ctrl-C, and removed \
                 once its run finishes"
                    .into(),
            ));
        }
        let text = std::fs::read_to_string(&path).map_err(|e| Error::io(&path, e))?;
        let value: serde_json::Value = serde_json::from_str(&text).map_err(|e| {
            corrupt(format!(
                "is not valid JSON ({e}): the file is damaged; start the run again"
            ))
        })?;
        if value.get("format").and_then(|f| f.as_str()) != Some(FORMAT) {
            return Err(corrupt(format!(
                "is not a `{FORMAT}` file (one written by another version of crease cannot be resumed): start the run again"
            )));
        }
        let signed = text.trim_end().strip_suffix("\"}").and_then(|t| {
            let at = t.rfind(CHECKSUM)?;
            Some((format!("{}}}", &t[..at]), &t[at + CHECKSUM.len()..]))
        });
        match signed {
            Some((body, sum)) if format!("{:016x}", Fnv::default().bytes(body.as_bytes()).finish()) == sum => {}
            _ => {
                return Err(corrupt(
                    "was changed after crease wrote it (its checksum does not match its content): start the run again"
                        .into(),
                ));
            }
        }
        serde_json::from_value(value).map_err(|e| corrupt(format!("is damaged ({e}): start the run again")))
    }
}
