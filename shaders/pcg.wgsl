// The vector steps of the filtered block-Jacobi PCG (CPU twin:
// src/cpu/pcg.rs; Baraff & Witkin 1998 §5.3), or with the multilevel
// preconditioner, whose z replaces block Jacobi's (`filtered_sums`): pinned vertices keep their
// prescribed dv and are zeroed out of residuals and directions; vertices
// resting on an obstacle (collide.wgsl `resting`) keep dv's normal
// component and are filtered with I - n n^T. Each kernel
// leaves per-workgroup partial sums that reduce.wgsl adds in a fixed order.
// Once `scalars.done` is set the kernels change nothing, so a batch of
// recorded iterations stops exactly where the CPU loop would.

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> is_free: array<u32>;
@group(0) @binding(2) var<storage, read> inv_diag: array<mat3x3<f32>>;
@group(0) @binding(3) var<storage, read> rhs: array<vec4<f32>>;
@group(0) @binding(4) var<storage, read_write> dv: array<vec4<f32>>;
@group(0) @binding(5) var<storage, read_write> r: array<vec4<f32>>;
@group(0) @binding(6) var<storage, read_write> z: array<vec4<f32>>;
@group(0) @binding(7) var<storage, read_write> p: array<vec4<f32>>;
@group(0) @binding(8) var<storage, read> q: array<vec4<f32>>;
@group(0) @binding(9) var<storage, read_write> scalars: Scalars;
@group(0) @binding(10) var<storage, read_write> partial: array<vec2<f32>>;
@group(0) @binding(11) var<storage, read> rest_normal: array<vec4<f32>>;  // collide.wgsl

// The filter S_v a: zero on pinned vertices, the tangential part on resting
// ones (`Filter::project`).
fn project(v: u32, a: vec3<f32>) -> vec3<f32> {
    if (is_free[v] == 0u) {
        return vec3<f32>(0.0);
    }
    let n = rest_normal[v].xyz;
    return a - n * dot(n, a);
}

// p = the guess's prescribed part (I - S) dv (for the reference residual).
@compute @workgroup_size(WORKGROUP)
fn pinned_guess(@builtin(global_invocation_id) id: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let v = linear_index(id, groups);
    if (v >= params.counts.x) {
        return;
    }
    let d = dv[v].xyz;
    p[v] = vec4<f32>(d - project(v, d), 0.0);
}

// The reference residual's partial sums: |rhs - q|^2 on the unpinned rows,
// a resting contact's normal part included (`pcg::solve`: a cloth coming to
// rest on an obstacle keeps a scale there).
@compute @workgroup_size(WORKGROUP)
fn reference_residual(@builtin(global_invocation_id) id: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>, @builtin(local_invocation_index) local: u32,
                      @builtin(workgroup_id) group: vec3<u32>) {
    let v = linear_index(id, groups);
    var sums = vec2<f32>(0.0);
    if (v < params.counts.x && is_free[v] != 0u) {
        let ri = rhs[v].xyz - q[v].xyz;
        sums = vec2<f32>(dot(ri, ri), 0.0);
    }
    let total = workgroup_sum(local, sums);
    let g = group_index(group, groups);
    if (local == 0u && g < arrayLength(&partial)) {
        partial[g] = total;
    }
}

// Stores the residual r_v and z_v = S P r_v; returns (r . r, r . z) of vertex v.
fn store_residual(v: u32, ri: vec3<f32>) -> vec2<f32> {
    let zi = project(v, inv_diag[v] * ri);
    r[v] = vec4<f32>(ri, 0.0);
    z[v] = vec4<f32>(zi, 0.0);
    return vec2<f32>(dot(ri, ri), dot(ri, zi));
}

// r = S (rhs - q), z = P r; partial sums of (r . r, r . z).
@compute @workgroup_size(WORKGROUP)
fn residual(@builtin(global_invocation_id) id: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>, @builtin(local_invocation_index) local: u32,
            @builtin(workgroup_id) group: vec3<u32>) {
    let v = linear_index(id, groups);
    var sums = vec2<f32>(0.0);
    if (v < params.counts.x) {
        sums = store_residual(v, project(v, rhs[v].xyz - q[v].xyz));
    }
    let total = workgroup_sum(local, sums);
    let g = group_index(group, groups);
    if (local == 0u && g < arrayLength(&partial)) {
        partial[g] = total;
    }
}

// dv += alpha p, r -= alpha S q, z = S P r; partial sums of (r . r, r . z).
// (p lies in S's range, so the product's p . q equals p . S q.)
@compute @workgroup_size(WORKGROUP)
fn update(@builtin(global_invocation_id) id: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>, @builtin(local_invocation_index) local: u32,
          @builtin(workgroup_id) group: vec3<u32>) {
    let v = linear_index(id, groups);
    let running = scalars.done == 0u;
    var sums = vec2<f32>(0.0);
    if (v < params.counts.x && running) {
        let alpha = scalars.alpha;
        dv[v] = vec4<f32>(dv[v].xyz + p[v].xyz * alpha, 0.0);
        sums = store_residual(v, r[v].xyz - project(v, q[v].xyz) * alpha);
    }
    let total = workgroup_sum(local, sums);
    let g = group_index(group, groups);
    if (local == 0u && g < arrayLength(&partial)) {
        partial[g] = total;
    }
}

// After the multilevel V-cycle (multilevel.wgsl) left z = M^-1 r in place
// of block Jacobi's: z = S z; partial sums of (r . r, r . z). Not gated
// by `done`: a restart's residual comes after the recurrence converged.
@compute @workgroup_size(WORKGROUP)
fn filtered_sums(@builtin(global_invocation_id) id: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>, @builtin(local_invocation_index) local: u32,
                 @builtin(workgroup_id) group: vec3<u32>) {
    let v = linear_index(id, groups);
    var sums = vec2<f32>(0.0);
    if (v < params.counts.x) {
        let ri = r[v].xyz;
        let zi = project(v, z[v].xyz);
        z[v] = vec4<f32>(zi, 0.0);
        sums = vec2<f32>(dot(ri, ri), dot(ri, zi));
    }
    let total = workgroup_sum(local, sums);
    let g = group_index(group, groups);
    if (local == 0u && g < arrayLength(&partial)) {
        partial[g] = total;
    }
}

// p = z + beta p.
@compute @workgroup_size(WORKGROUP)
fn direction(@builtin(global_invocation_id) id: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let v = linear_index(id, groups);
    if (v >= params.counts.x || scalars.done != 0u) {
        return;
    }
    p[v] = vec4<f32>(z[v].xyz + p[v].xyz * scalars.beta, 0.0);
}

// p = z (the first direction).
@compute @workgroup_size(WORKGROUP)
fn first_direction(@builtin(global_invocation_id) id: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let v = linear_index(id, groups);
    if (v >= params.counts.x) {
        return;
    }
    p[v] = z[v];
}

// With a zero reference residual the solution is the prescribed part
// (I - S) dv alone.
@compute @workgroup_size(WORKGROUP)
fn zero_free(@builtin(global_invocation_id) id: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let v = linear_index(id, groups);
    if (v >= params.counts.x || scalars.zero == 0u) {
        return;
    }
    let d = dv[v].xyz;
    dv[v] = vec4<f32>(d - project(v, d), 0.0);
}
