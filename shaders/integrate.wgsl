// Per-vertex steps around the solve (CPU twin: src/cpu/integrate.rs): the
// prescribed dv of pinned vertices, the right-hand side h f - S v, the
// handles' reactions, and the backward-Euler update v += dv, x += h v
// (split in two so that the collision response sits between); the mixed
// scheme's explicit half step, the carrying of the constraints' changes into
// it, and its second solve's hold on pinned vertices (step/sequence.rs).
// `params.scales.w` is the solve's force factor (h, or h/2 in the mixed
// scheme); `params.step.x` the whole step.

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> is_free: array<u32>;
@group(0) @binding(2) var<storage, read> targets: array<Displacement>;  // as displacements from X
@group(0) @binding(3) var<storage, read_write> x: array<Displacement>;  // u = x - X, split
@group(0) @binding(4) var<storage, read_write> v: array<vec4<f32>>;
@group(0) @binding(5) var<storage, read_write> dv: array<vec4<f32>>;
@group(0) @binding(6) var<storage, read> force: array<vec4<f32>>;
@group(0) @binding(7) var<storage, read> q: array<vec4<f32>>;
@group(0) @binding(8) var<storage, read_write> rhs: array<vec4<f32>>;
@group(0) @binding(9) var<storage, read_write> reaction: array<vec4<f32>>;
@group(0) @binding(10) var<storage, read> mass: array<f32>;
@group(0) @binding(11) var<storage, read_write> v_tilde: array<vec4<f32>>;
@group(0) @binding(12) var<storage, read> v_before: array<vec4<f32>>;

// Pinned vertices: the dv that lands them exactly on their targets.
@compute @workgroup_size(WORKGROUP)
fn constrain(@builtin(global_invocation_id) id: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let i = linear_index(id, groups);
    if (i >= params.counts.x || is_free[i] != 0u) {
        return;
    }
    let h = params.step.x;
    dv[i] = vec4<f32>(displacement_difference(targets[i], x[i]) / h - v[i].xyz, 0.0);
}

// rhs = h f - S v, with q = S v.
@compute @workgroup_size(WORKGROUP)
fn right_hand_side(@builtin(global_invocation_id) id: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let i = linear_index(id, groups);
    if (i >= params.counts.x) {
        return;
    }
    rhs[i] = vec4<f32>(force[i].xyz * params.scales.w - q[i].xyz, 0.0);
}

// The force the cloth exerts on whatever holds vertex i: (rhs - A dv)/k, with
// q = A dv and k the force factor.
@compute @workgroup_size(WORKGROUP)
fn reactions(@builtin(global_invocation_id) id: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let i = linear_index(id, groups);
    if (i >= params.counts.x) {
        return;
    }
    reaction[i] = vec4<f32>((rhs[i].xyz - q[i].xyz) / params.scales.w, 0.0);
}

// v += dv (the collision response then corrects v before it moves x).
@compute @workgroup_size(WORKGROUP)
fn advance_velocity(@builtin(global_invocation_id) id: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let i = linear_index(id, groups);
    if (i >= params.counts.x) {
        return;
    }
    v[i] = vec4<f32>(v[i].xyz + dv[i].xyz, 0.0);
}

// x += h v (on the displacements).
@compute @workgroup_size(WORKGROUP)
fn advance_position(@builtin(global_invocation_id) id: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let i = linear_index(id, groups);
    if (i >= params.counts.x) {
        return;
    }
    x[i] = displaced(x[i], v[i].xyz * params.step.x);
}

// The mixed scheme's explicit half step v_tilde = v + M^-1 rhs (rhs = h/2 f - S v).
@compute @workgroup_size(WORKGROUP)
fn explicit_half(@builtin(global_invocation_id) id: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let i = linear_index(id, groups);
    if (i >= params.counts.x) {
        return;
    }
    v_tilde[i] = vec4<f32>(v[i].xyz + rhs[i].xyz / mass[i], 0.0);
}

// The constraints' changes to v_half (v now, v_before them) carried into
// v_tilde; pinned vertices take v_half (their handle's velocity).
@compute @workgroup_size(WORKGROUP)
fn carry(@builtin(global_invocation_id) id: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let i = linear_index(id, groups);
    if (i >= params.counts.x) {
        return;
    }
    if (is_free[i] != 0u) {
        v_tilde[i] = vec4<f32>(v_tilde[i].xyz + (v[i].xyz - v_before[i].xyz), 0.0);
    } else {
        v_tilde[i] = v[i];
    }
}

// The mixed scheme's second solve keeps the pinned vertices' velocity: dv = 0.
@compute @workgroup_size(WORKGROUP)
fn hold_pinned(@builtin(global_invocation_id) id: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let i = linear_index(id, groups);
    if (i >= params.counts.x || is_free[i] != 0u) {
        return;
    }
    dv[i] = vec4<f32>(0.0);
}
