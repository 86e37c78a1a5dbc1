// Strain limiting (Bridson, Marino & Fedkiw 2003 §3; CPU twin:
// src/cpu/strain_limit.rs). After the solve, before the position update,
// velocities change so that every edge moved by x + h v ends within
// [1 - compression, 1 + extension] of its rest length ("modify v^{n+1/2} in
// place to limit strain"). One Jacobi sweep is `edge_request` (each edge past
// a limit asks for the relative velocity change that lands it on the limit,
// shared by inverse mass, with a weight growing from zero past the limit)
// then `apply_requests` (each vertex takes the weighted mean of its edges'
// requests, through the edges' CSR incidence: no atomics).

// layout.rs `LimitEdge`: the edge's ends and its vector r = X_b - X_a at
// the rest positions with its rest length L (in material coordinates), and
// |r|^2 - L^2 (0 unless the mesh starts stretched).
struct LimitEdge {
    ends: vec4<u32>,       // lo, hi, bits of |r|^2 - L^2, -
    rest: vec4<f32>,       // r, L
}

// layout.rs `LimitParams`: with b the bounds on length / rest length, b^2 - 1.
struct LimitParams {
    counts: vec4<u32>,     // edges, -, -, -
    bounds: vec4<f32>,     // 1 - compression, 1 + extension, (1 - compression)^2 - 1, (1 + extension)^2 - 1
}

const TOLERANCE: f32 = 1e-5;  // model/strain_limit.rs `TOLERANCE`
const RAMP: f32 = 1e-4;       // model/strain_limit.rs `RAMP`

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<uniform> limit_params: LimitParams;
@group(0) @binding(2) var<storage, read> limit_edges: array<LimitEdge>;
@group(0) @binding(3) var<storage, read> edge_offsets: array<u32>;
@group(0) @binding(4) var<storage, read> edge_entries: array<vec2<u32>>;  // edge, end (0 lo, 1 hi)
@group(0) @binding(5) var<storage, read> x: array<Displacement>;
@group(0) @binding(6) var<storage, read_write> v: array<vec4<f32>>;
@group(0) @binding(7) var<storage, read> mass: array<f32>;
@group(0) @binding(8) var<storage, read> is_free: array<u32>;
@group(0) @binding(9) var<storage, read_write> limit_request: array<vec4<f32>>;  // xyz, weight (0: not acting)

// Inverse mass; pinned vertices take no share.
fn weight(i: u32) -> f32 {
    if (is_free[i] == 0u) {
        return 0.0;
    }
    return 1.0 / mass[i];
}

// model/strain_limit.rs `request`: the velocity change of an edge's lo end
// per unit inverse mass (hi takes the opposite) that brings its length at
// the step's end back onto the limit it passed, at the dead band's edge
// (xyz; w: its weight, growing from 0 past the band), for the edge d at the
// step's end with s = |d|^2 - L^2 (formed by the caller without
// cancellation), rest length `rest`, the ends' summed inverse mass `w` and
// the step h.
fn request(d: vec3<f32>, s: f32, rest: f32, w: f32, h: f32) -> vec4<f32> {
    let l2 = rest * rest;
    var bound = 0.0;
    var bound2 = 0.0;
    if (s > limit_params.bounds.w * l2) {
        bound = limit_params.bounds.y;
        bound2 = limit_params.bounds.w;
    } else if (s < limit_params.bounds.z * l2) {
        bound = limit_params.bounds.x;
        bound2 = limit_params.bounds.z;
    }
    let l = length(d);
    // l - target = (|d|^2 - target^2) / (l + target).
    let gap = (s - bound2 * l2) / (l + bound * rest);
    let past = abs(gap) - TOLERANCE * rest;
    if (bound == 0.0 || past <= 0.0 || l == 0.0 || w == 0.0) {
        return vec4<f32>(0.0);
    }
    let change = select(-past, past, gap > 0.0);
    return vec4<f32>(d * (change / (l * h * w)), min(past / (RAMP * rest), 1.0));
}

// Per edge: its request at the step's end.
@compute @workgroup_size(WORKGROUP)
fn edge_request(@builtin(global_invocation_id) id: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let k = linear_index(id, groups);
    if (k >= limit_params.counts.x) {
        return;
    }
    let e = limit_edges[k];
    let a = e.ends.x;
    let b = e.ends.y;
    let h = params.step.x;
    // The edge d = r + u at the step's end, and s = |d|^2 - L^2 formed
    // without cancellation: |r|^2 - L^2 + 2 r.u + |u|^2.
    let r = e.rest.xyz;
    let u = displacement_difference(x[b], x[a]) + (v[b].xyz - v[a].xyz) * h;
    let s = bitcast<f32>(e.ends.z) + 2.0 * dot(r, u) + dot(u, u);
    limit_request[k] = request(r + u, s, e.rest.w, weight(a) + weight(b), h);
}

// Per vertex: the weighted mean of its edges' requests (their weighted sum
// over the sum of their weights, or over 1 when that is less), times its
// inverse mass.
@compute @workgroup_size(WORKGROUP)
fn apply_requests(@builtin(global_invocation_id) id: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let i = linear_index(id, groups);
    if (i >= params.counts.x) {
        return;
    }
    var sum = vec3<f32>(0.0);
    var weights = 0.0;
    for (var k = edge_offsets[i]; k < edge_offsets[i + 1u]; k++) {
        let entry = edge_entries[k];
        let j = limit_request[entry.x];
        if (j.w > 0.0) {
            sum += select(-j.xyz, j.xyz, entry.y == 0u) * j.w;
            weights += j.w;
        }
    }
    if (weights > 0.0) {
        v[i] = vec4<f32>(v[i].xyz + sum * (weight(i) / max(weights, 1.0)), 0.0);
    }
}
