//! Per-vertex steps around the solve (GPU twin: shaders/integrate.wgsl): the
//! prescribed dv of pinned vertices, the right-hand side h f - S v, the
//! handles' reactions, and the backward-Euler update v += dv, x += h v
//! (split in two so that the collision response sits between).

use glam::DVec3;

/// Pinned vertices: the dv that lands them exactly on their targets; marks
/// them in `free`.
pub fn constrain(
    pinned: &[u32],
    targets: &[DVec3],
    h: f64,
    x: &[DVec3],
    v: &[DVec3],
    dv: &mut [DVec3],
    free: &mut [bool],
) {
    free.fill(true);
    for (&p, &target) in pinned.iter().zip(targets) {
        let p = p as usize;
        free[p] = false;
        dv[p] = (target - x[p]) / h - v[p];
    }
}

/// rhs = h f - S v, with `sv` = S v.
pub fn right_hand_side(force: &[DVec3], sv: &[DVec3], h: f64, rhs: &mut [DVec3]) {
    for ((r, f), q) in rhs.iter_mut().zip(force).zip(sv) {
        *r = *f * h - *q;
    }
}

/// The force the cloth exerts on whatever holds each pinned vertex:
/// (rhs - A dv)/h, with `adv` = A dv.
pub fn reactions(pinned: &[u32], rhs: &[DVec3], adv: &[DVec3], h: f64) -> Vec<DVec3> {
    pinned
        .iter()
        .map(|&p| (rhs[p as usize] - adv[p as usize]) / h)
        .collect()
}

/// v += dv (the collision response then corrects v before it moves x).
pub fn advance_velocity(v: &mut [DVec3], dv: &[DVec3]) {
    for (vi, d) in v.iter_mut().zip(dv) {
        *vi += *d;
    }
}

/// x += h v.
pub fn advance_position(x: &mut [DVec3], v: &[DVec3], h: f64) {
    for (xi, vi) in x.iter_mut().zip(v) {
        *xi += *vi * h;
    }
}
