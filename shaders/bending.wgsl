// Per-hinge kernel (CPU twin: src/cpu/bending.rs): dihedral angle and bending
// mode at the step's start positions (model/bending.rs), the bending
// channel's friction/plastic update, the hinge force coefficient
// -(m + w friction stress) and its system coefficient
// elastic dm/dtheta + w c (friction k_f + damping D) + damping k_d |E|, where
// m is the discrete shell's k_b s_e (strain - eps_p) (docs/physics.md "Bending") or
// Bridson 2003 §4's 4 k_b s (sin(theta/2) - sin(theta_bar/2)) with
// s = 2 |E|^2 / (|N1| + |N2|) now (model/bending.rs `elastic`).

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> hinges: array<vec4<u32>>;
@group(0) @binding(2) var<storage, read> hinge_rest: array<HingeRest>;
@group(0) @binding(8) var<storage, read> hinge_rest_a3: array<vec4<f32>>; // X3 - X0, cos(theta_rest)
@group(0) @binding(3) var<storage, read> x: array<Displacement>;     // u = x - X, split
@group(0) @binding(4) var<storage, read> v: array<vec4<f32>>;
@group(0) @binding(5) var<storage, read_write> hinge_channels: array<PackedChannel>;
@group(0) @binding(6) var<storage, read_write> hinge_lin_a: array<HingeHalf>;
@group(0) @binding(7) var<storage, read_write> hinge_lin_b: array<HingeHalf>;
@group(0) @binding(9) var<storage, read_write> hinge_strain: array<f32>;  // the last strain, unwrapped
@group(0) @binding(10) var<storage, read> hinge_faces: array<vec2<u32>>;  // faces A, B
@group(0) @binding(11) var<storage, read> face_lin: array<FaceLin>;       // membrane.wgsl: F and strain
@group(0) @binding(12) var<storage, read> hinge_coupling: array<HingeCoupling>;
@group(0) @binding(13) var<storage, read_write> coupling_force: array<vec4<f32>>;  // 4 per hinge
@group(0) @binding(14) var<storage, read> hinge_len: array<f32>;  // rest |e|, with Miguel's strain

// layout.rs `HingeCoupling`: Melo's stretch-bend coupling (model/cosserat.rs)
// of one hinge. Per face F (A: x0, x1, x2; B: x0, x1, x3) and vertex j,
// grad_j s_F = F_u p_j + F_v q_j; s_F = w . e_F; k = phi |e| / 2.
struct HingeCoupling {
    a_p: vec4<f32>,        // p of A's x0, x1, x2; w_uu of A
    a_q: vec4<f32>,        // q of A's x0, x1, x2; w_vv of A
    b_p: vec4<f32>,        // p of B's x0, x1, x3; w_uu of B
    b_q: vec4<f32>,        // q of B's x0, x1, x3; w_vv of B
    w: vec4<f32>,          // w_uv of A, w_uv of B, k, -
}

const TAU: f32 = 6.283185307179586;

@compute @workgroup_size(WORKGROUP)
fn main(@builtin(global_invocation_id) id: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let i = linear_index(id, groups);
    if (i >= params.counts.z) {
        return;
    }
    let h = hinges[i];
    let rest = hinge_rest[i];
    let rest3 = hinge_rest_a3[i];
    // Edge x0 -> x1, face A = (x0, x1, x2), face B = (x1, x0, x3); the edge
    // vectors are rest vectors plus displacement differences.
    let u0 = x[h.x];
    let e = rest.e.xyz + displacement_difference(x[h.y], u0);
    let d2 = rest.a2.xyz + displacement_difference(x[h.z], u0);
    let d3 = rest3.xyz + displacement_difference(x[h.w], u0);
    let na = cross(e, d2);
    let nb = cross(-e, d3 - e);
    let e2 = dot(e, e);
    let len = sqrt(e2);
    // theta - theta_rest = atan2(sin, cos) of the difference of the angles.
    let sin_t = dot(cross(na, nb), e / len);
    let cos_t = dot(na, nb);
    let raw = atan2_accurate(sin_t * rest3.w - cos_t * rest.e.w, cos_t * rest3.w + sin_t * rest.e.w);
    // Unwrapped past pi (model/bending.rs `unwrap`): a hinge folded onto
    // itself keeps counting, so its force keeps opening it.
    let strain = raw + TAU * round((hinge_strain[i] - raw) / TAU);
    hinge_strain[i] = strain;
    let g2 = na * (-len / dot(na, na));
    let g3 = nb * (-len / dot(nb, nb));
    let a2 = dot(d2, e) / e2;
    let a3 = dot(d3, e) / e2;
    let g0 = -(g2 * (1.0 - a2) + g3 * (1.0 - a3));
    let g1 = -(g2 * a2 + g3 * a3);
    let rate = dot(g0, v[h.x].xyz) + dot(g1, v[h.y].xyz) + dot(g2, v[h.z].xyz) + dot(g3, v[h.w].xyz);
    let kb = params.step.z;
    let factor = rest.a2.w;
    // The channel's strain is cs theta and it pushes with w per unit stress:
    // (1, s_e) for the angle; Miguel's 3 theta / h, (3 s_e / |e|, |e|), with
    // its own stiffness k_b / 3 (model/bending.rs `BendingStrain`).
    var cs = 1.0;
    var w = factor;
    var kc = kb;
    if ((params.counts.w & 4u) != 0u) {
        let len0 = hinge_len[i];
        cs = 3.0 * factor / len0;
        w = len0;
        kc = kb / 3.0;
    }
    var state = unpack_channel(hinge_channels[i]);
    let c = channel_update(params.bending, params.models.x, params.models.y, &state,
                           cs * strain, cs * rate, kc, params.scales.w, params.step.y);
    hinge_channels[i] = pack_channel(state);
    let eps_p = c.eps_p / cs;
    var elastic = factor * kb * (strain - eps_p);
    var stiffness = factor * kb;
    if ((params.counts.w & 1u) != 0u) {
        // Bridson: sin(theta/2) - sin(theta_bar/2) as a product, so that a
        // small bend keeps its digits.
        let s = 2.0 * e2 / (length(na) + length(nb));
        let theta_rest = atan2(rest.e.w, rest3.w);
        let mean = (2.0 * theta_rest + strain + eps_p) * 0.25;
        elastic = 4.0 * kb * s * cos(mean) * sin((strain - eps_p) * 0.25);
        stiffness = kb * s * max(cos((theta_rest + strain) * 0.5), 0.0);
    }
    let force = -(elastic + w * c.stress);
    let coef = params.scales.x * stiffness
        + w * cs * (params.scales.y * c.stiffness + params.scales.z * c.damping)
        + params.scales.z * params.step.w * len;
    if ((params.counts.w & 2u) != 0u) {
        // Melo's coupling, explicit: -k (s grad theta + theta grad s).
        let hc = hinge_coupling[i];
        let hf = hinge_faces[i];
        let la = face_lin[hf.x];
        let lb = face_lin[hf.y];
        let sa = hc.a_p.w * la.fu.w + hc.a_q.w * la.fv.w + hc.w.x * la.s.w;
        let sb = hc.b_p.w * lb.fu.w + hc.b_q.w * lb.fv.w + hc.w.y * lb.s.w;
        let k = hc.w.z;
        let ks = -k * 0.5 * (sa + sb);
        let kt = -0.5 * k * strain;
        let ga0 = la.fu.xyz * hc.a_p.x + la.fv.xyz * hc.a_q.x;
        let ga1 = la.fu.xyz * hc.a_p.y + la.fv.xyz * hc.a_q.y;
        let ga2 = la.fu.xyz * hc.a_p.z + la.fv.xyz * hc.a_q.z;
        let gb0 = lb.fu.xyz * hc.b_p.x + lb.fv.xyz * hc.b_q.x;
        let gb1 = lb.fu.xyz * hc.b_p.y + lb.fv.xyz * hc.b_q.y;
        let gb3 = lb.fu.xyz * hc.b_p.z + lb.fv.xyz * hc.b_q.z;
        coupling_force[4u * i] = vec4<f32>(g0 * ks + (ga0 + gb0) * kt, 0.0);
        coupling_force[4u * i + 1u] = vec4<f32>(g1 * ks + (ga1 + gb1) * kt, 0.0);
        coupling_force[4u * i + 2u] = vec4<f32>(g2 * ks + ga2 * kt, 0.0);
        coupling_force[4u * i + 3u] = vec4<f32>(g3 * ks + gb3 * kt, 0.0);
    }
    hinge_lin_a[i] = HingeHalf(vec4<f32>(g0, force), vec4<f32>(g1, coef));
    hinge_lin_b[i] = HingeHalf(vec4<f32>(g2, 0.0), vec4<f32>(g3, 0.0));
}
