//! Obstacle state over the timeline: enabled or removed, and a rigid pose
//! moved like a handle (see `handles.rs`: a phase's motion is spread
//! linearly over it and composed after the pose the phase starts from).

use super::handles::moved;
use crate::collide::{Field, Obstacle, ObstacleStep, Pose};
use crate::scene::{ObstacleAction, Scene};

#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct ObstacleState {
    pub enabled: bool,
    /// Pose at the start of the current phase.
    pose: Pose,
}

impl ObstacleState {
    pub fn new(o: &Obstacle) -> ObstacleState {
        ObstacleState {
            enabled: o.enabled,
            pose: Pose::default(),
        }
    }

    pub fn begin_phase(&mut self, action: Option<&ObstacleAction>) {
        match action {
            Some(ObstacleAction::Remove) => self.enabled = false,
            Some(ObstacleAction::Add) => self.enabled = true,
            _ => {}
        }
    }

    /// The pose at phase fraction `s` (removed or not).
    pub fn pose_at(&self, action: Option<&ObstacleAction>, s: f64) -> Pose {
        match action {
            Some(ObstacleAction::Move(m)) => {
                let (rot, trans) = moved(m, s, self.pose.rot, self.pose.trans);
                Pose { rot, trans }
            }
            _ => self.pose,
        }
    }

    /// Obstacle `obstacle` (on `field`) over the step from phase fraction
    /// `s0` to `s1`, if enabled.
    pub fn step(
        &self,
        o: &Obstacle,
        obstacle: usize,
        field: Field,
        action: Option<&ObstacleAction>,
        s0: f64,
        s1: f64,
    ) -> Option<ObstacleStep> {
        self.enabled.then(|| ObstacleStep {
            obstacle,
            field,
            start: self.pose_at(action, s0),
            end: self.pose_at(action, s1),
            friction: o.friction,
            thickness: o.thickness,
        })
    }

    /// Commits the phase's motion (a removed obstacle moves too, unseen).
    pub fn end_phase(&mut self, action: Option<&ObstacleAction>) {
        self.pose = self.pose_at(action, 1.0);
    }
}

/// An obstacle at a moment of the timeline.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ObstacleAt {
    /// Present (not removed).
    pub enabled: bool,
    /// Its pose (a removed obstacle moves too, unseen).
    pub pose: Pose,
}

/// Where each of `scene`'s obstacles is after `steps` steps of its
/// timeline: at a phase's end as its last step saw it, at the start as the
/// first step will. A pure function of the timeline, for pictures and
/// caches of any frame.
pub fn obstacles_at(scene: &Scene, steps: u64) -> Vec<ObstacleAt> {
    let mut states: Vec<ObstacleState> = scene.obstacles.iter().map(ObstacleState::new).collect();
    let mut done = 0u64;
    for phase in &scene.phases {
        let actions = &phase.obstacle_actions;
        for (state, action) in states.iter_mut().zip(actions) {
            state.begin_phase(action.as_ref());
        }
        if steps <= done + phase.steps {
            let s = (steps - done) as f64 / phase.steps as f64;
            return states
                .iter()
                .zip(actions)
                .map(|(state, action)| ObstacleAt {
                    enabled: state.enabled,
                    pose: state.pose_at(action.as_ref(), s),
                })
                .collect();
        }
        for (state, action) in states.iter_mut().zip(actions) {
            state.end_phase(action.as_ref());
        }
        done += phase.steps;
    }
    states
        .iter()
        .map(|state| ObstacleAt {
            enabled: state.enabled,
            pose: state.pose,
        })
        .collect()
}
