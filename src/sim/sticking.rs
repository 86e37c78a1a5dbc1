//! Dynamic sticking (Bridson, Marino & Fedkiw 2003 §6), on the host for
//! both backends: an adhering cloth vertex that comes within the tolerance
//! of a sticky obstacle's contact contour (its thickness) records where it
//! touched, in the obstacle's own frame; from then on each step pulls it
//! towards that anchor's position at the step's end (the "predicted
//! target") with a spring, whose stiffness fades smoothly to nothing as the
//! vertex is pulled `release` away from the anchor, where it lets go. A
//! vertex that let go sticks again only after leaving the surface. A phase
//! with `"sticking": false` releases every vertex and attaches none.
//!
//! The cloth's own sticky faces work the same way: a vertex that comes
//! within the tolerance of one (beyond the self-collision thickness, where
//! layers rest) records its closest point's barycentric weights and its
//! separation along the face's normal; its target is that point moved with
//! the face's vertices over the step (`x + h v`). The spring pulls the
//! adhering vertex only (the face's vertices feel it through the cloth).

use crate::collide::proximity::{self, closest_on_triangle};
use crate::collide::{Obstacle, ObstacleStep, Surface};
use crate::scene::Sticking;
use crate::step::Stick;
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
    /// Stuck to the cloth's face `face` at barycentric `w`, `d` along its
    /// unit normal (times `side`, the normal's orientation at attachment).
    OnCloth {
        face: [u32; 3],
        w: [f64; 3],
        d: f64,
        side: f64,
    },
    /// Let go of the cloth's face `face`; free again once off it.
    ReleasedCloth {
        face: [u32; 3],
    },
}

/// The cloth at the step's start, for sticking to its own faces.
pub struct ClothNow<'a> {
    pub faces: &'a [[u32; 3]],
    pub rest: &'a [DVec3],
    pub x: &'a [DVec3],
    pub v: &'a [DVec3],
    pub h: f64,
    /// Where layers rest apart (the self-collision thickness, or 0).
    pub band: f64,
}

/// The point `d` along the unit normal (times `side`) from the point of
/// barycentric weights `w` on face `f` at positions `y`.
fn on_face(f: [u32; 3], w: [f64; 3], d: f64, side: f64, y: impl Fn(u32) -> DVec3) -> DVec3 {
    let [a, b, c] = f.map(&y);
    let n = (b - a).cross(c - a).normalize_or_zero();
    a * w[0] + b * w[1] + c * w[2] + n * (d * side)
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
                    *a = match *a {
                        Anchor::Stuck { obstacle, .. } => Anchor::Released { obstacle },
                        Anchor::OnCloth { face, .. } => Anchor::ReleasedCloth { face },
                        other => other,
                    };
                }
            }
        }
    }

    /// Vertices stuck now.
    pub fn stuck(&self) -> usize {
        self.anchors
            .iter()
            .filter(|a| matches!(a, Anchor::Stuck { .. } | Anchor::OnCloth { .. }))
            .count()
    }

    /// Attaches, keeps or releases each adhering vertex at the step's start
    /// (the cloth `now`) against the obstacles `active` this step and the
    /// cloth's sticky faces, and writes the step's springs into `out`.
    /// Pinned vertices (sorted) neither stick nor pull.
    pub fn step(
        &mut self,
        s: &Sticking,
        obstacles: &[Obstacle],
        active: &[ObstacleStep],
        now: &ClothNow,
        pinned: &[u32],
        out: &mut Vec<Stick>,
    ) {
        out.clear();
        let x = now.x;
        let reach = now.band + s.tolerance;
        // The vertices near the sticky faces (in vertex order, so each
        // vertex's first pair is its nearest face), when one could attach.
        let sticky: Vec<[u32; 3]> = s.sticky_faces.iter().map(|&f| now.faces[f as usize]).collect();
        let near = if self.on && !sticky.is_empty() && self.anchors.contains(&Anchor::Free) {
            proximity::find(&sticky, &[], x, now.rest, reach).pairs
        } else {
            Vec::new()
        };
        let find = |k: usize| active.iter().find(|o| o.obstacle == k);
        // Distance from obstacle `o`'s contact contour, and the point in its
        // frame (only rigid obstacles can be sticky: scene/obstacles.rs).
        let contour = |o: &ObstacleStep, p: DVec3| {
            let local = o.start.to_local(p);
            let phi = match &obstacles[o.obstacle].surface {
                Surface::Grid(g) => g.sample(local).0,
                Surface::Sequence(_) => f64::INFINITY,
            };
            (phi - obstacles[o.obstacle].thickness, local)
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
                        if let Some(q) = near.iter().find(|q| q.v[0] == v) {
                            let face = [q.v[1], q.v[2], q.v[3]];
                            let w = [-q.c[1], -q.c[2], -q.c[3]];
                            let [a, b, c] = face.map(|i| x[i as usize]);
                            let side = if (b - a).cross(c - a).dot(q.n) < 0.0 { -1.0 } else { 1.0 };
                            next = Anchor::OnCloth { face, w, d: q.d, side };
                        }
                        for o in active.iter().filter(|_| next == Anchor::Free) {
                            let Some((lo, hi)) = obstacles[o.obstacle].sticky else {
                                continue;
                            };
                            let (gap, local) = contour(o, p);
                            if gap < s.tolerance && local.cmpge(lo).all() && local.cmple(hi).all() {
                                next = Anchor::Stuck {
                                    obstacle: o.obstacle,
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
                Anchor::OnCloth { face, w, d, side } => {
                    let dist = (p - on_face(face, w, d, side, |i| x[i as usize])).length();
                    if dist >= s.release {
                        Anchor::ReleasedCloth { face }
                    } else {
                        let moved = |i: u32| x[i as usize] + now.v[i as usize] * now.h;
                        out.push(Stick {
                            vertex: v,
                            target: on_face(face, w, d, side, moved),
                            stiffness: fade(s.stiffness, dist, s.release),
                        });
                        Anchor::OnCloth { face, w, d, side }
                    }
                }
                Anchor::ReleasedCloth { face } => {
                    let [a, b, c] = face.map(|i| x[i as usize]);
                    let w = closest_on_triangle(p, a, b, c);
                    if (p - (a * w[0] + b * w[1] + c * w[2])).length() < reach {
                        Anchor::ReleasedCloth { face }
                    } else {
                        Anchor::Free
                    }
                }
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
