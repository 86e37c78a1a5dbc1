// Per-hinge kernel (CPU twin: src/cpu/bending.rs): dihedral angle and bending
// mode at the step's start positions (model/bending.rs), the bending
// channel's friction/plastic update, the hinge force coefficient
// -s_e (k_b (strain - eps_p) + friction stress) and its system coefficient
// s_e (elastic k_b + friction k_f + damping D) (MODEL.md "Bending").

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> hinges: array<vec4<u32>>;
@group(0) @binding(2) var<storage, read> hinge_rest: array<vec2<f32>>;   // theta_rest, s_e
@group(0) @binding(3) var<storage, read> x: array<vec4<f32>>;
@group(0) @binding(4) var<storage, read> v: array<vec4<f32>>;
@group(0) @binding(5) var<storage, read_write> channels: array<ChannelState>;
@group(0) @binding(6) var<storage, read_write> lin: array<HingeLin>;

@compute @workgroup_size(WORKGROUP)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
    let i = id.x;
    if (i >= params.counts.z) {
        return;
    }
    let h = hinges[i];
    let x0 = x[h.x].xyz;
    let x1 = x[h.y].xyz;
    let x2 = x[h.z].xyz;
    let x3 = x[h.w].xyz;
    // Edge x0 -> x1, face A = (x0, x1, x2), face B = (x1, x0, x3).
    let e = x1 - x0;
    let na = cross(e, x2 - x0);
    let nb = cross(x0 - x1, x3 - x1);
    let e2 = dot(e, e);
    let len = sqrt(e2);
    let theta = atan2(dot(cross(na, nb), e / len), dot(na, nb));
    let g2 = na * (-len / dot(na, na));
    let g3 = nb * (-len / dot(nb, nb));
    let a2 = dot(x2 - x0, e) / e2;
    let a3 = dot(x3 - x0, e) / e2;
    let g0 = -(g2 * (1.0 - a2) + g3 * (1.0 - a3));
    let g1 = -(g2 * a2 + g3 * a3);
    let rate = dot(g0, v[h.x].xyz) + dot(g1, v[h.y].xyz) + dot(g2, v[h.z].xyz) + dot(g3, v[h.w].xyz);
    let rest = hinge_rest[i];
    let strain = theta - rest.x;
    let kb = params.step.z;
    var state = channels[i];
    let c = channel_update(params.bending, params.models.x, params.models.y, &state,
                           strain, rate, kb, params.step.x, params.step.y);
    channels[i] = state;
    let force = -rest.y * (kb * (strain - c.eps_p) + c.stress);
    let coef = rest.y * (params.scales.x * kb + params.scales.y * c.stiffness + params.scales.z * c.damping);
    lin[i] = HingeLin(vec4<f32>(g0, force), vec4<f32>(g1, coef), vec4<f32>(g2, 0.0), vec4<f32>(g3, 0.0));
}
