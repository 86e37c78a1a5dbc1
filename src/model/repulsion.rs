//! One self-collision pair (Bridson, Fedkiw & Anderson 2002 §7), with the
//! pair's separation `d = n . sum c_j x_j` over frozen weights `c` and
//! normal `n` (collide/proximity.rs). The loops over pairs and vertices are
//! cpu/repulsion.rs and shaders/repulsion.wgsl.
//!
//! - In the solve, a pair closer than the thickness `t` is a spring of
//!   energy `k/2 (t - d)^2`: force `k (t - d) c_j n` on vertex j, Hessian
//!   `k c_j c_l n n^T` (positive semi-definite).
//! - After the solve, a pair forecast to end closer than
//!   `CORRECTION_TARGET t` gets the inelastic impulse along `n` that brings
//!   it there, with Coulomb friction on its relative tangential velocity
//!   (§7.1-7.2).

use glam::DVec3;

/// Separation the correction restores, in thicknesses (half the thickness
/// and a margin: the true closest distance after the step can be a little
/// below the frozen pair's).
pub const CORRECTION_TARGET: f64 = 0.55;

/// Least total weight `sum |c_j|` of a pair's movable vertices for the
/// correction to act on it: moving its closest point through a vertex of
/// small weight `c` takes `1/c` times the pair's velocity change (a lever),
/// which would launch that vertex.
pub const MIN_MOBILE_SHARE: f64 = 0.5;

/// The spring's force magnitude `k (t - d)` along `n` per unit weight.
pub fn spring_force(stiffness: f64, thickness: f64, d: f64) -> f64 {
    stiffness * (thickness - d)
}

/// The correction of a pair whose relative velocity has normal part `vn`
/// along `n` and tangential part `tangent`, to reach the normal speed
/// `wanted`: the relative velocity change `dvn n - slow v_T` (Coulomb
/// friction `mu` on the tangential part, static once it stops it) per unit
/// of `w = sum c_j^2 w_j`; `None` when the pair separates fast enough.
pub fn correction(n: DVec3, vn: f64, wanted: f64, tangent: DVec3, friction: f64, w: f64) -> Option<DVec3> {
    if vn >= wanted {
        return None;
    }
    let dvn = wanted - vn;
    let speed = tangent.length();
    let slow = if speed > 0.0 {
        (friction * dvn / speed).min(1.0)
    } else {
        0.0
    };
    Some((n * dvn - tangent * slow) / w)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_correction_brings_the_normal_speed_to_the_wanted_one_with_coulomb_friction() {
        let n = DVec3::Y;
        assert_eq!(correction(n, 0.5, 0.2, DVec3::X, 0.3, 1.0), None);
        // dvn = 1, mu = 0.25: a quarter of a unit tangential speed goes.
        let j = correction(n, -0.5, 0.5, DVec3::X, 0.25, 2.0).unwrap();
        assert_eq!(j, DVec3::new(-0.25, 1.0, 0.0) / 2.0);
        // Static: the tangential speed stops, it never reverses.
        let j = correction(n, -1.0, 1.0, DVec3::X * 0.1, 1.0, 1.0).unwrap();
        assert_eq!(j.x, -0.1);
        assert_eq!(spring_force(100.0, 0.002, 0.0015), 100.0 * 0.0005);
    }
}
