//! The cloth's mesh built from its scene spec (a grid, a cylinder, an OBJ),
//! and the vertex selectors handles, regions and sticking use.

use super::schema::{MeshSpec, Selector};
use crate::error::{Error, Result};
use crate::figure::shape::Shape;
use crate::mesh::{self, TriMesh};
use glam::DVec3;
use std::path::Path;

/// The mesh of `spec`; what loads but looks wrong goes to `warnings`.
pub(super) fn build_mesh(
    label: &str,
    spec: &MeshSpec,
    base: &Path,
    per_vertex: u64,
    warnings: &mut Vec<String>,
) -> Result<TriMesh> {
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
            let vertices = (g.resolution[0] as u128 + 1) * (g.resolution[1] as u128 + 1);
            if vertices > mesh::MAX_VERTICES as u128 {
                return Err(err(
                    "cloth.mesh.grid.resolution",
                    too_many(vertices, g.resolution[0], g.resolution[1]),
                ));
            }
            if let Some(message) = mesh::too_big_for_memory(vertices, per_vertex) {
                return Err(err("cloth.mesh.grid.resolution", message));
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
            let vertices = c.rings as u128 * c.segments as u128;
            if vertices > mesh::MAX_VERTICES as u128 {
                return Err(err("cloth.mesh.cylinder", too_many(vertices, c.rings, c.segments)));
            }
            if let Some(message) = mesh::too_big_for_memory(vertices, per_vertex) {
                return Err(err("cloth.mesh.cylinder", message));
            }
            Ok(mesh::cylinder(c.radius, c.height, c.rings, c.segments))
        }
        MeshSpec::Trousers(g) | MeshSpec::Tshirt(g) => {
            let (field, make): (&str, fn(&Shape, f64) -> TriMesh) = match spec {
                MeshSpec::Trousers(_) => ("cloth.mesh.trousers.edge", crate::figure::trousers::trousers),
                _ => ("cloth.mesh.tshirt.edge", crate::figure::tshirt::tshirt),
            };
            // Below 4 mm a garment has over half a million vertices.
            if !(g.edge.is_finite() && (0.004..=0.1).contains(&g.edge)) {
                return Err(err(field, format!("must be between 0.004 and 0.1 m, got {}", g.edge)));
            }
            Ok(make(&Shape::default(), g.edge))
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
            let mut m = mesh::read_obj(&path, o.uv_scale)?;
            if let Some(message) = mesh::too_big_for_memory(m.positions.len() as u128, per_vertex) {
                return Err(err("cloth.mesh.obj.path", message));
            }
            if let Some(w) = uv_in_metres(&m, o.uv_scale).map_err(|e| err("cloth.mesh.obj.uv_scale", e))? {
                warnings.push(format!("scene {label}: cloth.mesh.obj.uv_scale: {w}"));
            }
            if let Some(groups) = &o.groups {
                add_groups(&mut m, &base.join(groups)).map_err(|e| err("cloth.mesh.obj.groups", e))?;
            }
            Ok(m)
        }
    }
}

fn too_many(vertices: u128, a: usize, b: usize) -> String {
    format!(
        "{a} x {b} makes {vertices} vertices, more than the {} a cloth may have: use a coarser mesh",
        mesh::MAX_VERTICES
    )
}

/// An OBJ's texture coordinates are the cloth's rest shape in metres: their
/// area (times `uv_scale` squared) must be the surface's within a quarter
/// of its lengths either way. A UV map packed into 0..1, as Blender's are,
/// would start the cloth crushed or stretched by the ratio (one 0.4 of its
/// size started with 17.6 J in its membrane and jumped 9 cm in 0.04 s).
/// Within that but more than 10% apart in area, the cloth starts stressed
/// (a pattern cut with ease, or a UV map slightly off): a warning.
fn uv_in_metres(mesh: &TriMesh, uv_scale: f64) -> std::result::Result<Option<String>, String> {
    let Some(uv) = &mesh.uv else {
        return Ok(None);
    };
    let x = &mesh.positions;
    let area: f64 = mesh
        .faces
        .iter()
        .map(|f| {
            0.5 * (x[f[1] as usize] - x[f[0] as usize])
                .cross(x[f[2] as usize] - x[f[0] as usize])
                .length()
        })
        .sum();
    let uv_area: f64 = uv.iter().map(|t| 0.5 * (t[1] - t[0]).perp_dot(t[2] - t[0]).abs()).sum();
    let ratio = (uv_area / area).sqrt();
    if (0.8..=1.25).contains(&ratio) {
        return Ok((!(0.9..=1.1).contains(&(uv_area / area))).then(|| {
            format!(
                "the OBJ's texture coordinates times uv_scale ({uv_scale}) cover {uv_area:.4} m^2 where its surface is \
                 {area:.4} m^2: the cloth starts {:.0}% {} in area; uv_scale {:.4} would fit",
                (1.0 - area / uv_area).abs() * 100.0,
                if uv_area > area { "compressed" } else { "stretched" },
                uv_scale / ratio
            )
        }));
    }
    let start = match ratio < 1.0 {
        true => format!("stretched to {:.2} times its rest lengths", 1.0 / ratio),
        false => format!("compressed to {:.2} of its rest lengths", 1.0 / ratio),
    };
    Err(format!(
        "the OBJ's texture coordinates times uv_scale ({uv_scale}) cover {uv_area:.4} m^2 where its surface is \
         {area:.4} m^2: they are taken as the rest shape in metres, and the cloth would start {start}. If the UV \
         map is the garment's pattern at another scale (Blender packs UVs into 0..1), set uv_scale to {:.4}; if it \
         is no pattern, remove the vt lines and each face rests as modelled",
        uv_scale / ratio
    ))
}

/// Adds the vertex groups of the JSON file at `path`, `{"name": [vertex,
/// ...]}` with 1-based vertex numbers (as in the OBJ), to `mesh`'s named
/// sets.
fn add_groups(mesh: &mut TriMesh, path: &Path) -> std::result::Result<(), String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    let groups: std::collections::BTreeMap<String, Vec<u64>> = serde_json::from_str(&text).map_err(|e| {
        format!(
            "{}: {e}; the file must be an object of vertex lists, {{\"name\": [1, 2, ...]}}",
            path.display()
        )
    })?;
    let n = mesh.positions.len();
    for (name, vertices) in groups {
        let key = format!("group:{name}");
        if mesh.named_sets.contains_key(&key) {
            return Err(format!(
                "{}: group `{name}` is also a group of the OBJ (its `o` or `g` lines); rename one of them",
                path.display()
            ));
        }
        if let Some(bad) = vertices.iter().find(|&&v| v == 0 || v > n as u64) {
            return Err(format!(
                "{}: group `{name}` names vertex {bad}, but the mesh's vertices are numbered 1 to {n}, as in the OBJ",
                path.display()
            ));
        }
        let mut set: Vec<u32> = vertices.iter().map(|&v| (v - 1) as u32).collect();
        set.sort_unstable();
        set.dedup();
        mesh.named_sets.insert(key, set);
    }
    Ok(())
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
                return Err(format!(
                    "index {bad} is out of range: the mesh has {n} vertices, and `indices` count from 0 (an OBJ's \
                     vertex k is index k - 1)"
                ));
            }
            ix.clone()
        }
        Selector::Side(which) => named("side", which, &["left", "right", "bottom", "top", "all"], "grid")?,
        Selector::Ring(which) => named("ring", which, &["bottom", "top"], "cylinder")?,
        Selector::Group(name) => match mesh.named_sets.get(&format!("group:{name}")) {
            Some(set) => set.clone(),
            None => {
                let names: Vec<&str> = mesh.groups().map(|(n, _)| n).collect();
                return Err(match names.is_empty() {
                    true => format!(
                        "unknown group `{name}`: this mesh has no groups (an OBJ's `o` and `g` lines, or cloth.mesh.obj.groups, name them)"
                    ),
                    false => format!("unknown group `{name}` (the mesh has: {})", names.join(", ")),
                });
            }
        },
    };
    v.sort_unstable();
    v.dedup();
    Ok(v)
}
