//! shaders/scan.wgsl: an exclusive prefix sum of u32 counts on the device
//! (the proximity search's counting sorts; integers, so no CPU twin can
//! differ: the test below checks it against a running sum). Each level scans
//! blocks of [`BLOCK`] items and leaves their totals to the next level,
//! down to a single block; the offsets are then added back up.

use crate::error::Result;
use crate::gpu::buffers::{Buffers, uniform, zeroed};
use crate::gpu::context::{GpuContext, Module};
use crate::gpu::kernel::{Kernel, Pass, WORKGROUP};

/// Items one workgroup scans (`WORKGROUP * SCAN_ITEMS` in scan.wgsl).
pub const BLOCK: usize = WORKGROUP as usize * 4;

pub struct WgScan {
    /// Per level, finest first: its block scan, and (all but the last) the
    /// addition of the next level's offsets.
    blocks: Vec<Kernel>,
    adds: Vec<Kernel>,
    /// The levels' totals and offsets (kept alive with the bind groups).
    _buffers: Vec<wgpu::Buffer>,
}

impl WgScan {
    /// Writes to `output[i]` the sum of `input[..i]`, for `i < items`
    /// (both buffers at least that long; with a zero last item, the last
    /// output is the total).
    pub fn new(
        ctx: &GpuContext,
        module: &Module,
        row: u32,
        input: &wgpu::Buffer,
        output: &wgpu::Buffer,
        items: usize,
    ) -> Result<WgScan> {
        // Per level: its items, its output (None: the caller's), and its
        // block totals, which are the next level's input (indices into
        // `owned`).
        let mut owned: Vec<wgpu::Buffer> = Vec::new();
        let mut levels: Vec<(usize, Option<usize>, usize)> = Vec::new();
        let (mut m, mut out) = (items, None);
        loop {
            let blocks = m.div_ceil(BLOCK).max(1);
            owned.push(zeroed::<u32>(ctx, "scan_sums", blocks)?);
            levels.push((m, out, owned.len() - 1));
            if blocks == 1 {
                break;
            }
            owned.push(zeroed::<u32>(ctx, "scan_out", blocks)?);
            (m, out) = (blocks, Some(owned.len() - 1));
        }
        let params: Vec<wgpu::Buffer> = levels
            .iter()
            .map(|&(m, _, _)| uniform(ctx, "scan_params", &[m as u32, 0, 0, 0]))
            .collect();
        let empty = Buffers::empty();
        let (mut blocks, mut adds) = (Vec::new(), Vec::new());
        for (l, &(m, out, sums)) in levels.iter().enumerate() {
            let inp = match l {
                0 => input,
                _ => &owned[levels[l - 1].2],
            };
            let out = out.map_or(output, |i| &owned[i]);
            let bind = |sums| -> [(&str, &wgpu::Buffer); 4] {
                [
                    ("scan_params", &params[l]),
                    ("scan_in", inp),
                    ("scan_out", out),
                    ("scan_sums", sums),
                ]
            };
            let groups = m.div_ceil(BLOCK).max(1) * WORKGROUP as usize;
            blocks.push(Kernel::new(
                ctx,
                module,
                "scan_blocks",
                groups,
                row,
                &empty,
                &bind(&owned[sums]),
            )?);
            if let Some(&(_, Some(next), _)) = levels.get(l + 1) {
                adds.push(Kernel::new(
                    ctx,
                    module,
                    "scan_add",
                    m,
                    row,
                    &empty,
                    &bind(&owned[next]),
                )?);
            }
        }
        owned.extend(params);
        Ok(WgScan {
            blocks,
            adds,
            _buffers: owned,
        })
    }

    pub fn record(&self, pass: &mut Pass) {
        for k in &self.blocks {
            pass.run(k);
        }
        for k in self.adds.iter().rev() {
            pass.run(k);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gpu::buffers::storage;
    use crate::gpu::kernel::Recorder;

    /// Three levels (more than `BLOCK^2` items) and one: the prefix sums
    /// equal a running sum on the host, the last (a zero item) the total.
    #[test]
    fn the_scan_is_a_running_sum() {
        let Ok(ctx) = GpuContext::new() else {
            assert_ne!(std::env::var("CREASE_REQUIRE_GPU").as_deref(), Ok("1"), "no GPU");
            return;
        };
        let module = Module::new(&ctx, "scan").unwrap();
        for items in [BLOCK * BLOCK + 77, 100] {
            let mut seed = 5u64;
            let mut input: Vec<u32> = (0..items)
                .map(|_| {
                    seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                    (seed >> 60) as u32
                })
                .collect();
            input[items - 1] = 0;
            let a = storage(&ctx, "scan_in", &input).unwrap();
            let b = zeroed::<u32>(&ctx, "scan_out", items).unwrap();
            let scan = WgScan::new(&ctx, &module, 1 << 16, &a, &b, items).unwrap();
            let recorder = Recorder::new();
            recorder.pass(&ctx, "scan", |pass| scan.record(pass));
            let bytes = (items * 4) as u64;
            let staging = ctx.device.create_buffer(&wgpu::BufferDescriptor {
                label: Some("staging"),
                size: bytes,
                usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
                mapped_at_creation: false,
            });
            recorder.encode(&ctx, |e| e.copy_buffer_to_buffer(&b, 0, &staging, 0, bytes));
            recorder.flush(&ctx);
            staging.slice(..).map_async(wgpu::MapMode::Read, |r| r.unwrap());
            ctx.device.poll(wgpu::PollType::wait_indefinitely()).unwrap();
            let out: Vec<u32> = bytemuck::cast_slice(&staging.slice(..).get_mapped_range().unwrap()).to_vec();
            let mut sum = 0u32;
            for (i, (&o, &x)) in out.iter().zip(&input).enumerate() {
                assert_eq!(o, sum, "item {i} of {items}");
                sum += x;
            }
            assert!(sum > 0);
        }
    }
}
