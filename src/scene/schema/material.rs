//! A cloth's material as a scene writes it: a preset name, or a preset with
//! overrides, or every field inline (resolved by `scene/material.rs`).

use crate::model::channel::{FrictionModel, PlasticModel};
use serde::de::Error as _;
use serde::{Deserialize, Deserializer};

/// A preset name, or an object with an optional `preset` and overrides.
#[derive(Debug)]
pub enum MaterialSpec {
    Preset(String),
    Fields(Box<MaterialFields>),
}

#[derive(Deserialize, Debug, Default)]
#[serde(deny_unknown_fields)]
pub struct MaterialFields {
    pub preset: Option<String>,
    pub density: Option<f64>,
    pub bending: Option<f64>,
    /// `"discrete-shell"` (default) or `"bridson"` (model/bending.rs).
    pub bending_model: Option<crate::model::bending::BendingModel>,
    /// `"angle"` (default) or `"curvature"`: the bending channel's strain
    /// (model/bending.rs `BendingStrain`).
    pub bending_strain: Option<crate::model::bending::BendingStrain>,
    /// Bridson's bending damping `k_d`, N s.
    pub bending_damping: Option<f64>,
    /// Melo's buckling factor `phi`, N (model/cosserat.rs).
    pub coupling: Option<f64>,
    /// `[k11, k12, k22, k33]`, N/m.
    pub stretching: Option<[f64; 4]>,
    #[serde(default)]
    pub bending_friction: FrictionSpec<f64>,
    #[serde(default)]
    pub bending_plasticity: PlasticSpec<f64>,
    #[serde(default)]
    pub in_plane_friction: FrictionSpec<PerChannel>,
    #[serde(default)]
    pub in_plane_plasticity: PlasticSpec<PerChannel>,
}

/// Friction model and parameter overrides of a channel family.
#[derive(Deserialize, Debug)]
#[serde(deny_unknown_fields)]
pub struct FrictionSpec<T> {
    pub model: Option<FrictionModel>,
    /// Dwell: friction stiffness, thresholds, dwell time constant (s).
    pub stiffness: Option<T>,
    pub eps_0: Option<T>,
    pub eps_inf: Option<T>,
    pub tau: Option<T>,
    /// Decades of log time the dwell spreads over (model/decay.rs), 0-6.
    pub spread: Option<T>,
    /// Decades the dwell's time constant scatters over from element to
    /// element (model/decay.rs `scatter`), 0-6.
    pub scatter: Option<T>,
    /// How the scatter leans to the long times (model/decay.rs `scatter`:
    /// the elements per decade grow as `tau^scatter_skew`), -2 to 2.
    pub scatter_skew: Option<T>,
    /// Dahl: `sigma_max = dahl_a + dahl_b |eps|`, time constant in strain units.
    pub dahl_a: Option<T>,
    pub dahl_b: Option<T>,
    pub dahl_tau: Option<T>,
}

/// Plasticity model and parameter overrides of a channel family.
#[derive(Deserialize, Debug)]
#[serde(deny_unknown_fields)]
pub struct PlasticSpec<T> {
    pub model: Option<PlasticModel>,
    pub k_h0: Option<T>,
    pub g: Option<T>,
    pub tau: Option<T>,
    /// Decades of log time the decay spreads over (model/decay.rs), 0-6.
    pub spread: Option<T>,
    pub yield_strain: Option<T>,
}

impl<T> Default for FrictionSpec<T> {
    fn default() -> Self {
        FrictionSpec {
            model: None,
            stiffness: None,
            eps_0: None,
            eps_inf: None,
            tau: None,
            spread: None,
            scatter: None,
            scatter_skew: None,
            dahl_a: None,
            dahl_b: None,
            dahl_tau: None,
        }
    }
}

impl<T> Default for PlasticSpec<T> {
    fn default() -> Self {
        PlasticSpec {
            model: None,
            k_h0: None,
            g: None,
            tau: None,
            spread: None,
            yield_strain: None,
        }
    }
}

/// An in-plane parameter: one number for all three channels, or
/// `[uu, vv, uv]`.
#[derive(Debug, Clone, Copy)]
pub struct PerChannel(pub [f64; 3]);

impl<'de> Deserialize<'de> for PerChannel {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        match serde_json::Value::deserialize(d)? {
            serde_json::Value::Number(n) => n
                .as_f64()
                .map(|x| PerChannel([x; 3]))
                .ok_or_else(|| D::Error::custom("expected a number")),
            v @ serde_json::Value::Array(_) => serde_json::from_value::<[f64; 3]>(v)
                .map(PerChannel)
                .map_err(D::Error::custom),
            other => Err(D::Error::custom(format!(
                "expected a number or [uu, vv, uv], got {other}"
            ))),
        }
    }
}

impl<'de> Deserialize<'de> for MaterialSpec {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        match serde_json::Value::deserialize(d)? {
            serde_json::Value::String(s) => Ok(MaterialSpec::Preset(s)),
            // The field inside the material is named in the message (the
            // outer path stops at `cloth.material`).
            v @ serde_json::Value::Object(_) => serde_path_to_error::deserialize(v)
                .map(|f| MaterialSpec::Fields(Box::new(f)))
                .map_err(|e| match e.path().to_string().as_str() {
                    "." => D::Error::custom(e.into_inner()),
                    path => D::Error::custom(format!("`{path}`: {}", e.into_inner())),
                }),
            other => Err(D::Error::custom(format!(
                "expected a preset name or an object {{\"preset\", \"density\", \"bending\", \"stretching\"}}, got {other}"
            ))),
        }
    }
}
