//! Dynamic sticking (Bridson, Marino & Fedkiw 2003 §6), on the host for
//! both backends: an adhering cloth vertex that comes within the tolerance
//! of a sticky obstacle's contact contour (its thickness) records where it
//! touched, in the obstacle's own frame; from then on each step pulls it
//! towards that anchor's position at the step's end (the "predicted
//! target") with a spring, whose stiffness fades smoothly to nothing as the
//! vertex is pulled `release` away from the anchor, where it lets go. A
//! vertex that let go sticks again only after leaving the surface. A phase
//! with `"sticking": false` releases every vertex and attaches none.

use crate::backend::Stick;
use crate::collide::{Obstacle, ObstacleStep};
use crate::scene::Sticking;
use glam::DVec3;

/// One adhering vertex's attachment.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub enum Anchor {
    Free,
    /// Stuck to obstacle `obstacle` at `local` (its start coordinates).
    Stuck {
        obstacle: usize,
        local: DVec3,
    },
    /// Let go of `obstacle`; free again once off its surface.
    Released {
        obstacle: usize,
    },
}

#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct StickState {
    on: bool,
    /// Per adhering vertex (`Sticking::vertices`).
    anchors: Vec<Anchor>,
}

/// The spring's stiffness at distance `d` from its anchor: `k (1 - (d/r)^2)^2`,
/// smooth at both ends, zero from the release distance `r` on.
pub fn fade(k: f64, d: f64, r: f64) -> f64 {
    let q = (1.0 - (d / r).powi(2)).max(0.0);
    k * q * q
}

impl StickState {
    pub fn new(s: &Sticking) -> StickState {
        StickState {
            on: true,
            anchors: vec![Anchor::Free; s.vertices.len()],
        }
    }

    /// Applies a phase's `sticking` switch.
    pub fn begin_phase(&mut self, switch: Option<bool>) {
        if let Some(on) = switch {
            self.on = on;
            if !on {
                for a in &mut self.anchors {
                    if let Anchor::Stuck { obstacle, .. } = *a {
                        *a = Anchor::Released { obstacle };
                    }
                }
            }
        }
    }

    /// Vertices stuck now.
    pub fn stuck(&self) -> usize {
        self.anchors
            .iter()
            .filter(|a| matches!(a, Anchor::Stuck { .. }))
            .count()
    }

    /// Attaches, keeps or releases each adhering vertex at the step's start
    /// positions `x` against the obstacles `active` this step, and writes
    /// the step's springs into `out`. Pinned vertices (sorted) neither
    /// stick nor pull.
    pub fn step(
        &mut self,
        s: &Sticking,
        obstacles: &[Obstacle],
        active: &[ObstacleStep],
        x: &[DVec3],
        pinned: &[u32],
        out: &mut Vec<Stick>,
    ) {
        out.clear();
        let find = |k: usize| active.iter().find(|o| o.grid == k);
        // Distance from obstacle `o`'s contact contour, and the point in its frame.
        let contour = |o: &ObstacleStep, p: DVec3| {
            let local = o.start.to_local(p);
            (
                obstacles[o.grid].grid.sample(local).0 - obstacles[o.grid].thickness,
                local,
            )
        };
        for (a, &v) in self.anchors.iter_mut().zip(&s.vertices) {
            let p = x[v as usize];
            if pinned.binary_search(&v).is_ok() {
                *a = Anchor::Free;
                continue;
            }
            *a = match *a {
                Anchor::Free => {
                    let mut next = Anchor::Free;
                    if self.on {
                        for o in active {
                            let Some((lo, hi)) = obstacles[o.grid].sticky else {
                                continue;
                            };
                            let (gap, local) = contour(o, p);
                            if gap < s.tolerance && local.cmpge(lo).all() && local.cmple(hi).all() {
                                next = Anchor::Stuck {
                                    obstacle: o.grid,
                                    local,
                                };
                                break;
                            }
                        }
                    }
                    next
                }
                Anchor::Stuck { obstacle, local } => match find(obstacle) {
                    None => Anchor::Free,
                    Some(o) => {
                        let d = (p - o.start.to_world(local)).length();
                        if d >= s.release {
                            Anchor::Released { obstacle }
                        } else {
                            out.push(Stick {
                                vertex: v,
                                target: o.end.to_world(local),
                                stiffness: fade(s.stiffness, d, s.release),
                            });
                            Anchor::Stuck { obstacle, local }
                        }
                    }
                },
                Anchor::Released { obstacle } => match find(obstacle) {
                    Some(o) if contour(o, p).0 < s.tolerance => Anchor::Released { obstacle },
                    _ => Anchor::Free,
                },
            };
        }
    }
}

#[cfg(test)]
mod tests {
    use super::fade;

    #[test]
    fn the_spring_fades_smoothly_to_nothing_at_the_release_distance() {
        let (k, r) = (10.0, 0.01);
        assert_eq!(fade(k, 0.0, r), k);
        assert_eq!(fade(k, r, r), 0.0);
        assert_eq!(fade(k, 2.0 * r, r), 0.0);
        // Decreasing, with zero slope at both ends: a step h = 1e-5 r in
        // from either end changes it by O(h^2).
        let h = 1e-5 * r;
        assert!((fade(k, h, r) - k).abs() < 1e-9 * k);
        assert!(fade(k, r - h, r) < 1e-9 * k);
        let mut last = k;
        for i in 1..100 {
            let f = fade(k, r * i as f64 / 100.0, r);
            assert!(f < last);
            last = f;
        }
    }
}
