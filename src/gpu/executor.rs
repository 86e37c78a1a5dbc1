//! The GPU's execution of the step's stages (`step/sequence.rs`): each
//! stage records its kernels into the step's command encoder; what the
//! host needs (the PCG's scalars, released contacts, reactions, contact
//! figures) is read back, which submits what was recorded before it.

use super::backend::GpuBackend;
use super::kernel::Pass;
use super::kernels::{PCG, PLAIN, RHS, WgCollide, WgMultilevel, WgProximity, WgRepulsion, WgStrainLimit};
use super::layout::{Displacement, Params, Scalars};
use crate::collide::ContactReport;
use crate::collide::impact::Impacts;
use crate::error::{Error, Result};
use crate::step::sequence::{Executor, Found, Solve};
use crate::step::{Backend, CORRECTION_ITERATIONS, SOLVE_RESTARTS, Scales, StepInput, StepReport, StrainLimit};
use bytemuck::Zeroable;
use glam::DVec3;
use std::time::Instant;

/// The PCG's iterations are submitted in pieces of at least this many
/// dispatches, so that the device runs one piece while the host records
/// the next (recording costs wgpu about 2 us a dispatch on an H200's host).
/// On an H200 the twist (the 10 steps after the first, multilevel, its
/// iterations about 40 dispatches each) took 19.3, 20.5, 21.5 and 21.9 ms
/// a step at 27.9K vertices with a submission every 1, 2, 4 and 8
/// iterations, and 26.0 recording a whole batch before it; at 111K 57.8,
/// 58.0, 58.6, 59.3 and 67.2.
const SUBMIT_DISPATCHES: u64 = 32;

/// The iterations a solve records before each readback of its scalars.
struct Batches {
    /// The last solve's iterations in each phase (none: every batch is
    /// `later`).
    last: Vec<usize>,
    later: usize,
}

impl Batches {
    /// The first batch of phase `k`: the last solve's phase `k` less one
    /// iteration, so that a solve that takes as many reads its scalars
    /// twice and records one iteration past its end. Recording a whole
    /// solve's iterations as the first batch recorded each restarted
    /// solve's later phases past the first one's end: on an H200 the
    /// 27.9K twist recorded 444 iterations for 331 (10 steps).
    fn first(&self, k: usize) -> usize {
        self.last.get(k).map_or(self.later, |&n| n.saturating_sub(1).max(1))
    }
}

impl GpuBackend {
    /// Bytes of one per-vertex vec4 buffer.
    fn vector_bytes(&self) -> u64 {
        (self.cloth.vertex_count() * 16) as u64
    }

    /// Records a copy of one per-vertex vector buffer into another.
    fn copy(&self, from: &str, to: &str) {
        let (a, b, bytes) = (&self.buffers[from], &self.buffers[to], self.vector_bytes());
        self.recorder
            .encode(&self.ctx, |e| e.copy_buffer_to_buffer(a, 0, b, 0, bytes));
    }

    /// The solve's residual `S (b - A dv)` from dv itself, its preconditioned
    /// twin, the first direction, and the scalars with whether to iterate.
    fn true_residual(&self, multilevel: bool) -> Result<Scalars> {
        let (pcg, reduce) = (&self.kernels.pcg, &self.kernels.reduce);
        self.copy("dv", "p");
        self.recorder.pass(&self.ctx, "residual", |pass| {
            self.product(pass, PLAIN);
            pass.run(&pcg.residual);
            self.precondition(pass, multilevel);
            pass.run(&reduce.start);
            pass.run(&pcg.first_direction);
        });
        Ok(self.read(&self.buffers["scalars"], 1)?[0])
    }

    /// With the multilevel preconditioner, records its V-cycle on the
    /// residual `pcg` left and the sums of its `z` (block Jacobi's is
    /// already there otherwise).
    fn precondition(&self, pass: &mut Pass, multilevel: bool) {
        if let Some(m) = self.multilevel.as_ref().filter(|_| multilevel) {
            m.record_cycle(pass);
            pass.run(&self.kernels.pcg.filtered_sums);
        }
    }

    /// Iterates from the residual of dv until the scalars say done, at most
    /// to `max` iterations in all. When the recurred residual meets the
    /// tolerance, the residual is computed again from dv and the
    /// iterations go on from it while that one does not (`SOLVE_RESTARTS`):
    /// in f32 the recurrence drifts below the true residual (a claimed 1e-6
    /// was 7e-6 on the trousers). Each such run of iterations is a phase;
    /// returns the scalars and the iterations of each phase.
    /// `batch`: the iterations recorded per submission, the first of each
    /// phase (`Batches::first`) and the later ones.
    fn iterate(&self, batch: &Batches, max: u32, multilevel: bool) -> Result<(Scalars, Vec<usize>)> {
        let (pcg, reduce) = (&self.kernels.pcg, &self.kernels.reduce);
        let mut s = self.true_residual(multilevel)?;
        let (mut checked, mut phases) = (0, Vec::new());
        loop {
            let start = s.iterations;
            let mut recorded = batch.first(phases.len());
            while s.done == 0 {
                for _ in 0..recorded {
                    self.recorder.pass(&self.ctx, "pcg iteration", |pass| {
                        self.product(pass, PCG);
                        pass.run(&reduce.alpha);
                        pass.run(&pcg.update);
                        self.precondition(pass, multilevel);
                        pass.run(&reduce.beta);
                        pass.run(&pcg.direction);
                    });
                    self.recorder.flush_past(&self.ctx, SUBMIT_DISPATCHES);
                }
                s = self.read(&self.buffers["scalars"], 1)?[0];
                recorded = batch.later;
            }
            phases.push((s.iterations - start) as usize);
            let stop = s.broke != 0 || s.iterations == checked || s.iterations >= max;
            if stop || phases.len() > SOLVE_RESTARTS {
                return Ok((s, phases));
            }
            checked = s.iterations;
            s = self.true_residual(multilevel)?;
        }
    }

    /// Readies the multilevel preconditioner for a solve: assembles the
    /// finest level on the device, and either bounds its eigenvalues there
    /// (the coarse levels kept) or reads it back and builds the levels
    /// below it on the host. `rebuild`: in a solve that ran past its
    /// budget, whose finest level is assembled already, build them.
    fn setup_multilevel(&mut self, rebuild: bool) -> Result<()> {
        if self.multilevel.is_none() {
            let m = WgMultilevel::new(&self.ctx, &mut self.buffers, self.row, &self.cloth)?;
            self.multilevel = Some(m);
        }
        let mut m = self.multilevel.take().expect("built above");
        match rebuild {
            true => m.budget.renew(),
            false => self
                .recorder
                .pass(&self.ctx, "multilevel: finest level", |pass| pass.run(&m.assemble)),
        }
        let result = match m.budget.keep(m.built()) {
            true => {
                self.recorder
                    .pass(&self.ctx, "multilevel: power iteration", |pass| m.record_power(pass));
                Ok(())
            }
            false => self
                .read::<[[f32; 4]; 3]>(&self.buffers["ml_fine_val"], m.fine_blocks())
                .and_then(|val| {
                    let x = self.positions()?;
                    m.build(&self.ctx, &self.buffers, &val, &x)
                }),
        };
        self.multilevel = Some(m);
        result?;
        self.ctx.check()
    }

    /// The repulsion kernels when the step has proximity pairs.
    fn pairs(&self) -> Option<&WgRepulsion> {
        self.repulsion.as_ref().filter(|_| self.pairs_on)
    }

    /// The collision kernels when the step has enabled obstacles.
    fn obstacles(&self) -> Option<&WgCollide> {
        self.collide.as_ref().filter(|_| self.obstacles_on)
    }

    /// Records `q = A p` in product mode `mode` (an index into `kernels::MODES`).
    fn product(&self, pass: &mut Pass, mode: usize) {
        let h = &self.kernels.hessian;
        pass.run(&h.face_product);
        pass.run(&h.hinge_product);
        if let Some(s) = &self.shape_operator {
            pass.run(&s.product);
        }
        pass.run(&h.gather[mode]);
        if let Some(r) = self.pairs() {
            pass.run(&r.pair_product);
            pass.run(&r.gather[mode]);
        }
    }

    /// Uploads the scene's obstacle grids and the bodies' triangles and
    /// builds the collision kernels, unless the same are already on the
    /// device; then uploads the step's poses and bodies.
    fn prepare_collide(&mut self, input: &StepInput) -> Result<()> {
        if !self
            .collide
            .as_ref()
            .is_some_and(|c| c.holds(input.grids, input.bodies))
        {
            let n = self.cloth.vertex_count();
            let c = WgCollide::new(
                &self.ctx,
                &mut self.buffers,
                self.row,
                input.grids,
                input.bodies,
                &self.cloth.topology.edges,
                n,
            )?;
            self.collide = Some(c);
            self.ctx.check()?;
        }
        if let Some(c) = &self.collide {
            c.upload(&self.ctx, &self.buffers, input.obstacles, input.bodies, input.dt);
        }
        let count = [input.obstacles.len() as u32, 0, 0, 0];
        let q = &self.ctx.queue;
        q.write_buffer(&self.buffers["obstacle_count"], 0, bytemuck::cast_slice(&count));
        Ok(())
    }

    /// Builds the repulsion and proximity kernels on first use, or again
    /// with room for `pairs` pairs.
    fn prepare_proximity(&mut self, pairs: usize) -> Result<()> {
        if self.proximity.as_ref().is_some_and(|p| p.capacity() >= pairs) {
            return Ok(());
        }
        let n = self.cloth.vertex_count();
        let r = WgRepulsion::new(&self.ctx, &mut self.buffers, self.row, n, pairs)?;
        let p = WgProximity::new(&self.ctx, &mut self.buffers, self.row, &self.cloth, r.pairs_capacity)?;
        (self.repulsion, self.proximity) = (Some(r), Some(p));
        self.ctx.check()
    }

    /// Searches the pairs closer than `thickness` at the current positions
    /// into the repulsion's buffers (grown until they hold them all);
    /// returns how many, and how long reading the count took once the
    /// search was done.
    pub(super) fn search(&mut self, thickness: f64) -> Result<Found> {
        let (mut needed, mut readback_ms) = (0, 0.0);
        loop {
            self.prepare_proximity(needed)?;
            let p = self.proximity.as_ref().expect("built above");
            p.record(&self.ctx, &self.recorder, &self.buffers, thickness);
            self.recorder.sync(&self.ctx)?;
            let t = Instant::now();
            let total = self.read_at::<u32>(&self.buffers["prox_query_start"], p.total_index(), 1)?[0] as usize;
            readback_ms += t.elapsed().as_secs_f64() * 1e3;
            if total <= p.capacity() {
                self.found = total;
                return Ok(Found {
                    pairs: total,
                    readback_ms,
                });
            }
            needed = total;
        }
    }

    /// Builds the strain-limiting kernels on first use and uploads the
    /// step's limits.
    fn prepare_limiter(&mut self, limit: &StrainLimit) -> Result<()> {
        if self.limiter.is_none() {
            let l = WgStrainLimit::new(&self.ctx, &mut self.buffers, self.row, &self.cloth)?;
            self.limiter = Some(l);
        }
        let params = WgStrainLimit::params(limit, self.cloth.topology.edges.len());
        self.ctx
            .queue
            .write_buffer(&self.buffers["limit_params"], 0, bytemuck::bytes_of(&params));
        self.ctx.check()
    }
}

impl Executor for GpuBackend {
    fn find_pairs(&mut self, input: &StepInput) -> Result<Found> {
        if input.self_collision.impact_zones {
            self.x_start = self.positions()?;
        }
        self.search(input.self_collision.thickness)
    }

    fn load(&mut self, input: &StepInput, spring_scale: f64) -> Result<()> {
        self.obstacles_on = !input.obstacles.is_empty();
        let pairs = std::mem::take(&mut self.found);
        self.pairs_on = pairs > 0;
        if self.obstacles_on {
            self.prepare_collide(input)?;
        }
        if self.pairs_on {
            let held = self.obstacles_on;
            WgRepulsion::upload(
                &self.ctx,
                &self.buffers,
                pairs,
                &input.self_collision,
                spring_scale,
                held,
            );
        }
        if let Some(limit) = &input.strain_limit {
            self.prepare_limiter(limit)?;
        }
        let n = self.cloth.vertex_count();
        let rest = &self.cloth.mesh.positions;
        let mut free = vec![1u32; n];
        let mut targets = vec![Displacement::zeroed(); n];
        for (&i, &t) in input.pinned.iter().zip(input.targets) {
            free[i as usize] = 0;
            targets[i as usize] = Displacement::split(t - rest[i as usize]);
        }
        let q = &self.ctx.queue;
        q.write_buffer(&self.buffers["is_free"], 0, bytemuck::cast_slice(&free));
        q.write_buffer(&self.buffers["targets"], 0, bytemuck::cast_slice(&targets));
        if !input.sticks.is_empty() {
            let mut stick = vec![[0.0f32; 4]; n];
            for st in input.sticks {
                let d = st.target - rest[st.vertex as usize];
                stick[st.vertex as usize] = [d.x, d.y, d.z, st.stiffness].map(|c| c as f32);
            }
            q.write_buffer(&self.buffers["stick"], 0, bytemuck::cast_slice(&stick));
        }
        if !input.loads.is_empty() && input.loads != self.loads {
            let mut load = vec![[0.0f32; 4]; n];
            for l in input.loads {
                load[l.vertex as usize] = [l.force.x, l.force.y, l.force.z, 0.0].map(|c| c as f32);
            }
            q.write_buffer(&self.buffers["load"], 0, bytemuck::cast_slice(&load));
            self.loads = input.loads.to_vec();
        }
        Ok(())
    }

    fn evaluate(&mut self, input: &StepInput, scales: &Scales) -> Result<()> {
        let sticking = !input.sticks.is_empty();
        let mut params = Params::new(&self.cloth, input.dt, scales, input.gravity, &input.air, sticking);
        params.counts[3] = u32::from(!input.loads.is_empty());
        self.record_forces(&params, self.pairs_on);
        Ok(())
    }

    fn right_hand_side(&mut self, _: &StepInput, _: &Scales) -> Result<()> {
        self.copy("v", "p");
        self.recorder.pass(&self.ctx, "right-hand side", |pass| {
            self.product(pass, RHS);
            pass.run(&self.kernels.integrate.right_hand_side);
        });
        Ok(())
    }

    fn prescribe(&mut self, _: &StepInput, to_targets: bool, resting: bool) -> Result<()> {
        let resting = self.obstacles().filter(|_| resting);
        if resting.is_none() {
            let normals = &self.buffers["rest_normal"];
            self.recorder.encode(&self.ctx, |e| e.clear_buffer(normals, 0, None));
        }
        let k = &self.kernels.integrate;
        self.recorder.pass(&self.ctx, "prescribed rows", |pass| {
            pass.run(if to_targets { &k.constrain } else { &k.hold_pinned });
            if let Some(c) = resting {
                pass.run(&c.resting);
            }
        });
        Ok(())
    }

    fn solve(&mut self, input: &StepInput, _: &Scales, floor: f64) -> Result<Solve> {
        let multilevel = input.solver.preconditioner.multilevel(self.cloth().mass.len(), true);
        let max = input.solver.max_iterations as u32;
        let mut budget = max;
        if multilevel {
            self.setup_multilevel(false)?;
            let m = self.multilevel.as_ref().expect("set up above");
            budget = m.budget.budget().map_or(max, |b| (b as u32).min(max));
        }
        let init = Scalars {
            tol2: (input.solver.tolerance * input.solver.tolerance) as f32,
            floor2: (floor * floor) as f32,
            max_iterations: budget,
            ..Scalars::default()
        };
        self.recorder.flush(&self.ctx);
        self.ctx
            .queue
            .write_buffer(&self.buffers["scalars"], 0, bytemuck::bytes_of(&init));
        let (pcg, reduce) = (&self.kernels.pcg, &self.kernels.reduce);
        self.recorder.pass(&self.ctx, "reference residual", |pass| {
            // The reference residual: the guess with only its prescribed part.
            pass.run(&pcg.pinned_guess);
            self.product(pass, PLAIN);
            pass.run(&pcg.reference_residual);
            pass.run(&reduce.reference);
        });
        let interval = input.solver.readback_interval.max(1);
        // A V-cycle costs tens of dispatches, and iterations recorded past
        // convergence run all the same (they change nothing): with the
        // multilevel preconditioner each phase's first batch is the last
        // solve's same phase less one iteration, and later ones one
        // iteration each (on an H200, the 27.9K twist's 10 steps after the
        // first, alternating in one call: 13.0 and 13.6 ms a step against
        // 14.8 and 16.0 with batches of 2).
        let batch = match self.multilevel.as_ref().filter(|_| multilevel) {
            Some(m) => Batches {
                last: m.last_phases.clone(),
                later: 1,
            },
            None => Batches {
                last: Vec::new(),
                later: interval,
            },
        };
        let (mut s, mut phases) = self.iterate(&batch, budget, multilevel)?;
        // Past its budget, a solve on kept multilevel levels has found a
        // system they no longer serve: built afresh, CG goes on from its
        // iterate (as cpu/executor.rs does).
        let mut after_build = s.iterations;
        let converged = s.zero != 0 || s.rr <= s.tol2 * s.rr_ref;
        if budget < max && s.iterations >= budget && s.broke == 0 && !converged {
            self.setup_multilevel(true)?;
            let at = std::mem::offset_of!(Scalars, max_iterations) as u64;
            self.ctx
                .queue
                .write_buffer(&self.buffers["scalars"], at, bytemuck::bytes_of(&max));
            let before = s.iterations;
            (s, phases) = self.iterate(&batch, max, multilevel)?;
            after_build = s.iterations - before;
        }
        if let Some(m) = self.multilevel.as_mut().filter(|_| multilevel) {
            m.budget.solved(after_build as usize);
            m.last_phases = phases;
        }
        if s.broke != 0 {
            return Err(Error::Step(format!(
                "conjugate gradients broke down at iteration {} (p.Ap = {}): the system is not positive definite \
                 or the state blew up",
                s.iterations, s.pq
            )));
        }
        // The prescribed solution and `A dv` in `q` (for the reactions and
        // the contacts' release).
        let pcg = &self.kernels.pcg;
        self.recorder
            .pass(&self.ctx, "prescribed solution", |pass| pass.run(&pcg.zero_free));
        self.copy("dv", "p");
        self.recorder.pass(&self.ctx, "A dv", |pass| self.product(pass, PLAIN));
        Ok(Solve {
            iterations: s.iterations as usize,
            residual: if s.zero == 0 {
                ((s.rr / s.rr_ref) as f64).sqrt()
            } else {
                0.0
            },
        })
    }

    fn release(&mut self) -> Result<(usize, usize)> {
        let Some(c) = self.obstacles() else {
            return Ok((0, 0));
        };
        let released = &self.buffers["released"];
        self.recorder.encode(&self.ctx, |e| e.clear_buffer(released, 0, None));
        self.recorder
            .pass(&self.ctx, "release contacts", |pass| pass.run(&c.release));
        let counts = self.read::<u32>(released, 2)?;
        Ok((counts[0] as usize, counts[1] as usize))
    }

    fn reactions(&mut self, input: &StepInput, _: f64) -> Result<Vec<DVec3>> {
        let k = &self.kernels.integrate;
        self.recorder
            .pass(&self.ctx, "reactions", |pass| pass.run(&k.reactions));
        if input.pinned.is_empty() {
            return Ok(Vec::new());
        }
        let all = self.read_vec3("reaction")?;
        Ok(input.pinned.iter().map(|&i| all[i as usize]).collect())
    }

    fn explicit_half(&mut self) -> Result<()> {
        let k = &self.kernels.integrate;
        self.recorder
            .pass(&self.ctx, "explicit half step", |pass| pass.run(&k.explicit_half));
        Ok(())
    }

    fn advance_velocity(&mut self) -> Result<()> {
        let k = &self.kernels.integrate;
        self.recorder
            .pass(&self.ctx, "velocity update", |pass| pass.run(&k.advance_velocity));
        Ok(())
    }

    fn keep_velocity(&mut self) -> Result<()> {
        self.copy("v", "v_before");
        Ok(())
    }

    fn limit_strain(&mut self, limit: &StrainLimit, _: f64) -> Result<()> {
        if let Some(l) = &self.limiter {
            self.recorder.pass(&self.ctx, "strain limiting", |pass| {
                for _ in 0..limit.iterations {
                    pass.run(&l.edge_request);
                    pass.run(&l.apply_requests);
                }
            });
        }
        Ok(())
    }

    fn respond(&mut self, _: &StepInput, _: f64) -> Result<()> {
        if let Some(c) = self.obstacles() {
            self.recorder
                .pass(&self.ctx, "obstacle response", |pass| pass.run(&c.respond));
        }
        Ok(())
    }

    fn correct(&mut self, _: &StepInput, _: f64) -> Result<()> {
        if let Some(r) = self.pairs() {
            self.recorder.pass(&self.ctx, "self-collision impulses", |pass| {
                for _ in 0..CORRECTION_ITERATIONS {
                    pass.run(&r.pair_impulse);
                    pass.run(&r.apply_impulses);
                }
            });
        }
        Ok(())
    }

    fn carry(&mut self) -> Result<()> {
        let k = &self.kernels.integrate;
        self.recorder.pass(&self.ctx, "carry", |pass| pass.run(&k.carry));
        Ok(())
    }

    fn advance_position(&mut self, _: f64) -> Result<()> {
        let k = &self.kernels.integrate;
        self.recorder
            .pass(&self.ctx, "position update", |pass| pass.run(&k.advance_position));
        Ok(())
    }

    fn settle(&mut self, input: &StepInput) -> Result<ContactReport> {
        let Some(c) = self.obstacles() else {
            return Ok(ContactReport::default());
        };
        // The depths after the lift, and the report's readback, only where
        // they are measured (`StepInput::depths`).
        self.recorder.pass(&self.ctx, "settle", |pass| {
            pass.run(&c.settle);
            if input.depths {
                pass.run(&c.depths);
            }
        });
        if !input.depths {
            return Ok(ContactReport::default());
        }
        let contact: Vec<[f32; 4]> = self.read(&self.buffers["contact"], self.cloth.vertex_count())?;
        let deepest = |k: usize| contact.iter().fold(0.0f64, |m, c| m.max(-c[k] as f64));
        Ok(ContactReport {
            contacts: contact.iter().filter(|c| c[0] != 0.0).count(),
            penetration: deepest(1),
            unlifted: deepest(2),
            edge_penetration: deepest(3),
            resting: 0,
        })
    }

    fn fail_safe(&mut self, input: &StepInput, h: f64) -> Result<Impacts> {
        self.resolve_impacts(input, h)
    }

    fn take_explicit_half(&mut self) -> Result<()> {
        self.copy("v_tilde", "v");
        Ok(())
    }

    fn sync(&mut self) -> Result<()> {
        self.recorder.sync(&self.ctx)
    }

    fn take_dispatches(&mut self) -> u64 {
        self.recorder.take_dispatches()
    }

    fn check_finite(&mut self, report: &StepReport) -> Result<()> {
        self.recorder.flush(&self.ctx);
        if !report.cg_residual.is_finite() {
            return Err(Error::Step(
                "the solve produced a non-finite residual: the state blew up".into(),
            ));
        }
        self.ctx.check()
    }
}
