//! The memory-traffic figures of `crease bench`: a model of the bytes one
//! PCG iteration moves, and the adapter's measured streaming bandwidth.

use super::buffers::{Buffers, largest_binding, zeroed};
use super::context::{GpuContext, Module};
use super::kernel::{Kernel, Recorder};
use crate::cloth::Cloth;
use crate::error::Result;
use std::time::Instant;

/// Bytes one PCG iteration reads and writes, by a model of its kernels:
/// per face 224 (indices, rest data, linearisation, three p, dP), per
/// hinge 148 (indices, bending mode, four p, the product), per vertex 256
/// (gather: offsets, p, mass, flag, q; update; direction) plus 48 per
/// face incidence and 28 per hinge incidence. Element data gathered by
/// several vertices counts once per read.
pub fn bytes_per_iteration(c: &Cloth) -> u64 {
    let (n, nf, nh) = (
        c.vertex_count() as u64,
        c.mesh.faces.len() as u64,
        c.topology.hinges.len() as u64,
    );
    let incidences = (
        c.topology.vertex_faces.entries.len() as u64,
        c.topology.vertex_hinges.entries.len() as u64,
    );
    224 * nf + 148 * nh + 256 * n + 48 * incidences.0 + 28 * incidences.1
}

/// Effective bandwidth, GB/s, of a plain streaming copy of `bytes` on
/// this adapter (read + write counted), over `repeats` dispatches. The
/// copy is at most the largest storage buffer the adapter binds: a mesh's
/// iteration may move more than one binding holds (lavapipe's 128 MiB, at
/// 111K vertices), and past any cache a rate does not depend on the size.
pub fn copy_bandwidth(ctx: &GpuContext, bytes: u64, repeats: u32) -> Result<f64> {
    let elements = copy_elements(bytes, largest_binding(ctx));
    let mut buffers = Buffers::empty();
    buffers.insert("src", zeroed::<[f32; 4]>(ctx, "copy_src", elements)?);
    buffers.insert("dst", zeroed::<[f32; 4]>(ctx, "copy_dst", elements)?);
    let module = Module::new(ctx, "copy")?;
    let row = ctx.limits.max_compute_workgroups_per_dimension;
    let kernel = Kernel::new(ctx, &module, "main", elements, row, &buffers, &[])?;
    let recorder = Recorder::new();
    let run = |count: u32| -> Result<f64> {
        let t = Instant::now();
        recorder.pass(ctx, "copy", |pass| {
            for _ in 0..count {
                pass.run(&kernel);
            }
        });
        recorder.sync(ctx)?;
        ctx.check()?;
        Ok(t.elapsed().as_secs_f64())
    };
    run(1)?;
    let seconds = run(repeats)?;
    Ok(2.0 * (elements * 16) as f64 * repeats as f64 / seconds / 1e9)
}

/// The 16-byte elements of the copy of `bytes`, within a binding of
/// `largest` bytes.
fn copy_elements(bytes: u64, largest: u64) -> usize {
    (bytes.min(largest) / 16).max(1) as usize
}

#[cfg(test)]
mod tests {
    use super::copy_elements;

    /// The 111K twist's iteration (195,966,976 bytes) on lavapipe (128 MiB
    /// a binding): the bench stopped there, after its timed steps, with
    /// the buffer's error.
    #[test]
    fn a_copy_larger_than_a_binding_copies_the_largest() {
        let mib = 1 << 20;
        assert_eq!(copy_elements(195_966_976, 128 * mib), 8 * mib as usize);
        assert_eq!(copy_elements(4096, 128 * mib), 256);
        assert_eq!(copy_elements(0, 128 * mib), 1);
    }
}
