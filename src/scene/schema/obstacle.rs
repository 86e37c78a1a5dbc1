//! Obstacles as a scene writes them: shapes, grid settings, and what a
//! timeline phase does with each.

use super::{Motion, StickySpec, one};
use serde::de::Error as _;
use serde::{Deserialize, Deserializer};

#[derive(Deserialize, Debug)]
#[serde(deny_unknown_fields)]
pub struct ObstacleSpec {
    pub shape: ShapeSpec,
    /// Coulomb friction coefficient between cloth and obstacle.
    #[serde(default = "default_friction")]
    pub friction: f64,
    /// Contact thickness, metres: cloth is kept this far outside.
    #[serde(default = "default_thickness")]
    pub thickness: f64,
    /// Grid spacing, metres; default: the grid box's longest side / 64, and
    /// at most a quarter of the shape's thinnest side.
    #[serde(default)]
    pub cell: Option<f64>,
    /// The box the grid covers; default: the shape's bounds grown by 8
    /// cells, or for unbounded shapes (planes) the cloth's bounds grown by
    /// their diagonal.
    #[serde(default)]
    pub bounds: Option<BoundsSpec>,
    /// Present from the start; `false` waits for an `"add"` in a phase.
    #[serde(default = "yes")]
    pub enabled: bool,
    /// Whether cloth sticks to it (with the scene's `sticking`).
    #[serde(default)]
    pub sticky: Option<StickySpec>,
}

fn default_friction() -> f64 {
    0.3
}

fn default_thickness() -> f64 {
    0.001
}

pub(super) fn yes() -> bool {
    true
}

#[derive(Deserialize, Debug, Clone, Copy)]
#[serde(deny_unknown_fields)]
pub struct BoundsSpec {
    pub min: [f64; 3],
    pub max: [f64; 3],
}

/// An obstacle's shape, in world coordinates at the start.
#[derive(Deserialize, Debug, Clone)]
#[serde(rename_all = "lowercase", deny_unknown_fields)]
pub enum ShapeSpec {
    /// The half-space under the plane (outward `normal`).
    Plane {
        point: [f64; 3],
        normal: [f64; 3],
    },
    Sphere {
        center: [f64; 3],
        radius: f64,
    },
    /// Axis-aligned box, edges and corners rounded by `rounding` (m).
    Box {
        center: [f64; 3],
        half_extents: [f64; 3],
        #[serde(default)]
        rounding: f64,
    },
    Capsule {
        a: [f64; 3],
        b: [f64; 3],
        radius: f64,
    },
    /// Solid cylinder: `center` mid-axis, `height` along `axis` (default +y).
    Cylinder {
        center: [f64; 3],
        radius: f64,
        height: f64,
        #[serde(default = "up")]
        axis: [f64; 3],
    },
    /// An open cup: `center` is the middle of the floor's top face, `radius`
    /// the inner radius, `height` the wall above the floor, `wall` the
    /// thickness of wall and floor, `rounding` the radius of its outer edges
    /// (at most half the wall); it opens along `axis` (default +y).
    Container {
        center: [f64; 3],
        radius: f64,
        height: f64,
        #[serde(default = "default_wall")]
        wall: f64,
        #[serde(default)]
        rounding: f64,
        #[serde(default = "up")]
        axis: [f64; 3],
    },
    Union(Vec<ShapeSpec>),
    /// A closed OBJ mesh (path relative to the scene file), scaled then moved.
    Mesh {
        path: String,
        #[serde(default = "one")]
        scale: f64,
        #[serde(default)]
        translate: [f64; 3],
    },
    /// A deforming body: an OBJ per frame (`path` with a run of `#` for the
    /// zero-padded frame number, relative to the scene file), open meshes
    /// allowed; not part of a union.
    Sequence(SequenceSpec),
    /// A deforming body read from a USD file: one Mesh prim's points at
    /// every time code, as Blender, Houdini and Maya export an animation.
    Usd(UsdSpec),
    /// A clip of the built-in mannequin, written as an OBJ sequence into
    /// the cache and read as a `sequence`.
    Mannequin(MannequinSpec),
}

#[derive(Deserialize, Debug, Clone)]
#[serde(deny_unknown_fields)]
pub struct MannequinSpec {
    /// `a-pose`, `lift-leg`, `sit` or `bend-arms`.
    pub clip: String,
    #[serde(default = "default_fps")]
    pub fps: f64,
    /// Seconds to reach the pose, to hold it and to come back.
    #[serde(default = "one")]
    pub ramp: f64,
    #[serde(default = "default_hold")]
    pub hold: f64,
    #[serde(default = "one")]
    pub back: f64,
    /// How far from its surface the body acts on cloth, m.
    #[serde(default = "default_reach")]
    pub reach: f64,
}

fn default_fps() -> f64 {
    24.0
}

fn default_hold() -> f64 {
    0.5
}

#[derive(Deserialize, Debug, Clone)]
#[serde(deny_unknown_fields)]
pub struct UsdSpec {
    /// A `.usda`, `.usdc` or `.usdz` file, relative to the scene file.
    pub path: String,
    /// The Mesh prim's path (default: the stage's only Mesh).
    #[serde(default)]
    pub prim: Option<String>,
    #[serde(default = "one")]
    pub scale: f64,
    #[serde(default)]
    pub translate: [f64; 3],
    /// Past the last time code: start over (`true`) or hold it.
    #[serde(default, rename = "loop")]
    pub looped: bool,
    /// How far from its surface the body acts on cloth, m.
    #[serde(default = "default_reach")]
    pub reach: f64,
}

#[derive(Deserialize, Debug, Clone)]
#[serde(deny_unknown_fields)]
pub struct SequenceSpec {
    pub path: String,
    /// Frames per second of the animation.
    pub fps: f64,
    /// The number of the frame at time 0.
    #[serde(default = "first_frame")]
    pub start_frame: u64,
    #[serde(default = "one")]
    pub scale: f64,
    #[serde(default)]
    pub translate: [f64; 3],
    /// Past the last frame: start over (`true`) or hold the last frame.
    #[serde(default, rename = "loop")]
    pub looped: bool,
    /// How far from its surface the body acts on cloth, m.
    #[serde(default = "default_reach")]
    pub reach: f64,
}

fn first_frame() -> u64 {
    1
}

fn default_reach() -> f64 {
    0.02
}

fn up() -> [f64; 3] {
    [0.0, 1.0, 0.0]
}

fn default_wall() -> f64 {
    0.005
}

/// `"hold"` (stay), `"remove"`, `"add"` (back where it was), or a rigid
/// motion `{"translate", "rotate"}` spread linearly over the phase.
#[derive(Debug, Clone)]
pub enum ObstacleAction {
    Hold,
    Remove,
    Add,
    Move(Motion),
}

impl<'de> Deserialize<'de> for ObstacleAction {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        match serde_json::Value::deserialize(d)? {
            serde_json::Value::String(s) if s == "hold" => Ok(ObstacleAction::Hold),
            serde_json::Value::String(s) if s == "remove" => Ok(ObstacleAction::Remove),
            serde_json::Value::String(s) if s == "add" => Ok(ObstacleAction::Add),
            v @ serde_json::Value::Object(_) => serde_json::from_value(v)
                .map(ObstacleAction::Move)
                .map_err(D::Error::custom),
            other => Err(D::Error::custom(format!(
                "unknown obstacle action {other}: use \"hold\", \"remove\", \"add\" or {{\"translate\": [x, y, z], \"rotate\": {{\"axis\", \"point\", \"angle\"}}}}"
            ))),
        }
    }
}
