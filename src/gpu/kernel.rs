//! A compute kernel (one entry point of a shader file, bound to the
//! backend's buffers by the names its globals declare) and the recorder
//! that collects a step's dispatches into one command encoder, submitted
//! only where the host needs a result.

use super::buffers::Buffers;
use super::context::{GpuContext, Module};
use crate::error::{Error, Result};
use std::cell::{Cell, RefCell};

/// Threads per workgroup (`WORKGROUP` in shaders/shared/types.wgsl).
pub const WORKGROUP: u32 = 64;

/// Workgroups covering `threads` items.
pub fn groups(threads: usize) -> u32 {
    (threads as u32).div_ceil(WORKGROUP).max(1)
}

/// The workgroups of a dispatch over `threads` items: at most `row` along x,
/// the rest wrapped onto y (the kernels' `linear_index`, shared/types.wgsl).
fn dispatch(threads: usize, row: u32) -> [u32; 2] {
    let total = groups(threads);
    let x = total.min(row.max(1));
    [x, total.div_ceil(x)]
}

pub struct Kernel {
    pipeline: wgpu::ComputePipeline,
    group: wgpu::BindGroup,
    /// Workgroups along x and y (see [`dispatch`]).
    workgroups: [u32; 2],
}

impl Kernel {
    /// Entry `entry` of `module`, each binding given the buffer of its name
    /// in `buffers` (or in `overrides`, which come first), dispatched over
    /// `threads` items in rows of `row` workgroups.
    pub fn new(
        ctx: &GpuContext,
        module: &Module,
        entry: &str,
        threads: usize,
        row: u32,
        buffers: &Buffers,
        overrides: &[(&str, &wgpu::Buffer)],
    ) -> Result<Kernel> {
        let find = |name: &str| {
            overrides
                .iter()
                .find(|(n, _)| *n == name)
                .map(|(_, b)| *b)
                .or(buffers.get(name))
        };
        Ok(Kernel {
            pipeline: module.pipeline(ctx, entry)?,
            group: module.bind_group(ctx, entry, find)?,
            workgroups: dispatch(threads, row),
        })
    }
}

/// Records a step's work into one command encoder and counts its
/// dispatches; `flush` submits what was recorded.
pub struct Recorder {
    encoder: RefCell<Option<wgpu::CommandEncoder>>,
    dispatches: Cell<u64>,
    /// Dispatches recorded since the last submission.
    pending: Cell<u64>,
}

/// One compute pass being recorded.
pub struct Pass<'a> {
    pass: wgpu::ComputePass<'a>,
    dispatches: &'a Cell<u64>,
    pending: &'a Cell<u64>,
}

impl Pass<'_> {
    pub fn run(&mut self, kernel: &Kernel) {
        self.pass.set_pipeline(&kernel.pipeline);
        self.pass.set_bind_group(0, &kernel.group, &[]);
        self.pass
            .dispatch_workgroups(kernel.workgroups[0], kernel.workgroups[1], 1);
        self.dispatches.set(self.dispatches.get() + 1);
        self.pending.set(self.pending.get() + 1);
    }
}

impl Recorder {
    pub fn new() -> Recorder {
        Recorder {
            encoder: RefCell::new(None),
            dispatches: Cell::new(0),
            pending: Cell::new(0),
        }
    }

    /// Runs `record` on the pending encoder (started if none is).
    pub fn encode<T>(&self, ctx: &GpuContext, record: impl FnOnce(&mut wgpu::CommandEncoder) -> T) -> T {
        let mut pending = self.encoder.borrow_mut();
        let encoder = pending.get_or_insert_with(|| {
            ctx.device
                .create_command_encoder(&wgpu::CommandEncoderDescriptor { label: Some("step") })
        });
        record(encoder)
    }

    /// Records a compute pass labelled `label`.
    pub fn pass(&self, ctx: &GpuContext, label: &str, record: impl FnOnce(&mut Pass)) {
        self.encode(ctx, |e| {
            let mut pass = Pass {
                pass: e.begin_compute_pass(&wgpu::ComputePassDescriptor {
                    label: Some(label),
                    timestamp_writes: None,
                }),
                dispatches: &self.dispatches,
                pending: &self.pending,
            };
            record(&mut pass);
        })
    }

    /// Submits what was recorded.
    pub fn flush(&self, ctx: &GpuContext) {
        if let Some(encoder) = self.encoder.borrow_mut().take() {
            ctx.queue.submit([encoder.finish()]);
        }
        self.pending.set(0);
    }

    /// Submits what was recorded once it holds at least `dispatches`
    /// dispatches, so that the device runs them while the host records
    /// what follows (only where no `write_buffer` waits between: one
    /// takes effect before everything submitted after it).
    pub fn flush_past(&self, ctx: &GpuContext, dispatches: u64) {
        if self.pending.get() >= dispatches {
            self.flush(ctx);
        }
    }

    /// Submits what was recorded and waits for the device to finish it.
    pub fn sync(&self, ctx: &GpuContext) -> Result<()> {
        self.flush(ctx);
        ctx.device
            .poll(wgpu::PollType::wait_indefinitely())
            .map_err(|e| Error::Gpu(format!("waiting for the device: {e}")))?;
        Ok(())
    }

    /// The dispatches recorded since the last call.
    pub fn take_dispatches(&self) -> u64 {
        self.dispatches.replace(0)
    }
}
