// Reading a hinge's bending mode from its two half buffers. Prepended only
// to the kernels that declare `hinge_lin_a` and `hinge_lin_b` (gather,
// hessian); WGSL resolves module-scope names wherever they are declared.

// dtheta/dx of position `k` (0..3) of hinge `h`.
fn hinge_grad(h: u32, k: u32) -> vec3<f32> {
    switch k {
        case 0u: { return hinge_lin_a[h].a.xyz; }
        case 1u: { return hinge_lin_a[h].b.xyz; }
        case 2u: { return hinge_lin_b[h].a.xyz; }
        default: { return hinge_lin_b[h].b.xyz; }
    }
}
