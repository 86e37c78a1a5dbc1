// Strain limiting (Bridson, Marino & Fedkiw 2003 §3; CPU twin:
// src/cpu/strain_limit.rs). After the solve, before the position update,
// velocities change so that every edge moved by x + h v ends within
// [1 - compression, 1 + extension] of its rest length ("modify v^{n+1/2} in
// place to limit strain"). One Jacobi sweep is `edge_request` (each edge past
// a limit asks for the relative velocity change that lands it on the limit,
// shared by inverse mass) then `apply_requests` (each vertex takes the mean
// of its edges' requests, through the edges' CSR incidence: no atomics).

// layout.rs `LimitEdge`: the edge's ends and its vector at the rest
// positions X_b - X_a with its rest length (in material coordinates).
struct LimitEdge {
    ends: vec4<u32>,       // lo, hi, -, -
    rest: vec4<f32>,       // X_b - X_a, rest length
}

// layout.rs `LimitParams`.
struct LimitParams {
    counts: vec4<u32>,     // edges, -, -, -
    bounds: vec4<f32>,     // 1 - compression, 1 + extension, -, -
}

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<uniform> limits: LimitParams;
@group(0) @binding(2) var<storage, read> edges: array<LimitEdge>;
@group(0) @binding(3) var<storage, read> edge_offsets: array<u32>;
@group(0) @binding(4) var<storage, read> edge_entries: array<vec2<u32>>;  // edge, end (0 lo, 1 hi)
@group(0) @binding(5) var<storage, read> x: array<Displacement>;
@group(0) @binding(6) var<storage, read_write> v: array<vec4<f32>>;
@group(0) @binding(7) var<storage, read> mass: array<f32>;
@group(0) @binding(8) var<storage, read> is_free: array<u32>;
@group(0) @binding(9) var<storage, read_write> request: array<vec4<f32>>;  // xyz, 1 when acting

// Inverse mass; pinned vertices take no share.
fn weight(i: u32) -> f32 {
    if (is_free[i] == 0u) {
        return 0.0;
    }
    return 1.0 / mass[i];
}

// Per edge: the velocity change of its lo end per unit inverse mass (hi
// takes the opposite) that brings its length at the step's end onto the
// limit it passed.
@compute @workgroup_size(WORKGROUP)
fn edge_request(@builtin(global_invocation_id) id: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let k = linear_index(id, groups);
    if (k >= limits.counts.x) {
        return;
    }
    let e = edges[k];
    let a = e.ends.x;
    let b = e.ends.y;
    let h = params.step.x;
    let w = weight(a) + weight(b);
    let d = e.rest.xyz + displacement_difference(x[b], x[a]) + (v[b].xyz - v[a].xyz) * h;
    let l = length(d);
    let target_length = clamp(l, limits.bounds.x * e.rest.w, limits.bounds.y * e.rest.w);
    if (target_length == l || l == 0.0 || w == 0.0) {
        request[k] = vec4<f32>(0.0);
        return;
    }
    request[k] = vec4<f32>(d * ((l - target_length) / (l * h * w)), 1.0);
}

// Per vertex: the mean of its acting edges' requests, times its inverse mass.
@compute @workgroup_size(WORKGROUP)
fn apply_requests(@builtin(global_invocation_id) id: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let i = linear_index(id, groups);
    if (i >= params.counts.x) {
        return;
    }
    var sum = vec3<f32>(0.0);
    var count = 0.0;
    for (var k = edge_offsets[i]; k < edge_offsets[i + 1u]; k++) {
        let entry = edge_entries[k];
        let j = request[entry.x];
        if (j.w != 0.0) {
            sum += select(-j.xyz, j.xyz, entry.y == 0u);
            count += 1.0;
        }
    }
    if (count > 0.0) {
        v[i] = vec4<f32>(v[i].xyz + sum * (weight(i) / count), 0.0);
    }
}
