//! One point against one obstacle (Bridson, Marino & Fedkiw 2003 §5.2,
//! interface forecasting with friction), in the contact's normal frame. The
//! loops over vertices and obstacles are cpu/collide.rs and
//! shaders/collide.wgsl (`respond`).
//!
//! A point at distance `phi` from the obstacle, moving at `vn` along the
//! outward normal relative to it, is forecast to reach `phi + h vn`; if that
//! is below the thickness `t`, it must move at `target = (t - phi)/h` to
//! land on the contour. From outside (`target <= 0`) that becomes its normal
//! velocity, as in the paper. From inside the band it would be a launch
//! speed that stays in the cloth after the step and, under sustained
//! contact, pumps energy in every step: there the approach is only stopped
//! (`max(vn, 0)`) and the rest is a position correction. The tangential
//! velocity keeps `max(0, 1 - mu dv_n / |v_t|)` of itself: Coulomb friction
//! with the normal velocity change `dv_n`, plus a resting contact's from the
//! solve, as impulse (static when that reaches `|v_t|`).

/// The response of a point with relative normal velocity `vn`, landing
/// velocity `target`, the solve's resting-contact `impulse`, tangential
/// `speed` and friction coefficient `friction`: `None` when it needs none,
/// else its new normal velocity and the factor its tangential velocity
/// keeps. Where `vn < target`, the point also moves by
/// `h (target - vn_new)` along the normal.
pub fn response(vn: f64, target: f64, impulse: f64, speed: f64, friction: f64) -> Option<(f64, f64)> {
    if vn >= target && impulse == 0.0 {
        return None;
    }
    let vn_new = if vn >= target {
        vn
    } else if target > 0.0 {
        vn.max(0.0)
    } else {
        target
    };
    let keep = if speed > 0.0 {
        (1.0 - friction * (vn_new - vn + impulse) / speed).max(0.0)
    } else {
        0.0
    };
    Some((vn_new, keep))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_approach_from_outside_lands_on_the_contour_and_one_inside_only_stops() {
        // Outside (phi > t): target < 0; approaching faster than that lands.
        assert_eq!(response(-3.0, -1.0, 0.0, 0.0, 0.3), Some((-1.0, 0.0)));
        // Receding, or approaching slower than the landing speed: nothing.
        assert_eq!(response(2.0, -1.0, 0.0, 1.0, 0.3), None);
        assert_eq!(response(-0.5, -1.0, 0.0, 1.0, 0.3), None);
        // Inside the band (target > 0): the approach stops, no launch.
        assert_eq!(response(-2.0, 1.5, 0.0, 0.0, 0.3).unwrap().0, 0.0);
        assert_eq!(response(0.5, 1.5, 0.0, 0.0, 0.3).unwrap().0, 0.5);
    }

    #[test]
    fn friction_takes_mu_times_the_normal_change_off_the_tangential_speed() {
        // dv_n = 2, mu = 0.25: 0.5 of a speed of 2 goes, a quarter.
        let (_, keep) = response(-2.0, 0.0, 0.0, 2.0, 0.25).unwrap();
        assert!((keep - 0.75).abs() < 1e-15);
        // The resting contact's impulse counts, and acts alone.
        let (vn, keep) = response(0.0, -1.0, 1.0, 2.0, 0.5).unwrap();
        assert_eq!(vn, 0.0);
        assert!((keep - 0.75).abs() < 1e-15);
        // Static friction: the tangential velocity stops, never reverses.
        assert_eq!(response(-10.0, 0.0, 0.0, 1.0, 1.0).unwrap().1, 0.0);
    }
}
