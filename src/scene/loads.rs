//! A scene's `loads` (schema `LoadSpec`) and the timeline's actions on
//! them, resolved into each load's shares and each phase's scales.

use super::cloth_mesh::select;
use super::schema::{LoadAction, LoadSpec};
use crate::cloth::Cloth;
use crate::error::{Error, Result};
use crate::step::VertexLoad;
use glam::DVec3;
use std::collections::BTreeMap;

/// A scene load: its force shared by its vertices in proportion to their
/// mass.
#[derive(Clone, Debug)]
pub struct Load {
    pub name: String,
    /// The total force, N.
    pub force: DVec3,
    /// Each selected vertex's share, by vertex.
    pub shares: Vec<VertexLoad>,
}

/// The largest load, N: a hundred tonnes, far past any press of cloth.
const MAX_LOAD: f64 = 1e6;

/// The loads of scene `label` in name order, and each one's scale at the
/// start (1 where enabled, else 0). `force` checks a force field (three
/// finite numbers) as the rest of the scene's vectors are checked.
pub(super) fn resolve(
    label: &str,
    specs: &BTreeMap<String, LoadSpec>,
    cloth: &Cloth,
    force: &dyn Fn(&str, [f64; 3]) -> Result<DVec3>,
) -> Result<(Vec<Load>, Vec<f64>)> {
    let mut loads = Vec::new();
    let mut scales = Vec::new();
    for (name, spec) in specs {
        let field = format!("loads.{name}");
        let total = force(&format!("{field}.force"), spec.force)?;
        if total.length() > MAX_LOAD {
            return Err(Error::scene(
                label,
                format!("{field}.force"),
                format!("must be at most {MAX_LOAD:e} N long, got {:?}", spec.force),
            ));
        }
        let select_field = format!("{field}.select");
        let vertices = select(&cloth.mesh, &spec.select).map_err(|m| Error::scene(label, &select_field, m))?;
        if vertices.is_empty() {
            return Err(Error::scene(
                label,
                &select_field,
                "selects no vertex: widen the box or check the indices",
            ));
        }
        let mass: f64 = vertices.iter().map(|&v| cloth.mass[v as usize]).sum();
        let shares = vertices
            .iter()
            .map(|&v| VertexLoad {
                vertex: v,
                force: total * (cloth.mass[v as usize] / mass),
            })
            .collect();
        loads.push(Load {
            name: name.clone(),
            force: total,
            shares,
        });
        scales.push(f64::from(u8::from(spec.enabled)));
    }
    Ok((loads, scales))
}

/// A phase's `actions` on `loads`, whose scales at the phase's start are
/// `scales` (left at its end): each load's scale at the start and the end
/// of the phase. An error names the load and says what is wrong.
pub(super) fn phase_scales(
    loads: &[Load],
    actions: &BTreeMap<String, LoadAction>,
    scales: &mut [f64],
) -> std::result::Result<Vec<[f64; 2]>, (String, String)> {
    // "add" and "remove" act from the phase's first step; a ramp starts
    // from the scale the load has.
    let mut start = scales.to_vec();
    for (name, action) in actions {
        let k = loads.iter().position(|l| &l.name == name).ok_or_else(|| {
            let known: Vec<&str> = loads.iter().map(|l| l.name.as_str()).collect();
            let message = match known.is_empty() {
                true => format!("no load named `{name}`: the scene has no `loads`"),
                false => format!("no load named `{name}` (loads: {})", known.join(", ")),
            };
            (name.clone(), message)
        })?;
        scales[k] = match *action {
            LoadAction::Add => 1.0,
            LoadAction::Remove => 0.0,
            LoadAction::Ramp(r) if r.is_finite() && r >= 0.0 && r * loads[k].force.length() <= MAX_LOAD => r,
            LoadAction::Ramp(r) => {
                return Err((
                    name.clone(),
                    format!(
                        "must be \"add\", \"remove\" or a scale of the load from 0 up (at most {MAX_LOAD:e} N in \
                         all), got {r}"
                    ),
                ));
            }
        };
        if !matches!(action, LoadAction::Ramp(_)) {
            start[k] = scales[k];
        }
    }
    Ok(start.iter().zip(scales.iter()).map(|(&a, &b)| [a, b]).collect())
}
