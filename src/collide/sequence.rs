//! A body animated by a sequence of frames (an OBJ per frame, as Blender
//! exports an animation): the same triangles in every frame, the vertices
//! interpolated linearly between the two frames around a time, so each
//! vertex's velocity over a step is its motion between the frames.

use super::Pose;
use super::body::{BodyMesh, BodyStep};
use glam::DVec3;
use std::sync::Arc;

#[derive(Debug)]
pub struct Sequence {
    pub mesh: Arc<BodyMesh>,
    /// Triangles in the order the files list them (for drawing and export).
    pub faces: Vec<[u32; 3]>,
    /// Vertex positions per frame, frame 0 at time 0.
    pub frames: Vec<Vec<DVec3>>,
    pub fps: f64,
    /// Past the last frame: start over (interpolating from the last frame
    /// back to the first), or hold the last frame.
    pub looped: bool,
    /// How far from its surface the body acts, m (`body.rs`).
    pub reach: f64,
}

impl Sequence {
    /// The frames around time `t` and the weight of the second.
    fn around(&self, t: f64) -> (usize, usize, f64) {
        let n = self.frames.len();
        let s = (t * self.fps).max(0.0);
        if self.looped {
            let s = s % n as f64;
            let k = (s.floor() as usize).min(n - 1);
            return (k, (k + 1) % n, s - k as f64);
        }
        if s >= (n - 1) as f64 {
            return (n - 1, n - 1, 0.0);
        }
        let k = s.floor() as usize;
        (k, k + 1, s - k as f64)
    }

    /// The vertices at time `t`, placed by `pose`.
    pub fn at(&self, t: f64, pose: &Pose) -> Vec<DVec3> {
        let (a, b, w) = self.around(t);
        self.frames[a]
            .iter()
            .zip(&self.frames[b])
            .map(|(p, q)| pose.to_world(p.lerp(*q, w)))
            .collect()
    }

    /// The body over the step from `t0` (placed by `start`) to `t1` (by `end`).
    pub fn step(&self, t0: f64, t1: f64, start: &Pose, end: &Pose) -> BodyStep {
        BodyStep::new(Arc::clone(&self.mesh), self.at(t0, start), self.at(t1, end), self.reach)
    }

    /// Seconds the frames span (the loop's period when looped).
    pub fn duration(&self) -> f64 {
        let n = self.frames.len() as f64;
        if self.looped {
            n / self.fps
        } else {
            (n - 1.0) / self.fps
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rising(looped: bool) -> Sequence {
        let base = [DVec3::ZERO, DVec3::X, DVec3::Z];
        let frames: Vec<Vec<DVec3>> = (0..3)
            .map(|k| base.iter().map(|p| *p + DVec3::Y * k as f64).collect())
            .collect();
        Sequence {
            mesh: Arc::new(BodyMesh::new(&frames[0], &[[0, 2, 1]])),
            faces: vec![[0, 2, 1]],
            frames,
            fps: 10.0,
            looped,
            reach: 0.1,
        }
    }

    #[test]
    fn frames_interpolate_hold_and_loop() {
        let y = |s: &Sequence, t: f64| s.at(t, &Pose::default())[0].y;
        let held = rising(false);
        assert_eq!(y(&held, 0.0), 0.0);
        assert!((y(&held, 0.125) - 1.25).abs() < 1e-12);
        assert_eq!(y(&held, 0.2), 2.0);
        assert_eq!(y(&held, 5.0), 2.0);
        assert!((held.duration() - 0.2).abs() < 1e-12);
        let looped = rising(true);
        // From the last frame back to the first over the period's last tenth.
        assert!((y(&looped, 0.25) - 1.0).abs() < 1e-12);
        assert!((y(&looped, 0.3 + 0.05) - 0.5).abs() < 1e-12);
        // A step's velocity is the frames' motion: 10 m/s while rising.
        let step = held.step(0.05, 0.06, &Pose::default(), &Pose::default());
        let hit = step.probe(DVec3::new(0.2, 0.52, 0.2), false, 0.01).unwrap();
        assert!((hit.velocity - DVec3::Y * 10.0).length() < 1e-9, "{}", hit.velocity);
    }
}
