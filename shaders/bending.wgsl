// Per-hinge kernel (CPU twin: src/cpu/bending.rs): dihedral angle and bending
// modes at the step's start positions, the bending channel's
// friction/plastic update, the hinge force coefficient -(m + w friction
// stress) and its system coefficient elastic dm/dtheta + w c (friction k_f +
// damping D) + damping k_d |E| (docs/physics.md "Bending"; the core paper's
// Eq. 5-14). The functions carry the names of their twins in
// model/bending.rs, which the CPU kernel calls: `unwrap`,
// `dihedral_gradient`, `bridson_factor`, `elastic`.

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
@group(0) @binding(15) var<storage, read_write> hinge_bend: array<f32>;  // theta - theta_rest - eps_p

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

// model/bending.rs `unwrap`: the angle plus the multiple of 2 pi nearest to
// the last one, so a hinge folded onto itself keeps counting and its force
// keeps opening it.
fn unwrap(raw: f32, last: f32) -> f32 {
    return raw + TAU * round((last - raw) / TAU);
}

// d theta / dx of the hinge's four vertices (the bending modes).
struct Modes {
    g0: vec3<f32>,
    g1: vec3<f32>,
    g2: vec3<f32>,
    g3: vec3<f32>,
}

// model/bending.rs `dihedral_gradient`, for the edge e = x1 - x0, the wing
// vectors d2 = x2 - x0, d3 = x3 - x0 and the faces' normals na, nb (the
// angle itself is taken relative to rest in `main`, for accuracy).
fn dihedral_gradient(e: vec3<f32>, d2: vec3<f32>, d3: vec3<f32>, na: vec3<f32>, nb: vec3<f32>) -> Modes {
    let e2 = dot(e, e);
    let len = sqrt(e2);
    let g2 = na * (-len / dot(na, na));
    let g3 = nb * (-len / dot(nb, nb));
    let a2 = dot(d2, e) / e2;
    let a3 = dot(d3, e) / e2;
    return Modes(-(g2 * (1.0 - a2) + g3 * (1.0 - a3)), -(g2 * a2 + g3 * a3), g2, g3);
}

// model/bending.rs `bridson_factor`: 2 |E|^2 / (|N1| + |N2|) now.
fn bridson_factor(e: vec3<f32>, na: vec3<f32>, nb: vec3<f32>) -> f32 {
    return 2.0 * dot(e, e) / (length(na) + length(nb));
}

// model/bending.rs `elastic`: the elastic force magnitude m and dm/dtheta
// of `model` (BENDING_*), for strain = theta - theta_rest.
fn elastic(model: u32, kb: f32, factor: f32, theta_rest: f32, strain: f32, eps_p: f32) -> vec2<f32> {
    if (model == BENDING_BRIDSON) {
        // sin(theta/2) - sin(theta_bar/2) as a product, so that a small
        // bend keeps its digits; past flat-on-itself the block keeps only
        // the stiffening part.
        let mean = (2.0 * theta_rest + strain + eps_p) * 0.25;
        return vec2<f32>(4.0 * kb * factor * cos(mean) * sin((strain - eps_p) * 0.25),
                         kb * factor * max(cos((theta_rest + strain) * 0.5), 0.0));
    }
    return vec2<f32>(factor * kb * (strain - eps_p), factor * kb);
}

// cloth.rs `HingeRest::channel_scales` (model/bending.rs
// `BendingStrain::scales`): the channel's strain per radian and its torque
// per unit stress, (1, s_e) for the angle and (3 s_e / |e|, |e|) for
// Miguel's 3 theta / h.
fn channel_scales(strain_model: u32, factor: f32, len: f32) -> vec2<f32> {
    if (strain_model == STRAIN_CURVATURE) {
        return vec2<f32>(3.0 * factor / len, len);
    }
    return vec2<f32>(1.0, factor);
}

// model/bending.rs `BendingStrain::stiffness_ratio`: k_b over the channel's
// own elastic stiffness.
fn stiffness_ratio(strain_model: u32) -> f32 {
    if (strain_model == STRAIN_CURVATURE) {
        return 3.0;
    }
    return 1.0;
}

// model/cosserat.rs `forces`: Melo's coupling on hinge i, explicit,
// -k (s grad theta + theta grad s), into coupling_force.
fn cosserat_forces(i: u32, strain: f32, g: Modes) {
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
    coupling_force[4u * i] = vec4<f32>(g.g0 * ks + (ga0 + gb0) * kt, 0.0);
    coupling_force[4u * i + 1u] = vec4<f32>(g.g1 * ks + (ga1 + gb1) * kt, 0.0);
    coupling_force[4u * i + 2u] = vec4<f32>(g.g2 * ks + ga2 * kt, 0.0);
    coupling_force[4u * i + 3u] = vec4<f32>(g.g3 * ks + gb3 * kt, 0.0);
}

// cpu/bending.rs `bending`, for hinge i.
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
    let len = sqrt(dot(e, e));
    // theta - theta_rest = atan2(sin, cos) of the difference of the angles.
    let sin_t = dot(cross(na, nb), e / len);
    let cos_t = dot(na, nb);
    let raw = atan2_accurate(sin_t * rest3.w - cos_t * rest.e.w, cos_t * rest3.w + sin_t * rest.e.w);
    let strain = unwrap(raw, hinge_strain[i]);
    hinge_strain[i] = strain;
    let g = dihedral_gradient(e, d2, d3, na, nb);
    let rate = dot(g.g0, v[h.x].xyz) + dot(g.g1, v[h.y].xyz) + dot(g.g2, v[h.z].xyz) + dot(g.g3, v[h.w].xyz);
    let kb = params.step.z;
    let rest_factor = rest.a2.w;
    // The channel sees its own strain cs theta and pushes with w per unit
    // stress.
    let strain_model = params.hinge.y;
    var len0 = 0.0;
    if (strain_model == STRAIN_CURVATURE) {
        len0 = hinge_len[i];
    }
    let scales = channel_scales(strain_model, rest_factor, len0);
    let cs = scales.x;
    let w = scales.y;
    var state = unpack_channel(hinge_channels[i]);
    let c = channel_update(params.bending, params.models.x, params.models.y, &state,
                           cs * strain, cs * rate, kb / stiffness_ratio(strain_model), params.scales.w, params.step.y, i);
    hinge_channels[i] = pack_channel(state);
    let eps_p = c.eps_p / cs;
    var factor = rest_factor;
    var theta_rest = 0.0;
    if (params.hinge.x == BENDING_BRIDSON) {
        factor = bridson_factor(e, na, nb);
        theta_rest = atan2(rest.e.w, rest3.w);
    }
    // The shape operator's elastic part is its coupling's
    // (shape_operator.wgsl), from the bends left here.
    if (params.hinge.x == BENDING_SHAPE_OPERATOR) {
        factor = 0.0;
    }
    hinge_bend[i] = strain - eps_p;
    let m = elastic(params.hinge.x, kb, factor, theta_rest, strain, eps_p);
    let force = -(m.x + w * c.stress);
    let coef = params.scales.x * m.y
        + w * cs * (params.scales.y * c.stiffness + params.scales.z * c.damping)
        + params.scales.z * params.step.w * len;
    if (params.hinge.z != 0u) {
        cosserat_forces(i, strain, g);
    }
    hinge_lin_a[i] = HingeHalf(vec4<f32>(g.g0, force), vec4<f32>(g.g1, coef));
    hinge_lin_b[i] = HingeHalf(vec4<f32>(g.g2, 0.0), vec4<f32>(g.g3, 0.0));
}
