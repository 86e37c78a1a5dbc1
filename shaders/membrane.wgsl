// Per-face kernel (CPU twin: src/cpu/membrane.rs): updates the face's three
// in-plane channels (e_uu, e_vv, e_uv) at the step's start state, then writes
// the membrane stress vectors A (P_u, P_v) and the face's system block
// (docs/physics.md "Membrane"; the paper's §3.4, Eq. 15-16).

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> faces: array<vec4<u32>>;
@group(0) @binding(2) var<storage, read> face_rest: array<FaceRest>;
@group(0) @binding(3) var<storage, read> x: array<Displacement>;     // u = x - X, split
@group(0) @binding(4) var<storage, read> v: array<vec4<f32>>;
@group(0) @binding(5) var<storage, read_write> channels_uu: array<PackedChannel>;
@group(0) @binding(8) var<storage, read_write> channels_vv: array<PackedChannel>;
@group(0) @binding(9) var<storage, read_write> channels_uv: array<PackedChannel>;
@group(0) @binding(6) var<storage, read_write> stress: array<vec4<f32>>;
@group(0) @binding(7) var<storage, read_write> face_lin: array<FaceLin>;

// Positive part of the symmetric 2x2 [[a, c], [c, b]] given as (a, b, c)
// (model/membrane.rs `positive_part`).
fn positive_part(m: vec3<f32>) -> vec3<f32> {
    let a = m.x;
    let b = m.y;
    let c = m.z;
    let mean = 0.5 * (a + b);
    let radius = sqrt(0.25 * (a - b) * (a - b) + c * c);
    let hi = mean + radius;
    let lo = mean - radius;
    if (lo >= 0.0) {
        return m;
    }
    if (hi <= 0.0) {
        return vec3<f32>(0.0);
    }
    var q = vec2<f32>(hi - b, c);
    if (abs(hi - a) + abs(c) > abs(hi - b) + abs(c)) {
        q = vec2<f32>(c, hi - a);
    }
    let n2 = dot(q, q);
    if (n2 == 0.0) {
        return vec3<f32>(max(a, 0.0), max(b, 0.0), 0.0);
    }
    let k = hi / n2;
    return vec3<f32>(k * q.x * q.x, k * q.y * q.y, k * q.x * q.y);
}

@compute @workgroup_size(WORKGROUP)
fn main(@builtin(global_invocation_id) id: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let i = linear_index(id, groups);
    if (i >= params.counts.y) {
        return;
    }
    let f = faces[i];
    let r = face_rest[i];
    let b0 = r.beta01.xy;
    let b1 = r.beta01.zw;
    let b2 = r.beta2.xy;
    let area = r.beta2.z;
    // beta_0 = -(beta_1 + beta_2), so the displacement gradient needs only
    // the edges' displacement differences, which the split keeps exact.
    let d1 = displacement_difference(x[f.y], x[f.x]);
    let d2 = displacement_difference(x[f.z], x[f.x]);
    let gu = d1 * b1.x + d2 * b2.x;
    let gv = d1 * b1.y + d2 * b2.y;
    let fu = r.fx_u.xyz + gu;
    let fv = r.fx_v.xyz + gv;
    let du = v[f.x].xyz * b0.x + v[f.y].xyz * b1.x + v[f.z].xyz * b2.x;
    let dv = v[f.x].xyz * b0.y + v[f.y].xyz * b1.y + v[f.z].xyz * b2.y;
    // Green strain expanded about X: e = e_X + F_X . du + du . du / 2, as
    // e_X + du . (F_X + f) / 2 (one dot product: fewer f32 roundings in the
    // cancellation a rotation makes).
    let e = vec3<f32>(
        r.fx_u.w + 0.5 * dot(gu, r.fx_u.xyz + fu),
        r.fx_v.w + 0.5 * dot(gv, r.fx_v.xyz + fv),
        r.beta2.w + 0.5 * (dot(r.fx_u.xyz, gv) + dot(gu, fv)),
    );
    let rate = vec3<f32>(dot(fu, du), dot(fv, dv), 0.5 * (dot(fu, dv) + dot(fv, du)));
    let k = params.stretching;
    let stiffness = vec3<f32>(k.x, k.z, k.w);
    var eps_p = vec3<f32>(0.0);
    var sigma_friction = vec3<f32>(0.0);
    var extra = vec3<f32>(0.0);
    for (var c = 0u; c < 3u; c++) {
        var state: ChannelState;
        switch c {
            case 0u: { state = unpack_channel(channels_uu[i]); }
            case 1u: { state = unpack_channel(channels_vv[i]); }
            default: { state = unpack_channel(channels_uv[i]); }
        }
        let out = channel_update(params.in_plane[c], params.models.z, params.models.w, &state,
                                 e[c], rate[c], stiffness[c], params.scales.w, params.step.y, i);
        switch c {
            case 0u: { channels_uu[i] = pack_channel(state); }
            case 1u: { channels_vv[i] = pack_channel(state); }
            default: { channels_uv[i] = pack_channel(state); }
        }
        eps_p[c] = out.eps_p;
        sigma_friction[c] = out.stress;
        extra[c] = params.scales.y * out.stiffness + params.scales.z * out.damping;
    }
    let ee = e - eps_p;
    let sigma_el = vec3<f32>(k.x * ee.x + k.y * ee.y, k.y * ee.x + k.z * ee.y, 2.0 * k.w * ee.z);
    let sigma = sigma_el + sigma_friction;
    stress[2u * i] = vec4<f32>((fu * sigma.x + fv * (0.5 * sigma.z)) * area, 0.0);
    stress[2u * i + 1u] = vec4<f32>((fu * (0.5 * sigma.z) + fv * sigma.y) * area, 0.0);
    let s = params.scales.x;
    let geometric = positive_part(vec3<f32>(sigma_el.x, sigma_el.y, 0.5 * sigma_el.z) * s);
    // The w slots carry the Green strain (e_uu, e_vv, e_uv) to the hinge
    // kernel's stretch-bend coupling.
    face_lin[i] = FaceLin(
        vec4<f32>(fu, e.x),
        vec4<f32>(fv, e.y),
        vec4<f32>(geometric, e.z),
        vec4<f32>(s * k.x + extra.x, s * k.y, s * k.z + extra.y, s * 2.0 * k.w + extra.z),
    );
}
