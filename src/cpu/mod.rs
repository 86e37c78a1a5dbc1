//! The CPU reference backend: f64, parallel with rayon, deterministic.
//!
//! One step is the linearised backward Euler of MODEL.md (Baraff & Witkin
//! 1998; the paper's Eq. 1 / 20). With the element blocks S of the system
//! (`h (h + alpha)` times the elastic Hessians, `h^2` times the friction
//! springs, `h` times Dahl's friction damping):
//!
//! ```text
//! (M + S) dv = h f - S v        v <- v + dv;  x <- x + h v
//! ```
//!
//! which is `(M - h D - h^2 K) dv = h (f + h K v)` with the damping forces of
//! `f` taken at the step's start velocity. Each kernel is a file: `membrane`
//! (per face), `bending` (per hinge), `gather` (per vertex), `hessian`
//! (matrix-free products), `pcg`, `integrate` and `collide` (per vertex),
//! and `repulsion` (self-collision springs in the system and the
//! post-solve correction, over the step's proximity pairs).

mod bending;
mod collide;
mod gather;
mod hessian;
mod integrate;
mod membrane;
mod pcg;
mod reduce;
mod repulsion;
mod strain_limit;

use crate::cloth::Cloth;
use crate::collide::ContactReport;
use crate::collide::proximity::{self, Proximity};
use crate::error::{Error, Result};
use crate::model::channel::Channels;
use crate::step::Integrator;
use crate::step::{Backend, BackendState, Scales, StepInput, StepReport};
use glam::{DMat3, DVec3};
use repulsion::Repulsion;
use std::sync::Arc;
use std::time::Instant;

#[derive(Clone)]
pub struct CpuBackend {
    cloth: Arc<Cloth>,
    x: Vec<DVec3>,
    v: Vec<DVec3>,
    /// Last step's velocity change: the warm start of the next solve.
    dv: Vec<DVec3>,
    faces: membrane::FaceStates,
    hinges: bending::HingeStates,
    force: Vec<DVec3>,
    inv_diag: Vec<DMat3>,
    rhs: Vec<DVec3>,
    work: Vec<DVec3>,
    free: Vec<bool>,
    touched: Vec<bool>,
    /// Each vertex's resting contact in the last solve: the obstacle's
    /// normal (zero: none), and the normal velocity change the solve's
    /// constraint gave it (the response's friction impulse).
    rest_normal: Vec<DVec3>,
    held: Vec<f64>,
    /// The mixed scheme's explicit half step `v_tilde`, and the velocities
    /// before the constraints changed them.
    v_tilde: Vec<DVec3>,
    v_before: Vec<DVec3>,
    /// The step's sticking springs per vertex: stiffness (0: none) and
    /// target.
    stick: Vec<f64>,
    stick_target: Vec<DVec3>,
    /// Each vertex's unit normal, for the air's forces.
    normals: Vec<DVec3>,
    scratch: hessian::Scratch,
    vectors: pcg::Vectors,
    steps: u64,
    /// The threads a step runs on. A step makes thousands of parallel calls
    /// (several per CG iteration); made from outside a pool, each one hands
    /// its work to the pool's threads and blocks until they finish, which on
    /// a small cloth costs more than the work (a 126-vertex strip stepped
    /// 3-5x slower). Inside the pool the calls split by work stealing with
    /// no hand-off. The results are the same bytes on any number of threads.
    /// One pool per backend, so that simulations run side by side (tests,
    /// experiments in threads) keep their own threads: one pool shared by the
    /// process made the wrinkle tests 58 s -> 71 s.
    pool: Option<Arc<rayon::ThreadPool>>,
}

impl CpuBackend {
    /// Starts from the mesh's positions at rest.
    pub fn new(cloth: Arc<Cloth>) -> CpuBackend {
        let n = cloth.vertex_count();
        CpuBackend {
            x: cloth.mesh.positions.clone(),
            v: vec![DVec3::ZERO; n],
            dv: vec![DVec3::ZERO; n],
            faces: membrane::FaceStates::new(&cloth),
            hinges: bending::HingeStates::new(&cloth),
            force: vec![DVec3::ZERO; n],
            inv_diag: vec![DMat3::IDENTITY; n],
            rhs: vec![DVec3::ZERO; n],
            work: vec![DVec3::ZERO; n],
            free: vec![true; n],
            touched: vec![false; n],
            rest_normal: vec![DVec3::ZERO; n],
            held: vec![0.0; n],
            v_tilde: vec![DVec3::ZERO; n],
            v_before: vec![DVec3::ZERO; n],
            stick: vec![0.0; n],
            stick_target: vec![DVec3::ZERO; n],
            normals: vec![DVec3::ZERO; n],
            scratch: hessian::Scratch::new(&cloth),
            vectors: pcg::Vectors::default(),
            steps: 0,
            // As many threads as rayon's global pool (RAYON_NUM_THREADS or
            // the cores); if the system refuses threads, steps run from the
            // caller as before.
            pool: rayon::ThreadPoolBuilder::new().build().ok().map(Arc::new),
            cloth,
        }
    }

    /// Updates the channels and evaluates element states and the total force
    /// at the current state (gravity `g`, step factors `scales`).
    pub fn forces(&mut self, gravity: DVec3, scales: &Scales) -> &[DVec3] {
        membrane::membrane(&self.cloth, &self.x, &self.v, scales, &mut self.faces);
        bending::bending(&self.cloth, &self.x, &self.v, &self.faces, scales, &mut self.hinges);
        gather::forces(&self.cloth, &self.faces, &self.hinges, gravity, &mut self.force);
        &self.force
    }

    /// Replaces positions and velocities (tests and validation).
    pub fn set_state(&mut self, x: &[DVec3], v: &[DVec3]) {
        self.x.copy_from_slice(x);
        self.v.copy_from_slice(v);
    }

    /// Every element's corner forces from the last force evaluation, faces
    /// (3 corners) then hinges (4 corners), for parity checks.
    pub fn element_forces(&self) -> Vec<DVec3> {
        crate::measure::element_forces(&self.cloth, &self.faces.stress, &self.hinges.force, &self.hinges.grad)
    }

    /// Replaces every channel's state (tests and validation).
    pub fn set_channels(&mut self, ch: &Channels) {
        self.hinges.channel.clone_from(&ch.hinges);
        self.faces.channel.clone_from(&ch.faces);
        self.hinges.strain.clone_from(&ch.hinge_strain);
    }

    /// The last step's velocity change (the next solve's warm start).
    pub fn warm_start(&self) -> &[DVec3] {
        &self.dv
    }

    /// One step (`Backend::step`), inside the backend's pool.
    ///
    /// Backward Euler: one solve `(M + S) dv = h f - S v` at the step's
    /// start, with the vertices resting on obstacles as constraints (solved
    /// again when some pull), then the velocity constraints (strain
    /// limiting, obstacles, self-collision) and `x += h v`.
    ///
    /// Bridson et al. 2003 §3's mixed scheme (`Integrator::BridsonMixed`,
    /// its recommended variable-step variant): elastic forces explicit,
    /// damping implicit, with `S` holding only the damping blocks scaled by
    /// `h/2`:
    /// 1. `v_half = v + h/2 a(x, v_half)`, implicit (a solve at `x^n`);
    /// 2. the velocity constraints modify `v_half`; `x += h v_half`;
    /// 3. `v_tilde = v + h/2 a(x^n, v)`, explicit (`v + M^-1 rhs` of 1), plus
    ///    the constraints' changes to `v_half` (so a stopped vertex stays
    ///    stopped);
    /// 4. `v = v_tilde + h/2 a(x^{n+1}, v)`, implicit (a second solve): the
    ///    trapezoidal rule between `v^n` and `v^{n+1}`.
    ///
    /// The channels advance at the evaluation at `x^{n+1}`; the one at `x^n`
    /// re-evaluates them with no material time (at the positions the last
    /// step ended at, where the update changes nothing).
    fn step_in_pool(&mut self, input: &StepInput) -> Result<StepReport> {
        let h = input.dt;
        let cloth = Arc::clone(&self.cloth);
        let mixed = input.integrator == Integrator::BridsonMixed;
        let t0 = Instant::now();
        let scales = match mixed {
            false => Scales::new(h, input.material_dt, cloth.damping),
            true => Scales::mixed(h, 0.0, cloth.damping),
        };
        let sc = input.self_collision;
        let t_prox = Instant::now();
        let prox = if sc.enabled {
            proximity::find(
                &cloth.mesh.faces,
                &cloth.topology.edges,
                &self.x,
                &cloth.mesh.positions,
                sc.thickness,
            )
        } else {
            Proximity::default()
        };
        let proximity_ms = t_prox.elapsed().as_secs_f64() * 1e3;
        // Like the GPU's, a step without pairs has no repulsion at all. The
        // springs are elastic: explicit in the mixed scheme.
        let repulsion = (!prox.pairs.is_empty()).then_some(Repulsion {
            prox: &prox,
            stiffness: sc.stiffness,
            thickness: sc.thickness,
            friction: sc.friction,
            scale: if mixed { 0.0 } else { h * h },
        });
        self.stick.fill(0.0);
        for st in input.sticks {
            self.stick[st.vertex as usize] = st.stiffness;
            self.stick_target[st.vertex as usize] = st.target;
        }
        self.evaluate(input, &scales, repulsion.as_ref());
        let mut forces_ms = t0.elapsed().as_secs_f64() * 1e3 - proximity_ms;

        let t1 = Instant::now();
        let (solve, resting) = self.solve(input, &scales, repulsion.as_ref(), true)?;
        // Reactions: the handle supplies (A dv - b)/k to each pinned vertex
        // (k the solve's force factor); the cloth pulls on the handle with
        // the opposite.
        let reactions = integrate::reactions(input.pinned, &self.rhs, &self.work, scales.dt);
        if mixed {
            integrate::explicit_half(&self.v, &self.rhs, &cloth.mass, &mut self.v_tilde);
        }
        integrate::advance_velocity(&mut self.v, &self.dv);
        let mut solve_ms = t1.elapsed().as_secs_f64() * 1e3;

        // The velocity constraints.
        let t2 = Instant::now();
        self.v_before.clone_from(&self.v);
        if let Some(limit) = &input.strain_limit {
            strain_limit::limit(&cloth, limit, h, &self.x, &mut self.v, &self.free);
        }
        collide::respond(
            input.grids,
            input.obstacles,
            h,
            &mut self.x,
            &mut self.v,
            &self.free,
            &self.held,
            &mut self.touched,
        );
        if let Some(r) = &repulsion {
            r.correct(h, &mut self.v, &cloth.mass, &self.free, &self.touched);
        }
        if mixed {
            integrate::carry(&self.v, &self.v_before, &self.free, &mut self.v_tilde);
        }
        integrate::advance_position(&mut self.x, &self.v, h);
        let contact = ContactReport {
            resting,
            ..collide::settle(input.grids, input.obstacles, &mut self.x, &self.free, &mut self.touched)
        };
        let collide_ms = t2.elapsed().as_secs_f64() * 1e3 + proximity_ms;

        let mut solves = [solve, Default::default()];
        if mixed {
            let t3 = Instant::now();
            std::mem::swap(&mut self.v, &mut self.v_tilde);
            let end = Scales::mixed(h, input.material_dt, cloth.damping);
            self.evaluate(input, &end, repulsion.as_ref());
            forces_ms += t3.elapsed().as_secs_f64() * 1e3;
            let t4 = Instant::now();
            solves[1] = self.solve(input, &end, repulsion.as_ref(), false)?.0;
            integrate::advance_velocity(&mut self.v, &self.dv);
            solve_ms += t4.elapsed().as_secs_f64() * 1e3;
        }
        self.steps += 1;
        if let Some(i) = self
            .x
            .iter()
            .zip(&self.v)
            .position(|(x, v)| !x.is_finite() || !v.is_finite())
        {
            return Err(Error::Step(format!(
                "step {}: vertex {i} has a non-finite position or velocity (the step blew up): reduce dt or raise damping",
                self.steps
            )));
        }
        Ok(StepReport {
            cg_iterations: solves[0].iterations + solves[1].iterations,
            cg_residual: solves[0].residual.max(solves[1].residual),
            reactions,
            forces_ms,
            solve_ms,
            dispatches: 0,
            contact,
            collide_ms,
            proximity_pairs: prox.pairs.len(),
        })
    }

    /// Updates the channels and evaluates, at the current `x` and `v`, the
    /// force (with the repulsion springs, the wind and the sticking springs)
    /// and the inverse diagonal blocks of the system.
    fn evaluate(&mut self, input: &StepInput, scales: &Scales, repulsion: Option<&Repulsion>) {
        let cloth = Arc::clone(&self.cloth);
        self.forces(input.gravity, scales);
        if let Some(r) = repulsion {
            r.forces(&mut self.force);
        }
        if input.air.acts() {
            gather::air(&cloth, &self.faces, &input.air, &mut self.normals, &mut self.force);
        }
        if !input.sticks.is_empty() {
            gather::sticks(&self.stick, &self.stick_target, &self.x, &mut self.force);
        }
        let blocks = gather::VertexBlocks::of(input, scales, &self.stick, &self.normals);
        gather::inverse_diagonal(
            &cloth,
            &self.faces,
            &self.hinges,
            repulsion,
            blocks.as_ref(),
            &mut self.inv_diag,
        );
    }

    /// Solves `(M + S) dv = k f - S v` for `dv` (k = `scales.dt`), with
    /// the pinned vertices' `dv` landing them on their targets and the
    /// resting contacts held (`to_targets`; the mixed scheme's second solve
    /// holds the pinned vertices still and has no contacts); leaves the
    /// right-hand side in `rhs` and `A dv` in `work`, and returns how many
    /// resting contacts it kept.
    fn solve(
        &mut self,
        input: &StepInput,
        scales: &Scales,
        repulsion: Option<&Repulsion>,
        to_targets: bool,
    ) -> Result<(pcg::Solve, usize)> {
        let cloth = Arc::clone(&self.cloth);
        let blocks = gather::VertexBlocks::of(input, scales, &self.stick, &self.normals);
        let mut op = hessian::Operator {
            cloth: &cloth,
            faces: &self.faces,
            hinges: &self.hinges,
            repulsion,
            blocks: blocks.as_ref(),
            mass_scale: 0.0,
        };
        // rhs = k f - S v.
        op.apply(&mut self.scratch, &self.v, &mut self.work);
        integrate::right_hand_side(&self.force, &self.work, scales.dt, &mut self.rhs);
        op.mass_scale = 1.0;
        integrate::constrain(
            input.pinned,
            if to_targets { Some(input.targets) } else { None },
            input.dt,
            &self.x,
            &self.v,
            &mut self.dv,
            &mut self.free,
        );
        // Resting contacts: their normal velocity relative to the obstacle
        // is held inside the solve; a contact whose reaction pulls is
        // released and the system solved again (Baraff & Witkin 1998 §5).
        // As on the GPU, only where obstacles may hold some.
        let holding = to_targets && input.solver.contact_solves > 0 && !input.obstacles.is_empty();
        let solves = if holding {
            collide::resting(
                input.grids,
                input.obstacles,
                input.dt,
                &self.x,
                &self.v,
                &self.free,
                &mut self.rest_normal,
                &mut self.dv,
            );
            input.solver.contact_solves
        } else {
            self.rest_normal.fill(DVec3::ZERO);
            self.held.fill(0.0);
            1
        };
        let (mut solve, mut kept) = (pcg::Solve::default(), 0);
        for _ in 0..solves {
            let filter = pcg::Filter {
                free: &self.free,
                normals: &self.rest_normal,
            };
            let s = pcg::solve(
                &op,
                &mut self.scratch,
                &mut self.vectors,
                &self.inv_diag,
                &filter,
                &self.rhs,
                &mut self.dv,
                input.solver.tolerance,
                input.solver.max_iterations,
            )?;
            solve.iterations += s.iterations;
            solve.residual = s.residual;
            op.apply(&mut self.scratch, &self.dv, &mut self.work);
            if !holding {
                break;
            }
            let (released, held) = collide::release(
                &mut self.rest_normal,
                &mut self.held,
                &self.work,
                &self.rhs,
                &cloth.mass,
            );
            kept = held;
            if released == 0 {
                break;
            }
        }
        Ok((solve, kept))
    }
}

impl Backend for CpuBackend {
    fn name(&self) -> &'static str {
        "cpu"
    }

    fn step(&mut self, input: &StepInput) -> Result<StepReport> {
        match self.pool.clone() {
            Some(pool) => pool.install(|| self.step_in_pool(input)),
            None => self.step_in_pool(input),
        }
    }

    fn positions(&self) -> Result<Vec<DVec3>> {
        Ok(self.x.clone())
    }

    fn velocities(&self) -> Result<Vec<DVec3>> {
        Ok(self.v.clone())
    }

    fn channels(&self) -> Result<Channels> {
        Ok(Channels {
            hinges: self.hinges.channel.clone(),
            faces: self.faces.channel.clone(),
            hinge_strain: self.hinges.strain.clone(),
        })
    }

    fn cloth(&self) -> Arc<Cloth> {
        Arc::clone(&self.cloth)
    }

    fn save_state(&self) -> Result<BackendState> {
        Ok(BackendState::Cpu {
            x: self.x.clone(),
            v: self.v.clone(),
            dv: self.dv.clone(),
            channels: self.channels()?,
        })
    }

    fn restore_state(&mut self, state: &BackendState) -> Result<()> {
        let BackendState::Cpu { x, v, dv, channels } = state else {
            return Err(Error::Step(
                "the checkpoint holds the GPU backend's state: resume it with --backend gpu".into(),
            ));
        };
        let (n, nh, nf) = (self.x.len(), self.hinges.channel.len(), self.faces.channel.len());
        if x.len() != n || v.len() != n || dv.len() != n || channels.hinges.len() != nh || channels.faces.len() != nf {
            return Err(Error::Step(format!(
                "the checkpoint's state is for another cloth ({} vertices, {} hinges, {} faces; this one has {n}, {nh}, {nf})",
                x.len(),
                channels.hinges.len(),
                channels.faces.len()
            )));
        }
        self.set_state(x, v);
        self.dv.clone_from(dv);
        self.set_channels(channels);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mesh::{Pattern, grid};
    use crate::model::bending::{BendingStrain, dihedral};
    use crate::model::material::preset;
    use crate::model::membrane::green_strain;

    /// Total energy with every channel's state frozen: elastic on
    /// `strain - eps_p`, plus the dwell friction springs `k/2 (strain - anchor)^2`.
    fn frozen_energy(cloth: &Cloth, x: &[DVec3], ch: &Channels) -> f64 {
        let m = &cloth.material;
        let mut e = 0.0;
        for ((face, rest), c) in cloth.mesh.faces.iter().zip(&cloth.face_rest).zip(&ch.faces) {
            let (fu, fv) = rest.deformation(face.map(|v| x[v as usize]));
            let strain = green_strain(fu, fv);
            let eps_p = c.map(|c| c.plastic.eps_p);
            e += rest.area
                * m.stretching
                    .energy_density(crate::model::membrane::elastic_strain(strain, eps_p));
            for k in 0..3 {
                let d = strain[k] - c[k].friction.anchor;
                e += rest.area * 0.5 * m.in_plane_channels[k].dwell.stiffness * d * d;
            }
        }
        for ((h, rest), c) in cloth.topology.hinges.iter().zip(&cloth.hinge_rest).zip(&ch.hinges) {
            // The channel's spring acts on its own strain `c theta` with the
            // torque `w` per unit stress: energy `w / c k_f d^2 / 2`.
            let strain = dihedral(h.v.map(|v| x[v as usize])) - rest.theta;
            let (cs, w) = rest.channel_scales(m.bending_strain);
            let (el, d) = (strain - c.plastic.eps_p / cs, cs * strain - c.friction.anchor);
            e += 0.5 * (rest.factor * m.bending * el * el + w / cs * m.bending_channel.dwell.stiffness * d * d);
        }
        e
    }

    #[test]
    fn forces_with_friction_and_plasticity_match_finite_differences_of_the_frozen_energy() {
        let mesh = grid(
            0.05,
            0.04,
            5,
            4,
            Pattern::Alternating,
            DVec3::ZERO,
            (DVec3::X, DVec3::Y),
        );
        for strain in [BendingStrain::Angle, BendingStrain::Curvature] {
            let mut material = preset("cotton").unwrap();
            material.bending_strain = strain;
            // Low bending yield so the bending channels flow too.
            material.bending_channel.hardening.yield_strain = 0.05;
            check_forces_against_frozen_energy(Cloth::new(mesh.clone(), material, 0.0, DVec3::X).unwrap());
        }
    }

    fn check_forces_against_frozen_energy(cloth: Cloth) {
        let cloth = Arc::new(cloth);
        let x: Vec<DVec3> = cloth
            .mesh
            .positions
            .iter()
            .enumerate()
            .map(|(i, p)| {
                let t = i as f64;
                DVec3::new(
                    p.x * 1.12,
                    p.y * 0.97,
                    0.004 * (t * 1.7).sin() + 0.003 * (t * 0.9).cos(),
                )
            })
            .collect();
        let mut b = CpuBackend::new(Arc::clone(&cloth));
        b.set_state(&x, &vec![DVec3::ZERO; x.len()]);
        let f = b.forces(DVec3::ZERO, &Scales::new(1e-3, 1.0, 0.0)).to_vec();
        let ch = b.channels().unwrap();
        let slipped = ch.faces.iter().flatten().filter(|c| c.friction.slip).count();
        let bent = ch.hinges.iter().filter(|c| c.plastic.eps_p != 0.0).count();
        let flowed = ch.faces.iter().flatten().filter(|c| c.plastic.eps_p != 0.0).count();
        assert!(
            slipped > 0 && bent > 0 && flowed > 0,
            "{slipped} slips, {bent} + {flowed} plastic channels"
        );
        let scale = f.iter().map(|v| v.abs().max_element()).fold(0.0, f64::max);
        let step = 1e-7;
        for i in 0..x.len() {
            for d in 0..3 {
                let (mut xp, mut xm) = (x.clone(), x.clone());
                xp[i][d] += step;
                xm[i][d] -= step;
                let fd = -(frozen_energy(&cloth, &xp, &ch) - frozen_energy(&cloth, &xm, &ch)) / (2.0 * step);
                assert!(
                    (fd - f[i][d]).abs() < 1e-5 * scale,
                    "vertex {i} axis {d}: fd {fd} vs {}",
                    f[i][d]
                );
            }
        }
    }
}
