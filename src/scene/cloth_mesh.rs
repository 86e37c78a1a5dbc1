//! The cloth's mesh built from its scene spec (a grid, a cylinder, an OBJ),
//! and the vertex selectors handles, regions and sticking use.

use super::schema::{MeshSpec, Selector};
use crate::error::{Error, Result};
use crate::mesh::{self, TriMesh};
use glam::DVec3;
use std::path::Path;

pub(super) fn build_mesh(label: &str, spec: &MeshSpec, base: &Path) -> Result<TriMesh> {
    let err = |field: &str, msg: String| Error::scene(label, field, msg);
    match spec {
        MeshSpec::Grid(g) => {
            for (k, v) in g.size.iter().enumerate() {
                if !(v.is_finite() && *v > 0.0) {
                    return Err(err(
                        &format!("cloth.mesh.grid.size[{k}]"),
                        format!("must be a positive length in metres, got {v}"),
                    ));
                }
            }
            if g.resolution.contains(&0) {
                return Err(err(
                    "cloth.mesh.grid.resolution",
                    "needs at least one quad along each side".into(),
                ));
            }
            let origin = DVec3::from_array(g.origin);
            if !origin.is_finite() {
                return Err(err("cloth.mesh.grid.origin", "must be finite".into()));
            }
            let axes = g.plane.axes();
            let (nx, ny) = (g.resolution[0], g.resolution[1]);
            Ok(mesh::grid(g.size[0], g.size[1], nx, ny, g.pattern, origin, axes))
        }
        MeshSpec::Cylinder(c) => {
            if !(c.radius.is_finite() && c.radius > 0.0 && c.height.is_finite() && c.height > 0.0) {
                return Err(err(
                    "cloth.mesh.cylinder",
                    format!("radius and height must be positive, got {} and {}", c.radius, c.height),
                ));
            }
            if c.rings < 2 || c.segments < 3 {
                return Err(err(
                    "cloth.mesh.cylinder",
                    format!("needs rings >= 2 and segments >= 3, got {} and {}", c.rings, c.segments),
                ));
            }
            Ok(mesh::cylinder(c.radius, c.height, c.rings, c.segments))
        }
        MeshSpec::Obj(o) => {
            if !(o.uv_scale.is_finite() && o.uv_scale > 0.0) {
                return Err(err(
                    "cloth.mesh.obj.uv_scale",
                    format!("must be positive, got {}", o.uv_scale),
                ));
            }
            let path = base.join(&o.path);
            if !path.exists() {
                return Err(err(
                    "cloth.mesh.obj.path",
                    format!(
                        "mesh file {} does not exist (paths are relative to the scene file's folder)",
                        path.display()
                    ),
                ));
            }
            mesh::read_obj(&path, o.uv_scale)
        }
    }
}

pub(super) fn select(mesh: &TriMesh, s: &Selector) -> std::result::Result<Vec<u32>, String> {
    let named = |kind: &str, which: &str, allowed: &[&str], generator: &str| {
        if !allowed.contains(&which) {
            return Err(format!("unknown {kind} `{which}` (use one of: {})", allowed.join(", ")));
        }
        mesh.named_sets
            .get(&format!("{kind}:{which}"))
            .cloned()
            .ok_or_else(|| format!("`{kind}` selectors need a {generator} mesh; use `box` or `indices` for this one"))
    };
    let mut v = match s {
        Selector::Box { min, max } => {
            let (lo, hi) = (DVec3::from_array(*min), DVec3::from_array(*max));
            if !lo.is_finite() || !hi.is_finite() {
                return Err("box corners must be finite".into());
            }
            (0..mesh.positions.len() as u32)
                .filter(|&i| {
                    let p = mesh.positions[i as usize];
                    p.cmpge(lo).all() && p.cmple(hi).all()
                })
                .collect()
        }
        Selector::Indices(ix) => {
            let n = mesh.positions.len();
            if let Some(bad) = ix.iter().find(|&&i| i as usize >= n) {
                return Err(format!("index {bad} is out of range (the mesh has {n} vertices)"));
            }
            ix.clone()
        }
        Selector::Side(which) => named("side", which, &["left", "right", "bottom", "top", "all"], "grid")?,
        Selector::Ring(which) => named("ring", which, &["bottom", "top"], "cylinder")?,
    };
    v.sort_unstable();
    v.dedup();
    Ok(v)
}
