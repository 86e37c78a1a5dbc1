//! Scenes: the JSON format (`schema`), `--set` overrides, the built-in scenes
//! embedded in the binary, and validation into a ready-to-run [`Scene`].

mod cloth_mesh;
mod frames;
mod loads;
mod material;
mod obstacles;
mod output_interval;
mod overrides;
mod resolve;
mod resolved;
pub mod roll;
pub mod schema;
mod strict_json;
mod usd_body;

pub use loads::Load;
pub use resolved::{Attach, Axis, Handle, Phase, Scene, Sticking};
pub use schema::{Action, Format, Motion, ObstacleAction, RotateSpec};

use crate::error::{Error, Result};
use std::path::{Path, PathBuf};

/// Built-in scenes: (name, JSON text).
pub const BUILTIN: &[(&str, &str)] = &[
    ("twist", include_str!("../../scenes/twist.json")),
    ("hang", include_str!("../../scenes/hang.json")),
    ("drape", include_str!("../../scenes/drape.json")),
    ("sphere-drop", include_str!("../../scenes/sphere-drop.json")),
    ("ablation-friction", include_str!("../../scenes/ablation-friction.json")),
    ("ablation-plastic", include_str!("../../scenes/ablation-plastic.json")),
    ("twist-flatten", include_str!("../../scenes/twist-flatten.json")),
    ("cylinder-twist", include_str!("../../scenes/cylinder-twist.json")),
    ("tensile-press", include_str!("../../scenes/tensile-press.json")),
    ("specimen", include_str!("../../scenes/specimen.json")),
    ("container", include_str!("../../scenes/container.json")),
    ("recovery", include_str!("../../scenes/recovery.json")),
    ("crease-recovery", include_str!("../../scenes/crease-recovery.json")),
    ("sticky-hand", include_str!("../../scenes/sticky-hand.json")),
    ("miguel-twist", include_str!("../../scenes/miguel-twist.json")),
    ("melo-compression", include_str!("../../scenes/melo-compression.json")),
    ("miguel-unroll", include_str!("../../scenes/miguel-unroll.json")),
    ("trousers-sit", include_str!("../../scenes/trousers-sit.json")),
    ("trousers-lift-leg", include_str!("../../scenes/trousers-lift-leg.json")),
    ("tshirt-bend-arms", include_str!("../../scenes/tshirt-bend-arms.json")),
];

/// The scene `crease run` uses when none is given.
pub const DEFAULT_SCENE: &str = "twist";

/// The one-line description of a built-in scene.
pub fn builtin_description(text: &str) -> String {
    serde_json::from_str::<serde_json::Value>(text)
        .ok()
        .and_then(|v| v.get("description").and_then(|d| d.as_str()).map(str::to_string))
        .unwrap_or_default()
}

/// Loads a scene by built-in name or file path, applies `--set` overrides,
/// validates it and builds its mesh.
pub fn load(source: &str, overrides: &[String]) -> Result<Scene> {
    let (label, text, base, name) = match BUILTIN.iter().find(|(n, _)| *n == source) {
        Some((n, text)) => (
            format!("builtin:{n}"),
            text.to_string(),
            PathBuf::from("."),
            n.to_string(),
        ),
        None => {
            let path = Path::new(source);
            if !path.exists() {
                let names: Vec<&str> = BUILTIN.iter().map(|(n, _)| *n).collect();
                return Err(Error::scene(
                    source,
                    "(file)",
                    format!(
                        "no such file, and no built-in scene of that name (built-in: {})",
                        names.join(", ")
                    ),
                ));
            }
            let text = std::fs::read_to_string(path).map_err(|e| Error::io(path, e))?;
            let base = path.parent().map(Path::to_path_buf).unwrap_or_default();
            let name = path
                .file_stem()
                .map(|s| s.to_string_lossy().into_owned())
                .unwrap_or_default();
            (source.to_string(), text, base, name)
        }
    };
    parse(&label, &name, &text, &base, overrides)
}

/// Parses scene JSON text. `label` names the source in messages; `base` is the
/// folder relative paths in the scene are resolved against.
pub fn parse(label: &str, name: &str, text: &str, base: &Path, overrides: &[String]) -> Result<Scene> {
    let mut value = strict_json::parse(text).map_err(|e| {
        let at = format!("line {} column {}", e.line(), e.column());
        let message = e.to_string();
        let message = message.strip_suffix(&format!(" at {at}")).unwrap_or(&message);
        Error::scene(label, at.clone(), format!("invalid JSON: {message}"))
    })?;
    for spec in overrides {
        overrides::apply(&mut value, spec)?;
    }
    let digest = crate::util::Fnv::default().bytes(value.to_string().as_bytes()).finish();
    let file: schema::SceneFile = serde_path_to_error::deserialize(value).map_err(|e| {
        let path = e.path().to_string();
        let field = if path == "." { "(top level)".to_string() } else { path };
        Error::scene(label, field, e.into_inner().to_string())
    })?;
    let mut scene = resolve::resolve(label, name, file, base)?;
    scene.digest = digest;
    Ok(scene)
}
