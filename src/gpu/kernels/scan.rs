//! shaders/scan.wgsl: an exclusive prefix sum of u32 counts on the device
//! (the proximity search's counting sorts; integers, so no CPU twin can
//! differ: a test checks it against a running sum). Each level scans
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
        let mut owned: Vec<wgpu::Buffer> = Vec::new();
        // Per level: items, and the indices of its input and output in
        // `owned` (None: the caller's).
        let mut levels: Vec<(usize, Option<usize>, Option<usize>)> = vec![(items, None, None)];
        let mut sums = Vec::new();
        loop {
            let (m, _, _) = *levels.last().expect("a level");
            let blocks = m.div_ceil(BLOCK).max(1);
            owned.push(zeroed::<u32>(ctx, "scan_sums", blocks)?);
            sums.push(owned.len() - 1);
            if blocks == 1 {
                break;
            }
            owned.push(zeroed::<u32>(ctx, "scan_out", blocks)?);
            levels.push((blocks, Some(owned.len() - 2), Some(owned.len() - 1)));
        }
        let params: Vec<wgpu::Buffer> = levels
            .iter()
            .map(|&(m, _, _)| uniform(ctx, "scan_params", &[m as u32, 0, 0, 0]))
            .collect();
        let empty = Buffers::empty();
        let buffer = |b: Option<usize>, caller| match b {
            Some(i) => &owned[i],
            None => caller,
        };
        let (mut blocks, mut adds) = (Vec::new(), Vec::new());
        for (l, &(m, inp, out)) in levels.iter().enumerate() {
            let (inp, out) = (buffer(inp, input), buffer(out, output));
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
                &bind(&owned[sums[l]]),
            )?);
            if let Some(&(_, _, Some(next))) = levels.get(l + 1) {
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
