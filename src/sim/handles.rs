//! Handle state: a rigid pose `x = rot * reference + trans` of the vertices
//! a handle grabbed, scripted phase by phase, or, for a handle attached to
//! an obstacle, how its vertices ride on it (collide/attach.rs).
//!
//! A motion over a phase is `p -> R(s angle) (p - c) + c + s d` applied after
//! the phase's starting pose, with `s` running from 0 to 1 over the phase
//! (constant angular and linear velocity).

use crate::collide::attach::Ride;
use crate::error::Result;
use crate::scene::{Action, Motion};
use glam::{DQuat, DVec3};

#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct HandleState {
    pub held: bool,
    /// Positions of the handle's vertices when it grabbed them.
    reference: Vec<DVec3>,
    /// Pose at the start of the current phase.
    rot: DQuat,
    trans: DVec3,
    /// How the vertices ride on the handle's obstacle, if attached.
    #[serde(default)]
    pub ride: Option<Ride>,
}

/// Pose of motion `m` at fraction `s`, composed after `(rot, trans)`.
pub(super) fn moved(m: &Motion, s: f64, rot: DQuat, trans: DVec3) -> (DQuat, DVec3) {
    let d = m.translate.map(DVec3::from_array).unwrap_or(DVec3::ZERO) * s;
    match m.rotate {
        Some(r) => {
            let q = DQuat::from_axis_angle(DVec3::from_array(r.axis).normalize(), r.angle * s);
            let c = DVec3::from_array(r.point);
            (q * rot, q * (trans - c) + c + d)
        }
        None => (rot, trans + d),
    }
}

impl HandleState {
    /// A handle holding `vertices` where they are in `x`, riding on its
    /// obstacle by `ride` if it is attached.
    pub fn grab(vertices: &[u32], x: &[DVec3], ride: Option<Ride>) -> HandleState {
        HandleState {
            held: true,
            reference: vertices.iter().map(|&v| x[v as usize]).collect(),
            rot: DQuat::IDENTITY,
            trans: DVec3::ZERO,
            ride,
        }
    }

    /// Applies the phase's action: a release frees the vertices; a hold or
    /// motion on a free handle grabs them again where they are now
    /// (`rebind` binds an attached handle's vertices to its obstacle
    /// there).
    pub fn begin_phase(
        &mut self,
        action: Option<&Action>,
        vertices: &[u32],
        x: &[DVec3],
        rebind: impl FnOnce() -> Result<Option<Ride>>,
    ) -> Result<()> {
        match action {
            Some(Action::Release) => self.held = false,
            Some(Action::Hold | Action::Move(_)) if !self.held => {
                *self = HandleState::grab(vertices, x, rebind()?);
            }
            _ => {}
        }
        Ok(())
    }

    /// Appends the targets of the held vertices at phase fraction `s`.
    pub fn targets(&self, action: Option<&Action>, s: f64, out: &mut Vec<DVec3>) {
        let (rot, trans) = match action {
            Some(Action::Move(m)) => moved(m, s, self.rot, self.trans),
            _ => (self.rot, self.trans),
        };
        out.extend(self.reference.iter().map(|p| rot * *p + trans));
    }

    /// Commits the phase's motion into the starting pose of the next phase.
    pub fn end_phase(&mut self, action: Option<&Action>) {
        if let (true, Some(Action::Move(m))) = (self.held, action) {
            (self.rot, self.trans) = moved(m, 1.0, self.rot, self.trans);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scene::RotateSpec;

    #[test]
    fn rotation_then_translation_compose_across_phases() {
        let x = vec![DVec3::new(1.0, 0.0, 0.0)];
        let mut h = HandleState::grab(&[0], &x, None);
        let turn = Action::Move(Motion {
            translate: None,
            rotate: Some(RotateSpec {
                axis: [0.0, 1.0, 0.0],
                point: [0.0, 0.0, 0.0],
                angle: std::f64::consts::FRAC_PI_2,
            }),
        });
        h.begin_phase(Some(&turn), &[0], &x, || Ok(None)).unwrap();
        let mut t = Vec::new();
        h.targets(Some(&turn), 0.5, &mut t);
        let c = std::f64::consts::FRAC_1_SQRT_2;
        assert!((t[0] - DVec3::new(c, 0.0, -c)).length() < 1e-12, "{}", t[0]);
        h.end_phase(Some(&turn));
        let shift = Action::Move(Motion {
            translate: Some([0.0, 2.0, 0.0]),
            rotate: None,
        });
        h.begin_phase(Some(&shift), &[0], &x, || Ok(None)).unwrap();
        t.clear();
        h.targets(Some(&shift), 1.0, &mut t);
        assert!((t[0] - DVec3::new(0.0, 2.0, -1.0)).length() < 1e-12, "{}", t[0]);
        // Released, then grabbed again where the cloth is.
        h.end_phase(Some(&shift));
        h.begin_phase(Some(&Action::Release), &[0], &x, || Ok(None)).unwrap();
        assert!(!h.held);
        let moved_x = vec![DVec3::new(5.0, 5.0, 5.0)];
        h.begin_phase(Some(&Action::Hold), &[0], &moved_x, || Ok(None)).unwrap();
        t.clear();
        h.targets(Some(&Action::Hold), 0.3, &mut t);
        assert_eq!(t[0], moved_x[0]);
    }
}
