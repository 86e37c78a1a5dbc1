//! The scene file as written (JSON, serde). Unknown fields are errors.
//! `resolve.rs` turns it into a validated [`super::Scene`].

use crate::mesh::Pattern;
use crate::step::{Integrator, SelfCollision, SolverSettings, StrainLimit};
use glam::DVec3;
use serde::de::Error as _;
use serde::{Deserialize, Deserializer};
use std::collections::BTreeMap;

mod material;
mod obstacle;

pub use material::{FrictionSpec, MaterialFields, MaterialSpec, PerChannel, PlasticSpec};
pub use obstacle::{BoundsSpec, MannequinSpec, ObstacleAction, ObstacleSpec, SequenceSpec, ShapeSpec, UsdSpec};

#[derive(Deserialize, Debug)]
#[serde(deny_unknown_fields)]
pub struct SceneFile {
    #[serde(default)]
    pub description: String,
    /// Time step, seconds.
    pub dt: f64,
    #[serde(default = "default_gravity")]
    pub gravity: [f64; 3],
    #[serde(default)]
    pub solver: SolverSettings,
    #[serde(default)]
    pub self_collision: SelfCollision,
    /// The time integrator.
    #[serde(default)]
    pub integrator: Integrator,
    /// Bridson et al. 2003 §6 dynamic sticking to sticky obstacles; absent: off.
    #[serde(default)]
    pub sticking: Option<StickingSpec>,
    /// Drag and wind (Melo et al. Eq. 14-16); absent: still air, no drag.
    #[serde(default)]
    pub air: crate::model::air::Air,
    /// Bridson et al. 2003 §3 strain limiting; absent: off.
    #[serde(default)]
    pub strain_limit: Option<StrainLimit>,
    pub cloth: ClothSpec,
    #[serde(default)]
    pub handles: BTreeMap<String, HandleSpec>,
    /// Collision obstacles, by name (processed in name order).
    #[serde(default)]
    pub obstacles: BTreeMap<String, ObstacleSpec>,
    /// External forces on parts of the cloth, by name.
    #[serde(default)]
    pub loads: BTreeMap<String, LoadSpec>,
    pub timeline: Vec<PhaseSpec>,
    #[serde(default)]
    pub output: OutputSpec,
    /// Vertices whose hinges the `region_*` metrics measure (a fold, say);
    /// a hinge counts when both its edge vertices are selected.
    #[serde(default)]
    pub region: Option<Selector>,
}

fn default_gravity() -> [f64; 3] {
    [0.0, -9.81, 0.0]
}

/// Sticking (sim/sticking.rs): cloth vertices of the adhering region that
/// come within `tolerance` of a sticky obstacle's contact contour stick to
/// it, held by springs to where they touched it as it moves, and let go
/// once pulled `release` away.
#[derive(Deserialize, Debug, Clone)]
#[serde(deny_unknown_fields)]
pub struct StickingSpec {
    /// The adhering vertices (a selector, as for handles); default: all.
    #[serde(default)]
    pub cloth: Option<Selector>,
    /// A sticky region on the cloth itself: the faces whose three vertices
    /// this selector picks; default: none.
    #[serde(default)]
    pub sticky_cloth: Option<Selector>,
    /// Spring stiffness per vertex, N/m.
    #[serde(default = "default_stick_stiffness")]
    pub stiffness: f64,
    /// Distance beyond an obstacle's thickness contour within which a
    /// vertex attaches, m.
    #[serde(default = "default_stick_tolerance")]
    pub tolerance: f64,
    /// Distance from its anchor at which a vertex lets go, m (its spring
    /// weakens smoothly to nothing there).
    #[serde(default = "default_stick_release")]
    pub release: f64,
}

fn default_stick_stiffness() -> f64 {
    10.0
}
fn default_stick_tolerance() -> f64 {
    0.001
}
fn default_stick_release() -> f64 {
    0.01
}

/// Where an obstacle is sticky: all of it, or the part of its surface in a
/// box (world coordinates at the start; the box moves with the obstacle).
#[derive(Deserialize, Debug, Clone, Copy)]
#[serde(untagged)]
pub enum StickySpec {
    All(bool),
    Box { r#box: BoundsSpec },
}

#[derive(Deserialize, Debug)]
#[serde(deny_unknown_fields)]
pub struct ClothSpec {
    pub mesh: MeshSpec,
    pub material: MaterialSpec,
    /// Stiffness-proportional damping alpha (s).
    #[serde(default)]
    pub damping: f64,
    /// Warp direction for faces without material coordinates.
    #[serde(default = "default_warp")]
    pub warp: [f64; 3],
    /// Start rolled up (a grid only; scene/roll.rs).
    #[serde(default)]
    pub roll: Option<RollSpec>,
}

/// A grid that starts wound around a cylinder, with the history of having
/// been rolled there (Miguel et al. 2013 §4.3, Fig. 7).
#[derive(Deserialize, Debug, Clone, Copy)]
#[serde(deny_unknown_fields)]
pub struct RollSpec {
    /// The cylinder's radius: the innermost layer's, metres.
    pub radius: f64,
    /// Distance between layers (the cloth's thickness), metres.
    #[serde(default = "default_roll_gap")]
    pub gap: f64,
    /// Length of the u = 0 end left flat (to clamp), metres.
    #[serde(default)]
    pub flat: f64,
    /// Material time the strip stayed rolled before the scene starts, s.
    #[serde(default)]
    pub hold: f64,
}

fn default_roll_gap() -> f64 {
    0.001
}

fn default_warp() -> [f64; 3] {
    [1.0, 0.0, 0.0]
}

#[derive(Deserialize, Debug)]
#[serde(rename_all = "lowercase", deny_unknown_fields)]
pub enum MeshSpec {
    Grid(GridSpec),
    Cylinder(CylinderSpec),
    Obj(ObjSpec),
    /// Trousers fitted to the built-in mannequin standing at rest.
    Trousers(GarmentSpec),
    /// A long-sleeved t-shirt fitted to the built-in mannequin in its T pose.
    Tshirt(GarmentSpec),
}

#[derive(Deserialize, Debug)]
#[serde(deny_unknown_fields)]
pub struct GarmentSpec {
    /// About the length of the garment's edges, m (0.02: coarse, about 3K
    /// vertices for the trousers; 0.0078: full, about 20K).
    #[serde(default = "coarse_edge")]
    pub edge: f64,
}

fn coarse_edge() -> f64 {
    0.02
}

#[derive(Deserialize, Debug)]
#[serde(deny_unknown_fields)]
pub struct GridSpec {
    /// Width (u) and height (v), metres.
    pub size: [f64; 2],
    /// Quads along u and v.
    pub resolution: [usize; 2],
    #[serde(default = "default_pattern")]
    pub pattern: Pattern,
    #[serde(default)]
    pub plane: Plane,
    /// Position of the (u, v) = (0, 0) corner.
    #[serde(default)]
    pub origin: [f64; 3],
}

fn default_pattern() -> Pattern {
    Pattern::Regular
}

/// The plane a grid lies in: `xy` (u = +x, v = +y: hangs under gravity -y) or
/// `xz` (u = +x, v = -z: lies flat with its normal +y).
#[derive(Deserialize, Debug, Default, Clone, Copy, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum Plane {
    #[default]
    Xy,
    Xz,
}

impl Plane {
    /// The grid's u and v directions.
    pub fn axes(self) -> (DVec3, DVec3) {
        match self {
            Plane::Xy => (DVec3::X, DVec3::Y),
            Plane::Xz => (DVec3::X, DVec3::NEG_Z),
        }
    }
}

#[derive(Deserialize, Debug)]
#[serde(deny_unknown_fields)]
pub struct CylinderSpec {
    pub radius: f64,
    pub height: f64,
    /// Number of vertex rings along the axis (y).
    pub rings: usize,
    /// Vertices per ring.
    pub segments: usize,
}

#[derive(Deserialize, Debug)]
#[serde(deny_unknown_fields)]
pub struct ObjSpec {
    /// Relative to the scene file's folder.
    pub path: String,
    /// Metres per `vt` unit.
    #[serde(default = "one")]
    pub uv_scale: f64,
    /// A JSON file of vertex groups beside the OBJ's own `o`/`g` groups,
    /// `{"name": [vertex, ...]}` with the OBJ's 1-based vertex numbers
    /// (relative to the scene file's folder).
    #[serde(default)]
    pub groups: Option<String>,
}

pub(super) fn one() -> f64 {
    1.0
}

#[derive(Deserialize, Debug)]
#[serde(deny_unknown_fields)]
pub struct HandleSpec {
    pub select: Selector,
    /// Axis about which the reaction torque is reported; defaults to the axis
    /// of the handle's first rotation in the timeline.
    #[serde(default)]
    pub torque_axis: Option<AxisSpec>,
    /// An obstacle the handle rides on (collide/attach.rs): each vertex
    /// bound where it is at the start to the nearest point of the
    /// obstacle's surface, and moved with it.
    #[serde(default)]
    pub attach: Option<String>,
}

/// A force on part of the cloth (a weight pressing it, a hand pushing it):
/// `force` newtons in all, shared by the selected vertices in proportion to
/// their mass (on a uniform cloth, a uniform pressure over the selection).
#[derive(Deserialize, Debug)]
#[serde(deny_unknown_fields)]
pub struct LoadSpec {
    pub select: Selector,
    /// The total force, N.
    pub force: [f64; 3],
    /// Acting from the start; `false` waits for an `"add"`.
    #[serde(default = "obstacle::yes")]
    pub enabled: bool,
}

/// What a phase does to a load: `"add"` (the full force from the phase's
/// first step), `"remove"`, or a number: the load's scale at the phase's
/// end (1 = the full force), reached linearly from its scale at the start
/// (a weight set down or lifted gently).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum LoadAction {
    Add,
    Remove,
    Ramp(f64),
}

impl<'de> Deserialize<'de> for LoadAction {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        match serde_json::Value::deserialize(d)? {
            serde_json::Value::String(s) if s == "add" => Ok(LoadAction::Add),
            serde_json::Value::String(s) if s == "remove" => Ok(LoadAction::Remove),
            serde_json::Value::Number(n) => Ok(LoadAction::Ramp(n.as_f64().unwrap_or(f64::NAN))),
            other => Err(D::Error::custom(format!(
                "unknown load action {other}: use \"add\", \"remove\" or a number (the load's scale at the \
                 phase's end, reached linearly: 0 lifts it, 1 sets it down)"
            ))),
        }
    }
}

#[derive(Deserialize, Debug, Clone)]
#[serde(rename_all = "lowercase", deny_unknown_fields)]
pub enum Selector {
    /// Vertices inside an axis-aligned box (initial positions).
    Box {
        min: [f64; 3],
        max: [f64; 3],
    },
    Indices(Vec<u32>),
    /// A side of a generated grid: left, right, bottom, top.
    Side(String),
    /// A ring of a generated cylinder: bottom, top.
    Ring(String),
    /// A vertex group of an OBJ mesh (its `o`/`g` names, or
    /// `cloth.mesh.obj.groups`).
    Group(String),
}

#[derive(Deserialize, Debug, Clone, Copy)]
#[serde(deny_unknown_fields)]
pub struct AxisSpec {
    pub point: [f64; 3],
    pub direction: [f64; 3],
}

#[derive(Deserialize, Debug)]
#[serde(deny_unknown_fields)]
pub struct PhaseSpec {
    pub name: String,
    /// Seconds of simulated time.
    pub duration: f64,
    /// What each handle does; handles not named keep their state (held
    /// handles hold still, released ones stay free).
    #[serde(default)]
    pub handles: BTreeMap<String, Action>,
    /// Seconds of material time the phase stands for (docs/physics.md
    /// "Material time"); 0 = the phase's own duration.
    #[serde(default)]
    pub material_time: f64,
    /// What each obstacle does; obstacles not named keep their state.
    #[serde(default)]
    pub obstacles: BTreeMap<String, ObstacleAction>,
    /// Loads switched on (`"add"`) or off (`"remove"`); loads not named
    /// keep their state.
    #[serde(default)]
    pub loads: BTreeMap<String, LoadAction>,
    /// `false`: every stuck vertex lets go and none sticks during the
    /// phase; `true`: sticking again; absent: as before.
    #[serde(default)]
    pub sticking: Option<bool>,
}

/// `"hold"`, `"release"`, or a motion `{"translate": [..], "rotate": {..}}`
/// spread linearly over the phase. A released handle that is told to hold or
/// move grabs the cloth again where it is.
#[derive(Debug, Clone)]
pub enum Action {
    Hold,
    Release,
    Move(Motion),
}

#[derive(Deserialize, Debug, Clone, Default)]
#[serde(deny_unknown_fields)]
pub struct Motion {
    /// Displacement over the phase, metres.
    #[serde(default)]
    pub translate: Option<[f64; 3]>,
    #[serde(default)]
    pub rotate: Option<RotateSpec>,
}

#[derive(Deserialize, Debug, Clone, Copy)]
#[serde(deny_unknown_fields)]
pub struct RotateSpec {
    pub axis: [f64; 3],
    /// A point on the axis (world coordinates).
    #[serde(default)]
    pub point: [f64; 3],
    /// Angle over the phase, radians (right-handed about `axis`).
    pub angle: f64,
}

impl<'de> Deserialize<'de> for Action {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        match serde_json::Value::deserialize(d)? {
            serde_json::Value::String(s) if s == "hold" => Ok(Action::Hold),
            serde_json::Value::String(s) if s == "release" => Ok(Action::Release),
            v @ serde_json::Value::Object(_) => serde_json::from_value(v).map(Action::Move).map_err(D::Error::custom),
            other => Err(D::Error::custom(format!(
                "unknown handle action {other}: use \"hold\", \"release\" or {{\"translate\": [x, y, z], \"rotate\": {{\"axis\", \"point\", \"angle\"}}}}"
            ))),
        }
    }
}

#[derive(Deserialize, Debug)]
#[serde(deny_unknown_fields)]
pub struct OutputSpec {
    /// Simulated seconds between output frames (default 0.01).
    #[serde(default)]
    pub frame_interval: Option<f64>,
    /// Output frames per second (instead of `frame_interval`).
    #[serde(default)]
    pub fps: Option<f64>,
    /// What a run writes (default: OBJ frames).
    #[serde(default = "default_formats")]
    pub formats: Vec<Format>,
}

/// A format a run writes its frames in.
#[derive(Deserialize, Debug, Clone, Copy, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum Format {
    /// `frames/NNNNN.obj`, one file a frame.
    Obj,
    /// `cloth.usda`: the cloth and the obstacles, time-sampled.
    Usd,
}

fn default_formats() -> Vec<Format> {
    vec![Format::Obj]
}

impl Default for OutputSpec {
    fn default() -> Self {
        OutputSpec {
            frame_interval: None,
            fps: None,
            formats: default_formats(),
        }
    }
}
