// Self-collision response (CPU twin: src/cpu/repulsion.rs), over the step's
// proximity pairs (collide/proximity.rs; separation d(x) = n . sum c_j x_j
// with frozen weights c and normal n). In the solve each pair is a spring
// of energy k/2 (t - d)^2 (Bridson, Fedkiw & Anderson 2002 §7.2): force
// k (t - d) c_j n, system block h^2 k c_j c_l n n^T; after it, an inelastic
// correction with Coulomb friction for pairs forecast below
// CORRECTION_TARGET t (pairs with less than MIN_MOBILE_SHARE of their
// weight movable are left to their spring). Per-vertex sums go through the
// pairs' CSR incidence (no atomics: deterministic).

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<uniform> repulsion: RepulsionParams;
@group(0) @binding(2) var<uniform> mode: ProductMode;
@group(0) @binding(3) var<storage, read> pairs: array<PairGpu>;
@group(0) @binding(4) var<storage, read> pair_offsets: array<u32>;
@group(0) @binding(5) var<storage, read> pair_entries: array<vec2<u32>>;  // pair, slot
@group(0) @binding(6) var<storage, read_write> pair_s: array<f32>;
@group(0) @binding(7) var<storage, read_write> impulse: array<vec4<f32>>;  // xyz, 1 when acting
@group(0) @binding(8) var<storage, read_write> force: array<vec4<f32>>;
@group(0) @binding(9) var<storage, read_write> inv_diag: array<mat3x3<f32>>;
@group(0) @binding(10) var<storage, read> p: array<vec4<f32>>;
@group(0) @binding(11) var<storage, read_write> q: array<vec4<f32>>;
@group(0) @binding(12) var<storage, read_write> partial: array<vec2<f32>>;
@group(0) @binding(13) var<storage, read> is_free: array<u32>;
@group(0) @binding(14) var<storage, read_write> v: array<vec4<f32>>;
@group(0) @binding(15) var<storage, read> mass: array<f32>;
@group(0) @binding(16) var<storage, read> contact: array<vec4<f32>>;

// model/repulsion.rs's constants.
const CORRECTION_TARGET: f32 = 0.55;
const MIN_MOBILE_SHARE: f32 = 0.5;

// model/repulsion.rs `spring_force`: k (t - d).
fn spring_force(stiffness: f32, thickness: f32, d: f32) -> f32 {
    return stiffness * (thickness - d);
}

// model/repulsion.rs `correction`: the relative velocity change dvn n - slow v_T per unit of sum c_j^2 w_j that
// brings the normal speed to `wanted`, with Coulomb friction; w = 1 when
// it acts, all zero when the pair separates fast enough.
fn correction(n: vec3<f32>, vn: f32, wanted: f32, tangent: vec3<f32>, friction: f32, w: f32) -> vec4<f32> {
    if (vn >= wanted) {
        return vec4<f32>(0.0);
    }
    let dvn = wanted - vn;
    let speed = length(tangent);
    var slow = 0.0;
    if (speed > 0.0) {
        slow = min(friction * dvn / speed, 1.0);
    }
    return vec4<f32>((n * dvn - tangent * slow) / w, 1.0);
}

fn weight_of(c: vec4<f32>, j: u32) -> f32 {
    switch j {
        case 0u: { return c.x; }
        case 1u: { return c.y; }
        case 2u: { return c.z; }
        default: { return c.w; }
    }
}

// sum c_j y_j over a pair's vertices.
fn relative(pair: PairGpu, y0: vec3<f32>, y1: vec3<f32>, y2: vec3<f32>, y3: vec3<f32>) -> vec3<f32> {
    return y0 * pair.c.x + y1 * pair.c.y + y2 * pair.c.z + y3 * pair.c.w;
}

// Adds each vertex's repulsion forces k (t - d) c_j n.
@compute @workgroup_size(WORKGROUP)
fn forces(@builtin(global_invocation_id) id: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let i = linear_index(id, groups);
    if (i >= params.counts.x) {
        return;
    }
    var f = vec3<f32>(0.0);
    for (var k = pair_offsets[i]; k < pair_offsets[i + 1u]; k++) {
        let e = pair_entries[k];
        let pair = pairs[e.x];
        f += pair.n.xyz * (spring_force(repulsion.coef.x, repulsion.coef.y, pair.n.w) * weight_of(pair.c, e.y));
    }
    force[i] = vec4<f32>(force[i].xyz + f, 0.0);
}

// The springs' diagonal blocks join the block-Jacobi preconditioner: the
// gather left inverse(B); this leaves inverse(B + sum h^2 k c^2 n n^T).
@compute @workgroup_size(WORKGROUP)
fn precondition(@builtin(global_invocation_id) id: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let i = linear_index(id, groups);
    if (i >= params.counts.x || pair_offsets[i] == pair_offsets[i + 1u]) {
        return;
    }
    var block = inverse3(inv_diag[i]);
    for (var k = pair_offsets[i]; k < pair_offsets[i + 1u]; k++) {
        let e = pair_entries[k];
        let pair = pairs[e.x];
        let c = weight_of(pair.c, e.y);
        block += outer(pair.n.xyz, pair.n.xyz) * (repulsion.coef.w * repulsion.coef.x * c * c);
    }
    inv_diag[i] = inverse3(block);
}

// Per pair: h^2 k (n . sum c_j p_j).
@compute @workgroup_size(WORKGROUP)
fn pair_product(@builtin(global_invocation_id) id: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let k = linear_index(id, groups);
    if (k >= repulsion.counts.x) {
        return;
    }
    let pair = pairs[k];
    let rel = relative(pair, p[pair.v.x].xyz, p[pair.v.y].xyz, p[pair.v.z].xyz, p[pair.v.w].xyz);
    pair_s[k] = repulsion.coef.w * repulsion.coef.x * dot(pair.n.xyz, rel);
}

// Adds the springs' part of q = A p (rows of pinned vertices left alone in
// the filtered mode, as hessian.wgsl zeroes them) and of the partial sums of
// p . q, with the same workgroups as hessian.wgsl's gather_product.
@compute @workgroup_size(WORKGROUP)
fn gather_product(@builtin(global_invocation_id) id: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>, @builtin(local_invocation_index) local: u32,
                  @builtin(workgroup_id) group: vec3<u32>) {
    let i = linear_index(id, groups);
    var dot_pq = 0.0;
    if (i < params.counts.x && (mode.filter_rows == 0u || is_free[i] != 0u)) {
        var y = vec3<f32>(0.0);
        for (var k = pair_offsets[i]; k < pair_offsets[i + 1u]; k++) {
            let e = pair_entries[k];
            let pair = pairs[e.x];
            y += pair.n.xyz * (weight_of(pair.c, e.y) * pair_s[e.x]);
        }
        q[i] = vec4<f32>(q[i].xyz + y, 0.0);
        dot_pq = dot(p[i].xyz, y);
    }
    let total = workgroup_sum(local, vec2<f32>(dot_pq, 0.0));
    let g = group_index(group, groups);
    if (local == 0u && g < arrayLength(&partial)) {
        partial[g] = partial[g] + total;
    }
}

// 1/m of a vertex the correction may move: not pinned, and not held by an
// obstacle this step.
fn mobility(i: u32) -> f32 {
    if (is_free[i] == 0u || (repulsion.counts.y != 0u && contact[i].x != 0.0)) {
        return 0.0;
    }
    return 1.0 / mass[i];
}

// Per pair: the relative velocity change that brings its forecast
// separation d + h dd/dt up to CORRECTION_TARGET t, with Coulomb friction on
// the tangential part, per unit of sum c_j^2 w_j.
@compute @workgroup_size(WORKGROUP)
fn pair_impulse(@builtin(global_invocation_id) id: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let k = linear_index(id, groups);
    if (k >= repulsion.counts.x) {
        return;
    }
    let pair = pairs[k];
    let m = vec4<f32>(mobility(pair.v.x), mobility(pair.v.y), mobility(pair.v.z), mobility(pair.v.w));
    let w = pair.c * pair.c * m;
    let w_sum = w.x + w.y + w.z + w.w;
    // Too little of the pair's weight movable: a lever (see the CPU twin).
    let share = dot(abs(pair.c), select(vec4<f32>(0.0), vec4<f32>(1.0), m > vec4<f32>(0.0)));
    let rel = relative(pair, v[pair.v.x].xyz, v[pair.v.y].xyz, v[pair.v.z].xyz, v[pair.v.w].xyz);
    let n = pair.n.xyz;
    let vn = dot(n, rel);
    let wanted = (CORRECTION_TARGET * repulsion.coef.y - pair.n.w) / params.step.x;
    if (share < MIN_MOBILE_SHARE) {
        impulse[k] = vec4<f32>(0.0);
        return;
    }
    impulse[k] = correction(n, vn, wanted, rel - n * vn, repulsion.coef.z, w_sum);
}

// Each vertex takes the mean of its acting pairs' changes, times c_j w_j.
@compute @workgroup_size(WORKGROUP)
fn apply_impulses(@builtin(global_invocation_id) id: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let i = linear_index(id, groups);
    if (i >= params.counts.x) {
        return;
    }
    var sum = vec3<f32>(0.0);
    var count = 0.0;
    for (var k = pair_offsets[i]; k < pair_offsets[i + 1u]; k++) {
        let e = pair_entries[k];
        let j = impulse[e.x];
        if (j.w != 0.0) {
            sum += j.xyz * weight_of(pairs[e.x].c, e.y);
            count += 1.0;
        }
    }
    if (count > 0.0) {
        v[i] = vec4<f32>(v[i].xyz + sum * (mobility(i) / count), 0.0);
    }
}
