//! The CPU reference backend: f64, parallel with rayon, deterministic.
//!
//! One step is the linearised backward Euler of MODEL.md (Baraff & Witkin
//! 1998; the paper's Eq. 1 / 20) with stiffness-proportional damping:
//!
//! ```text
//! (M + h (h + alpha) H) dv = h f - h (h + alpha) H v,    H = -df/dx (PSD)
//! v <- v + dv;  x <- x + h v
//! ```
//!
//! Each kernel is a file: `membrane` (per face), `bending` (per hinge),
//! `gather` (per vertex), `hessian` (matrix-free products), `pcg`.

mod bending;
mod gather;
mod hessian;
mod membrane;
mod pcg;
mod reduce;

use crate::backend::{Backend, Measures, StepInput, StepReport};
use crate::cloth::Cloth;
use crate::error::{Error, Result};
use glam::{DMat3, DVec3};
use std::sync::Arc;
use std::time::Instant;

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
    scratch: hessian::Scratch,
    vectors: pcg::Vectors,
    steps: u64,
}

impl CpuBackend {
    /// Starts from the mesh's positions at rest.
    pub fn new(cloth: Arc<Cloth>) -> CpuBackend {
        let n = cloth.vertex_count();
        CpuBackend {
            x: cloth.mesh.positions.clone(),
            v: vec![DVec3::ZERO; n],
            dv: vec![DVec3::ZERO; n],
            faces: membrane::FaceStates::new(cloth.mesh.faces.len()),
            hinges: bending::HingeStates::new(cloth.topology.hinges.len()),
            force: vec![DVec3::ZERO; n],
            inv_diag: vec![DMat3::IDENTITY; n],
            rhs: vec![DVec3::ZERO; n],
            work: vec![DVec3::ZERO; n],
            free: vec![true; n],
            scratch: hessian::Scratch::new(&cloth),
            vectors: pcg::Vectors::default(),
            steps: 0,
            cloth,
        }
    }

    /// Evaluates element states and the total force at the current positions
    /// (gravity `g`), for tests that compare forces directly.
    pub fn forces(&mut self, gravity: DVec3) -> &[DVec3] {
        membrane::membrane(&self.cloth, &self.x, &mut self.faces);
        bending::bending(&self.cloth, &self.x, &mut self.hinges);
        gather::forces(
            &self.cloth,
            &self.faces,
            &self.hinges,
            gravity,
            &mut self.force,
        );
        &self.force
    }

    /// Replaces positions and velocities (tests and validation).
    pub fn set_state(&mut self, x: &[DVec3], v: &[DVec3]) {
        self.x.copy_from_slice(x);
        self.v.copy_from_slice(v);
    }
}

impl Backend for CpuBackend {
    fn name(&self) -> &'static str {
        "cpu"
    }

    fn step(&mut self, input: &StepInput) -> Result<StepReport> {
        let h = input.dt;
        let cloth = Arc::clone(&self.cloth);
        let t0 = Instant::now();
        self.forces(input.gravity);
        let scale = h * (h + cloth.damping);
        gather::inverse_diagonal(&cloth, &self.faces, &self.hinges, scale, &mut self.inv_diag);
        let forces_ms = t0.elapsed().as_secs_f64() * 1e3;

        let t1 = Instant::now();
        let c = cloth.material.stretching.stiffness();
        let op = hessian::Operator {
            cloth: &cloth,
            faces: &self.faces,
            hinges: &self.hinges,
            c,
            mass_scale: 1.0,
            stiffness_scale: scale,
        };
        // rhs = h f - h (h + alpha) H v: `work` = H v through the same operator.
        let hv = hessian::Operator {
            mass_scale: 0.0,
            stiffness_scale: 1.0,
            ..op
        };
        hv.apply(&mut self.scratch, &self.v, &mut self.work);
        for i in 0..self.rhs.len() {
            self.rhs[i] = self.force[i] * h - self.work[i] * scale;
        }
        // Pinned vertices: dv that lands them exactly on their targets.
        self.free.fill(true);
        for (&p, &target) in input.pinned.iter().zip(input.targets) {
            let p = p as usize;
            self.free[p] = false;
            self.dv[p] = (target - self.x[p]) / h - self.v[p];
        }
        let solve = pcg::solve(
            &op,
            &mut self.scratch,
            &mut self.vectors,
            &self.inv_diag,
            &self.free,
            &self.rhs,
            &mut self.dv,
            input.solver.tolerance,
            input.solver.max_iterations,
        )?;
        // Reactions: the handle supplies (A dv - b)/h to each pinned vertex;
        // the cloth pulls on the handle with the opposite.
        op.apply(&mut self.scratch, &self.dv, &mut self.work);
        let reactions = input
            .pinned
            .iter()
            .map(|&p| (self.rhs[p as usize] - self.work[p as usize]) / h)
            .collect();
        let solve_ms = t1.elapsed().as_secs_f64() * 1e3;

        for i in 0..self.x.len() {
            self.v[i] += self.dv[i];
            self.x[i] += self.v[i] * h;
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
            cg_iterations: solve.iterations,
            cg_residual: solve.residual,
            reactions,
            forces_ms,
            solve_ms,
        })
    }

    fn positions(&self) -> Vec<DVec3> {
        self.x.clone()
    }

    fn velocities(&self) -> Vec<DVec3> {
        self.v.clone()
    }

    fn measure(&self) -> Measures {
        let cloth = &self.cloth;
        let kinetic_energy = self
            .v
            .iter()
            .zip(&cloth.mass)
            .map(|(v, m)| 0.5 * m * v.length_squared())
            .sum();
        let mut bending_energy = 0.0;
        let (mut sum, mut max) = (0.0f64, 0.0f64);
        for (hinge, rest) in cloth.topology.hinges.iter().zip(&cloth.hinge_rest) {
            let d =
                crate::model::bending::dihedral(hinge.v.map(|v| self.x[v as usize])) - rest.theta;
            bending_energy += 0.5 * cloth.material.bending * rest.factor * d * d;
            sum += d.abs();
            max = max.max(d.abs());
        }
        let hinges = cloth.topology.hinges.len().max(1) as f64;
        Measures {
            kinetic_energy,
            membrane_energy: membrane::membrane_energy(cloth, &self.x),
            bending_energy,
            mean_abs_bend: sum / hinges,
            max_abs_bend: max,
        }
    }
}
