// The multilevel preconditioner's finest level (CPU twin:
// src/cpu/assembly.rs `assemble`): the step's system matrix A = M + S
// assembled per vertex row into the mesh's pattern (multigrid/pattern.rs:
// each vertex with the vertices of its faces and hinges), with the
// constraint filter folded in as Tamstorf, Jones & McCormick 2015 do,
// S_v A_vw S_w + (I - S_v) m_v on the diagonal, and the inverse of each
// assembled diagonal block for the level's smoother. One invocation per row
// sums its faces' and hinges' blocks in the incidence lists' order (no
// atomics: deterministic). The diagonal block is the one `gather` (and the
// springs' `precondition`, repulsion.wgsl) left for block Jacobi, so the
// air, sticking and the self-collision springs' diagonal blocks are in it;
// the springs' off-diagonal blocks are not (the CPU's finest level has
// them).

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> mass: array<f32>;
@group(0) @binding(2) var<storage, read> face_offsets: array<u32>;
@group(0) @binding(3) var<storage, read> face_entries: array<vec4<f32>>;  // face, corner (as bits), beta.xy
@group(0) @binding(4) var<storage, read> hinge_offsets: array<u32>;
@group(0) @binding(5) var<storage, read> hinge_entries: array<vec2<u32>>; // hinge, position in the hinge
@group(0) @binding(6) var<storage, read> face_lin: array<FaceLin>;
@group(0) @binding(7) var<storage, read> face_rest: array<FaceRest>;
@group(0) @binding(8) var<storage, read> hinge_lin_a: array<HingeHalf>;
@group(0) @binding(9) var<storage, read> hinge_lin_b: array<HingeHalf>;
@group(0) @binding(10) var<storage, read> inv_diag: array<mat3x3<f32>>;
@group(0) @binding(11) var<storage, read> is_free: array<u32>;
@group(0) @binding(12) var<storage, read> rest_normal: array<vec4<f32>>;  // collide.wgsl
@group(0) @binding(13) var<storage, read> ml_fine_start: array<u32>;
@group(0) @binding(14) var<storage, read> ml_fine_col: array<u32>;
@group(0) @binding(15) var<storage, read> ml_face_slot: array<vec4<u32>>;   // per face entry, each corner's slot in the row
@group(0) @binding(16) var<storage, read> ml_hinge_slot: array<vec4<u32>>;  // per hinge entry, each position's slot
@group(0) @binding(17) var<storage, read> ml_diagonal_slot: array<u32>;
@group(0) @binding(18) var<storage, read_write> ml_fine_val: array<mat3x3<f32>>;
@group(0) @binding(19) var<storage, read_write> ml_fine_inv_diag: array<mat3x3<f32>>;

// Corner `k`'s beta (the rest shape's inverse map) of a face.
fn corner_beta(r: FaceRest, k: u32) -> vec2<f32> {
    switch k {
        case 0u: { return r.beta01.xy; }
        case 1u: { return r.beta01.zw; }
        default: { return r.beta2.xy; }
    }
}

// The (a, b) block of a face's system block (model/membrane.rs `block`):
// the geometric stiffness, and J_a^T C J_b with C's sparsity.
fn face_block(l: FaceLin, ba: vec2<f32>, bb: vec2<f32>, area: f32) -> mat3x3<f32> {
    let ra0 = l.fu.xyz * ba.x;
    let ra1 = l.fv.xyz * ba.y;
    let ra2 = (l.fu.xyz * ba.y + l.fv.xyz * ba.x) * 0.5;
    let rb0 = l.fu.xyz * bb.x;
    let rb1 = l.fv.xyz * bb.y;
    let rb2 = (l.fu.xyz * bb.y + l.fv.xyz * bb.x) * 0.5;
    let geometric = ba.x * bb.x * l.s.x + ba.y * bb.y * l.s.y + (ba.x * bb.y + ba.y * bb.x) * l.s.z;
    var m = mat3x3<f32>(vec3<f32>(geometric, 0.0, 0.0), vec3<f32>(0.0, geometric, 0.0), vec3<f32>(0.0, 0.0, geometric));
    m += outer(ra0, rb0) * l.c.x + (outer(ra0, rb1) + outer(ra1, rb0)) * l.c.y;
    m += outer(ra1, rb1) * l.c.z + outer(ra2, rb2) * l.c.w;
    return m * area;
}

// The filter S_v as a matrix (`Filter::matrix`): zero on a pinned vertex,
// I - n n^T on a resting one, I elsewhere.
fn filter_matrix(v: u32) -> mat3x3<f32> {
    if (is_free[v] == 0u) {
        return mat3x3<f32>();
    }
    let n = rest_normal[v].xyz;
    return mat3x3<f32>(vec3<f32>(1.0, 0.0, 0.0), vec3<f32>(0.0, 1.0, 0.0), vec3<f32>(0.0, 0.0, 1.0)) - outer(n, n);
}

@compute @workgroup_size(WORKGROUP)
fn assemble(@builtin(global_invocation_id) id: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let v = linear_index(id, groups);
    if (v >= params.counts.x) {
        return;
    }
    let lo = ml_fine_start[v];
    let hi = ml_fine_start[v + 1u];
    for (var k = lo; k < hi; k++) {
        ml_fine_val[k] = mat3x3<f32>();
    }
    let diagonal = lo + ml_diagonal_slot[v];
    ml_fine_val[diagonal] = inverse3(inv_diag[v]);
    for (var k = face_offsets[v]; k < face_offsets[v + 1u]; k++) {
        let entry = face_entries[k];
        let face = bitcast<u32>(entry.x);
        let c = bitcast<u32>(entry.y);
        let slots = ml_face_slot[k];
        let r = face_rest[face];
        let l = face_lin[face];
        for (var b = 0u; b < 3u; b++) {
            if (b != c) {
                let s = lo + slots[b];
                ml_fine_val[s] += face_block(l, entry.zw, corner_beta(r, b), r.beta2.z);
            }
        }
    }
    for (var k = hinge_offsets[v]; k < hinge_offsets[v + 1u]; k++) {
        let entry = hinge_entries[k];
        let slots = ml_hinge_slot[k];
        let g = hinge_grad(entry.x, entry.y);
        let coef = hinge_lin_a[entry.x].b.w;
        for (var b = 0u; b < 4u; b++) {
            if (b != entry.y) {
                let s = lo + slots[b];
                ml_fine_val[s] += outer(g, hinge_grad(entry.x, b)) * coef;
            }
        }
    }
    let sv = filter_matrix(v);
    for (var k = lo; k < hi; k++) {
        ml_fine_val[k] = sv * ml_fine_val[k] * filter_matrix(ml_fine_col[k]);
    }
    let identity = mat3x3<f32>(vec3<f32>(1.0, 0.0, 0.0), vec3<f32>(0.0, 1.0, 0.0), vec3<f32>(0.0, 0.0, 1.0));
    ml_fine_val[diagonal] += (identity - sv) * mass[v];
    ml_fine_inv_diag[v] = inverse3(ml_fine_val[diagonal]);
}
