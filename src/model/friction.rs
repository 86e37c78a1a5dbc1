//! Internal friction of one scalar strain channel (a hinge's bending strain,
//! or one of a face's e_uu, e_vv, e_uv).
//!
//! - **Dwell** (the paper's §3.2, Eq. 7-8, Alg. 1): a spring of stiffness `k_f`
//!   to a shifting anchor. The anchor follows the strain once their gap exceeds
//!   a threshold that grows with the time spent sticking, from `eps_0` towards
//!   `eps_inf` at rate `1/tau`: a fold held longer is harder to undo.
//! - **Dahl** (Miguel et al. 2013, Eq. 2, 3, 9): a friction stress with
//!   `dsigma/deps = (sigma_max(eps) - s sigma) / tau`, `sigma_max = a + b eps`,
//!   advanced analytically between steps (Eq. 3) and linearised in the strain
//!   rate within a step (Eq. 9), so it enters the implicit system as damping.
//!   It has no time dependence: the baseline the paper compares against.

use super::decay::{decay, scatter};

/// Parameters of the dwell friction model.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize)]
pub struct Dwell {
    /// Friction stiffness `k_f` (bending: N m, like `k_b`; in-plane: N/m).
    pub stiffness: f64,
    /// Stick-slip threshold right after a slip.
    pub eps_0: f64,
    /// Threshold after an infinitely long stick.
    pub eps_inf: f64,
    /// Dwell time constant, s.
    pub tau: f64,
    /// Decades the dwell's time constant scatters over across the cloth,
    /// element by element (model/decay.rs `scatter`); 0: every element
    /// has `tau`.
    pub scatter: f64,
    /// How the scatter's spectrum leans (model/decay.rs `scatter`): the
    /// elements per decade grow as `tau^scatter_skew`; 0: evenly in log time.
    pub scatter_skew: f64,
    /// Decades of log time the dwell spreads over (model/decay.rs); 0:
    /// the paper's single time constant.
    pub spread: f64,
}

/// Parameters of Dahl's model: `sigma_max = a + b |eps|`, time constant `tau`
/// in strain units.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize)]
pub struct Dahl {
    pub a: f64,
    pub b: f64,
    pub tau: f64,
}

/// State of one friction channel.
#[derive(Clone, Copy, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct FrictionState {
    /// Dwell: the anchor strain. Dahl: the strain at the last update.
    pub anchor: f64,
    /// Dwell: time spent sticking (material seconds).
    pub t_stick: f64,
    /// Dahl: the friction stress at the last update.
    pub sigma: f64,
    /// Whether the last update slipped (Dahl: is saturated, |sigma| >= 0.95 sigma_max).
    pub slip: bool,
}

impl Dwell {
    /// The stick-slip threshold after sticking for `t_stick` (Eq. 8), of
    /// element `element` (a hinge, a face: its scatter).
    pub fn threshold(&self, t_stick: f64, element: u32) -> f64 {
        let tau = self.tau * scatter(element, self.scatter, self.scatter_skew);
        self.eps_inf - (self.eps_inf - self.eps_0) * decay(t_stick, tau, self.spread)
    }

    /// Alg. 1, once per step at the step's start strain; `h` is the step's
    /// material time. Returns the strain variation `d = strain - anchor`
    /// that the friction spring acts on.
    pub fn update(&self, s: &mut FrictionState, strain: f64, h: f64, element: u32) -> f64 {
        let mut d = strain - s.anchor;
        let thres = self.threshold(s.t_stick, element);
        if d.abs() > thres {
            s.anchor += d.signum() * (d.abs() - thres);
            d = d.signum() * thres;
            s.t_stick = 0.0;
            s.slip = true;
        } else {
            s.t_stick += h;
            s.slip = false;
        }
        d
    }
}

impl Dahl {
    fn sigma_max(&self, eps: f64) -> f64 {
        self.a + self.b * eps.abs()
    }

    /// Eq. 3: the stress at `strain`, reached monotonically from the last
    /// update's (strain, stress). Updates the state and returns the stress.
    pub fn advance(&self, s: &mut FrictionState, strain: f64) -> f64 {
        let de = strain - s.anchor;
        if de != 0.0 {
            let dir = de.signum();
            let target = dir * self.sigma_max(strain);
            let start = dir * self.sigma_max(s.anchor);
            s.sigma = target + (s.sigma - start) * (-dir * de / self.tau).exp();
            s.anchor = strain;
        }
        s.slip = s.sigma.abs() >= 0.95 * self.sigma_max(strain);
        s.sigma
    }

    /// Eq. 9: within a step of length `dt` the stress is
    /// `sigma0 + coefficient * strain_rate`; returns the (non-negative)
    /// coefficient, which acts as a damping on the channel.
    pub fn rate_coefficient(&self, sigma0: f64, strain: f64, rate: f64, dt: f64) -> f64 {
        let s0 = if rate >= 0.0 { 1.0 } else { -1.0 };
        let num = self.a + self.b * strain.abs() - s0 * sigma0 + dt * self.b * rate.abs();
        let den = self.tau + dt * s0 * rate;
        (dt * num / den).max(0.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const DWELL: Dwell = Dwell {
        stiffness: 1e-5,
        eps_0: 0.1,
        eps_inf: 1.7,
        tau: 30.0,
        spread: 0.0,
        scatter: 0.0,
        scatter_skew: 0.0,
    };

    #[test]
    fn dwell_ramp_hold_reverse_follows_algorithm_1() {
        let mut s = FrictionState::default();
        let h = 0.01;
        // Ramp to 0.5: sticks while the gap is within the threshold (which
        // creeps up while sticking), then slips every step with the anchor
        // trailing by the threshold, which a slip resets to eps_0.
        let mut strain = 0.0;
        let mut slips = 0;
        for _ in 0..50 {
            strain += 0.01;
            let thres = DWELL.threshold(s.t_stick, 0);
            let gap = strain - s.anchor;
            let (t_before, anchor_before) = (s.t_stick, s.anchor);
            let d = DWELL.update(&mut s, strain, h, 0);
            if gap > thres {
                slips += 1;
                assert!(s.slip && s.t_stick == 0.0);
                assert!((d - thres).abs() < 1e-12 && (s.anchor - (strain - thres)).abs() < 1e-12);
            } else {
                assert!(!s.slip && s.anchor == anchor_before && (s.t_stick - t_before - h).abs() < 1e-15);
                assert!((d - gap).abs() < 1e-15);
            }
        }
        // First slip once the strain passes ~0.105; every step after slips,
        // at exactly eps_0 once the clock has been reset.
        assert_eq!(slips, 40);
        assert!((strain - s.anchor - 0.1).abs() < 1e-12);
        // Hold 100 s of material time in 10 s steps: sticks, the threshold
        // climbs towards eps_inf with time constant tau.
        for k in 1..=10 {
            let d = DWELL.update(&mut s, strain, 10.0, 0);
            assert!(!s.slip && (d - 0.1).abs() < 1e-12);
            assert!((s.t_stick - 10.0 * k as f64).abs() < 1e-9);
        }
        let t = s.t_stick;
        let expected = 1.7 - 1.6 * (-t / 30.0).exp();
        assert!((DWELL.threshold(t, 0) - expected).abs() < 1e-15);
        assert!(DWELL.threshold(t, 0) > 1.64 && DWELL.threshold(t, 0) < 1.65 && DWELL.threshold(1e9, 0) == 1.7);
        // Reverse to -0.5: no slip until the gap exceeds the grown threshold.
        let anchor = s.anchor;
        let thres = DWELL.threshold(s.t_stick, 0);
        let d = DWELL.update(&mut s, anchor - thres + 1e-6, h, 0);
        assert!(!s.slip && d < 0.0);
        let thres = DWELL.threshold(s.t_stick, 0);
        let d = DWELL.update(&mut s, anchor - thres - 0.2, h, 0);
        assert!(s.slip && s.t_stick == 0.0);
        assert!((d + thres).abs() < 1e-12 && (s.anchor - (anchor - 0.2)).abs() < 1e-12);
    }

    #[test]
    fn dahl_saturates_with_time_constant_tau_and_is_rate_independent() {
        let m = Dahl {
            a: 2.0,
            b: 1.0,
            tau: 0.1,
        };
        let mut s = FrictionState::default();
        // Loading from 0 to eps: sigma = sigma_max(eps) - sigma_max(eps) e^{-eps/tau} + ... (Eq. 3).
        let eps = 0.2;
        let sigma = m.advance(&mut s, eps);
        let expected = (2.0 + eps) + (0.0 - 2.0) * (-eps / 0.1f64).exp();
        assert!((sigma - expected).abs() < 1e-12);
        // The same path in many small steps gives the same stress: the model
        // depends on the path, not on the time taken.
        let mut fine = FrictionState::default();
        let mut last = 0.0;
        for k in 1..=1000 {
            last = m.advance(&mut fine, eps * k as f64 / 1000.0);
        }
        assert!((last - sigma).abs() < 1e-3 * sigma.abs(), "{last} vs {sigma}");
        // Far along, it saturates at sigma_max; reversing drives it to -sigma_max.
        assert!((m.advance(&mut s, 2.0) - 4.0).abs() < 1e-6 && s.slip);
        assert!((m.advance(&mut s, 0.5) + 2.5).abs() < 1e-4);
        // Eq. 9's coefficient: stiffness (sigma_max - s sigma0)/tau times dt.
        let c = m.rate_coefficient(0.0, 0.0, 0.0, 0.01);
        assert!((c - 0.01 * 2.0 / 0.1).abs() < 1e-12);
        assert!(m.rate_coefficient(2.0, 0.0, 1.0, 0.01) >= 0.0);
    }
}
