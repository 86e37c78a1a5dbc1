//! Matrix-free products with the implicit system matrix
//! `A = mass_scale M + S`, where S is the sum of the element blocks the
//! kernels left (already scaled: `h (h + alpha)` on elastic terms, `h^2` on
//! friction springs, `h` on friction damping): per-element products into
//! scratch buffers, then a per-vertex gather. No global matrix is assembled.

use super::bending::HingeStates;
use super::gather::VertexBlocks;
use super::membrane::FaceStates;
use super::reduce::CHUNK;
use super::repulsion::Repulsion;
use crate::cloth::Cloth;
use glam::DVec3;
use rayon::prelude::*;

/// Per-element scratch of a product.
#[derive(Clone)]
pub struct Scratch {
    /// Per face: `A (dP_u, dP_v)`.
    face: Vec<[DVec3; 2]>,
    /// Per hinge: `coef (grad . p)`; under the shape operator `grad . p`
    /// first, then `coupled` holds the hinge's row of the product.
    hinge: Vec<f64>,
    coupled: Vec<f64>,
    /// Per self-collision pair: `h^2 k (n . sum c_j p_j)`.
    pair: Vec<f64>,
}

impl Scratch {
    pub fn new(cloth: &Cloth) -> Scratch {
        Scratch {
            face: vec![[DVec3::ZERO; 2]; cloth.mesh.faces.len()],
            hinge: vec![0.0; cloth.topology.hinges.len()],
            coupled: match cloth.shape_operator {
                Some(_) => vec![0.0; cloth.topology.hinges.len()],
                None => Vec::new(),
            },
            pair: Vec::new(),
        }
    }
}

pub struct Operator<'a> {
    pub cloth: &'a Cloth,
    pub faces: &'a FaceStates,
    pub hinges: &'a HingeStates,
    pub repulsion: Option<&'a Repulsion<'a>>,
    /// The air's damping and the sticking springs, when there are any.
    pub blocks: Option<&'a VertexBlocks<'a>>,
    pub mass_scale: f64,
}

impl Operator<'_> {
    /// `out = A p`.
    pub fn apply(&self, scratch: &mut Scratch, p: &[DVec3], out: &mut [DVec3]) {
        self.apply_filtered(scratch, p, out, None);
    }

    /// `out = S A p` where S zeroes the rows of non-free vertices (when
    /// `free` is given); returns `p . out`, reduced in fixed chunks.
    pub fn apply_filtered(&self, scratch: &mut Scratch, p: &[DVec3], out: &mut [DVec3], free: Option<&[bool]>) -> f64 {
        let cloth = self.cloth;
        let coupled = cloth.shape_operator.is_some();
        let (face_out, hinge_out) = (&mut scratch.face, &mut scratch.hinge);
        rayon::join(
            || {
                face_out
                    .par_iter_mut()
                    .with_min_len(512)
                    .enumerate()
                    .for_each(|(f, o)| {
                        let dx = cloth.mesh.faces[f].map(|v| p[v as usize]);
                        *o = self.faces.lin[f].stress_differential(&cloth.face_rest[f], dx);
                    })
            },
            || {
                hinge_out
                    .par_iter_mut()
                    .with_min_len(512)
                    .enumerate()
                    .for_each(|(h, o)| {
                        let g = &self.hinges.grad[h];
                        let v = cloth.topology.hinges[h].v;
                        let gp = g[0].dot(p[v[0] as usize])
                            + g[1].dot(p[v[1] as usize])
                            + g[2].dot(p[v[2] as usize])
                            + g[3].dot(p[v[3] as usize]);
                        *o = if coupled { gp } else { self.hinges.coef[h] * gp };
                    })
            },
        );
        if let Some(k) = &cloth.shape_operator {
            super::shape_operator::product(
                k,
                cloth.material.bending,
                self.hinges,
                &scratch.hinge,
                &mut scratch.coupled,
            );
        }
        if let Some(r) = self.repulsion {
            r.product(p, &mut scratch.pair);
        }
        let hinge_out = if coupled { &scratch.coupled } else { &scratch.hinge };
        let (face_out, pair_out) = (&scratch.face, &scratch.pair);
        let topo = &cloth.topology;
        let partial: Vec<f64> = out
            .par_chunks_mut(CHUNK)
            .enumerate()
            .map(|(chunk, outs)| {
                let mut dot = 0.0;
                for (k, o) in outs.iter_mut().enumerate() {
                    let v = chunk * CHUNK + k;
                    if free.is_some_and(|f| !f[v]) {
                        *o = DVec3::ZERO;
                        continue;
                    }
                    let mut hp = DVec3::ZERO;
                    let (lo, hi) = topo.vertex_faces.range(v);
                    for (&(face, _), b) in topo.vertex_faces.entries[lo..hi]
                        .iter()
                        .zip(&cloth.incidence_beta[lo..hi])
                    {
                        let d = &face_out[face as usize];
                        hp += d[0] * b.x + d[1] * b.y;
                    }
                    for &(h, a) in topo.vertex_hinges.row(v) {
                        hp += self.hinges.grad[h as usize][a as usize] * hinge_out[h as usize];
                    }
                    if let Some(r) = self.repulsion {
                        hp += r.gather(v, pair_out);
                    }
                    if let Some(b) = self.blocks {
                        hp += b.block(cloth, v) * p[v];
                    }
                    *o = p[v] * (self.mass_scale * cloth.mass[v]) + hp;
                    dot += p[v].dot(*o);
                }
                dot
            })
            .collect();
        partial.iter().sum()
    }
}

#[cfg(test)]
mod tests {
    use super::super::CpuBackend;
    use super::super::gather::VertexBlocks;
    use super::super::repulsion::Repulsion;
    use super::super::testing::patch;
    use super::*;
    use crate::model::air::Air;
    use crate::model::bending::{dihedral, dihedral_gradient};
    use crate::model::channel::{Channels, FrictionModel};
    use crate::model::material::preset;
    use crate::model::membrane::{elastic_strain, green_strain};
    use crate::model::testing::Rng;
    use crate::step::Backend;
    use crate::step::sequence::Executor;
    use crate::step::{Scales, SelfCollision, StepInput, Stick};
    use std::sync::Arc;

    /// The energies of the frozen channel state `ch` at positions `y`: the
    /// elastic part (membrane on `strain - eps_p`, hinges on `theta -
    /// theta_rest - eps_p`) and the friction part (in-plane dwell springs
    /// `k_f / 2 (strain - anchor)^2`, bending Dahl stresses `w sigma theta`).
    /// With `linear`, instead each part's stresses at `x0` times its strains
    /// at `y`: an energy whose Hessian at `x0` is `stress d2(strain)`, the
    /// curvature terms the solver leaves out of friction and of bending.
    fn energies(cloth: &Cloth, y: &[DVec3], ch: &Channels, linear: Option<&[DVec3]>) -> (f64, f64) {
        let m = &cloth.material;
        let (mut elastic, mut friction) = (0.0, 0.0);
        for ((face, rest), c) in cloth.mesh.faces.iter().zip(&cloth.face_rest).zip(&ch.faces) {
            let strain = |z: &[DVec3]| {
                let (fu, fv) = rest.deformation(face.map(|v| z[v as usize]));
                green_strain(fu, fv)
            };
            let eps_p = c.map(|c| c.plastic.eps_p);
            let e = strain(y);
            match linear {
                None => {
                    elastic += rest.area * m.stretching.energy_density(elastic_strain(e, eps_p));
                    for k in 0..3 {
                        let d = e[k] - c[k].friction.anchor;
                        friction += rest.area * 0.5 * m.in_plane_channels[k].dwell.stiffness * d * d;
                    }
                }
                Some(x0) => {
                    let e0 = strain(x0);
                    for k in 0..3 {
                        let stress = m.in_plane_channels[k].dwell.stiffness * (e0[k] - c[k].friction.anchor);
                        friction += rest.area * stress * e[k];
                    }
                }
            }
        }
        for ((hinge, rest), c) in cloth.topology.hinges.iter().zip(&cloth.hinge_rest).zip(&ch.hinges) {
            let angle = |z: &[DVec3]| dihedral(hinge.v.map(|v| z[v as usize])) - rest.theta;
            let (theta, k) = (angle(y), rest.factor * m.bending);
            // The angle strain: the channel's strain is theta, its torque
            // w = s_e per unit stress.
            let dahl = rest.factor * c.friction.sigma;
            match linear {
                None => elastic += 0.5 * k * (theta - c.plastic.eps_p).powi(2),
                Some(x0) => elastic += k * (angle(x0) - c.plastic.eps_p) * theta,
            }
            friction += dahl * theta;
        }
        (elastic, friction)
    }

    /// `H p` of an energy by central differences of its gradient, itself by
    /// central differences.
    fn hessian_product(energy: &dyn Fn(&[DVec3]) -> f64, x: &[DVec3], p: &[DVec3]) -> Vec<DVec3> {
        let (d, e) = (1e-6, 1e-6);
        let gradient = |y: &[DVec3]| -> Vec<DVec3> {
            let mut z = y.to_vec();
            (0..y.len())
                .map(|i| {
                    DVec3::from_array([0, 1, 2].map(|a| {
                        z[i][a] = y[i][a] + d;
                        let up = energy(&z);
                        z[i][a] = y[i][a] - d;
                        let down = energy(&z);
                        z[i][a] = y[i][a];
                        (up - down) / (2.0 * d)
                    }))
                })
                .collect()
        };
        let shifted = |s: f64| -> Vec<DVec3> { x.iter().zip(p).map(|(x, p)| *x + *p * s).collect() };
        let (up, down) = (gradient(&shifted(e)), gradient(&shifted(-e)));
        up.iter().zip(&down).map(|(u, w)| (*u - *w) / (2.0 * e)).collect()
    }

    /// The shape operator's coupled hinge blocks, `h^2 k_b sum K_hg g_h
    /// g_g^T` (cloth/shape_operator.rs), against finite differences of its
    /// energy `k_b/2 theta^T K theta` on a crumpled sheet, less the
    /// curvature terms the solver leaves out (the Hessian of the energy
    /// linearised in the angles at `x`). The membrane is switched off so
    /// that the hinges are all the operator holds.
    #[test]
    fn the_shape_operators_coupled_blocks_match_finite_differences() {
        let mut material = preset("elastic").unwrap();
        material.bending_model = crate::model::bending::BendingModel::ShapeOperator;
        material.stretching = crate::model::membrane::Stretching {
            k11: 0.0,
            k12: 0.0,
            k22: 0.0,
            k33: 0.0,
        };
        let cloth = Cloth::new(patch(5, 4), material, 0.0, DVec3::X).unwrap();
        let k = cloth.shape_operator.as_ref().unwrap();
        assert!(
            k.other.len() > 10 * cloth.topology.hinges.len(),
            "{} couplings",
            k.other.len()
        );
        let mut rng = Rng(41);
        let x: Vec<DVec3> = cloth
            .mesh
            .positions
            .iter()
            .map(|p| DVec3::new(p.x, p.y, 0.01 * (40.0 * p.x).sin() * (30.0 * p.y).cos()) + rng.vec3(0.001))
            .collect();
        let still = vec![DVec3::ZERO; x.len()];
        let h = 2e-3;
        let scales = Scales::new(h, 1.0, 0.0);
        let mut faces = super::super::membrane::FaceStates::new(&cloth);
        let mut hinges = HingeStates::new(&cloth);
        super::super::membrane::membrane(&cloth, &x, &still, &scales, &mut faces);
        super::super::bending::bending(&cloth, &x, &still, &faces, &scales, &mut hinges);
        let op = Operator {
            cloth: &cloth,
            faces: &faces,
            hinges: &hinges,
            repulsion: None,
            blocks: None,
            mass_scale: 0.0,
        };
        let p: Vec<DVec3> = x.iter().map(|_| rng.vec3(1.0)).collect();
        let mut got = vec![DVec3::ZERO; x.len()];
        op.apply(&mut Scratch::new(&cloth), &p, &mut got);
        let angles = |y: &[DVec3]| -> Vec<f64> {
            (cloth.topology.hinges.iter().zip(&cloth.hinge_rest))
                .map(|(hinge, rest)| dihedral(hinge.v.map(|v| y[v as usize])) - rest.theta)
                .collect()
        };
        let kb = cloth.material.bending;
        let moments: Vec<f64> = {
            let a = angles(&x);
            (0..a.len())
                .map(|i| kb * (k.diag[i] * a[i] + k.off_diagonal(i, &a)))
                .collect()
        };
        let energy = |y: &[DVec3]| kb * k.energy(&angles(y));
        let linear = |y: &[DVec3]| angles(y).iter().zip(&moments).map(|(a, m)| a * m).sum::<f64>();
        let (full, curvature) = (hessian_product(&energy, &x, &p), hessian_product(&linear, &x, &p));
        let want: Vec<DVec3> = full.iter().zip(&curvature).map(|(f, c)| (*f - *c) * (h * h)).collect();
        let scale = want.iter().map(|w| w.abs().max_element()).fold(0.0, f64::max);
        let worst = got
            .iter()
            .zip(&want)
            .map(|(g, w)| (*g - *w).abs().max_element())
            .fold(0.0, f64::max);
        println!("coupled blocks: worst {:.2e} of the largest entry", worst / scale);
        assert!(scale > 0.0 && worst < 1e-6 * scale, "{worst} of {scale}");
    }

    /// Issue 24: the assembled system matrix against finite differences of
    /// the total energy, on a stretched, crumpled, moving sheet with every
    /// term the operator holds on at once: membrane elasticity with
    /// plastic flow, in-plane dwell anchor springs (some slipping), bending
    /// with plastic flow and Dahl friction (Eq. 9's rate term), Rayleigh,
    /// bending (Bridson) and air damping, self-collision repulsion springs
    /// and sticking springs. What the solver leaves out by design is taken
    /// out of the reference the same way, as an energy: the stress times
    /// the strain's curvature for friction and for bending (their
    /// Gauss-Newton blocks). The damping blocks are compared with their
    /// formulas (Bridson's `k_d |E| grad grad^T`, the air's `a (rho_D +
    /// rho_R n n^T)`, Eq. 9's coefficient). Resting contacts are
    /// constraints on dv, not terms of the matrix; Melo's coupling is
    /// explicit (docs/physics.md), so neither is here. Measured: 4.7e-8
    /// of the largest entry, against 1e-6 allowed; a factor `h` for `h^2`
    /// on one damping term moves it to 3.5e-5 or more.
    #[test]
    fn the_assembled_operator_matches_finite_differences_with_every_term_on() {
        let mesh = patch(5, 4);
        let mut material = preset("cotton").unwrap();
        material.bending_models.friction = FrictionModel::Dahl;
        material.bending_channel.hardening.yield_strain = 0.05;
        material.bending_damping = 2e-6;
        for c in &mut material.in_plane_channels {
            c.hardening.yield_strain = 0.02;
        }
        let alpha = 0.01;
        let cloth = Arc::new(Cloth::new(mesh, material, alpha, DVec3::X).unwrap());
        let mut rng = Rng(31);
        // Folded over itself: the first 2 cm flat, then straight up 1.05 cm
        // (the fold's two hinges at right angles), then back over the first
        // layer, every edge stretched a few percent and wrinkled.
        let x: Vec<DVec3> = cloth
            .mesh
            .positions
            .iter()
            .enumerate()
            .map(|(i, p)| {
                let t = i as f64;
                let wrinkle = 0.0002 * (t * 1.7).sin();
                let (along, up) = match p.x {
                    u if u < 0.025 => (u * 1.08, 0.0),
                    u => (0.0216 - (u - 0.03) * 1.08, 0.0105),
                };
                DVec3::new(along, p.y * 1.06, up + wrinkle)
            })
            .collect();
        let v: Vec<DVec3> = x.iter().map(|_| rng.vec3(0.3)).collect();
        let sticks: Vec<Stick> = [3u32, 17]
            .iter()
            .map(|&vertex| Stick {
                vertex,
                target: x[vertex as usize] + DVec3::new(0.001, -0.002, 0.0005),
                stiffness: 40.0,
            })
            .collect();
        let air = Air {
            drag: 0.3,
            normal_drag: 1.5,
            wind: [0.0; 3],
        };
        let sc = SelfCollision {
            enabled: true,
            thickness: 0.02,
            stiffness: 80.0,
            friction: 0.0,
            impact_zones: false,
        };
        let h = 2e-3;
        let input = StepInput {
            dt: h,
            material_dt: 1.0,
            gravity: DVec3::ZERO,
            pinned: &[],
            targets: &[],
            solver: Default::default(),
            grids: &[],
            bodies: &[],
            obstacles: &[],
            self_collision: sc,
            strain_limit: None,
            air,
            integrator: Default::default(),
            sticks: &sticks,
            loads: &[],
            depths: true,
        };
        let scales = Scales::new(h, 1.0, alpha);
        let mut b = CpuBackend::new(Arc::clone(&cloth));
        b.set_state(&x, &v);
        let found = b.find_pairs(&input).unwrap();
        assert!(found.pairs >= 10, "{} pairs", found.pairs);
        b.load(&input, h * h).unwrap();
        b.evaluate(&input, &scales).unwrap();
        let ch = b.channels().unwrap();
        let slipping = ch.faces.iter().flatten().filter(|c| c.friction.slip).count();
        let yielded = ch
            .faces
            .iter()
            .flatten()
            .chain(&ch.hinges)
            .filter(|c| c.plastic.eps_p != 0.0)
            .count();
        assert!(slipping > 0 && yielded > 0, "{slipping} slipping, {yielded} yielded");
        let p: Vec<DVec3> = x.iter().map(|_| rng.vec3(1.0)).collect();
        // The solver keeps only the positive part of each face's elastic
        // stress in its geometric block (by design); here none has a
        // negative principal stress, so the exact Hessian is the reference.
        let compressed = cloth
            .mesh
            .faces
            .iter()
            .zip(&cloth.face_rest)
            .zip(&ch.faces)
            .filter(|((face, rest), c)| {
                let (fu, fv) = rest.deformation(face.map(|v| x[v as usize]));
                let eps_p = c.map(|c| c.plastic.eps_p);
                let [a, b, s] = cloth
                    .material
                    .stretching
                    .stress(elastic_strain(green_strain(fu, fv), eps_p));
                0.5 * (a + b) < (0.25 * (a - b) * (a - b) + s * s).sqrt()
            })
            .count();
        assert_eq!(compressed, 0);
        let repulsion = Repulsion {
            prox: &b.prox,
            stiffness: sc.stiffness,
            thickness: sc.thickness,
            friction: sc.friction,
            scale: h * h,
        };
        let blocks = VertexBlocks::of(&input, &scales, &b.stick, &b.normals);
        let op = Operator {
            cloth: &cloth,
            faces: &b.faces,
            hinges: &b.hinges,
            repulsion: Some(&repulsion),
            blocks: blocks.as_ref(),
            mass_scale: 0.0,
        };
        let mut got = vec![DVec3::ZERO; x.len()];
        op.apply(&mut Scratch::new(&cloth), &p, &mut got);

        // Stiffness: h (h + alpha) on elasticity, h^2 on friction, springs.
        let part = |k: usize, linear: bool| {
            let ch = &ch;
            let cloth = &cloth;
            let x0 = x.clone();
            move |y: &[DVec3]| {
                let e = energies(cloth, y, ch, linear.then_some(&x0[..]));
                [e.0, e.1][k]
            }
        };
        let el = hessian_product(&part(0, false), &x, &p);
        let el_curvature = hessian_product(&part(0, true), &x, &p);
        let fr = hessian_product(&part(1, false), &x, &p);
        let fr_curvature = hessian_product(&part(1, true), &x, &p);
        let springs = |y: &[DVec3]| {
            let rep: f64 = b
                .prox
                .pairs
                .iter()
                .map(|pair| 0.5 * sc.stiffness * (sc.thickness - pair.along(y)).powi(2))
                .sum();
            let stick: f64 = sticks
                .iter()
                .map(|s| 0.5 * s.stiffness * (y[s.vertex as usize] - s.target).length_squared())
                .sum();
            rep + stick
        };
        let sp = hessian_product(&springs, &x, &p);
        let mut want: Vec<DVec3> = (0..x.len())
            .map(|i| (el[i] - el_curvature[i]) * (h * (h + alpha)) + (fr[i] - fr_curvature[i] + sp[i]) * (h * h))
            .collect();
        // Damping, h D p. The air: each vertex's lumped area and the unit
        // normal of the faces around it.
        for (i, w) in want.iter_mut().enumerate() {
            let n = cloth
                .topology
                .vertex_faces
                .row(i)
                .iter()
                .map(|&(f, _)| {
                    let t = cloth.mesh.faces[f as usize].map(|v| x[v as usize]);
                    (t[1] - t[0]).cross(t[2] - t[0])
                })
                .sum::<DVec3>()
                .normalize();
            let a = cloth.mass[i] / cloth.material.density;
            *w += (p[i] * air.drag + n * (air.normal_drag * n.dot(p[i]))) * (a * h);
        }
        // The hinges: Bridson's damping and Dahl's Eq. 9 coefficient.
        let m = &cloth.material;
        for ((hinge, rest), c) in cloth.topology.hinges.iter().zip(&cloth.hinge_rest).zip(&ch.hinges) {
            let idx = hinge.v.map(|v| v as usize);
            let corners = idx.map(|v| x[v]);
            let (theta, g) = dihedral_gradient(corners);
            let rate: f64 = (0..4).map(|a| g[a].dot(v[idx[a]])).sum();
            let dahl = m.bending_channel.dahl;
            let s0 = if rate >= 0.0 { 1.0 } else { -1.0 };
            let strain = theta - rest.theta;
            let eq9 = h * (dahl.a + dahl.b * strain.abs() - s0 * c.friction.sigma + h * dahl.b * rate.abs())
                / (dahl.tau + h * s0 * rate);
            let coef = m.bending_damping * (corners[1] - corners[0]).length() + rest.factor * eq9.max(0.0);
            let gp: f64 = (0..4).map(|a| g[a].dot(p[idx[a]])).sum();
            for a in 0..4 {
                want[idx[a]] += g[a] * (coef * gp * h);
            }
        }
        let scale = want.iter().map(|w| w.length()).fold(0.0, f64::max);
        let worst = got
            .iter()
            .zip(&want)
            .map(|(g, w)| (*g - *w).length())
            .fold(0.0, f64::max);
        println!(
            "{} pairs, {slipping} slipping, {yielded} yielded: worst {worst:.3e} of {scale:.3e}",
            b.prox.pairs.len()
        );
        assert!(worst < 1e-6 * scale, "worst {worst} of {scale}");
    }
}
