//! Reading a deforming obstacle from a USD file (`.usda`, `.usdc` or
//! `.usdz`, as Blender, Houdini and Maya export an animated mesh, read by
//! the `openusd` crate): one `Mesh` prim's `points` at every time code of
//! the stage, placed by its transforms and those of its ancestors, turned
//! to +Y up and scaled to metres by the stage's `upAxis` and
//! `metersPerUnit`. Time code `startTimeCode` is time 0 and
//! `timeCodesPerSecond` the frame rate, so the body moves as the file plays.

use super::frames::placement;
use super::schema::UsdSpec;
use crate::collide::body::BodyMesh;
use crate::collide::sequence::Sequence;
use crate::error::{Error, Result};
use glam::{DMat4, DVec3};
use openusd::schemas::geom::{Gprim, Imageable, Mesh, PointBased, Xformable};
use openusd::sdf;
use openusd::usd::{Prim, PrimPredicate, SchemaBase, SchemaKind, Stage, TimeCode};
use std::path::Path;
use std::sync::Arc;

/// Most time codes a body may have.
const MAX_FRAMES: f64 = 100_000.0;

/// Any prim, for its transform (the crate's typed views each check the
/// prim's type; an ancestor may be an `Xform`, a `Mesh` or anything
/// transformable).
struct Node(Prim);

impl SchemaBase for Node {
    const KIND: SchemaKind = SchemaKind::AbstractTyped;
    fn prim(&self) -> &Prim {
        &self.0
    }
}
impl Imageable for Node {}
impl Xformable for Node {}

/// Reads the body of `spec`; `err(field, message)` builds the error.
pub fn load(base: &Path, spec: &UsdSpec, err: &dyn Fn(&str, String) -> Error) -> Result<Sequence> {
    let (scale, shift) = placement(spec.scale, spec.translate, spec.reach, err)?;
    let file = base.join(&spec.path);
    if !file.is_file() {
        return Err(err(
            "path",
            format!(
                "{} does not exist (paths are relative to the scene file's folder)",
                file.display()
            ),
        ));
    }
    let bad = |m: String| Error::mesh(file.display().to_string(), m);
    let stage = Stage::open(&file.to_string_lossy()).map_err(|e| bad(format!("is not a USD file that opens ({e})")))?;
    let mesh = find_mesh(&stage, spec.prim.as_deref()).map_err(|m| err("prim", format!("{}: {m}", file.display())))?;
    let name = mesh.path().as_str().to_string();
    let bad_prim = |m: String| bad(format!("prim {name}: {m}"));
    let read = |e: anyhow::Error| bad_prim(format!("cannot be read ({e})"));
    if mesh.prim().has_api_schema("SkelBindingAPI").map_err(read)? {
        return Err(bad_prim(
            "is skinned to a UsdSkel skeleton, which crease does not evaluate (the body would stand still): \
             export the deformed points per frame instead (Blender: USD export with Armatures off; Houdini, Maya: \
             bake the deformation)"
                .into(),
        ));
    }

    // The stage's frames: every time code of its range, else the points'
    // own samples, else one frame.
    let (start, end) = (stage.start_time_code(), stage.end_time_code());
    let codes: Vec<f64> = if stage.has_authored_time_code_range() && end >= start {
        if end - start >= MAX_FRAMES {
            return Err(bad(format!(
                "plays from time code {start} to {end}, more than {MAX_FRAMES} frames; export a shorter range"
            )));
        }
        (0..=(end - start).floor() as u64).map(|k| start + k as f64).collect()
    } else {
        let samples = mesh.points_attr().time_sample_times().map_err(read)?;
        if samples.is_empty() { vec![start] } else { samples }
    };
    let fps = stage.time_codes_per_second();
    if !(fps.is_finite() && fps > 0.0) {
        return Err(bad(format!(
            "has timeCodesPerSecond = {fps}; it must be a positive rate"
        )));
    }

    let faces = triangles(&mesh, codes[0]).map_err(bad_prim)?;
    let to_world = stage_axes(&stage);
    let mut frames: Vec<Vec<DVec3>> = Vec::with_capacity(codes.len());
    for &code in &codes {
        let points: Vec<[f32; 3]> = mesh
            .points_attr()
            .get_at(TimeCode::new(code))
            .map_err(read)?
            .ok_or_else(|| bad_prim(format!("has no points at time code {code}")))?;
        if let Some(first) = frames.first()
            && first.len() != points.len()
        {
            return Err(bad_prim(format!(
                "has {} points at time code {code} but {} at {}: every frame must have the same vertices",
                points.len(),
                first.len(),
                codes[0]
            )));
        }
        let m = to_world * world_transform(&stage, &mesh, code).map_err(read)?;
        let x: Vec<DVec3> = points
            .iter()
            .map(|p| m.transform_point3(DVec3::from_array(p.map(f64::from))) * scale + shift)
            .collect();
        if let Some(v) = x.iter().position(|p| !p.is_finite()) {
            return Err(bad_prim(format!("point {} is not finite at time code {code}", v + 1)));
        }
        frames.push(x);
    }
    let largest = faces.iter().flatten().copied().max().unwrap_or(0) as usize;
    if largest >= frames[0].len() {
        return Err(bad_prim(format!(
            "a face names point {}, but there are {}",
            largest + 1,
            frames[0].len()
        )));
    }
    Ok(Sequence {
        mesh: Arc::new(BodyMesh::new(&frames[0], &faces)),
        faces,
        frames,
        fps,
        looped: spec.looped,
        reach: spec.reach,
    })
}

/// The `Mesh` prim at `path`, or the stage's only one.
fn find_mesh(stage: &Stage, path: Option<&str>) -> std::result::Result<Mesh, String> {
    if let Some(p) = path {
        let sdf_path = sdf::Path::new(p).map_err(|e| format!("`{p}` is not a prim path ({e})"))?;
        if let Ok(Some(mesh)) = Mesh::get(stage, sdf_path) {
            return Ok(mesh);
        }
    }
    let mut meshes = Vec::new();
    stage
        .traverse(PrimPredicate::DEFAULT, |p| {
            if let Ok(Some(mesh)) = Mesh::get(stage, p.clone()) {
                meshes.push(mesh);
            }
        })
        .map_err(|e| format!("cannot be traversed ({e})"))?;
    let names = || {
        meshes
            .iter()
            .map(|m| m.path().as_str().to_string())
            .collect::<Vec<_>>()
            .join(", ")
    };
    match (path, meshes.len()) {
        (Some(p), 0) => Err(format!("has no Mesh prim `{p}`, and no Mesh prims at all")),
        (Some(p), _) => Err(format!("has no Mesh prim `{p}`; its Mesh prims: {}", names())),
        (None, 0) => Err("has no Mesh prim".into()),
        (None, 1) => Ok(meshes.remove(0)),
        (None, _) => Err(format!("has several Mesh prims ({}): name one with `prim`", names())),
    }
}

/// The mesh's faces fanned into triangles, counter-clockwise (a
/// `leftHanded` mesh's faces are turned over).
fn triangles(mesh: &Mesh, code: f64) -> std::result::Result<Vec<[u32; 3]>, String> {
    let get = |attr: openusd::usd::Attribute, what: &str| -> std::result::Result<Vec<i32>, String> {
        attr.get_at::<sdf::Value>(TimeCode::new(code))
            .map_err(|e| format!("its {what} cannot be read ({e})"))?
            .ok_or_else(|| format!("has no {what}"))?
            .try_as_int_vec()
            .ok_or_else(|| format!("its {what} are not integers"))
    };
    let counts = get(mesh.face_vertex_counts_attr(), "faceVertexCounts")?;
    let indices = get(mesh.face_vertex_indices_attr(), "faceVertexIndices")?;
    let left = mesh
        .orientation_attr()
        .get_at::<sdf::Value>(TimeCode::new(code))
        .ok()
        .flatten()
        .and_then(|v| v.try_as_token())
        .is_some_and(|t| t.as_str() == "leftHanded");
    let mut faces = Vec::new();
    let mut at = 0usize;
    for (f, &n) in counts.iter().enumerate() {
        let n = usize::try_from(n).unwrap_or(0);
        let corners = indices.get(at..at + n).filter(|_| n >= 3).ok_or_else(|| {
            format!(
                "face {} has {n} corners past the end of faceVertexIndices, or fewer than 3",
                f + 1
            )
        })?;
        if let Some(bad) = corners.iter().find(|&&v| v < 0) {
            return Err(format!("face {} names point {bad}", f + 1));
        }
        for k in 1..n - 1 {
            let t = [corners[0], corners[k], corners[k + 1]].map(|v| v as u32);
            faces.push(if left { [t[0], t[2], t[1]] } else { t });
        }
        at += n;
    }
    if faces.is_empty() {
        return Err("has no faces; a body needs triangles".into());
    }
    Ok(faces)
}

/// A USD matrix (row vectors, `p' = p M`, rows in order) as glam's
/// column-vector matrix: the same numbers, read as columns.
fn matrix(m: openusd::gf::Matrix4d) -> DMat4 {
    DMat4::from_cols_array(&m.0)
}

/// The prim's local-to-world transform at `code`: its own and its
/// ancestors' transforms, up to the root or a `!resetXformStack!`.
fn world_transform(stage: &Stage, mesh: &Mesh, code: f64) -> anyhow::Result<DMat4> {
    let mut m = DMat4::IDENTITY;
    let mut path = Some(mesh.path().clone());
    while let Some(p) = path.filter(|p| !p.is_abs_root()) {
        let node = Node(stage.prim(p.clone()));
        m = matrix(node.local_to_parent_transform(TimeCode::new(code))?) * m;
        if node.resets_xform_stack()? {
            break;
        }
        path = p.parent();
    }
    Ok(m)
}

/// The stage's units and up axis turned into metres with +Y up.
fn stage_axes(stage: &Stage) -> DMat4 {
    let metadata = |key: &str| stage.stage_metadata(key).ok().flatten();
    // USD's own fallbacks: centimetres, +Y up.
    let metres = metadata("metersPerUnit")
        .and_then(|v| v.try_as_double())
        .filter(|m| m.is_finite() && *m > 0.0)
        .unwrap_or(0.01);
    let z_up = metadata("upAxis")
        .and_then(|v| v.try_as_token())
        .is_some_and(|t| t.as_str() == "Z");
    // Z up to Y up: (x, y, z) -> (x, z, -y), as Blender's OBJ exporter turns it.
    let turn = match z_up {
        true => DMat4::from_rotation_x(-std::f64::consts::FRAC_PI_2),
        false => DMat4::IDENTITY,
    };
    DMat4::from_scale(DVec3::splat(metres)) * turn
}
