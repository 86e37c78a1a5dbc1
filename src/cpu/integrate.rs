//! Per-vertex steps around the solve (GPU twin: shaders/integrate.wgsl): the
//! prescribed dv of pinned vertices, the right-hand side h f - S v, the
//! handles' reactions, and the backward-Euler update v += dv, x += h v
//! (split in two so that the collision response sits between); the mixed
//! scheme's explicit half step and the carrying of the constraints' changes
//! into it (step/sequence.rs).

use glam::DVec3;

/// Pinned vertices: the dv that lands them exactly on their `targets` after
/// a step `h`, or (without targets) a zero dv that keeps their velocity;
/// marks them in `free`.
pub fn constrain(
    pinned: &[u32],
    targets: Option<&[DVec3]>,
    h: f64,
    x: &[DVec3],
    v: &[DVec3],
    dv: &mut [DVec3],
    free: &mut [bool],
) {
    free.fill(true);
    for (k, &p) in pinned.iter().enumerate() {
        let p = p as usize;
        free[p] = false;
        dv[p] = match targets {
            Some(t) => (t[k] - x[p]) / h - v[p],
            None => DVec3::ZERO,
        };
    }
}

/// The mixed scheme's explicit half step `v_tilde = v + M^-1 rhs`, where
/// `rhs = h/2 f - S v` is the first solve's right-hand side.
pub fn explicit_half(v: &[DVec3], rhs: &[DVec3], mass: &[f64], v_tilde: &mut [DVec3]) {
    for (((t, v), r), m) in v_tilde.iter_mut().zip(v).zip(rhs).zip(mass) {
        *t = *v + *r / *m;
    }
}

/// Carries the constraints' changes to `v_half` (`v` now, `before` them)
/// into `v_tilde`; pinned vertices take `v_half` (their handle's velocity).
pub fn carry(v: &[DVec3], before: &[DVec3], free: &[bool], v_tilde: &mut [DVec3]) {
    for (((t, v), b), f) in v_tilde.iter_mut().zip(v).zip(before).zip(free) {
        *t = if *f { *t + (*v - *b) } else { *v };
    }
}

/// rhs = h f - S v, with `sv` = S v.
pub fn right_hand_side(force: &[DVec3], sv: &[DVec3], h: f64, rhs: &mut [DVec3]) {
    for ((r, f), q) in rhs.iter_mut().zip(force).zip(sv) {
        *r = *f * h - *q;
    }
}

/// The force the cloth exerts on whatever holds each pinned vertex:
/// (rhs - A dv)/h, with `adv` = A dv and `h` the right-hand side's force
/// factor.
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
