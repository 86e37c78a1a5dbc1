//! A strip that starts rolled (`cloth.roll`): Miguel et al. 2013 §4.3's
//! bending experiment (Fig. 7, 10), where a strip is wound around a
//! cylinder, the cylinder is removed and the strip unrolls under its weight
//! into a spiral that its bending friction keeps.
//!
//! **Geometry.** A grid's first `flat` metres along u stay as they are (the
//! clamped end). From there the strip turns towards the side opposite its
//! normal, along a spiral whose radius of curvature falls linearly with the
//! turning angle `phi`, `r = R_out - a phi` with `a = gap / 2 pi`, so that
//! successive layers lie `gap` apart and the innermost, at the strip's far
//! end, has the cylinder's `radius` R. Its arc length is
//! `s = R_out phi - a phi^2 / 2`, which fixes `R_out = sqrt(R^2 + 2 a L)`
//! for a rolled length L, and its point, in the (u, -normal) plane, is the
//! closed form of `integral r (cos, sin)`:
//! `(R_out sin phi - a (phi sin phi + cos phi - 1),
//!   R_out (1 - cos phi) - a (sin phi - phi cos phi))`.
//! Rolling bends without stretching, so the strip keeps its flat rest shape
//! (its rest angles are the flat ones).
//!
//! **History** (`preload`). The channels start as if the strip had been
//! rolled slowly and monotonically from flat, then held for `hold`
//! material seconds: each channel is driven from 0 to its rolled strain in
//! `RAMP` updates without material time, then held in `HOLD` updates. For
//! Dahl friction that is Eq. 3's loading path to the anchor (exact in one
//! update); the dwell model and plasticity also see the hold.

use super::schema::RollSpec;
use crate::cloth::Cloth;
use crate::error::{Error, Result};
use crate::model::bending::dihedral;
use crate::model::channel::Channels;
use crate::model::membrane::green_strain;
use glam::DVec3;
use std::f64::consts::PI;

/// Updates that take a channel from rest to its rolled strain.
const RAMP: usize = 32;
/// Updates over the hold.
const HOLD: usize = 32;
/// The largest bend the roll may give a hinge, rad.
const MAX_BEND: f64 = 2.0;

/// Checks `spec` against a grid of `width` along u, rolls the cloth's
/// positions (a grid whose u axis is `axis_u` from `origin`, normal
/// `normal`), and loads its channels.
pub(super) fn apply(
    label: &str,
    spec: &RollSpec,
    width: f64,
    origin: DVec3,
    axis_u: DVec3,
    normal: DVec3,
    cloth: &mut Cloth,
) -> Result<()> {
    let err = |field: &str, msg: String| Error::scene(label, format!("cloth.roll.{field}"), msg);
    if !(spec.radius.is_finite() && spec.radius > 0.0) {
        return Err(err(
            "radius",
            format!("must be a positive radius in metres, got {}", spec.radius),
        ));
    }
    if !(spec.gap.is_finite() && spec.gap >= 0.0) {
        return Err(err(
            "gap",
            format!("must be a non-negative distance in metres, got {}", spec.gap),
        ));
    }
    if !(spec.flat.is_finite() && spec.flat >= 0.0 && spec.flat < width) {
        return Err(err(
            "flat",
            format!(
                "must be in [0, {width}) m (the strip's length along u), got {}",
                spec.flat
            ),
        ));
    }
    if !(spec.hold.is_finite() && spec.hold >= 0.0) {
        return Err(err(
            "hold",
            format!("must be a non-negative time in seconds, got {}", spec.hold),
        ));
    }
    let spiral = Spiral::new(spec.radius, spec.gap, width - spec.flat);
    for p in &mut cloth.mesh.positions {
        let s = (*p - origin).dot(axis_u) - spec.flat;
        if s > 0.0 {
            let (along, down) = spiral.point(s);
            *p += axis_u * (along - s) - normal * down;
        }
    }
    let x = cloth.mesh.positions.clone();
    // A hinge bent near pi by the roll is too coarse to follow it (and its
    // angle would wrap).
    for (h, (hinge, rest)) in cloth.topology.hinges.iter().zip(&cloth.hinge_rest).enumerate() {
        let bend = dihedral(hinge.v.map(|v| x[v as usize])) - rest.theta;
        if bend.abs() > MAX_BEND {
            return Err(err(
                "radius",
                format!(
                    "bends hinge {h} by {:.2} rad, more than {MAX_BEND}: the mesh is too coarse for a {} m roll; use a larger radius or more quads along u",
                    bend.abs(),
                    spec.radius
                ),
            ));
        }
    }
    cloth.initial_channels = Some(preload(cloth, &x, spec.hold));
    Ok(())
}

/// The spiral `r = R_out - a phi` ending at radius `R` after length `L`.
struct Spiral {
    r_out: f64,
    a: f64,
}

impl Spiral {
    fn new(radius: f64, gap: f64, length: f64) -> Spiral {
        let a = gap / (2.0 * PI);
        Spiral {
            r_out: (radius * radius + 2.0 * a * length).sqrt(),
            a,
        }
    }

    /// The point at arc length `s`: (along u, towards -normal).
    fn point(&self, s: f64) -> (f64, f64) {
        let (r, a) = (self.r_out, self.a);
        // s = r phi - a phi^2 / 2, the root on the spiral's first branch
        // (written to keep its digits as a -> 0).
        let phi = 2.0 * s / (r + (r * r - 2.0 * a * s).max(0.0).sqrt());
        let (sin, cos) = phi.sin_cos();
        (
            r * sin - a * (phi * sin + cos - 1.0),
            r * (1.0 - cos) - a * (sin - phi * cos),
        )
    }
}

/// The channels' state after the cloth went from rest to `x` slowly and
/// monotonically and stayed there `hold` material seconds.
pub fn preload(cloth: &Cloth, x: &[DVec3], hold: f64) -> Channels {
    let m = &cloth.material;
    let k = m.in_plane_stiffness();
    let kc = m.bending_channel_stiffness();
    let hinges = cloth
        .topology
        .hinges
        .iter()
        .zip(&cloth.hinge_rest)
        .enumerate()
        .map(|(i, (h, rest))| {
            let theta = dihedral(h.v.map(|v| x[v as usize])) - rest.theta;
            let theta = (theta + PI).rem_euclid(2.0 * PI) - PI;
            let target = rest.channel_scales(m.bending_strain).0 * theta;
            let mut state = m.bending_channel.initial_state();
            drive(&mut state, target, hold, |s, strain, h| {
                m.bending_channel
                    .update(&m.bending_models, s, strain, 0.0, kc, 0.0, h, i as u32);
            });
            (state, theta)
        })
        .collect::<Vec<_>>();
    let faces = cloth
        .mesh
        .faces
        .iter()
        .zip(&cloth.face_rest)
        .enumerate()
        .map(|(f, (face, rest))| {
            let (fu, fv) = rest.deformation(face.map(|v| x[v as usize]));
            let e = green_strain(fu, fv);
            [0, 1, 2].map(|c| {
                let ch = &m.in_plane_channels[c];
                let mut state = ch.initial_state();
                drive(&mut state, e[c], hold, |s, strain, h| {
                    ch.update(&m.in_plane_models, s, strain, 0.0, k[c], 0.0, h, f as u32);
                });
                state
            })
        })
        .collect();
    Channels {
        hinge_strain: hinges.iter().map(|h| h.1).collect(),
        hinges: hinges.into_iter().map(|h| h.0).collect(),
        faces,
    }
}

/// Ramps a channel to `target` without material time, then holds it.
fn drive<S>(state: &mut S, target: f64, hold: f64, mut update: impl FnMut(&mut S, f64, f64)) {
    for i in 1..=RAMP {
        update(state, target * i as f64 / RAMP as f64, 0.0);
    }
    if hold > 0.0 {
        for _ in 0..HOLD {
            update(state, target, hold / HOLD as f64);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Spiral;

    /// The built-in `miguel-unroll` starts with every hinge across the
    /// strip on Miguel's strain `3 kappa` of its layer of the roll, its
    /// Dahl friction saturated (Eq. 3's loading path from flat).
    #[test]
    fn the_rolled_strip_starts_with_its_layers_curvature_and_saturated_friction() {
        let scene = crate::scene::load("miguel-unroll", &[]).unwrap();
        let cloth = &scene.cloth;
        let ch = cloth.initial_channels.as_ref().unwrap();
        let spiral = Spiral::new(0.004, 0.0015, 0.09);
        let dahl = cloth.material.bending_channel.dahl;
        // Material coordinates per vertex: x = u along the strip.
        let mut u = vec![0.0; cloth.vertex_count()];
        for (face, uv) in cloth.mesh.faces.iter().zip(cloth.mesh.uv.as_ref().unwrap()) {
            for k in 0..3 {
                u[face[k] as usize] = uv[k].x;
            }
        }
        let mut checked = 0;
        for (h, state) in cloth.topology.hinges.iter().zip(&ch.hinges) {
            // A hinge across the strip has both ends at the same u.
            let (a, b) = (u[h.v[0] as usize], u[h.v[1] as usize]);
            let s = a - 0.01;
            if (a - b).abs() > 1e-12 || !(0.002..0.088).contains(&s) {
                continue;
            }
            let phi = 2.0 * s / (spiral.r_out + (spiral.r_out.powi(2) - 2.0 * spiral.a * s).sqrt());
            let expected = 3.0 / (spiral.r_out - spiral.a * phi);
            let strain = state.friction.anchor.abs();
            assert!(
                (strain - expected).abs() < 0.01 * expected,
                "s = {s}: {strain} vs {expected}"
            );
            assert!(state.friction.slip && state.friction.sigma.abs() > 0.95 * (dahl.a + dahl.b * strain));
            checked += 1;
        }
        assert!(checked > 50, "{checked} hinges across the strip");
    }

    #[test]
    fn the_spiral_has_unit_speed_and_layers_a_gap_apart() {
        let (radius, gap, length) = (0.004, 0.001, 0.09);
        let sp = Spiral::new(radius, gap, length);
        // Unit speed: finite differences of the closed form.
        for s in [0.0, 0.01, 0.05, 0.0899] {
            let (h, (a, b), (c, d)) = (1e-7, sp.point(s), sp.point(s + 1e-7));
            let speed = ((c - a).powi(2) + (d - b).powi(2)).sqrt() / h;
            assert!((speed - 1.0).abs() < 1e-5, "speed {speed} at {s}");
        }
        // One turn on from the start, the strip lies a gap below it; the
        // inner end's curvature radius is the cylinder's.
        let phi_turn = 2.0 * std::f64::consts::PI;
        let s_turn = sp.r_out * phi_turn - sp.a * phi_turn * phi_turn / 2.0;
        let (along, down) = sp.point(s_turn);
        assert!(along.abs() < 1e-12 && (down - gap).abs() < 1e-12, "{along} {down}");
        let phi_end = 2.0 * length / (sp.r_out + (sp.r_out.powi(2) - 2.0 * sp.a * length).sqrt());
        assert!((sp.r_out - sp.a * phi_end - radius).abs() < 1e-12);
    }
}
