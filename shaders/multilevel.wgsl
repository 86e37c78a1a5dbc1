// The multilevel preconditioner's V-cycle, one per CG iteration (CPU twin:
// src/cpu/multilevel/cycle.rs; the hierarchy is built on the host,
// src/multigrid): on each level, Chebyshev smoothing in block Jacobi's
// D^-1 A before and after the coarse correction (Saad, Iterative Methods
// for Sparse Linear Systems, Alg. 12.1: a fixed polynomial, so the cycle
// stays symmetric), the residual restricted by P^T, the next level's
// cycle, its correction prolonged by P; the coarsest level is one product
// with its inverse. Each level's matrices are block-sparse rows of 3x3
// blocks; the kernels of one level are bound to that level's buffers (the
// `ml_*` names), the finest level's right-hand side being the PCG's `r`
// and its solution `z`. The products give each block row LANES
// invocations, whose sums are added in a fixed order: deterministic. The power iteration bounds the finest
// level's eigenvalues each solve (`multigrid::lambda_max`), on the device.
//
// A dispatch on a coarse level costs about its launch, so each kernel
// does all a row can before the next needs its neighbours: a Chebyshev
// step computes its own product (its direction alternates between two
// buffers, as other rows read the old one meanwhile), the restart after
// the coarse correction computes its residual and leaves `x += d` to the
// first step, and the restriction makes the next level's first step.
// Each sum is the one the separate kernels stored, in the same order:
// the same bits.

// One level's dispatch (layout.rs `LevelParams`).
struct LevelParams {
    rows: u32,         // this level's block rows
    coarse_rows: u32,  // the next coarser level's
    level: u32,        // this level's entry in ml_lambda
    step: u32,         // the Chebyshev step this dispatch makes (smooth_step)
    lowest: f32,       // the lower end of the damped eigenvalues, over lambda (multigrid::LOWEST)
    margin: f32,       // the power iteration's estimate is raised by this (multigrid::LAMBDA_MARGIN)
    carry: u32,        // smooth_step: x also takes the direction it reads (the first step after smooth_restart)
    pad: u32,
}

@group(0) @binding(0) var<uniform> ml_params: LevelParams;
@group(0) @binding(1) var<storage, read_write> ml_lambda: array<f32>;  // per level; the last entry the power iteration's norm
@group(0) @binding(2) var<storage, read> ml_a_start: array<u32>;
@group(0) @binding(3) var<storage, read> ml_a_col: array<u32>;
@group(0) @binding(4) var<storage, read> ml_a_val: array<mat3x3<f32>>;
@group(0) @binding(5) var<storage, read> ml_p_start: array<u32>;
@group(0) @binding(6) var<storage, read> ml_p_col: array<u32>;
@group(0) @binding(7) var<storage, read> ml_p_val: array<mat3x3<f32>>;
@group(0) @binding(8) var<storage, read> ml_pt_start: array<u32>;
@group(0) @binding(9) var<storage, read> ml_pt_col: array<u32>;
@group(0) @binding(10) var<storage, read> ml_pt_val: array<mat3x3<f32>>;
@group(0) @binding(11) var<storage, read> ml_c_start: array<u32>;   // the coarsest level's inverse
@group(0) @binding(12) var<storage, read> ml_c_col: array<u32>;
@group(0) @binding(13) var<storage, read> ml_c_val: array<mat3x3<f32>>;
@group(0) @binding(14) var<storage, read> ml_inv_diag: array<mat3x3<f32>>;
@group(0) @binding(15) var<storage, read> ml_b: array<vec4<f32>>;
@group(0) @binding(16) var<storage, read_write> ml_x: array<vec4<f32>>;
@group(0) @binding(17) var<storage, read_write> ml_r: array<vec4<f32>>;
@group(0) @binding(18) var<storage, read_write> ml_d: array<vec4<f32>>;       // the direction a step reads
@group(0) @binding(19) var<storage, read_write> ml_d_next: array<vec4<f32>>;  // the direction it makes
@group(0) @binding(20) var<storage, read_write> ml_coarse_b: array<vec4<f32>>;
@group(0) @binding(21) var<storage, read_write> ml_coarse_x: array<vec4<f32>>;
@group(0) @binding(22) var<storage, read_write> ml_power: array<vec4<f32>>;
@group(0) @binding(23) var<storage, read_write> ml_partial: array<vec2<f32>>;
@group(0) @binding(24) var<storage, read> ml_next_inv_diag: array<mat3x3<f32>>;  // the next level's (restriction_first)
@group(0) @binding(25) var<storage, read_write> ml_next_r: array<vec4<f32>>;
@group(0) @binding(26) var<storage, read_write> ml_next_d: array<vec4<f32>>;

// Invocations per row of the block-sparse products: a coarse level's rows
// hold tens of blocks, each behind two dependent loads (column, then
// vector), which one invocation per row would wait on one after another
// (measured on an H200: a V-cycle at 7K vertices took 1 ms, 20 us a
// dispatch). LANES consecutive invocations take every LANES-th entry of a
// row, and their sums are added in a fixed order.
const LANES: u32 = 8u;
var<workgroup> lane_sums: array<vec4<f32>, WORKGROUP>;

// The sum of `value` over the LANES invocations of a row, for its first
// lane (every invocation of the workgroup must call it).
fn row_total(local: u32, value: vec3<f32>) -> vec3<f32> {
    lane_sums[local] = vec4<f32>(value, 0.0);
    workgroupBarrier();
    for (var stride = LANES / 2u; stride > 0u; stride = stride / 2u) {
        if (local % LANES < stride) {
            lane_sums[local] += lane_sums[local + stride];
        }
        workgroupBarrier();
    }
    return lane_sums[local].xyz;
}

// theta, delta and sigma = theta / delta of the Chebyshev iteration damping
// [lowest lambda, lambda] on level `level`.
fn bounds(level: u32) -> vec3<f32> {
    let hi = ml_lambda[level];
    let lo = hi * ml_params.lowest;
    let theta = (hi + lo) * 0.5;
    let delta = (hi - lo) * 0.5;
    return vec3<f32>(theta, delta, theta / delta);
}

// x = r / theta with r = D^-1 b, from x = 0 (the first half of the cycle):
// Chebyshev's first step, d = r / theta, x += d. The finest level's; a
// coarser level's is its restriction's (`restriction_first`).
@compute @workgroup_size(WORKGROUP)
fn smooth_first(@builtin(global_invocation_id) id: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let i = linear_index(id, groups);
    if (i >= ml_params.rows) {
        return;
    }
    let r = ml_inv_diag[i] * ml_b[i].xyz;
    let d = r / bounds(ml_params.level).x;
    ml_r[i] = vec4<f32>(r, 0.0);
    ml_d[i] = vec4<f32>(d, 0.0);
    ml_x[i] = vec4<f32>(d, 0.0);
}

// Row i = t / LANES of A x, for the first lane of a row (every invocation
// of the workgroup must call it).
fn product_x(t: u32, local: u32) -> vec3<f32> {
    let i = t / LANES;
    var y = vec3<f32>(0.0);
    if (i < ml_params.rows) {
        for (var k = ml_a_start[i] + t % LANES; k < ml_a_start[i + 1u]; k += LANES) {
            y += ml_a_val[k] * ml_x[ml_a_col[k]].xyz;
        }
    }
    return row_total(local, y);
}

// After the coarse correction: Chebyshev's first step from x, with the
// residual, r = D^-1 (b - A x), d = r / theta. Other rows' products read
// x meanwhile, so `x += d` is left to the next step (`carry`).
@compute @workgroup_size(WORKGROUP)
fn smooth_restart(@builtin(global_invocation_id) id: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>, @builtin(local_invocation_index) local: u32) {
    let t = linear_index(id, groups);
    let i = t / LANES;
    let total = product_x(t, local);
    if (i < ml_params.rows && t % LANES == 0u) {
        let r = ml_inv_diag[i] * (ml_b[i].xyz - total);
        ml_r[i] = vec4<f32>(r, 0.0);
        ml_d[i] = vec4<f32>(r / bounds(ml_params.level).x, 0.0);
    }
}

// Chebyshev's step `step` (1 ..< degree) with its product: r -= D^-1 A d,
// d' = rho_s rho_{s-1} d + 2 rho_s / delta r, x += d' (after
// `smooth_restart`, x += d + d'), where rho_0 = 1 / sigma and
// rho_s = 1 / (2 sigma - rho_{s-1}). d is read from ml_d and d' written
// to ml_d_next: the next step reads the other way round.
@compute @workgroup_size(WORKGROUP)
fn smooth_step(@builtin(global_invocation_id) id: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>, @builtin(local_invocation_index) local: u32) {
    let t = linear_index(id, groups);
    let i = t / LANES;
    var y = vec3<f32>(0.0);
    if (i < ml_params.rows) {
        for (var k = ml_a_start[i] + t % LANES; k < ml_a_start[i + 1u]; k += LANES) {
            y += ml_a_val[k] * ml_d[ml_a_col[k]].xyz;
        }
    }
    let ad = row_total(local, y);
    if (i >= ml_params.rows || t % LANES != 0u) {
        return;
    }
    let b = bounds(ml_params.level);
    var rho = 1.0 / b.z;
    var next = rho;
    for (var s = 0u; s < ml_params.step; s++) {
        rho = next;
        next = 1.0 / (2.0 * b.z - rho);
    }
    let r = ml_r[i].xyz - ml_inv_diag[i] * ad;
    let d = ml_d[i].xyz;
    let d_next = d * (next * rho) + r * (2.0 * next / b.y);
    ml_r[i] = vec4<f32>(r, 0.0);
    ml_d_next[i] = vec4<f32>(d_next, 0.0);
    var x = ml_x[i].xyz;
    if (ml_params.carry != 0u) {
        x += d;
    }
    ml_x[i] = vec4<f32>(x + d_next, 0.0);
}

// r = b - A x.
@compute @workgroup_size(WORKGROUP)
fn residual(@builtin(global_invocation_id) id: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>, @builtin(local_invocation_index) local: u32) {
    let t = linear_index(id, groups);
    let i = t / LANES;
    let total = product_x(t, local);
    if (i < ml_params.rows && t % LANES == 0u) {
        ml_r[i] = vec4<f32>(ml_b[i].xyz - total, 0.0);
    }
}

// Row j of the next level's right-hand side, P^T r, for the first lane of
// a row (every invocation of the workgroup must call it).
fn restricted(t: u32, local: u32) -> vec3<f32> {
    let j = t / LANES;
    var y = vec3<f32>(0.0);
    if (j < ml_params.coarse_rows) {
        for (var k = ml_pt_start[j] + t % LANES; k < ml_pt_start[j + 1u]; k += LANES) {
            y += ml_pt_val[k] * ml_r[ml_pt_col[k]].xyz;
        }
    }
    return row_total(local, y);
}

// The next level's right-hand side, P^T r, where the next is the
// coarsest (LANES invocations per coarse row).
@compute @workgroup_size(WORKGROUP)
fn restriction(@builtin(global_invocation_id) id: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>, @builtin(local_invocation_index) local: u32) {
    let t = linear_index(id, groups);
    let total = restricted(t, local);
    let j = t / LANES;
    if (j < ml_params.coarse_rows && t % LANES == 0u) {
        ml_coarse_b[j] = vec4<f32>(total, 0.0);
    }
}

// The next level's right-hand side b = P^T r and its smoothing's first
// step from x = 0 (`smooth_first` on that level): r = D^-1 b, d = x = r / theta.
@compute @workgroup_size(WORKGROUP)
fn restriction_first(@builtin(global_invocation_id) id: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>, @builtin(local_invocation_index) local: u32) {
    let t = linear_index(id, groups);
    let total = restricted(t, local);
    let j = t / LANES;
    if (j < ml_params.coarse_rows && t % LANES == 0u) {
        ml_coarse_b[j] = vec4<f32>(total, 0.0);
        let r = ml_next_inv_diag[j] * total;
        let d = vec4<f32>(r / bounds(ml_params.level + 1u).x, 0.0);
        ml_next_r[j] = vec4<f32>(r, 0.0);
        ml_next_d[j] = d;
        ml_coarse_x[j] = d;
    }
}

// The coarse correction: x += P x_coarse.
@compute @workgroup_size(WORKGROUP)
fn prolong(@builtin(global_invocation_id) id: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>, @builtin(local_invocation_index) local: u32) {
    let t = linear_index(id, groups);
    let i = t / LANES;
    var y = vec3<f32>(0.0);
    if (i < ml_params.rows) {
        for (var k = ml_p_start[i] + t % LANES; k < ml_p_start[i + 1u]; k += LANES) {
            y += ml_p_val[k] * ml_coarse_x[ml_p_col[k]].xyz;
        }
    }
    let total = row_total(local, y);
    if (i < ml_params.rows && t % LANES == 0u) {
        ml_x[i] = vec4<f32>(ml_x[i].xyz + total, 0.0);
    }
}

// The coarsest level's solve, x_coarse = C b_coarse with C its inverse
// (multigrid/coarsest.rs: from the Cholesky factor, or the inverse
// diagonal blocks), run with the level above it.
@compute @workgroup_size(WORKGROUP)
fn coarsest(@builtin(global_invocation_id) id: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>, @builtin(local_invocation_index) local: u32) {
    let t = linear_index(id, groups);
    let j = t / LANES;
    var y = vec3<f32>(0.0);
    if (j < ml_params.coarse_rows) {
        for (var k = ml_c_start[j] + t % LANES; k < ml_c_start[j + 1u]; k += LANES) {
            y += ml_c_val[k] * ml_coarse_b[ml_c_col[k]].xyz;
        }
    }
    let total = row_total(local, y);
    if (j < ml_params.coarse_rows && t % LANES == 0u) {
        ml_coarse_x[j] = vec4<f32>(total, 0.0);
    }
}

// The power iteration's product and scaling: r = D^-1 A u for the unit
// vector u; partial sums of |r|^2 per workgroup.
@compute @workgroup_size(WORKGROUP)
fn power_product(@builtin(global_invocation_id) id: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>, @builtin(local_invocation_index) local: u32,
                 @builtin(workgroup_id) group: vec3<u32>) {
    let t = linear_index(id, groups);
    let i = t / LANES;
    var y = vec3<f32>(0.0);
    if (i < ml_params.rows) {
        for (var k = ml_a_start[i] + t % LANES; k < ml_a_start[i + 1u]; k += LANES) {
            y += ml_a_val[k] * ml_power[ml_a_col[k]].xyz;
        }
    }
    let row = row_total(local, y);
    var sum = 0.0;
    if (i < ml_params.rows && t % LANES == 0u) {
        let r = ml_inv_diag[i] * row;
        ml_r[i] = vec4<f32>(r, 0.0);
        sum = dot(r, r);
    }
    let total = workgroup_sum(local, vec2<f32>(sum, 0.0));
    let g = group_index(group, groups);
    if (local == 0u && g < arrayLength(&ml_partial)) {
        ml_partial[g] = total;
    }
}

// |D^-1 A u| from the partial sums in a fixed order (one workgroup): the
// eigenvalue estimate, raised by the margin, and the norm for `power_next`.
@compute @workgroup_size(WORKGROUP)
fn power_norm(@builtin(local_invocation_index) local: u32) {
    var s = vec2<f32>(0.0);
    for (var k = local; k < arrayLength(&ml_partial); k += WORKGROUP) {
        s += ml_partial[k];
    }
    let t = workgroup_sum(local, s);
    if (local == 0u) {
        let norm = sqrt(t.x);
        ml_lambda[ml_params.level] = ml_params.margin * norm;
        ml_lambda[arrayLength(&ml_lambda) - 1u] = norm;
    }
}

// u = r / |r|, the next iterate.
@compute @workgroup_size(WORKGROUP)
fn power_next(@builtin(global_invocation_id) id: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let i = linear_index(id, groups);
    if (i >= ml_params.rows) {
        return;
    }
    ml_power[i] = vec4<f32>(ml_r[i].xyz / ml_lambda[arrayLength(&ml_lambda) - 1u], 0.0);
}
