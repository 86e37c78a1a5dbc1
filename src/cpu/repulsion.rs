//! Self-collision response (GPU twin: shaders/repulsion.wgsl), after
//! Bridson, Fedkiw & Anderson 2002 §7, over the step's proximity pairs
//! (`collide/proximity.rs`); one pair's spring and correction are
//! model/repulsion.rs.
//!
//! - In the solve, each pair closer than the thickness is a spring whose
//!   force, Hessian (`h^2` times it in `(M + S) dv = h f - S v`) and
//!   products join the system like any other element (`forces`,
//!   `diagonal`, `product` + `gather`).
//! - After the solve (`correct`, between the velocity and the position
//!   update), after the obstacle response, a pair forecast too close gets
//!   its correction; a vertex an obstacle holds is as immovable as a pinned
//!   one (the table carries the lower layer; the upper one gives way).
//!   Impulses are mass-weighted (`w_j = 1/m_j`, 0 for pinned and
//!   obstacle-held vertices) and applied Jacobi-style: each vertex averages
//!   the changes of its active pairs, over `CORRECTION_ITERATIONS` sweeps.
//!   A pair whose movable vertices carry less than `MIN_MOBILE_SHARE` of its
//!   weights `sum |c_j| = 2` is left to its spring.

use crate::collide::proximity::Proximity;
use crate::model::membrane::outer;
use crate::model::repulsion::{CORRECTION_TARGET, MIN_MOBILE_SHARE, correction, spring_force};
use crate::step::CORRECTION_ITERATIONS;
use glam::{DMat3, DVec3};
use rayon::prelude::*;

/// The (non-empty) pairs of a step with the scene's self-collision
/// constants; the backend leaves it out of a step without pairs.
pub struct Repulsion<'a> {
    pub prox: &'a Proximity,
    pub stiffness: f64,
    pub thickness: f64,
    pub friction: f64,
    /// System factor of the springs: `h^2`.
    pub scale: f64,
}

impl Repulsion<'_> {
    /// Adds each vertex's repulsion forces to `force`.
    pub fn forces(&self, force: &mut [DVec3]) {
        let pairs = &self.prox.pairs;
        force.par_iter_mut().with_min_len(256).enumerate().for_each(|(v, f)| {
            for &(k, slot) in self.prox.row(v) {
                let p = &pairs[k as usize];
                *f += p.n * (spring_force(self.stiffness, self.thickness, p.d) * p.c[slot as usize]);
            }
        });
    }

    /// Vertex v's 3x3 diagonal block of the springs' system part.
    pub fn diagonal(&self, v: usize) -> DMat3 {
        let mut block = DMat3::ZERO;
        for &(k, slot) in self.prox.row(v) {
            let p = &self.prox.pairs[k as usize];
            let c = p.c[slot as usize];
            block += outer(p.n, p.n) * (self.scale * self.stiffness * c * c);
        }
        block
    }

    /// Vertex v's row of the springs' system part: per incidence and per
    /// vertex w of the pair, the block `h^2 k c_v c_w n n^T` (the pairs
    /// couple vertices the mesh does not).
    pub fn row_blocks(&self, v: usize) -> impl Iterator<Item = (u32, DMat3)> + '_ {
        self.prox.row(v).iter().flat_map(move |&(k, slot)| {
            let p = &self.prox.pairs[k as usize];
            let nn = outer(p.n, p.n) * (self.scale * self.stiffness * p.c[slot as usize]);
            (0..4).map(move |b| (p.v[b], nn * p.c[b]))
        })
    }

    /// Per pair: `h^2 k (n . sum c_j p_j)`, the scalar of its product.
    pub fn product(&self, p: &[DVec3], out: &mut Vec<f64>) {
        out.resize(self.prox.pairs.len(), 0.0);
        out.par_iter_mut()
            .with_min_len(512)
            .zip(&self.prox.pairs)
            .for_each(|(o, pair)| *o = self.scale * self.stiffness * pair.along(p));
    }

    /// Vertex v's share of the product: `sum c_slot s_pair n_pair`.
    pub fn gather(&self, v: usize, s: &[f64]) -> DVec3 {
        self.prox
            .row(v)
            .iter()
            .map(|&(k, slot)| {
                let p = &self.prox.pairs[k as usize];
                p.n * (p.c[slot as usize] * s[k as usize])
            })
            .sum()
    }

    /// The post-solve correction of velocities `v` (step `h`); returns
    /// the number of pairs it acted on in its first sweep.
    pub fn correct(&self, h: f64, v: &mut [DVec3], mass: &[f64], free: &[bool], held: &[bool]) -> usize {
        let (prox, thickness, friction) = (self.prox, self.thickness, self.friction);
        let weight = |i: u32| {
            let i = i as usize;
            if free[i] && !held[i] { 1.0 / mass[i] } else { 0.0 }
        };
        let mut impulse = vec![(DVec3::ZERO, false); prox.pairs.len()];
        let mut first = 0;
        for sweep in 0..CORRECTION_ITERATIONS {
            impulse.par_iter_mut().zip(&prox.pairs).for_each(|(out, p)| {
                *out = (DVec3::ZERO, false);
                let w: f64 = (0..4).map(|j| p.c[j] * p.c[j] * weight(p.v[j])).sum();
                let share: f64 = (0..4).filter(|&j| weight(p.v[j]) > 0.0).map(|j| p.c[j].abs()).sum();
                let vn = p.along(v);
                // The positions are the step's start, where the separation is d.
                let wanted = (CORRECTION_TARGET * thickness - p.d) / h;
                if share < MIN_MOBILE_SHARE {
                    return;
                }
                let tangent = p.relative(v) - p.n * vn;
                if let Some(j) = correction(p.n, vn, wanted, tangent, friction, w) {
                    *out = (j, true);
                }
            });
            if sweep == 0 {
                first = impulse.iter().filter(|i| i.1).count();
            }
            v.par_iter_mut().with_min_len(256).enumerate().for_each(|(i, vi)| {
                let (mut sum, mut count) = (DVec3::ZERO, 0u32);
                for &(k, slot) in prox.row(i) {
                    let (j, active) = impulse[k as usize];
                    if active {
                        sum += j * prox.pairs[k as usize].c[slot as usize];
                        count += 1;
                    }
                }
                if count > 0 {
                    *vi += sum * (weight(i as u32) / count as f64);
                }
            });
        }
        first
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::collide::proximity::Pair;

    /// Thickness 2 mm, friction `mu` (the correction's constants).
    fn repulsion(prox: &Proximity, mu: f64) -> Repulsion<'_> {
        Repulsion {
            prox,
            stiffness: 1.0,
            thickness: 0.002,
            friction: mu,
            scale: 1.0,
        }
    }

    fn one_pair(c: [f64; 4], n: DVec3, d: f64) -> Proximity {
        let pair = Pair {
            v: [0, 1, 2, 3],
            c,
            n,
            d,
        };
        Proximity::new(vec![pair], 4)
    }

    /// The spring's forces are minus the gradient of `k/2 (t - d(x))^2`
    /// and its product is the Hessian's, by finite differences.
    #[test]
    fn spring_force_and_hessian_match_finite_differences() {
        let c = [1.0, -0.2, -0.5, -0.3];
        let n = DVec3::new(0.3, 0.9, -0.1).normalize();
        let x = vec![
            DVec3::new(0.1, 0.0012, 0.05),
            DVec3::new(0.0, 0.0, 0.0),
            DVec3::new(0.2, 0.0, 0.0),
            DVec3::new(0.1, 0.0, 0.1),
        ];
        let d0 = (0..4).map(|j| c[j] * n.dot(x[j])).sum::<f64>();
        let prox = one_pair(c, n, d0);
        let (k, t) = (50.0, 0.002);
        let r = Repulsion {
            prox: &prox,
            stiffness: k,
            thickness: t,
            friction: 0.0,
            scale: 1.0,
        };
        let energy = |y: &[DVec3]| {
            let d = prox.pairs[0].along(y);
            0.5 * k * (t - d) * (t - d)
        };
        let mut f = vec![DVec3::ZERO; 4];
        r.forces(&mut f);
        let step = 1e-7;
        let dir = [
            DVec3::new(0.3, -0.2, 0.5),
            DVec3::X,
            DVec3::new(-0.1, 0.4, 0.2),
            DVec3::Z,
        ];
        let mut s = Vec::new();
        r.product(&dir, &mut s);
        for i in 0..4 {
            for a in 0..3 {
                let (mut p, mut m) = (x.clone(), x.clone());
                p[i][a] += step;
                m[i][a] -= step;
                let fd = -(energy(&p) - energy(&m)) / (2.0 * step);
                assert!((fd - f[i][a]).abs() < 1e-8, "force {i} {a}: {fd} vs {}", f[i][a]);
                // Hessian column: d(-f)/dx along dir.
            }
            let (mut p, mut m) = (x.clone(), x.clone());
            for j in 0..4 {
                p[j] += dir[j] * step;
                m[j] -= dir[j] * step;
            }
            let (mut fp, mut fm) = (vec![DVec3::ZERO; 4], vec![DVec3::ZERO; 4]);
            let at = |y: &[DVec3], out: &mut [DVec3]| {
                let pr = one_pair(c, n, prox.pairs[0].along(y));
                Repulsion {
                    prox: &pr,
                    stiffness: k,
                    thickness: t,
                    friction: 0.0,
                    scale: 1.0,
                }
                .forces(out)
            };
            at(&p, &mut fp);
            at(&m, &mut fm);
            let hd = -(fp[i] - fm[i]) / (2.0 * step);
            let prod = r.gather(i, &s);
            assert!(
                (hd - prod).length() < 1e-6 * prod.length().max(1e-3),
                "{i}: {hd} vs {prod}"
            );
            assert_eq!(r.diagonal(i), outer(n, n) * (k * c[i] * c[i]));
        }
    }

    /// Two vertices approaching along n: the correction stops the approach
    /// at the target separation, conserves momentum, and friction takes the
    /// sliding out when mu dv_N exceeds it.
    #[test]
    fn correction_lands_on_half_the_thickness_and_conserves_momentum() {
        let n = DVec3::Y;
        let prox = one_pair([1.0, 0.0, 0.0, -1.0], n, 0.0015);
        let x = vec![DVec3::new(0.0, 0.0015, 0.0), DVec3::ZERO, DVec3::ZERO, DVec3::ZERO];
        let (mass, free) = (vec![1.0, 1.0, 1.0, 3.0], vec![true; 4]);
        let h = 0.01;
        for mu in [0.0, 10.0] {
            let mut v = vec![DVec3::new(0.05, -1.0, 0.0), DVec3::ZERO, DVec3::ZERO, DVec3::ZERO];
            let p0: DVec3 = v.iter().zip(&mass).map(|(v, m)| *v * *m).sum();
            let acted = repulsion(&prox, mu).correct(h, &mut v, &mass, &free, &[false; 4]);
            assert_eq!(acted, 1);
            let d_after = prox.pairs[0].along(&x) + h * prox.pairs[0].along(&v);
            assert!((d_after - CORRECTION_TARGET * 0.002).abs() < 1e-12, "{d_after}");
            let p1: DVec3 = v.iter().zip(&mass).map(|(v, m)| *v * *m).sum();
            assert!((p1 - p0).length() < 1e-12);
            let slide = (v[0] - v[3]).x;
            if mu == 0.0 {
                assert!((slide - 0.05).abs() < 1e-12);
            } else {
                assert!(slide.abs() < 1e-12);
            }
        }
    }

    /// An edge-edge pair whose only movable vertex carries weight 0.01 is
    /// left alone (moving the closest point through it would take 100 times
    /// the pair's velocity change); with half the weight movable it acts.
    #[test]
    fn a_pair_movable_only_through_a_lever_is_left_to_its_spring() {
        let prox = one_pair([0.99, 0.01, -0.5, -0.5], DVec3::Y, 0.0015);
        let mass = vec![1.0; 4];
        let approach = vec![DVec3::ZERO, DVec3::ZERO, DVec3::Y * 0.5, DVec3::Y * 0.5];
        let mut v = approach.clone();
        let held = [true, false, true, true];
        assert_eq!(repulsion(&prox, 0.0).correct(0.01, &mut v, &mass, &[true; 4], &held), 0);
        assert_eq!(v, approach);
        let held = [true, true, false, true];
        assert_eq!(repulsion(&prox, 0.0).correct(0.01, &mut v, &mass, &[true; 4], &held), 1);
        assert!(v[2].y < 0.5 && v[0] == DVec3::ZERO, "{v:?}");
    }
}
