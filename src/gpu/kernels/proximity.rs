//! shaders/proximity.wgsl (CPU twin collide/proximity.rs, the host search
//! the CPU backend runs): self-collision detection on the device, into the
//! repulsion kernels' pair buffers (`WgRepulsion`, built first: these
//! kernels bind its buffers, and are built again when it grows).

use super::scan::WgScan;
use crate::cloth::Cloth;
use crate::collide::proximity::REST_GAP;
use crate::error::{Error, Result};
use crate::gpu::buffers::{Buffers, storage, uniform, zeroed};
use crate::gpu::context::{GpuContext, Module};
use crate::gpu::kernel::{Kernel, Recorder, groups};
use crate::gpu::layout::ProximityParams;

/// The primitives each query keeps from its counting walk, to write its
/// pairs from them without a second walk (`FOUND_SLOTS` in
/// shaders/proximity.wgsl); a query with more pairs walks again. On an
/// H200 the two walks took 1.2 and 1.3 ms of the 27.9K twist's search and
/// 8.4 and 9.1 ms of the 111K one's; with one walk (and the grid's cell
/// found in parallel) its self-collision took 1.5 and 8.6 ms a step
/// against 3.5 and 21.6.
const FOUND_SLOTS: usize = 4;

/// `FOUND_SLOTS` per query, checked against the index range.
fn checked_slots(queries: usize) -> Result<usize> {
    queries
        .checked_mul(FOUND_SLOTS)
        .filter(|&n| n <= u32::MAX as usize)
        .ok_or_else(|| {
            Error::Gpu(format!(
                "{queries} self-collision queries are too many for the device search"
            ))
        })
}

pub struct WgProximity {
    params: ProximityParams,
    boxes: Kernel,
    /// The grid's cell: the extents' sums, their mean, the largest within
    /// four times it, the cell.
    grid: [Kernel; 4],
    bucket_count: Kernel,
    bucket_fill: Kernel,
    query_count: Kernel,
    query_write: Kernel,
    incidence_count: Kernel,
    incidence_fill: Kernel,
    incidence_sort: Kernel,
    /// Prefix sums of the bucket counts, the queries' pair counts and the
    /// vertices' incidence counts.
    scans: [WgScan; 3],
}

impl WgProximity {
    /// The search's buffers and kernels for `cloth`, writing at most
    /// `capacity` pairs (the size of the repulsion's `pairs`).
    pub fn new(
        ctx: &GpuContext,
        buffers: &mut Buffers,
        row: u32,
        cloth: &Cloth,
        capacity: usize,
    ) -> Result<WgProximity> {
        let (n, nf) = (cloth.vertex_count(), cloth.mesh.faces.len());
        let edges = &cloth.topology.edges;
        let (ne, boxes) = (edges.len(), nf + edges.len());
        let queries = n + ne;
        // One bucket per box or more: a power of two, for the hash's mask.
        let buckets = boxes.max(1024).next_power_of_two();
        let params = ProximityParams {
            counts: [n as u32, nf as u32, ne as u32, buckets as u32 - 1],
            capacity: [capacity as u32, 0, 0, 0],
            coef: [0.0; 4],
        };
        buffers.insert("proximity", uniform(ctx, "proximity", &params));
        buffers.insert("prox_edges", storage(ctx, "prox_edges", edges)?);
        buffers.insert("prox_boxes", zeroed::<[f32; 4]>(ctx, "prox_boxes", 2 * boxes)?);
        buffers.insert("prox_grid", zeroed::<[u32; 4]>(ctx, "prox_grid", 1)?);
        buffers.insert(
            "prox_extent_sum",
            zeroed::<f32>(ctx, "prox_extent_sum", groups(boxes) as usize)?,
        );
        buffers.insert("prox_found", zeroed::<u32>(ctx, "prox_found", checked_slots(queries)?)?);
        // The counts have one more item, always 0, whose prefix sum is the total.
        buffers.insert(
            "prox_bucket_count",
            zeroed::<u32>(ctx, "prox_bucket_count", buckets + 1)?,
        );
        buffers.insert(
            "prox_bucket_start",
            zeroed::<u32>(ctx, "prox_bucket_start", buckets + 1)?,
        );
        buffers.insert("prox_items", zeroed::<u32>(ctx, "prox_items", boxes)?);
        buffers.insert("prox_large", zeroed::<u32>(ctx, "prox_large", boxes)?);
        buffers.insert("prox_query_count", zeroed::<u32>(ctx, "prox_query_count", queries + 1)?);
        buffers.insert("prox_query_start", zeroed::<u32>(ctx, "prox_query_start", queries + 1)?);
        buffers.insert("prox_vertex_count", zeroed::<u32>(ctx, "prox_vertex_count", n + 1)?);
        let module = Module::new(ctx, "proximity")?;
        let k = |entry: &str, threads: usize| Kernel::new(ctx, &module, entry, threads, row, buffers, &[]);
        let scan_module = Module::new(ctx, "scan")?;
        let scan = |from: &str, to: &str, items: usize| {
            WgScan::new(ctx, &scan_module, row, &buffers[from], &buffers[to], items)
        };
        Ok(WgProximity {
            params,
            boxes: k("boxes", boxes)?,
            grid: [
                k("extent_sum", boxes)?,
                k("extent_cap", 1)?,
                k("extent_largest", boxes)?,
                k("grid_cell", 1)?,
            ],
            bucket_count: k("bucket_count", boxes)?,
            bucket_fill: k("bucket_fill", boxes)?,
            query_count: k("query_count", queries)?,
            query_write: k("query_write", queries)?,
            incidence_count: k("incidence_count", capacity)?,
            incidence_fill: k("incidence_fill", capacity)?,
            incidence_sort: k("incidence_sort", n)?,
            scans: [
                scan("prox_bucket_count", "prox_bucket_start", buckets + 1)?,
                scan("prox_query_count", "prox_query_start", queries + 1)?,
                scan("prox_vertex_count", "pair_offsets", n + 1)?,
            ],
        })
    }

    /// The pairs the buffers hold at most.
    pub fn capacity(&self) -> usize {
        self.params.capacity[0] as usize
    }

    /// Records the search for pairs closer than `thickness`; the pair count
    /// (which may exceed the capacity: then only that many were kept) is
    /// then `prox_query_start[`[`WgProximity::total_index`]`]`.
    pub fn record(&self, ctx: &GpuContext, recorder: &Recorder, buffers: &Buffers, thickness: f64) {
        let params = ProximityParams {
            coef: [thickness as f32, (REST_GAP * thickness) as f32, 0.0, 0.0],
            ..self.params
        };
        ctx.queue
            .write_buffer(&buffers["proximity"], 0, bytemuck::bytes_of(&params));
        let clear = |names: &[&str]| {
            recorder.encode(ctx, |e| {
                for name in names {
                    e.clear_buffer(&buffers[name], 0, None);
                }
            })
        };
        clear(&["prox_grid", "prox_bucket_count", "prox_vertex_count"]);
        recorder.pass(ctx, "proximity grid", |pass| {
            pass.run(&self.boxes);
            for k in &self.grid {
                pass.run(k);
            }
            pass.run(&self.bucket_count);
            self.scans[0].record(pass);
        });
        clear(&["prox_bucket_count"]);
        recorder.pass(ctx, "proximity pairs", |pass| {
            pass.run(&self.bucket_fill);
            pass.run(&self.query_count);
            self.scans[1].record(pass);
            pass.run(&self.query_write);
            pass.run(&self.incidence_count);
            self.scans[2].record(pass);
        });
        clear(&["prox_vertex_count"]);
        recorder.pass(ctx, "proximity incidence", |pass| {
            pass.run(&self.incidence_fill);
            pass.run(&self.incidence_sort);
        });
    }

    /// Where in `prox_query_start` the search leaves its pair count.
    pub fn total_index(&self) -> usize {
        (self.params.counts[0] + self.params.counts[2]) as usize
    }
}
