//! The shape operator's hinge coupling (`bending_model: "shape-operator"`;
//! `K` from cloth/shape_operator.rs; GPU twin shaders/shape_operator.wgsl):
//! the elastic bending `k_b/2 bend^T K bend` over the hinges' elastic
//! bends `theta - theta_rest - eps_p`, which the per-hinge kernel
//! (`bending`) leaves in `HingeStates::bend`, its own elastic part being
//! zero under this model.

use super::bending::HingeStates;
use crate::cloth::shape_operator::ShapeOperator;
use rayon::prelude::*;

/// Each hinge's elastic moment `k_b (K bend)_h` into its force
/// coefficient, and its diagonal block `scale k_b K_hh` into its system
/// coefficient (`scale` the elastic terms', `HingeStates::elastic_scale`).
pub fn forces(k: &ShapeOperator, kb: f64, out: &mut HingeStates) {
    let (bend, scale) = (&out.bend, out.elastic_scale);
    out.force
        .par_iter_mut()
        .zip(out.coef.par_iter_mut())
        .with_min_len(512)
        .enumerate()
        .for_each(|(h, (force, coef))| {
            *force -= kb * (k.diag[h] * bend[h] + k.off_diagonal(h, bend));
            *coef += scale * kb * k.diag[h];
        });
}

/// The hinges' rows of a product: `coef_h gp_h + scale k_b sum_g K_hg
/// gp_g`, from each hinge's `gp = grad . p`.
pub fn product(k: &ShapeOperator, kb: f64, hinges: &HingeStates, gp: &[f64], out: &mut [f64]) {
    let scale = hinges.elastic_scale * kb;
    out.par_iter_mut()
        .with_min_len(512)
        .enumerate()
        .for_each(|(h, o)| *o = hinges.coef[h] * gp[h] + scale * k.off_diagonal(h, gp));
}
