//! `GpuBackend`: the cloth's buffers uploaded once, the kernels bound once,
//! and the step of `step/sequence.rs` recorded as compute dispatches
//! (`executor.rs`). The PCG loop stays on the device: its scalars live in a
//! buffer, `solver.readback_interval` iterations are recorded per
//! submission, and only the scalars are read back between them.

use super::buffers::{Buffers, FACE_CHANNELS, STATE, vec4};
use super::context::GpuContext;
use super::kernel::Recorder;
use super::kernels::{
    Build, Kernels, WgCollide, WgMultilevel, WgProximity, WgRepulsion, WgShapeOperator, WgStrainLimit,
};
use super::layout::{Displacement, HingeHalf, PackedChannel, PairGpu, Params, unpack};
use crate::cloth::Cloth;
use crate::collide::proximity::Proximity;
use crate::error::{Error, Result};
use crate::model::air::Air;
use crate::model::channel::Channels;
use crate::step::{Backend, BackendState, Scales, StepInput, StepReport, sequence};
use bytemuck::{Pod, Zeroable};
use glam::DVec3;
use std::sync::Arc;

pub struct GpuBackend {
    pub(super) ctx: GpuContext,
    pub(super) cloth: Arc<Cloth>,
    pub(super) buffers: Buffers,
    pub(super) kernels: Kernels,
    /// Built when a step first has obstacles, self-collision pairs, or
    /// strain limiting.
    pub(super) collide: Option<WgCollide>,
    pub(super) repulsion: Option<WgRepulsion>,
    /// Self-collision detection, built with `repulsion` (it fills its
    /// buffers), and the pairs its last search found (taken by `load`).
    pub(super) proximity: Option<WgProximity>,
    pub(super) found: usize,
    pub(super) limiter: Option<WgStrainLimit>,
    /// The shape operator's coupling, when the cloth's bending model is it.
    pub(super) shape_operator: Option<WgShapeOperator>,
    /// The multilevel preconditioner, built when a solve first asks for it.
    pub(super) multilevel: Option<WgMultilevel>,
    /// What the step being run has: enabled obstacles, proximity pairs.
    pub(super) obstacles_on: bool,
    pub(super) pairs_on: bool,
    /// The loads the `load` buffer holds (uploaded when they change).
    pub(super) loads: Vec<crate::step::VertexLoad>,
    /// The step's start positions, read back for the self-collision
    /// fail-safe when a step asks for it.
    pub(super) x_start: Vec<DVec3>,
    pub(super) recorder: Recorder,
    /// Workgroups per dispatch row (see `kernel::dispatch`).
    pub(super) row: u32,
}

impl GpuBackend {
    /// Uploads the cloth at rest and builds every pipeline and bind group.
    pub fn new(cloth: Arc<Cloth>) -> Result<GpuBackend> {
        let ctx = GpuContext::new()?;
        Self::with_context(ctx, cloth)
    }

    pub fn with_context(ctx: GpuContext, cloth: Arc<Cloth>) -> Result<GpuBackend> {
        let row = ctx.limits.max_compute_workgroups_per_dimension;
        Self::with_dispatch_row(ctx, cloth, row)
    }

    /// Like [`GpuBackend::with_context`], with every dispatch wrapping onto
    /// its y dimension after `row` workgroups (the adapter's
    /// `max_compute_workgroups_per_dimension` by default; a test narrows it
    /// to exercise the wrap on a small mesh).
    pub fn with_dispatch_row(ctx: GpuContext, cloth: Arc<Cloth>, row: u32) -> Result<GpuBackend> {
        let row = row.clamp(1, ctx.limits.max_compute_workgroups_per_dimension);
        let buffers = Buffers::new(&ctx, &cloth)?;
        let (n, nf, nh) = (
            cloth.vertex_count(),
            cloth.mesh.faces.len(),
            cloth.topology.hinges.len(),
        );
        let build = Build {
            ctx: &ctx,
            buffers: &buffers,
            row,
        };
        let kernels = Kernels::new(&build, n, nf, nh)?;
        let shape_operator = match cloth.shape_operator {
            Some(_) => Some(WgShapeOperator::new(&build, nh)?),
            None => None,
        };
        ctx.check()?;
        Ok(GpuBackend {
            ctx,
            cloth,
            buffers,
            kernels,
            collide: None,
            repulsion: None,
            proximity: None,
            found: 0,
            limiter: None,
            shape_operator,
            multilevel: None,
            obstacles_on: false,
            pairs_on: false,
            loads: Vec::new(),
            x_start: Vec::new(),
            recorder: Recorder::new(),
            row,
        })
    }

    /// The adapter this backend runs on.
    pub fn adapter(&self) -> &wgpu::AdapterInfo {
        &self.ctx.adapter
    }

    /// Bytes of every buffer this backend holds on the device.
    pub fn device_bytes(&self) -> u64 {
        self.buffers.bytes()
    }

    /// Copies `count` elements of `buffer` back to the host (submitting
    /// whatever was recorded before).
    pub(super) fn read<T: Pod>(&self, buffer: &wgpu::Buffer, count: usize) -> Result<Vec<T>> {
        self.read_at(buffer, 0, count)
    }

    /// Items `first..first + count` of `buffer`, through the staging
    /// buffer in pieces of its size.
    pub(super) fn read_at<T: Pod>(&self, buffer: &wgpu::Buffer, first: usize, count: usize) -> Result<Vec<T>> {
        let size = size_of::<T>() as u64;
        let staging = &self.buffers["staging"];
        let piece = (staging.size() / size).max(1) * size;
        let (mut at, end) = (first as u64 * size, (first + count) as u64 * size);
        let mut out = Vec::with_capacity(count);
        while at < end {
            let bytes = piece.min(end - at);
            self.recorder
                .encode(&self.ctx, |e| e.copy_buffer_to_buffer(buffer, at, staging, 0, bytes));
            self.recorder.flush(&self.ctx);
            let slice = staging.slice(0..bytes);
            let (tx, rx) = std::sync::mpsc::channel();
            slice.map_async(wgpu::MapMode::Read, move |r| {
                let _ = tx.send(r);
            });
            self.ctx
                .device
                .poll(wgpu::PollType::wait_indefinitely())
                .map_err(|e| Error::Gpu(format!("waiting for the device: {e}")))?;
            rx.recv()
                .map_err(|e| Error::Gpu(format!("readback: {e}")))?
                .map_err(|e| Error::Gpu(format!("readback: {e}")))?;
            let view = slice
                .get_mapped_range()
                .map_err(|e| Error::Gpu(format!("readback: {e}")))?;
            out.extend_from_slice(bytemuck::cast_slice::<u8, T>(&view));
            drop(view);
            staging.unmap();
            at += bytes;
        }
        Ok(out)
    }

    /// The self-collision pairs closer than `thickness` at the current
    /// positions, searched on the device, with their incidence (to check
    /// the search against the host's).
    pub fn proximity(&mut self, thickness: f64) -> Result<Proximity> {
        let found = self.search(thickness)?;
        let n = self.cloth.vertex_count();
        let pairs: Vec<PairGpu> = self.read(&self.buffers["pairs"], found.pairs)?;
        let offsets: Vec<u32> = self.read(&self.buffers["pair_offsets"], n + 1)?;
        let entries: Vec<[u32; 2]> = self.read(&self.buffers["pair_entries"], offsets[n] as usize)?;
        Ok(Proximity {
            pairs: pairs.iter().map(PairGpu::pair).collect(),
            offsets,
            entries: entries.iter().map(|e| (e[0], e[1])).collect(),
        })
    }

    pub(super) fn read_vec3(&self, name: &str) -> Result<Vec<DVec3>> {
        let raw: Vec<[f32; 4]> = self.read(&self.buffers[name], self.cloth.vertex_count())?;
        Ok(raw.iter().map(unpack).collect())
    }

    /// Replaces positions, velocities and the warm start of the next solve
    /// (validation from identical states).
    pub fn set_state(&mut self, x: &[DVec3], v: &[DVec3], dv: &[DVec3]) {
        let q = &self.ctx.queue;
        let u: Vec<Displacement> = x
            .iter()
            .zip(&self.cloth.mesh.positions)
            .map(|(p, r)| Displacement::split(*p - *r))
            .collect();
        q.write_buffer(&self.buffers["x"], 0, bytemuck::cast_slice(&u));
        for (name, data) in [("v", v), ("dv", dv)] {
            let packed: Vec<[f32; 4]> = data.iter().map(|&p| vec4(p)).collect();
            q.write_buffer(&self.buffers[name], 0, bytemuck::cast_slice(&packed));
        }
    }

    /// Replaces every channel's state (validation from identical states).
    pub fn set_channels(&mut self, ch: &Channels) {
        let q = &self.ctx.queue;
        for (c, name) in FACE_CHANNELS.iter().enumerate() {
            let packed: Vec<PackedChannel> = ch.faces.iter().map(|f| PackedChannel::from_state(&f[c])).collect();
            q.write_buffer(&self.buffers[name], 0, bytemuck::cast_slice(&packed));
        }
        let hinges: Vec<PackedChannel> = ch.hinges.iter().map(PackedChannel::from_state).collect();
        if !hinges.is_empty() {
            q.write_buffer(&self.buffers["hinge_channels"], 0, bytemuck::cast_slice(&hinges));
            let strain: Vec<f32> = ch.hinge_strain.iter().map(|&s| s as f32).collect();
            q.write_buffer(&self.buffers["hinge_strain"], 0, bytemuck::cast_slice(&strain));
        }
    }

    /// Updates the channels and evaluates the total force at the current
    /// state, like `CpuBackend::forces`.
    pub fn forces(&mut self, gravity: DVec3, scales: &Scales) -> Result<Vec<DVec3>> {
        let params = Params::new(&self.cloth, scales.dt, scales, gravity, &Air::default(), false);
        self.record_forces(&params, false);
        self.recorder.take_dispatches();
        self.read_vec3("force")
    }

    /// Writes the step's parameters and records the element kernels and the
    /// gather (with the repulsion springs when `pairs`). The parameters are
    /// written before the recorded work that reads them runs, so what an
    /// earlier stage recorded is submitted first.
    pub(super) fn record_forces(&self, params: &Params, pairs: bool) {
        self.recorder.flush(&self.ctx);
        self.ctx
            .queue
            .write_buffer(&self.buffers["params"], 0, bytemuck::bytes_of(params));
        let k = &self.kernels;
        let repulsion = self.repulsion.as_ref().filter(|_| pairs);
        let shape_operator = self.shape_operator.as_ref();
        self.recorder.pass(&self.ctx, "element kernels and gather", |pass| {
            pass.run(&k.membrane.main);
            pass.run(&k.bending.main);
            if let Some(s) = shape_operator {
                pass.run(&s.forces);
            }
            pass.run(&k.gather.main);
            if let Some(r) = repulsion {
                pass.run(&r.forces);
                pass.run(&r.precondition);
            }
        });
    }

    /// Every element's corner forces from the last force evaluation (see
    /// `CpuBackend::element_forces`).
    pub fn element_forces(&self) -> Result<Vec<DVec3>> {
        let (nf, nh) = (self.cloth.mesh.faces.len(), self.cloth.topology.hinges.len());
        let stress: Vec<[f32; 4]> = self.read(&self.buffers["stress"], 2 * nf)?;
        let stress: Vec<[DVec3; 2]> = stress.chunks_exact(2).map(|c| [unpack(&c[0]), unpack(&c[1])]).collect();
        let a: Vec<HingeHalf> = self.read(&self.buffers["hinge_lin_a"], nh)?;
        let b: Vec<HingeHalf> = self.read(&self.buffers["hinge_lin_b"], nh)?;
        let force: Vec<f64> = a.iter().map(|h| h.a[3] as f64).collect();
        let grad: Vec<[DVec3; 4]> = a
            .iter()
            .zip(&b)
            .map(|(a, b)| [unpack(&a.a), unpack(&a.b), unpack(&b.a), unpack(&b.b)])
            .collect();
        Ok(crate::measure::element_forces(&self.cloth, &stress, &force, &grad))
    }
}

impl Backend for GpuBackend {
    fn name(&self) -> &'static str {
        "gpu"
    }

    fn step(&mut self, input: &StepInput) -> Result<StepReport> {
        sequence::step(self, input)
    }

    fn positions(&self) -> Result<Vec<DVec3>> {
        let u: Vec<Displacement> = self.read(&self.buffers["x"], self.cloth.vertex_count())?;
        Ok(u.iter()
            .zip(&self.cloth.mesh.positions)
            .map(|(u, x)| *x + u.value())
            .collect())
    }

    fn velocities(&self) -> Result<Vec<DVec3>> {
        self.read_vec3("v")
    }

    fn channels(&self) -> Result<Channels> {
        let nf = self.cloth.mesh.faces.len();
        let nh = self.cloth.topology.hinges.len();
        let mut faces = vec![[PackedChannel::zeroed().to_state(); 3]; nf];
        for (c, name) in FACE_CHANNELS.iter().enumerate() {
            let packed: Vec<PackedChannel> = self.read(&self.buffers[name], nf)?;
            for (f, p) in faces.iter_mut().zip(&packed) {
                f[c] = p.to_state();
            }
        }
        let hinges: Vec<PackedChannel> = self.read(&self.buffers["hinge_channels"], nh)?;
        let strain: Vec<f32> = self.read(&self.buffers["hinge_strain"], nh)?;
        Ok(Channels {
            hinges: hinges.iter().map(PackedChannel::to_state).collect(),
            faces,
            hinge_strain: strain.iter().map(|&s| s as f64).collect(),
        })
    }

    fn cloth(&self) -> Arc<Cloth> {
        Arc::clone(&self.cloth)
    }

    fn save_state(&self) -> Result<BackendState> {
        let mut buffers = Vec::new();
        for name in STATE {
            let buffer = &self.buffers[name];
            buffers.push((
                name.to_string(),
                self.read::<u32>(buffer, (buffer.size() / 4) as usize)?,
            ));
        }
        Ok(BackendState::Gpu { buffers })
    }

    fn restore_state(&mut self, state: &BackendState) -> Result<()> {
        let BackendState::Gpu { buffers } = state else {
            return Err(Error::Step(
                "the checkpoint holds the CPU backend's state: resume it with --backend cpu".into(),
            ));
        };
        if buffers.len() != STATE.len() {
            return Err(Error::Step(format!(
                "the checkpoint holds {} GPU buffers, this backend has {}",
                buffers.len(),
                STATE.len()
            )));
        }
        for ((name, words), our_name) in buffers.iter().zip(STATE) {
            let size = self.buffers[our_name].size();
            if name != our_name || words.len() as u64 * 4 != size {
                return Err(Error::Step(format!(
                    "the checkpoint's GPU buffer `{name}` ({} words) does not match this cloth's `{our_name}` ({} words)",
                    words.len(),
                    size / 4
                )));
            }
        }
        for ((_, words), name) in buffers.iter().zip(STATE) {
            self.ctx
                .queue
                .write_buffer(&self.buffers[name], 0, bytemuck::cast_slice(words));
        }
        self.ctx.check()
    }

    /// The multilevel preconditioner's next solve builds its levels
    /// afresh.
    fn drop_caches(&mut self) {
        if let Some(m) = &mut self.multilevel {
            m.budget.renew();
        }
    }
}
