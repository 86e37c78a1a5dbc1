//! The CPU reference backend: f64, parallel with rayon, deterministic. It
//! executes the step of `step/sequence.rs` (`executor.rs`), the linearised
//! backward Euler of docs/physics.md (Baraff & Witkin 1998; the paper's
//! Eq. 1 / 20). With the element blocks S of the system (`h (h + alpha)`
//! times the elastic Hessians, `h^2` times the friction springs, `h` times
//! Dahl's friction damping):
//!
//! ```text
//! (M + S) dv = h f - S v        v <- v + dv;  x <- x + h v
//! ```
//!
//! which is `(M - h D - h^2 K) dv = h (f + h K v)` with the damping forces of
//! `f` taken at the step's start velocity. Each kernel is a file: `membrane`
//! (per face), `bending` (per hinge), `gather` (per vertex), `hessian`
//! (matrix-free products), `assembly` (the same matrix assembled: the
//! multilevel preconditioner's finest level and then CG's products),
//! `pcg`, `integrate` and `collide` (per vertex), and `repulsion`
//! (self-collision springs in the system and the post-solve correction,
//! over the step's proximity pairs).

mod assembly;
mod bending;
mod collide;
mod executor;
mod gather;
mod hessian;
mod integrate;
mod membrane;
mod multilevel;
mod pcg;
mod reduce;
mod repulsion;
mod shape_operator;
mod strain_limit;
#[cfg(test)]
mod testing;

use crate::cloth::Cloth;
use crate::collide::proximity::Proximity;
use crate::error::{Error, Result};
use crate::model::channel::Channels;
use crate::step::{Backend, BackendState, Scales, StepInput, StepReport, sequence};
use glam::{DMat3, DVec3};
use std::sync::Arc;

#[derive(Clone)]
pub struct CpuBackend {
    cloth: Arc<Cloth>,
    x: Vec<DVec3>,
    /// The step's start positions, for the self-collision fail-safe.
    x_start: Vec<DVec3>,
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
    /// The self-collision pairs the last search found (taken by the
    /// step's `load`), the step's pairs and their springs' system factor.
    found: Proximity,
    prox: Proximity,
    spring_scale: f64,
    scratch: hessian::Scratch,
    vectors: pcg::Vectors,
    /// The mesh's pattern, into which each solve assembles its matrix
    /// (CG's products, the multilevel preconditioner's finest level).
    assembly: assembly::Assembly,
    /// The multilevel preconditioner's hierarchy (its aggregates kept from
    /// step to step), when the solver uses it.
    multilevel: multilevel::Multilevel,
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
    /// Starts from the mesh's positions at rest, stepping on as many
    /// threads as rayon's global pool (RAYON_NUM_THREADS or the cores).
    pub fn new(cloth: Arc<Cloth>) -> CpuBackend {
        Self::with_threads(cloth, 0)
    }

    /// As [`CpuBackend::new`], stepping on `threads` threads (0: as many as
    /// rayon's global pool). Simulations run side by side do more in all
    /// on one thread each than sharing the cores: on 2 cores the
    /// 3.4K-vertex trousers step 1.2x as fast on two threads as on one,
    /// so two runs at once, one thread each, finish in about 0.6 of the
    /// time of the two one after the other.
    pub fn with_threads(cloth: Arc<Cloth>, threads: usize) -> CpuBackend {
        let n = cloth.vertex_count();
        CpuBackend {
            x: cloth.mesh.positions.clone(),
            x_start: Vec::new(),
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
            found: Proximity::default(),
            prox: Proximity::default(),
            spring_scale: 0.0,
            scratch: hessian::Scratch::new(&cloth),
            vectors: pcg::Vectors::default(),
            assembly: assembly::Assembly::default(),
            multilevel: multilevel::Multilevel::default(),
            // If the system refuses threads, steps run from the caller's.
            pool: rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .ok()
                .map(Arc::new),
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

    /// The vertices an obstacle acted on in the last step: held resting
    /// through its solve, or moved by the response or the post-process
    /// (validation).
    pub fn obstacle_contacts(&self) -> Vec<bool> {
        self.touched
            .iter()
            .zip(&self.rest_normal)
            .map(|(t, n)| *t || *n != DVec3::ZERO)
            .collect()
    }

    /// The last step's velocity change (the next solve's warm start).
    pub fn warm_start(&self) -> &[DVec3] {
        &self.dv
    }
}

impl Backend for CpuBackend {
    fn name(&self) -> &'static str {
        "cpu"
    }

    fn step(&mut self, input: &StepInput) -> Result<StepReport> {
        match self.pool.clone() {
            Some(pool) => pool.install(|| sequence::step(self, input)),
            None => sequence::step(self, input),
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

    fn drop_caches(&mut self) {
        self.multilevel.renew();
    }
}

#[cfg(test)]
mod tests {
    use super::testing::patch;
    use super::*;
    use crate::model::bending::{BendingModel, BendingStrain, dihedral};
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
        let mut bends = Vec::new();
        for ((h, rest), c) in cloth.topology.hinges.iter().zip(&cloth.hinge_rest).zip(&ch.hinges) {
            // The channel's spring acts on its own strain `c theta` with the
            // torque `w` per unit stress: energy `w / c k_f d^2 / 2`.
            let strain = dihedral(h.v.map(|v| x[v as usize])) - rest.theta;
            let (cs, w) = rest.channel_scales(m.bending_strain);
            let (el, d) = (strain - c.plastic.eps_p / cs, cs * strain - c.friction.anchor);
            e += 0.5 * w / cs * m.bending_channel.dwell.stiffness * d * d;
            bends.push(el);
        }
        e + match &cloth.shape_operator {
            Some(k) => m.bending * k.energy(&bends),
            None => (bends.iter().zip(&cloth.hinge_rest))
                .map(|(el, rest)| 0.5 * rest.factor * m.bending * el * el)
                .sum(),
        }
    }

    #[test]
    fn forces_with_friction_and_plasticity_match_finite_differences_of_the_frozen_energy() {
        let mesh = patch(5, 4);
        let models = [BendingModel::DiscreteShell, BendingModel::ShapeOperator];
        for (strain, model) in [BendingStrain::Angle, BendingStrain::Curvature]
            .into_iter()
            .flat_map(|s| models.map(|m| (s, m)))
        {
            let mut material = preset("cotton").unwrap();
            material.bending_strain = strain;
            material.bending_model = model;
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
