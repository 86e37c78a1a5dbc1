// The shape operator's hinge coupling (`bending_model: "shape-operator"`;
// CPU twin src/cpu/shape_operator.rs; K from src/cloth/shape_operator.rs). The elastic
// bending is k_b/2 bend^T K bend over the hinges' elastic bends
// bend = theta - theta_rest - eps_p, which `bending.wgsl` leaves in
// hinge_bend (its own elastic part is zero under this model).

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> so_start: array<u32>;   // row h: so_other[so_start[h]..so_start[h + 1]]
@group(0) @binding(2) var<storage, read> so_other: array<u32>;
@group(0) @binding(3) var<storage, read> so_weight: array<f32>;  // K_hg, without k_b
@group(0) @binding(4) var<storage, read> so_diag: array<f32>;    // K_hh
@group(0) @binding(5) var<storage, read> hinge_bend: array<f32>;
@group(0) @binding(6) var<storage, read_write> hinge_lin_a: array<HingeHalf>;
@group(0) @binding(7) var<storage, read> hinge_gp: array<f32>;   // grad . p of each hinge (hessian.wgsl)
@group(0) @binding(8) var<storage, read_write> hinge_s: array<f32>;

// `ShapeOperator::off_diagonal`: sum_g K_hg bend_g over hinge h's other
// entries, and the same of grad_g . p (two functions: a WGSL function may
// not take a pointer into a storage buffer).
fn off_diagonal_bend(h: u32) -> f32 {
    var sum = 0.0;
    for (var k = so_start[h]; k < so_start[h + 1u]; k++) {
        sum += so_weight[k] * hinge_bend[so_other[k]];
    }
    return sum;
}

fn off_diagonal_gp(h: u32) -> f32 {
    var sum = 0.0;
    for (var k = so_start[h]; k < so_start[h + 1u]; k++) {
        sum += so_weight[k] * hinge_gp[so_other[k]];
    }
    return sum;
}

// Each hinge's elastic moment k_b (K bend)_h into its force coefficient,
// and its diagonal block k_b K_hh into its system coefficient.
@compute @workgroup_size(WORKGROUP)
fn forces(@builtin(global_invocation_id) id: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let i = linear_index(id, groups);
    if (i >= params.counts.z) {
        return;
    }
    let kb = params.step.z;
    var lin = hinge_lin_a[i];
    lin.a.w -= kb * (so_diag[i] * hinge_bend[i] + off_diagonal_bend(i));
    lin.b.w += params.scales.x * kb * so_diag[i];
    hinge_lin_a[i] = lin;
}

// The hinges' coupled blocks in a product: hinge_s (coef grad . p) plus
// scale k_b sum_g K_hg grad_g . p.
@compute @workgroup_size(WORKGROUP)
fn product(@builtin(global_invocation_id) id: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let i = linear_index(id, groups);
    if (i >= params.counts.z) {
        return;
    }
    hinge_s[i] += params.scales.x * params.step.z * off_diagonal_gp(i);
}
