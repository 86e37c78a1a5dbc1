//! The CPU's execution of the step's stages (`step/sequence.rs`): each
//! stage runs its kernel files at once, in f64.

use super::repulsion::Repulsion;
use super::{CpuBackend, assembly, collide, gather, hessian, integrate, pcg, strain_limit};
use crate::collide::ContactReport;
use crate::collide::impact::Impacts;
use crate::collide::proximity::{self, Proximity};
use crate::error::{Error, Result};
use crate::step::sequence::{Executor, Found, Solve, resolve_impacts};
use crate::step::{Integrator, Scales, StepInput, StepReport, StrainLimit};
use glam::DVec3;
use std::sync::Arc;

/// The step's repulsion springs, when it has proximity pairs.
fn repulsion<'a>(prox: &'a Proximity, input: &StepInput, scale: f64) -> Option<Repulsion<'a>> {
    let sc = input.self_collision;
    (!prox.pairs.is_empty()).then_some(Repulsion {
        prox,
        stiffness: sc.stiffness,
        thickness: sc.thickness,
        friction: sc.friction,
        scale,
    })
}

impl Executor for CpuBackend {
    fn find_pairs(&mut self, input: &StepInput) -> Result<Found> {
        let mesh = &self.cloth.mesh;
        let t = input.self_collision.thickness;
        self.found = proximity::find(&mesh.faces, &self.cloth.topology.edges, &self.x, &mesh.positions, t);
        if input.self_collision.impact_zones {
            self.x_start.clone_from(&self.x);
        }
        Ok(Found {
            pairs: self.found.pairs.len(),
            readback_ms: 0.0,
        })
    }

    fn load(&mut self, input: &StepInput, spring_scale: f64) -> Result<()> {
        self.prox = std::mem::take(&mut self.found);
        self.spring_scale = spring_scale;
        self.stick.fill(0.0);
        for st in input.sticks {
            self.stick[st.vertex as usize] = st.stiffness;
            self.stick_target[st.vertex as usize] = st.target;
        }
        Ok(())
    }

    fn evaluate(&mut self, input: &StepInput, scales: &Scales) -> Result<()> {
        let cloth = Arc::clone(&self.cloth);
        self.forces(input.gravity, scales);
        let repulsion = repulsion(&self.prox, input, self.spring_scale);
        if let Some(r) = &repulsion {
            r.forces(&mut self.force);
        }
        if input.air.acts() {
            gather::air(&cloth, &self.faces, &input.air, &mut self.normals, &mut self.force);
        }
        if !input.sticks.is_empty() {
            gather::sticks(&self.stick, &self.stick_target, &self.x, &mut self.force);
        }
        gather::loads(input.loads, &mut self.force);
        let blocks = gather::VertexBlocks::of(input, scales, &self.stick, &self.normals);
        gather::inverse_diagonal(
            &cloth,
            &self.faces,
            &self.hinges,
            repulsion.as_ref(),
            blocks.as_ref(),
            &mut self.inv_diag,
        );
        Ok(())
    }

    fn right_hand_side(&mut self, input: &StepInput, scales: &Scales) -> Result<()> {
        let repulsion = repulsion(&self.prox, input, self.spring_scale);
        let blocks = gather::VertexBlocks::of(input, scales, &self.stick, &self.normals);
        let op = hessian::Operator {
            cloth: &self.cloth,
            faces: &self.faces,
            hinges: &self.hinges,
            repulsion: repulsion.as_ref(),
            blocks: blocks.as_ref(),
            mass_scale: 0.0,
        };
        op.apply(&mut self.scratch, &self.v, &mut self.work);
        integrate::right_hand_side(&self.force, &self.work, scales.dt, &mut self.rhs);
        Ok(())
    }

    fn prescribe(&mut self, input: &StepInput, to_targets: bool, resting: bool) -> Result<()> {
        integrate::constrain(
            input.pinned,
            if to_targets { Some(input.targets) } else { None },
            input.dt,
            &self.x,
            &self.v,
            &mut self.dv,
            &mut self.free,
        );
        if resting {
            collide::resting(
                surfaces(input),
                input.obstacles,
                input.dt,
                &self.x,
                &self.v,
                &self.free,
                &mut self.rest_normal,
                &mut self.dv,
            );
        } else {
            self.rest_normal.fill(DVec3::ZERO);
            self.held.fill(0.0);
        }
        Ok(())
    }

    fn solve(&mut self, input: &StepInput, scales: &Scales, floor: f64) -> Result<Solve> {
        let repulsion = repulsion(&self.prox, input, self.spring_scale);
        let blocks = gather::VertexBlocks::of(input, scales, &self.stick, &self.normals);
        let op = hessian::Operator {
            cloth: &self.cloth,
            faces: &self.faces,
            hinges: &self.hinges,
            repulsion: repulsion.as_ref(),
            blocks: blocks.as_ref(),
            mass_scale: 1.0,
        };
        let filter = pcg::Filter {
            free: &self.free,
            normals: &self.rest_normal,
        };
        // The multilevel preconditioner's finest level is the matrix
        // assembled under the filter, and CG then takes its products from
        // it too, where it holds the whole operator. Block Jacobi keeps the
        // matrix-free products: assembled, the coarse trousers step 1.56x
        // as fast, but their trajectories move by rounding, and the
        // lift-leg's edge-stretch claim, marginal at the return (26.8-32.1%
        // as the tolerance or the products' rounding change, against its
        // 30%), then fails (docs/speed.md).
        let multilevel = input.solver.preconditioner.multilevel(self.x.len(), false);
        let matrix = multilevel.then(|| self.assembly.matrix(&op, &filter, repulsion.is_some()));
        let mut precond = match &matrix {
            Some(a) => {
                self.multilevel.setup(&mut self.assembly, &op, &filter, a, &self.x)?;
                pcg::Preconditioning::Multilevel(&mut self.multilevel)
            }
            None => pcg::Preconditioning::Jacobi(&self.inv_diag),
        };
        let product = matrix.as_ref().filter(|_| !assembly::wants_matrix_free(&op));
        let max = input.solver.max_iterations;
        let budget = match &precond {
            pcg::Preconditioning::Multilevel(m) => m.budget().map_or(max, |b| b.min(max)),
            pcg::Preconditioning::Jacobi(_) => max,
        };
        let tolerance = input.solver.tolerance;
        let mut cg = |precond: &mut pcg::Preconditioning, cap: usize| {
            pcg::solve(
                &op,
                product,
                &mut self.scratch,
                &mut self.vectors,
                precond,
                &filter,
                &self.rhs,
                &mut self.dv,
                tolerance,
                floor,
                cap,
            )
        };
        let mut solve = cg(&mut precond, budget)?;
        // Past its budget, a solve on kept multilevel levels has found a
        // system they no longer serve: built afresh, CG goes on from its
        // iterate. A solve that stopped short of the tolerance after its
        // restarts, within the budget, keeps them (as the GPU's).
        let mut after_build = solve.iterations;
        if budget < max && solve.iterations >= budget && solve.residual > tolerance {
            if let (pcg::Preconditioning::Multilevel(m), Some(a)) = (&mut precond, &matrix) {
                m.renew();
                m.setup(&mut self.assembly, &op, &filter, a, &self.x)?;
            }
            let more = cg(&mut precond, max - budget)?;
            after_build = more.iterations;
            solve = Solve {
                iterations: solve.iterations + more.iterations,
                residual: more.residual,
            };
        }
        if let pcg::Preconditioning::Multilevel(m) = &mut precond {
            m.solved(after_build);
        }
        op.apply(&mut self.scratch, &self.dv, &mut self.work);
        Ok(solve)
    }

    fn release(&mut self) -> Result<(usize, usize)> {
        Ok(collide::release(
            &mut self.rest_normal,
            &mut self.held,
            &self.work,
            &self.rhs,
            &self.cloth.mass,
        ))
    }

    fn reactions(&mut self, input: &StepInput, k: f64) -> Result<Vec<DVec3>> {
        Ok(integrate::reactions(input.pinned, &self.rhs, &self.work, k))
    }

    fn explicit_half(&mut self) -> Result<()> {
        integrate::explicit_half(&self.v, &self.rhs, &self.cloth.mass, &mut self.v_tilde);
        Ok(())
    }

    fn advance_velocity(&mut self) -> Result<()> {
        integrate::advance_velocity(&mut self.v, &self.dv);
        Ok(())
    }

    fn keep_velocity(&mut self) -> Result<()> {
        self.v_before.clone_from(&self.v);
        Ok(())
    }

    fn limit_strain(&mut self, limit: &StrainLimit, h: f64) -> Result<()> {
        strain_limit::limit(&self.cloth, limit, h, &self.x, &mut self.v, &self.free);
        Ok(())
    }

    fn respond(&mut self, input: &StepInput, h: f64) -> Result<()> {
        collide::respond(
            surfaces(input),
            input.obstacles,
            h,
            &mut self.x,
            &mut self.v,
            &self.free,
            &self.held,
            &mut self.touched,
        );
        Ok(())
    }

    fn correct(&mut self, input: &StepInput, h: f64) -> Result<()> {
        if let Some(r) = repulsion(&self.prox, input, self.spring_scale) {
            r.correct(h, &mut self.v, &self.cloth.mass, &self.free, &self.touched);
        }
        Ok(())
    }

    fn carry(&mut self) -> Result<()> {
        integrate::carry(&self.v, &self.v_before, &self.free, &mut self.v_tilde);
        Ok(())
    }

    fn advance_position(&mut self, h: f64) -> Result<()> {
        integrate::advance_position(&mut self.x, &self.v, h);
        Ok(())
    }

    fn settle(&mut self, input: &StepInput) -> Result<ContactReport> {
        Ok(collide::settle(
            surfaces(input),
            input.obstacles,
            input.dt,
            &mut self.x,
            &self.free,
            &mut self.touched,
            &self.cloth.topology.edges,
            input.depths,
        ))
    }

    fn fail_safe(&mut self, input: &StepInput, h: f64) -> Result<Impacts> {
        let before = self.x.clone();
        let impacts = resolve_impacts(&self.cloth, input, &self.x_start, &mut self.x);
        let mixed = input.integrator == Integrator::BridsonMixed;
        for i in (0..self.x.len()).filter(|&i| self.x[i] != before[i]) {
            let v = (self.x[i] - self.x_start[i]) / h;
            if mixed {
                self.v_tilde[i] += v - self.v[i];
            }
            self.v[i] = v;
        }
        Ok(impacts)
    }

    fn take_explicit_half(&mut self) -> Result<()> {
        std::mem::swap(&mut self.v, &mut self.v_tilde);
        Ok(())
    }

    fn sync(&mut self) -> Result<()> {
        Ok(())
    }

    fn take_dispatches(&mut self) -> u64 {
        0
    }

    /// A vertex with a non-finite position or velocity.
    fn check_finite(&mut self, _: &StepReport) -> Result<()> {
        match self
            .x
            .iter()
            .zip(&self.v)
            .position(|(x, v)| !x.is_finite() || !v.is_finite())
        {
            Some(i) => Err(Error::Step(format!(
                "vertex {} (numbered from 1) has a non-finite position or velocity: the state blew up",
                i + 1
            ))),
            None => Ok(()),
        }
    }
}

/// The step's obstacle surfaces.
fn surfaces<'a>(input: &StepInput<'a>) -> collide::Surfaces<'a> {
    collide::Surfaces {
        grids: input.grids,
        bodies: input.bodies,
    }
}
