// Per-vertex gather (CPU twin: src/cpu/gather.rs): each vertex sums its faces'
// and hinges' contributions through the CSR incidence lists in a fixed order
// (no atomics: deterministic): the total force (gravity, membrane, bending,
// wind) and the inverse of its 3x3 diagonal block of A = M + S (block
// Jacobi). When the air acts (model/air.rs), each vertex's unit normal (its
// faces' A_f F_u x F_v, normalised) is kept for the products, the wind adds
// a rho_R (n . u) n and the block h a (rho_D I + rho_R n n^T), a = m / rho.
// A sticking spring (sim/sticking.rs) adds k (target - x) and h^2 k I; a
// scene load (step/mod.rs VertexLoad) its constant share of the force.

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> mass: array<f32>;
@group(0) @binding(2) var<storage, read> face_offsets: array<u32>;
@group(0) @binding(3) var<storage, read> face_entries: array<vec4<f32>>;  // face, corner (as bits), beta.xy
@group(0) @binding(4) var<storage, read> hinge_offsets: array<u32>;
@group(0) @binding(5) var<storage, read> hinge_entries: array<vec2<u32>>; // hinge, position in the hinge
@group(0) @binding(6) var<storage, read> stress: array<vec4<f32>>;
@group(0) @binding(7) var<storage, read> face_lin: array<FaceLin>;
@group(0) @binding(8) var<storage, read> face_rest: array<FaceRest>;
@group(0) @binding(9) var<storage, read> hinge_lin_a: array<HingeHalf>;
@group(0) @binding(12) var<storage, read> hinge_lin_b: array<HingeHalf>;
@group(0) @binding(10) var<storage, read_write> force: array<vec4<f32>>;
@group(0) @binding(11) var<storage, read_write> inv_diag: array<mat3x3<f32>>;
@group(0) @binding(13) var<storage, read_write> air_normal: array<vec4<f32>>;
@group(0) @binding(14) var<storage, read> x: array<Displacement>;
@group(0) @binding(15) var<storage, read> stick: array<vec4<f32>>;  // target - X, stiffness
@group(0) @binding(16) var<storage, read> coupling_force: array<vec4<f32>>;  // bending.wgsl, 4 per hinge
@group(0) @binding(17) var<storage, read> load: array<vec4<f32>>;

// The (a, a) block of a face's system block (model/membrane.rs `block`).
fn face_block(l: FaceLin, b: vec2<f32>, area: f32) -> mat3x3<f32> {
    let r0 = l.fu.xyz * b.x;
    let r1 = l.fv.xyz * b.y;
    let r2 = (l.fu.xyz * b.y + l.fv.xyz * b.x) * 0.5;
    let geometric = b.x * b.x * l.s.x + b.y * b.y * l.s.y + 2.0 * b.x * b.y * l.s.z;
    var m = mat3x3<f32>(vec3<f32>(geometric, 0.0, 0.0), vec3<f32>(0.0, geometric, 0.0), vec3<f32>(0.0, 0.0, geometric));
    m += outer(r0, r0) * l.c.x + (outer(r0, r1) + outer(r1, r0)) * l.c.y;
    m += outer(r1, r1) * l.c.z + outer(r2, r2) * l.c.w;
    return m * area;
}

@compute @workgroup_size(WORKGROUP)
fn main(@builtin(global_invocation_id) id: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let v = linear_index(id, groups);
    if (v >= params.counts.x) {
        return;
    }
    var f = params.gravity.xyz * mass[v];
    var block = mat3x3<f32>(vec3<f32>(mass[v], 0.0, 0.0), vec3<f32>(0.0, mass[v], 0.0), vec3<f32>(0.0, 0.0, mass[v]));
    var normal = vec3<f32>(0.0);
    for (var k = face_offsets[v]; k < face_offsets[v + 1u]; k++) {
        let entry = face_entries[k];
        let face = bitcast<u32>(entry.x);
        let b = entry.zw;
        f -= stress[2u * face].xyz * b.x + stress[2u * face + 1u].xyz * b.y;
        let l = face_lin[face];
        let area = face_rest[face].beta2.z;
        block += face_block(l, b, area);
        normal += cross(l.fu.xyz, l.fv.xyz) * area;
    }
    if (params.air.w != 0.0) {
        let len = length(normal);
        let n = select(vec3<f32>(0.0), normal / len, len > 0.0);
        air_normal[v] = vec4<f32>(n, 0.0);
        let a = mass[v] * params.air.z;
        f += n * (a * params.air.y * dot(n, params.wind.xyz));
        let d = a * params.scales.z;
        block += mat3x3<f32>(vec3<f32>(d * params.air.x, 0.0, 0.0), vec3<f32>(0.0, d * params.air.x, 0.0),
                             vec3<f32>(0.0, 0.0, d * params.air.x)) + outer(n, n) * (d * params.air.y);
    }
    for (var k = hinge_offsets[v]; k < hinge_offsets[v + 1u]; k++) {
        let entry = hinge_entries[k];
        let l = hinge_lin_a[entry.x];
        let g = hinge_grad(entry.x, entry.y);
        f += g * l.a.w;
        block += outer(g, g) * l.b.w;
        if (params.hinge.z != 0u) {
            f += coupling_force[4u * entry.x + entry.y].xyz;
        }
    }
    if (params.wind.w != 0.0) {
        let st = stick[v];
        f += (st.xyz - displacement(x[v])) * st.w;
        let d = params.scales.y * st.w;
        block += mat3x3<f32>(vec3<f32>(d, 0.0, 0.0), vec3<f32>(0.0, d, 0.0), vec3<f32>(0.0, 0.0, d));
    }
    if (params.counts.w != 0u) {
        f += load[v].xyz;
    }
    force[v] = vec4<f32>(f, 0.0);
    inv_diag[v] = inverse3(block);
}
