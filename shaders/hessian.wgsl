// Matrix-free products q = A p with A = mass_scale M + S, S the sum of the
// element blocks the element kernels left (CPU twin: src/cpu/hessian.rs):
// per-face and per-hinge products into scratch, then a per-vertex gather
// through the CSR incidence lists, optionally filtered (pinned rows zeroed)
// and with the partial sums of p . q per workgroup.

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> faces: array<vec4<u32>>;
@group(0) @binding(2) var<storage, read> face_rest: array<FaceRest>;
@group(0) @binding(3) var<storage, read> face_lin: array<FaceLin>;
@group(0) @binding(4) var<storage, read> p: array<vec4<f32>>;
@group(0) @binding(5) var<storage, read_write> face_dp: array<vec4<f32>>;
@group(0) @binding(6) var<storage, read> hinges: array<vec4<u32>>;
@group(0) @binding(7) var<storage, read> hinge_lin_a: array<HingeHalf>;
@group(0) @binding(18) var<storage, read> hinge_lin_b: array<HingeHalf>;
@group(0) @binding(8) var<storage, read_write> hinge_s: array<f32>;
@group(0) @binding(9) var<uniform> mode: ProductMode;
@group(0) @binding(10) var<storage, read> mass: array<f32>;
@group(0) @binding(11) var<storage, read> face_offsets: array<u32>;
@group(0) @binding(12) var<storage, read> face_entries: array<vec4<f32>>;
@group(0) @binding(13) var<storage, read> hinge_offsets: array<u32>;
@group(0) @binding(14) var<storage, read> hinge_entries: array<vec2<u32>>;
@group(0) @binding(15) var<storage, read> is_free: array<u32>;
@group(0) @binding(16) var<storage, read_write> q: array<vec4<f32>>;
@group(0) @binding(17) var<storage, read_write> partial: array<vec2<f32>>;
@group(0) @binding(19) var<storage, read> air_normal: array<vec4<f32>>;  // gather.wgsl
@group(0) @binding(20) var<storage, read> stick: array<vec4<f32>>;       // gather.wgsl
@group(0) @binding(21) var<storage, read_write> hinge_gp: array<f32>;    // shape_operator.wgsl

// A (dP_u, dP_v) of a face under corner displacement p (`stress_differential`).
@compute @workgroup_size(WORKGROUP)
fn face_product(@builtin(global_invocation_id) id: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let i = linear_index(id, groups);
    if (i >= params.counts.y) {
        return;
    }
    let f = faces[i];
    let r = face_rest[i];
    let l = face_lin[i];
    let b0 = r.beta01.xy;
    let b1 = r.beta01.zw;
    let b2 = r.beta2.xy;
    let dfu = p[f.x].xyz * b0.x + p[f.y].xyz * b1.x + p[f.z].xyz * b2.x;
    let dfv = p[f.x].xyz * b0.y + p[f.y].xyz * b1.y + p[f.z].xyz * b2.y;
    let fu = l.fu.xyz;
    let fv = l.fv.xyz;
    let de = vec3<f32>(dot(fu, dfu), dot(fv, dfv), 0.5 * (dot(fu, dfv) + dot(fv, dfu)));
    let c = l.c;
    let ds = vec3<f32>(c.x * de.x + c.y * de.y, c.y * de.x + c.z * de.y, 0.5 * c.w * de.z);
    let s = l.s;
    let dpu = dfu * s.x + dfv * s.z + fu * ds.x + fv * ds.z;
    let dpv = dfu * s.z + dfv * s.y + fu * ds.z + fv * ds.y;
    face_dp[2u * i] = vec4<f32>(dpu * r.beta2.z, 0.0);
    face_dp[2u * i + 1u] = vec4<f32>(dpv * r.beta2.z, 0.0);
}

// coef (grad . p) of a hinge; under the shape operator also grad . p,
// which its coupled rows read (shape_operator.wgsl `product`).
@compute @workgroup_size(WORKGROUP)
fn hinge_product(@builtin(global_invocation_id) id: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let i = linear_index(id, groups);
    if (i >= params.counts.z) {
        return;
    }
    let h = hinges[i];
    let a = hinge_lin_a[i];
    let b = hinge_lin_b[i];
    let gp = dot(a.a.xyz, p[h.x].xyz) + dot(a.b.xyz, p[h.y].xyz) + dot(b.a.xyz, p[h.z].xyz) + dot(b.b.xyz, p[h.w].xyz);
    hinge_s[i] = a.b.w * gp;
    if (params.hinge.x == BENDING_SHAPE_OPERATOR) {
        hinge_gp[i] = gp;
    }
}

@compute @workgroup_size(WORKGROUP)
fn gather_product(@builtin(global_invocation_id) id: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>, @builtin(local_invocation_index) local: u32,
                  @builtin(workgroup_id) group: vec3<u32>) {
    let v = linear_index(id, groups);
    var dot_pq = 0.0;
    if (v < params.counts.x) {
        var y = vec3<f32>(0.0);
        if (mode.filter_rows == 0u || is_free[v] != 0u) {
            for (var k = face_offsets[v]; k < face_offsets[v + 1u]; k++) {
                let entry = face_entries[k];
                let face = bitcast<u32>(entry.x);
                y += face_dp[2u * face].xyz * entry.z + face_dp[2u * face + 1u].xyz * entry.w;
            }
            for (var k = hinge_offsets[v]; k < hinge_offsets[v + 1u]; k++) {
                let entry = hinge_entries[k];
                y += hinge_grad(entry.x, entry.y) * hinge_s[entry.x];
            }
            y += p[v].xyz * (mode.mass_scale * mass[v]);
            if (params.air.w != 0.0) {
                // The air's damping block h a (rho_D I + rho_R n n^T), a part of S.
                let n = air_normal[v].xyz;
                let pv = p[v].xyz;
                y += (pv * params.air.x + n * (params.air.y * dot(n, pv))) * (mass[v] * params.air.z * params.scales.z);
            }
            if (params.wind.w != 0.0) {
                // A sticking spring's block h^2 k I.
                y += p[v].xyz * (params.scales.y * stick[v].w);
            }
        }
        q[v] = vec4<f32>(y, 0.0);
        dot_pq = dot(p[v].xyz, y);
    }
    let total = workgroup_sum(local, vec2<f32>(dot_pq, 0.0));
    let g = group_index(group, groups);
    if (local == 0u && g < arrayLength(&partial)) {
        partial[g] = total;
    }
}
