// Per-hinge kernel (CPU twin: src/cpu/bending.rs): dihedral angle and bending
// mode at the step's start positions (model/bending.rs), the bending
// channel's friction/plastic update, the hinge force coefficient
// -(m + s_e friction stress) and its system coefficient
// elastic dm/dtheta + s_e (friction k_f + damping D) + damping k_d |E|, where
// m is the discrete shell's k_b s_e (strain - eps_p) (MODEL.md "Bending") or
// Bridson 2003 §4's 4 k_b s (sin(theta/2) - sin(theta_bar/2)) with
// s = 2 |E|^2 / (|N1| + |N2|) now (model/bending.rs `elastic`).

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> hinges: array<vec4<u32>>;
@group(0) @binding(2) var<storage, read> hinge_rest: array<HingeRest>;
@group(0) @binding(8) var<storage, read> hinge_rest_a3: array<vec4<f32>>; // X3 - X0, cos(theta_rest)
@group(0) @binding(3) var<storage, read> x: array<Displacement>;     // u = x - X, split
@group(0) @binding(4) var<storage, read> v: array<vec4<f32>>;
@group(0) @binding(5) var<storage, read_write> channels: array<PackedChannel>;
@group(0) @binding(6) var<storage, read_write> lin_a: array<HingeHalf>;
@group(0) @binding(7) var<storage, read_write> lin_b: array<HingeHalf>;
@group(0) @binding(9) var<storage, read_write> last_strain: array<f32>;  // the last strain, unwrapped

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
    // Unwrapped past pi (cpu/bending.rs `unwrap`): a hinge folded onto
    // itself keeps counting, so its force keeps opening it.
    let strain = raw + TAU * round((last_strain[i] - raw) / TAU);
    last_strain[i] = strain;
    let g2 = na * (-len / dot(na, na));
    let g3 = nb * (-len / dot(nb, nb));
    let a2 = dot(d2, e) / e2;
    let a3 = dot(d3, e) / e2;
    let g0 = -(g2 * (1.0 - a2) + g3 * (1.0 - a3));
    let g1 = -(g2 * a2 + g3 * a3);
    let rate = dot(g0, v[h.x].xyz) + dot(g1, v[h.y].xyz) + dot(g2, v[h.z].xyz) + dot(g3, v[h.w].xyz);
    let kb = params.step.z;
    var state = unpack_channel(channels[i]);
    let c = channel_update(params.bending, params.models.x, params.models.y, &state,
                           strain, rate, kb, params.scales.w, params.step.y);
    channels[i] = pack_channel(state);
    let factor = rest.a2.w;
    var elastic = factor * kb * (strain - c.eps_p);
    var stiffness = factor * kb;
    if (params.counts.w == 1u) {
        // Bridson: sin(theta/2) - sin(theta_bar/2) as a product, so that a
        // small bend keeps its digits.
        let s = 2.0 * e2 / (length(na) + length(nb));
        let theta_rest = atan2(rest.e.w, rest3.w);
        let mean = (2.0 * theta_rest + strain + c.eps_p) * 0.25;
        elastic = 4.0 * kb * s * cos(mean) * sin((strain - c.eps_p) * 0.25);
        stiffness = kb * s * max(cos((theta_rest + strain) * 0.5), 0.0);
    }
    let force = -(elastic + factor * c.stress);
    let coef = params.scales.x * stiffness
        + factor * (params.scales.y * c.stiffness + params.scales.z * c.damping)
        + params.scales.z * params.step.w * len;
    lin_a[i] = HingeHalf(vec4<f32>(g0, force), vec4<f32>(g1, coef));
    lin_b[i] = HingeHalf(vec4<f32>(g2, 0.0), vec4<f32>(g3, 0.0));
}
