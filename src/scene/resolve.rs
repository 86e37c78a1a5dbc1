//! Validation of a parsed scene file and construction of the resolved
//! [`Scene`] (resolved.rs): defaults filled, mesh built, handles selected,
//! phases counted in steps. Every error names the scene, the field and
//! what to do.

use super::cloth_mesh::{build_mesh, select};
use super::output_interval::output_interval;
use super::resolved::{Attach, Axis, Handle, Phase, Scene, Sticking};
use super::schema::{Action, MeshSpec, ObstacleAction, SceneFile};
use crate::cloth::Cloth;
use crate::collide::proximity::REST_GAP;
use crate::collide::{Obstacle, Pose};
use crate::error::{Error, Result};
use crate::model::bending::BendingModel;
use crate::step::Preconditioner;
use glam::DVec3;
use std::path::Path;

fn vec3(a: [f64; 3]) -> DVec3 {
    DVec3::from_array(a)
}

pub(super) fn resolve(label: &str, name: &str, f: SceneFile, base: &Path) -> Result<Scene> {
    let err = |field: &str, msg: String| Error::scene(label, field, msg);
    let positive = |field: &str, v: f64, unit: &str| -> Result<()> {
        if v.is_finite() && v > 0.0 {
            Ok(())
        } else {
            Err(err(field, format!("must be a positive number{unit}, got {v}")))
        }
    };
    let finite3 = |field: &str, v: [f64; 3]| -> Result<DVec3> {
        if v.iter().all(|c| c.is_finite()) {
            Ok(vec3(v))
        } else {
            Err(err(field, format!("must be three finite numbers, got {v:?}")))
        }
    };
    // A motion's translation, at most MAX_TRANSLATE long.
    let translate = |field: &str, v: [f64; 3]| -> Result<()> {
        if finite3(field, v)?.length() > MAX_TRANSLATE {
            return Err(err(
                field,
                format!("must be at most {MAX_TRANSLATE:e} m long, got {v:?}"),
            ));
        }
        Ok(())
    };
    positive("dt", f.dt, " of seconds")?;
    let gravity = finite3("gravity", f.gravity)?;
    if gravity.length() > MAX_GRAVITY {
        return Err(err(
            "gravity",
            format!(
                "must be at most {MAX_GRAVITY} m/s^2 long (Earth's: 9.81), got {:?}",
                f.gravity
            ),
        ));
    }
    let tol = f.solver.tolerance;
    if !(tol.is_finite() && tol > 0.0 && tol < 1.0) {
        return Err(err("solver.tolerance", format!("must be in (0, 1), got {tol}")));
    }
    if f.solver.readback_interval == 0 {
        return Err(err("solver.readback_interval", "must be at least 1".into()));
    }
    if f.solver.max_iterations == 0 {
        return Err(err("solver.max_iterations", "must be at least 1".into()));
    }
    if f.solver.contact_solves == 1 {
        return Err(err(
            "solver.contact_solves",
            "must be 0 (no resting contacts) or at least 2: with a single solve a contact that pulls could never \
             be released, and the cloth would stay glued to the obstacle"
                .into(),
        ));
    }
    let frame_interval = output_interval(&f.output, f.dt).map_err(|(field, m)| err(field, m))?;
    if f.output.formats.is_empty() {
        return Err(err(
            "output.formats",
            "is empty: give at least one of \"obj\", \"usd\"".into(),
        ));
    }
    let formats = f.output.formats.clone();
    if (1..formats.len()).any(|i| formats[..i].contains(&formats[i])) {
        return Err(err("output.formats", "names a format twice".into()));
    }
    let sc = f.self_collision;
    positive("self_collision.thickness", sc.thickness, " of metres")?;
    positive("self_collision.stiffness", sc.stiffness, " of N/m")?;
    if !(sc.friction.is_finite() && sc.friction >= 0.0) {
        return Err(err(
            "self_collision.friction",
            format!("must be a non-negative number, got {}", sc.friction),
        ));
    }
    for (field, v) in [("air.drag", f.air.drag), ("air.normal_drag", f.air.normal_drag)] {
        if !(v.is_finite() && v >= 0.0) {
            return Err(err(field, format!("must be a non-negative number of N s/m^3, got {v}")));
        }
    }
    finite3("air.wind", f.air.wind)?;
    if let Some(l) = f.strain_limit {
        if !(l.extension.is_finite() && l.extension > 0.0) {
            return Err(err(
                "strain_limit.extension",
                format!(
                    "must be a positive fraction of the rest length (0.1 = 10%), got {}",
                    l.extension
                ),
            ));
        }
        if !(l.compression.is_finite() && (0.0..1.0).contains(&l.compression)) {
            return Err(err(
                "strain_limit.compression",
                format!("must be a fraction in [0, 1) of the rest length, got {}", l.compression),
            ));
        }
        if l.iterations == 0 {
            return Err(err("strain_limit.iterations", "must be at least 1".into()));
        }
    }

    // What a run of this scene takes a vertex, for the memory check.
    let material = super::material::resolve(label, &f.cloth.material)?;
    // `auto` counts the multilevel one's: a mesh large enough to matter
    // takes it.
    let per_vertex = match f.solver.preconditioner {
        Preconditioner::Jacobi => crate::mesh::BYTES_PER_VERTEX,
        Preconditioner::Auto | Preconditioner::Multilevel => crate::mesh::BYTES_PER_VERTEX_MULTILEVEL,
    } + match material.bending_model {
        BendingModel::ShapeOperator => crate::mesh::BYTES_PER_VERTEX_SHAPE_OPERATOR,
        _ => 0,
    };
    let mut warnings = Vec::new();
    let mesh = build_mesh(label, &f.cloth.mesh, base, per_vertex, &mut warnings)?;
    let damping = f.cloth.damping;
    if !(damping.is_finite() && (0.0..=MAX_DAMPING).contains(&damping)) {
        return Err(err(
            "cloth.damping",
            format!(
                "must be a non-negative number of seconds, at most {MAX_DAMPING} (scenes use 0.01-0.1), got {damping:?}"
            ),
        ));
    }
    let warp = finite3("cloth.warp", f.cloth.warp)?;
    if warp.length() == 0.0 {
        return Err(err("cloth.warp", "must not be the zero vector".into()));
    }
    let mut cloth = Cloth::new(mesh, material, damping, warp.normalize())?;
    if let Some(roll) = &f.cloth.roll {
        let MeshSpec::Grid(g) = &f.cloth.mesh else {
            return Err(err(
                "cloth.roll",
                "needs a `grid` mesh (it winds the grid's u axis): remove `roll` or use a grid".into(),
            ));
        };
        let (u, v) = g.plane.axes();
        super::roll::apply(label, roll, g.size[0], vec3(g.origin), u, u.cross(v), &mut cloth)?;
    }
    // Points of the cloth closer than `REST_GAP` thicknesses at rest never
    // pair (collide/proximity.rs). When that spans the whole cloth, no
    // pair can ever form, and the search would test every pair of the
    // cloth's elements each step to find none (O(n^2): a metre's thickness
    // on the 27.9K twist).
    if sc.enabled {
        let (lo, hi) = cloth.mesh.bounds();
        let size = (hi - lo).length();
        if REST_GAP * sc.thickness >= size {
            return Err(err(
                "self_collision.thickness",
                format!(
                    "is {} m: points of the cloth less than {REST_GAP} times that apart at rest never repel, and \
                     the whole cloth is {size:.3e} m across, so no pair could ever form while every pair was \
                     tested each step: give the layers' thickness (a few millimetres, 0.002 by default), or \
                     turn self-collision off (self_collision.enabled = false)",
                    sc.thickness
                ),
            ));
        }
    }
    if let Some(sel) = &f.region {
        let vertices = select(&cloth.mesh, sel).map_err(|m| err("region", m))?;
        let hinges = cloth.topology.hinges_inside(&vertices);
        if hinges.is_empty() {
            return Err(err(
                "region",
                "contains no hinge (both ends of an interior edge): widen it".into(),
            ));
        }
        cloth.region_hinges = Some(hinges);
    }

    let mut handles = Vec::new();
    for (hname, spec) in &f.handles {
        csv_name("a handle", hname).map_err(|m| err(&format!("handles.{hname}"), m))?;
        let field = format!("handles.{hname}.select");
        let vertices = select(&cloth.mesh, &spec.select).map_err(|m| err(&field, m))?;
        if vertices.is_empty() {
            return Err(err(
                &field,
                "selects no vertex: widen the box or check the indices".into(),
            ));
        }
        let torque_axis = match spec.torque_axis {
            Some(a) => Some(axis(
                label,
                &format!("handles.{hname}.torque_axis"),
                a.point,
                a.direction,
            )?),
            None => None,
        };
        handles.push(Handle {
            name: hname.clone(),
            vertices,
            torque_axis,
            attach: None,
        });
    }

    let obstacles = super::obstacles::resolve(label, base, &f.obstacles, cloth.mesh.bounds())?;
    for (handle, spec) in handles.iter_mut().zip(f.handles.values()) {
        if let Some(oname) = &spec.attach {
            let field = format!("handles.{}.attach", handle.name);
            handle.attach =
                Some(attach(&obstacles, oname, &handle.vertices, &cloth.mesh.positions).map_err(|m| err(&field, m))?);
        }
    }
    let sticking = match &f.sticking {
        None => None,
        Some(st) => {
            positive("sticking.stiffness", st.stiffness, " of N/m")?;
            positive("sticking.tolerance", st.tolerance, " of metres")?;
            positive("sticking.release", st.release, " of metres")?;
            let vertices = match &st.cloth {
                Some(sel) => select(&cloth.mesh, sel).map_err(|m| err("sticking.cloth", m))?,
                None => (0..cloth.vertex_count() as u32).collect(),
            };
            let sticky_faces: Vec<u32> = match &st.sticky_cloth {
                Some(sel) => {
                    let picked = select(&cloth.mesh, sel).map_err(|m| err("sticking.sticky_cloth", m))?;
                    let faces: Vec<u32> = (0..cloth.mesh.faces.len() as u32)
                        .filter(|&f| {
                            cloth.mesh.faces[f as usize]
                                .iter()
                                .all(|v| picked.binary_search(v).is_ok())
                        })
                        .collect();
                    if faces.is_empty() {
                        return Err(err(
                            "sticking.sticky_cloth",
                            "selects no whole face: select all three vertices of the sticky faces".into(),
                        ));
                    }
                    faces
                }
                None => Vec::new(),
            };
            if sticky_faces.is_empty() && !obstacles.iter().any(|o| o.sticky.is_some()) {
                return Err(err(
                    "sticking",
                    "nothing is sticky: give an obstacle `\"sticky\": true` (or a box), or select a `sticky_cloth`"
                        .into(),
                ));
            }
            Some(Sticking {
                vertices,
                sticky_faces,
                stiffness: st.stiffness,
                tolerance: st.tolerance,
                release: st.release,
            })
        }
    };

    let (loads, mut scales) = super::loads::resolve(label, &f.loads, &cloth, &finite3)?;

    if f.timeline.is_empty() {
        return Err(err("timeline", "needs at least one phase".into()));
    }
    let mut phases: Vec<Phase> = Vec::new();
    // Handles hold from the start until released.
    let mut held = vec![true; handles.len()];
    for (i, p) in f.timeline.iter().enumerate() {
        let field = |k: &str| format!("timeline[{i}] ({}).{k}", p.name);
        if p.name.is_empty() || phases.iter().any(|q| q.name == p.name) {
            return Err(err(
                &format!("timeline[{i}].name"),
                format!("phase names must be unique and non-empty, got `{}`", p.name),
            ));
        }
        csv_name("a phase", &p.name).map_err(|m| err(&format!("timeline[{i}].name"), m))?;
        positive(&field("duration"), p.duration, " of seconds")?;
        let steps = p.duration / f.dt;
        if steps > MAX_PHASE_STEPS {
            return Err(err(
                &field("duration"),
                format!(
                    "is {steps:.3e} steps of dt = {:?} s, more than {MAX_PHASE_STEPS:.0e}: shorten the phase or \
                     lengthen dt",
                    f.dt
                ),
            ));
        }
        if !(p.material_time.is_finite() && p.material_time >= 0.0) {
            return Err(err(
                &field("material_time"),
                format!("must be a non-negative number of seconds, got {}", p.material_time),
            ));
        }
        let mut actions = vec![None; handles.len()];
        for (hname, action) in &p.handles {
            let k = handles.iter().position(|h| &h.name == hname).ok_or_else(|| {
                let known: Vec<&str> = handles.iter().map(|h| h.name.as_str()).collect();
                err(
                    &field(&format!("handles.{hname}")),
                    format!("no handle named `{hname}` (handles: {})", known.join(", ")),
                )
            })?;
            if let (Action::Move(_), Some(a)) = (action, &handles[k].attach) {
                return Err(err(
                    &field(&format!("handles.{hname}")),
                    format!(
                        "handle `{hname}` rides on obstacle `{}` and moves with it: move the obstacle instead, or \
                         release the handle",
                        obstacles[a.obstacle].name
                    ),
                ));
            }
            if let Action::Move(m) = action {
                let hf = field(&format!("handles.{hname}"));
                if let Some(t) = m.translate {
                    translate(&format!("{hf}.translate"), t)?;
                }
                if let Some(r) = m.rotate {
                    let ax = axis(label, &format!("{hf}.rotate"), r.point, r.axis)?;
                    if !r.angle.is_finite() {
                        return Err(err(
                            &format!("{hf}.rotate.angle"),
                            format!("must be a finite number of radians, got {}", r.angle),
                        ));
                    }
                    if handles[k].torque_axis.is_none() {
                        handles[k].torque_axis = Some(ax);
                    }
                }
            }
            actions[k] = Some(action.clone());
        }
        // Handles may share vertices, but not while both hold them.
        for (k, a) in actions.iter().enumerate() {
            match a {
                Some(Action::Release) => held[k] = false,
                Some(_) => held[k] = true,
                None => {}
            }
        }
        for a in 0..handles.len() {
            for b in a + 1..handles.len() {
                let (ha, hb) = (&handles[a], &handles[b]);
                if held[a] && held[b] && ha.vertices.iter().any(|v| hb.vertices.binary_search(v).is_ok()) {
                    return Err(err(
                        &format!("timeline[{i}] ({})", p.name),
                        format!(
                            "handles `{}` and `{}` both hold some vertices in this phase: release one of them",
                            ha.name, hb.name
                        ),
                    ));
                }
            }
        }
        let mut obstacle_actions = vec![None; obstacles.len()];
        for (oname, action) in &p.obstacles {
            let of = field(&format!("obstacles.{oname}"));
            let k = obstacles.iter().position(|o| &o.name == oname).ok_or_else(|| {
                let known: Vec<&str> = obstacles.iter().map(|o| o.name.as_str()).collect();
                err(
                    &of,
                    format!("no obstacle named `{oname}` (obstacles: {})", known.join(", ")),
                )
            })?;
            if let ObstacleAction::Move(m) = action {
                if let Some(t) = m.translate {
                    translate(&format!("{of}.translate"), t)?;
                }
                if let Some(r) = m.rotate {
                    axis(label, &format!("{of}.rotate"), r.point, r.axis)?;
                    if !r.angle.is_finite() {
                        return Err(err(
                            &format!("{of}.rotate.angle"),
                            format!("must be a finite number of radians, got {}", r.angle),
                        ));
                    }
                }
            }
            obstacle_actions[k] = Some(action.clone());
        }
        let load_scales = super::loads::phase_scales(&loads, &p.loads, &mut scales)
            .map_err(|(lname, m)| err(&field(&format!("loads.{lname}")), m))?;
        phases.push(Phase {
            load_scales,
            name: p.name.clone(),
            obstacle_actions,
            sticking: p.sticking,
            steps: ((p.duration / f.dt).round() as u64).max(1),
            material_time: if p.material_time > 0.0 {
                p.material_time
            } else {
                p.duration
            },
            actions,
        });
    }

    Ok(Scene {
        name: name.to_string(),
        source: label.to_string(),
        description: f.description,
        digest: 0,
        dt: f.dt,
        gravity,
        solver: f.solver,
        self_collision: f.self_collision,
        strain_limit: f.strain_limit,
        air: f.air,
        integrator: f.integrator,
        sticking,
        cloth: std::sync::Arc::new(cloth),
        handles,
        obstacles,
        loads,
        phases,
        frame_interval,
        formats,
        warnings,
    })
}

/// A name that metrics.csv carries as a value or in a column's name (a
/// phase, a handle): no comma, quote or control character, which would
/// split or break its rows.
fn csv_name(what: &str, name: &str) -> std::result::Result<(), String> {
    match name.chars().find(|c| matches!(c, ',' | '"') || c.is_control()) {
        Some(c) => Err(format!(
            "{what}'s name `{}` holds {c:?}, which metrics.csv cannot carry: rename it without commas, quotes \
             or control characters",
            name.escape_debug()
        )),
        None => Ok(()),
    }
}

/// The most steps a phase may take: a billion, days of computing at any
/// size (and a step count that still fits every counter).
const MAX_PHASE_STEPS: f64 = 1e9;

/// The longest gravity (m/s^2), Rayleigh damping (s) and motion (m) a
/// scene may have: far past any use, below where a step's numbers
/// overflow or lose every digit (a translate of 1e300 did, at step 1).
const MAX_GRAVITY: f64 = 1e3;
const MAX_DAMPING: f64 = 1e3;
const MAX_TRANSLATE: f64 = 1e6;

/// Binds `vertices` (at `x`) to obstacle `name` where it is at the start.
fn attach(obstacles: &[Obstacle], name: &str, vertices: &[u32], x: &[DVec3]) -> std::result::Result<Attach, String> {
    let Some(obstacle) = obstacles.iter().position(|o| o.name == name) else {
        let known: Vec<&str> = obstacles.iter().map(|o| o.name.as_str()).collect();
        return Err(match known.is_empty() {
            true => format!("no obstacle named `{name}`: the scene has no obstacles"),
            false => format!("no obstacle named `{name}` (obstacles: {})", known.join(", ")),
        });
    };
    let ride = obstacles[obstacle]
        .carrier(0.0, &Pose::default(), |c| c.bind(vertices, x))
        .map_err(|m| format!("obstacle `{name}`: {m}: the selection is probably the wrong group"))?;
    Ok(Attach { obstacle, ride })
}

fn axis(label: &str, field: &str, point: [f64; 3], direction: [f64; 3]) -> Result<Axis> {
    let (p, d) = (vec3(point), vec3(direction));
    if !p.is_finite() || !d.is_finite() || d.length() == 0.0 {
        return Err(Error::scene(
            label,
            field,
            format!("needs a finite point and a non-zero direction, got {point:?}, {direction:?}"),
        ));
    }
    Ok(Axis {
        point: p,
        direction: d.normalize(),
    })
}
