//! Resolution of the scene's `obstacles`: shapes checked field by field,
//! then baked into signed-distance grids (mesh bakes through the cache);
//! deforming bodies read frame by frame (`frames.rs`).

use super::schema::{MannequinSpec, ObstacleSpec, SequenceSpec, ShapeSpec, StickySpec};
use crate::collide::cache;
use crate::collide::mesh_sdf::MeshSdf;
use crate::collide::sequence::Sequence;
use crate::collide::{Obstacle, SdfGrid, Shape, Surface};
use crate::error::{Error, Result};
use crate::figure::clips::{Clip, Timing};
use crate::util::Fnv;
use glam::DVec3;
use std::path::Path;
use std::sync::Arc;

/// Cells along the longest side of a grid whose cell is not given.
const DEFAULT_CELLS: f64 = 64.0;

struct Ctx<'a> {
    label: &'a str,
    base: &'a Path,
    /// The bytes of every mesh file the shape reads (with the shape's
    /// fields and the grid box, the key of a cached bake).
    hash: Fnv,
}

impl Ctx<'_> {
    fn err(&self, field: &str, msg: String) -> Error {
        Error::scene(self.label, field, msg)
    }

    fn point(&self, field: &str, v: [f64; 3]) -> Result<DVec3> {
        let p = DVec3::from_array(v);
        if p.is_finite() {
            Ok(p)
        } else {
            Err(self.err(field, format!("must be three finite numbers, got {v:?}")))
        }
    }

    fn direction(&self, field: &str, v: [f64; 3]) -> Result<DVec3> {
        let d = self.point(field, v)?;
        if d.length() == 0.0 {
            return Err(self.err(field, "must not be the zero vector".into()));
        }
        Ok(d.normalize())
    }

    fn length(&self, field: &str, v: f64) -> Result<f64> {
        if v.is_finite() && v > 0.0 {
            Ok(v)
        } else {
            Err(self.err(field, format!("must be a positive length in metres, got {v}")))
        }
    }

    fn shape(&mut self, field: &str, s: &ShapeSpec) -> Result<Shape> {
        let f = |k: &str| format!("{field}.{k}");
        Ok(match s {
            ShapeSpec::Plane { point, normal } => Shape::Plane {
                point: self.point(&f("plane.point"), *point)?,
                normal: self.direction(&f("plane.normal"), *normal)?,
            },
            ShapeSpec::Sphere { center, radius } => Shape::Sphere {
                center: self.point(&f("sphere.center"), *center)?,
                radius: self.length(&f("sphere.radius"), *radius)?,
            },
            ShapeSpec::Box {
                center,
                half_extents,
                rounding,
            } => {
                let half = self.point(&f("box.half_extents"), *half_extents)?;
                if half.min_element() <= 0.0 {
                    return Err(self.err(
                        &f("box.half_extents"),
                        format!("must be positive, got {half_extents:?}"),
                    ));
                }
                if !(rounding.is_finite() && *rounding >= 0.0 && *rounding <= half.min_element()) {
                    return Err(self.err(
                        &f("box.rounding"),
                        format!(
                            "must be between 0 and the smallest half extent ({}), got {rounding}",
                            half.min_element()
                        ),
                    ));
                }
                Shape::Box {
                    center: self.point(&f("box.center"), *center)?,
                    half,
                    rounding: *rounding,
                }
            }
            ShapeSpec::Capsule { a, b, radius } => Shape::Capsule {
                a: self.point(&f("capsule.a"), *a)?,
                b: self.point(&f("capsule.b"), *b)?,
                radius: self.length(&f("capsule.radius"), *radius)?,
            },
            ShapeSpec::Cylinder {
                center,
                radius,
                height,
                axis,
            } => Shape::Cylinder {
                center: self.point(&f("cylinder.center"), *center)?,
                axis: self.direction(&f("cylinder.axis"), *axis)?,
                radius: self.length(&f("cylinder.radius"), *radius)?,
                height: self.length(&f("cylinder.height"), *height)?,
            },
            ShapeSpec::Container {
                center,
                radius,
                height,
                wall,
                rounding,
                axis,
            } => {
                let wall = self.length(&f("container.wall"), *wall)?;
                if !(rounding.is_finite() && *rounding >= 0.0 && *rounding <= 0.5 * wall) {
                    return Err(self.err(
                        &f("container.rounding"),
                        format!("must be between 0 and half the wall ({}), got {rounding}", 0.5 * wall),
                    ));
                }
                Shape::Container {
                    center: self.point(&f("container.center"), *center)?,
                    axis: self.direction(&f("container.axis"), *axis)?,
                    radius: self.length(&f("container.radius"), *radius)?,
                    height: self.length(&f("container.height"), *height)?,
                    wall,
                    rounding: *rounding,
                }
            }
            ShapeSpec::Union(parts) => {
                if parts.is_empty() {
                    return Err(self.err(&f("union"), "needs at least one shape".into()));
                }
                let mut out = Vec::new();
                for (k, p) in parts.iter().enumerate() {
                    out.push(self.shape(&f(&format!("union[{k}]")), p)?);
                }
                Shape::Union(out)
            }
            ShapeSpec::Sequence(_) | ShapeSpec::Usd(_) | ShapeSpec::Mannequin(_) => {
                return Err(self.err(
                    field,
                    "a deforming body (sequence, usd, mannequin) cannot be part of a union: make it an obstacle of \
                     its own"
                        .into(),
                ));
            }
            ShapeSpec::Mesh { path, scale, translate } => {
                let scale = self.length(&f("mesh.scale"), *scale)?;
                let shift = self.point(&f("mesh.translate"), *translate)?;
                let file = self.base.join(path);
                let bytes = std::fs::read(&file).map_err(|e| {
                    self.err(
                        &f("mesh.path"),
                        format!(
                            "cannot read {} ({e}); paths are relative to the scene file's folder",
                            file.display()
                        ),
                    )
                })?;
                self.hash = self.hash.bytes(&bytes);
                let mut mesh = crate::mesh::read_obj(&file, 1.0)?;
                for p in &mut mesh.positions {
                    *p = *p * scale + shift;
                }
                let sdf =
                    MeshSdf::new(&mesh).map_err(|m| self.err(&f("mesh.path"), format!("{}: {m}", file.display())))?;
                Shape::Mesh(Arc::new(sdf))
            }
        })
    }
}

/// Bakes every obstacle. `cloth_bounds` sizes the grids of unbounded shapes.
pub fn resolve(
    label: &str,
    base: &Path,
    specs: &std::collections::BTreeMap<String, ObstacleSpec>,
    cloth_bounds: (DVec3, DVec3),
) -> Result<Vec<Obstacle>> {
    let mut out = Vec::new();
    for (name, spec) in specs {
        let field = |k: &str| format!("obstacles.{name}.{k}");
        let mut ctx = Ctx {
            label,
            base,
            hash: Fnv::default(),
        };
        if !(spec.friction.is_finite() && spec.friction >= 0.0) {
            return Err(ctx.err(
                &field("friction"),
                format!("must be a non-negative number, got {}", spec.friction),
            ));
        }
        let thickness = ctx.length(&field("thickness"), spec.thickness)?;
        if let ShapeSpec::Sequence(_) | ShapeSpec::Usd(_) | ShapeSpec::Mannequin(_) = &spec.shape {
            let grid_only = [
                ("cell", spec.cell.is_some()),
                ("bounds", spec.bounds.is_some()),
                ("sticky", spec.sticky.is_some()),
            ];
            if let Some((k, _)) = grid_only.iter().find(|(_, given)| *given) {
                return Err(ctx.err(
                    &field(k),
                    "applies to rigid shapes only; a sequence is probed directly and cannot be sticky: remove it"
                        .into(),
                ));
            }
            let sequence = match &spec.shape {
                ShapeSpec::Usd(usd) => {
                    let err = |k: &str, m: String| ctx.err(&field(&format!("shape.usd.{k}")), m);
                    super::usd_body::load(base, usd, &err)?
                }
                ShapeSpec::Sequence(seq) => {
                    let err = |k: &str, m: String| ctx.err(&field(&format!("shape.sequence.{k}")), m);
                    super::frames::load(base, seq, &err)?
                }
                ShapeSpec::Mannequin(m) => {
                    let err = |k: &str, msg: String| ctx.err(&field(&format!("shape.mannequin.{k}")), msg);
                    mannequin(m, &err)?
                }
                _ => unreachable!("matched above"),
            };
            out.push(Obstacle {
                name: name.clone(),
                surface: Surface::Sequence(Arc::new(sequence)),
                friction: spec.friction,
                thickness,
                enabled: spec.enabled,
                sticky: None,
            });
            continue;
        }
        let shape = ctx.shape(&field("shape"), &spec.shape)?;
        let (slo, shi) = shape.bounds();
        let bounded = slo.is_finite() && shi.is_finite();
        let thinnest = if bounded {
            (shi - slo).min_element()
        } else {
            f64::INFINITY
        };
        let cell_of = |lo: DVec3, hi: DVec3| ((hi - lo).max_element() / DEFAULT_CELLS).min(thinnest / 4.0);
        let (lo, hi, cell) = match (spec.bounds, spec.cell) {
            (Some(b), cell) => {
                let lo = ctx.point(&field("bounds.min"), b.min)?;
                let hi = ctx.point(&field("bounds.max"), b.max)?;
                if !(hi - lo).cmpgt(DVec3::ZERO).all() {
                    return Err(ctx.err(
                        &field("bounds"),
                        format!("max must exceed min on every axis, got {b:?}"),
                    ));
                }
                let cell = match cell {
                    Some(c) => ctx.length(&field("cell"), c)?,
                    None => cell_of(lo, hi),
                };
                (lo, hi, cell)
            }
            (None, cell) => {
                let cell = match cell {
                    Some(c) => ctx.length(&field("cell"), c)?,
                    None if bounded => cell_of(slo, shi),
                    None => {
                        let d = (cloth_bounds.1 - cloth_bounds.0).length();
                        cell_of(cloth_bounds.0 - d, cloth_bounds.1 + d)
                    }
                };
                if bounded {
                    let margin = 8.0 * cell + thickness;
                    (slo - margin, shi + margin, cell)
                } else {
                    let d = (cloth_bounds.1 - cloth_bounds.0).length();
                    (cloth_bounds.0 - d, cloth_bounds.1 + d, cell)
                }
            }
        };
        let bake = || SdfGrid::bake(lo, hi, cell, |p| shape.distance(p));
        let grid = if has_mesh(&spec.shape) {
            let key = ctx
                .hash
                .bytes(format!("{:?}", spec.shape).as_bytes())
                .f64s(&[lo.x, lo.y, lo.z, hi.x, hi.y, hi.z, cell])
                .finish();
            cache::load_or_bake(key, bake)
        } else {
            bake()
        }
        .map_err(|m| ctx.err(&field("cell"), m))?;
        let sticky = match spec.sticky {
            None | Some(StickySpec::All(false)) => None,
            Some(StickySpec::All(true)) => Some((DVec3::NEG_INFINITY, DVec3::INFINITY)),
            Some(StickySpec::Box { r#box: b }) => {
                let lo = ctx.point(&field("sticky.box.min"), b.min)?;
                let hi = ctx.point(&field("sticky.box.max"), b.max)?;
                if !lo.cmplt(hi).all() {
                    return Err(ctx.err(
                        &field("sticky.box"),
                        format!("min must be below max on every axis, got {lo} and {hi}"),
                    ));
                }
                Some((lo, hi))
            }
        };
        out.push(Obstacle {
            name: name.clone(),
            surface: Surface::Grid(Arc::new(grid)),
            friction: spec.friction,
            thickness,
            enabled: spec.enabled,
            sticky,
        });
    }
    Ok(out)
}

/// The mannequin's clip of `spec`: its frames written into the cache (once)
/// and read as the OBJ sequence a user's animation would be.
fn mannequin(spec: &MannequinSpec, err: &dyn Fn(&str, String) -> Error) -> Result<Sequence> {
    let clip = Clip::named(&spec.clip).map_err(|m| err("clip", m))?;
    for (k, v) in [("fps", spec.fps), ("ramp", spec.ramp), ("back", spec.back)] {
        if !(v.is_finite() && v > 0.0) {
            return Err(err(k, format!("must be a positive number, got {v}")));
        }
    }
    if !(spec.hold.is_finite() && spec.hold >= 0.0) {
        return Err(err(
            "hold",
            format!("must be a non-negative number of seconds, got {}", spec.hold),
        ));
    }
    let timing = Timing {
        ramp: spec.ramp,
        hold: spec.hold,
        back: spec.back,
    };
    clip.frames(&timing, spec.fps).map_err(|m| err("fps", m))?;
    let dir = crate::figure::cached_clip(clip, &timing, spec.fps)?;
    let frames = SequenceSpec {
        path: "body####.obj".into(),
        fps: spec.fps,
        start_frame: 1,
        scale: 1.0,
        translate: [0.0; 3],
        looped: false,
        reach: spec.reach,
    };
    super::frames::load(&dir, &frames, err)
}

fn has_mesh(s: &ShapeSpec) -> bool {
    match s {
        ShapeSpec::Mesh { .. } => true,
        ShapeSpec::Union(parts) => parts.iter().any(has_mesh),
        _ => false,
    }
}
