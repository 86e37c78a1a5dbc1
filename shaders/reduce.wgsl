// Second level of the deterministic reductions (CPU twin: src/cpu/reduce.rs):
// one workgroup adds the per-workgroup partial sums in a fixed order (each
// invocation a fixed strided subset, then a tree), and updates the PCG
// scalars on the device, so no value has to be read back to go on.

@group(0) @binding(0) var<storage, read> partial: array<vec2<f32>>;
@group(0) @binding(1) var<storage, read_write> scalars: Scalars;
@group(0) @binding(2) var<uniform> partial_count: vec4<u32>;   // number of partial sums

fn total(local: u32) -> vec2<f32> {
    var s = vec2<f32>(0.0);
    for (var k = local; k < partial_count.x; k += WORKGROUP) {
        s += partial[k];
    }
    return workgroup_sum(local, s);
}

// After the reference residual: |r_ref|^2, at least the floor's square.
@compute @workgroup_size(WORKGROUP)
fn reduce_reference(@builtin(local_invocation_index) local: u32) {
    let t = total(local);
    if (local == 0u) {
        scalars.rr_ref = max(t.x, scalars.floor2);
        scalars.zero = select(0u, 1u, t.x == 0.0);
    }
}

// After a residual computed from dv (the warm-started guess, or the
// iterate the recurrence called converged): r . r, r . z, and whether to
// iterate on. The iteration count goes on across such restarts (the host
// zeroes it before the first).
@compute @workgroup_size(WORKGROUP)
fn reduce_start(@builtin(local_invocation_index) local: u32) {
    let t = total(local);
    if (local == 0u) {
        scalars.rr = t.x;
        scalars.rz = t.y;
        scalars.broke = 0u;
        let converged = t.x <= scalars.tol2 * scalars.rr_ref;
        scalars.done = select(0u, 1u, converged || scalars.zero != 0u || scalars.iterations >= scalars.max_iterations);
    }
}

// After q = A p: alpha = rz / (p . q).
@compute @workgroup_size(WORKGROUP)
fn reduce_alpha(@builtin(local_invocation_index) local: u32) {
    let t = total(local);
    if (local == 0u && scalars.done == 0u) {
        scalars.pq = t.x;
        if (!(t.x > 0.0)) {
            scalars.broke = 1u;
            scalars.done = 1u;
        }
        scalars.alpha = scalars.rz / t.x;
    }
}

// After the update: beta, the iteration count and the stopping test.
@compute @workgroup_size(WORKGROUP)
fn reduce_beta(@builtin(local_invocation_index) local: u32) {
    let t = total(local);
    if (local == 0u && scalars.done == 0u) {
        scalars.rr = t.x;
        scalars.beta = t.y / scalars.rz;
        scalars.rz = t.y;
        scalars.iterations += 1u;
        let converged = t.x <= scalars.tol2 * scalars.rr_ref;
        scalars.done = select(0u, 1u, converged || scalars.iterations >= scalars.max_iterations);
    }
}
