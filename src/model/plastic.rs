//! Plasticity of one scalar strain channel: the strain splits into an elastic
//! and a plastic part, `eps = eps_e + eps_p`, and `eps_p` shifts the channel's
//! rest value (it has no derivative in the Jacobian).
//!
//! - **Hardening** (the paper's §3.3, Eq. 10-14, Alg. 2; docs/physics.md): the
//!   hardening modulus `K_h = K_h0 (1 - g (1 - exp(-t_p / tau)))` (or with a
//!   spread of time constants, model/decay.rs) decays while
//!   the deformation is held, which lowers the yield strain
//!   `eps_Y = eps_Y0 + eps_hp K_h / k` and lets more strain flow into `eps_p`:
//!   plastic wrinkles sharpen with time. With `g = 0` it is the
//!   time-independent hardening baseline ([NPO13, GSH04]).
//! - **Perfect** (Eq. 9): all elastic strain beyond the yield strain becomes
//!   plastic at once; no hardening, no time dependence.

use super::decay::decay;

/// Parameters of the hardening model.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize)]
pub struct Hardening {
    /// Initial hardening modulus `K_h0` (same units as the channel stiffness).
    pub k_h0: f64,
    /// How far the modulus decays with time, in [0, 1); 0 = time-independent.
    pub g: f64,
    /// Time constant of the decay, s.
    pub tau: f64,
    /// Decades of log time the decay spreads over (model/decay.rs); 0: the
    /// paper's single time constant.
    pub spread: f64,
    /// Initial yield strain `eps_Y0`.
    pub yield_strain: f64,
}

/// State of one plastic channel.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct PlasticState {
    pub eps_p: f64,
    /// Accumulated (hardening) plastic strain.
    pub eps_hp: f64,
    /// Current yield strain.
    pub eps_y: f64,
    /// Plastic clock (material seconds).
    pub t_p: f64,
    /// Sign of the last plastic flow, 0 before the first.
    pub dir: f64,
}

impl PlasticState {
    pub fn new(yield_strain: f64) -> PlasticState {
        PlasticState {
            eps_p: 0.0,
            eps_hp: 0.0,
            eps_y: yield_strain,
            t_p: 0.0,
            dir: 0.0,
        }
    }

    /// Whether the channel has ever yielded.
    pub fn yielded(&self) -> bool {
        self.dir != 0.0
    }
}

impl Hardening {
    /// The hardening modulus after holding for `t_p` (Eq. 10).
    pub fn modulus(&self, t_p: f64) -> f64 {
        self.k_h0 * (1.0 - self.g * (1.0 - decay(t_p, self.tau, self.spread)))
    }

    /// Alg. 2, once per step at the step's start strain. `k` is the channel's
    /// elastic stiffness, `h` the step's material time.
    pub fn update(&self, s: &mut PlasticState, strain: f64, k: f64, h: f64) {
        let eps_e = strain - s.eps_p;
        let sign = eps_e.signum();
        let yielding = eps_e.abs() > s.eps_y;
        s.t_p += h;
        if yielding && s.dir != sign {
            s.t_p = 0.0;
        }
        let k_h = self.modulus(s.t_p);
        if yielding {
            let delta = (eps_e.abs() - s.eps_y) * k / (k + k_h);
            s.eps_hp += delta;
            s.eps_p += sign * delta;
            s.dir = sign;
        }
        s.eps_y = self.yield_strain + s.eps_hp * k_h / k;
    }
}

/// Eq. 9: perfect plasticity with yield strain `yield_strain`.
pub fn perfect_update(s: &mut PlasticState, strain: f64, yield_strain: f64) {
    let eps_e = strain - s.eps_p;
    if eps_e.abs() > yield_strain {
        s.eps_p = strain - eps_e.signum() * yield_strain;
        s.dir = eps_e.signum();
        s.eps_hp = s.eps_p.abs();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const M: Hardening = Hardening {
        k_h0: 5e-6,
        g: 0.99,
        tau: 30.0,
        spread: 0.0,
        yield_strain: 1.0,
    };
    const K: f64 = 5e-6;

    #[test]
    fn ramp_beyond_yield_flows_by_the_hardening_ratio() {
        let mut s = PlasticState::new(1.0);
        M.update(&mut s, 0.9, K, 0.01);
        assert_eq!(s.eps_p, 0.0);
        assert!(!s.yielded());
        // First yield: t_p resets, K_h = K_h0, delta = 0.2 k/(k + K_h0) = 0.1.
        M.update(&mut s, 1.2, K, 0.01);
        assert!((s.t_p).abs() < 1e-15 && s.dir == 1.0);
        assert!((s.eps_p - 0.1).abs() < 1e-15 && (s.eps_hp - 0.1).abs() < 1e-15);
        assert!((s.eps_y - (1.0 + 0.1 * 5e-6 / K)).abs() < 1e-15);
    }

    #[test]
    fn plastic_strain_grows_during_a_hold_and_the_modulus_decays_at_rate_tau() {
        let mut s = PlasticState::new(1.0);
        let strain = 1.5;
        M.update(&mut s, strain, K, 0.01);
        let first = s.eps_p;
        let mut last = first;
        // Hold 500 s of material time in 50 steps (Appendix G).
        for k in 1..=50 {
            M.update(&mut s, strain, K, 10.0);
            assert!(s.eps_p >= last, "eps_p fell during the hold at step {k}");
            last = s.eps_p;
            let t = 10.0 * k as f64;
            assert!((s.t_p - t).abs() < 1e-9);
            let kh = 5e-6 * (1.0 - 0.99 * (1.0 - (-t / 30.0f64).exp()));
            assert!((M.modulus(s.t_p) - kh).abs() < 1e-18);
            assert!((s.eps_y - (1.0 + s.eps_hp * kh / K)).abs() < 1e-12);
        }
        assert!(last > 1.5 * first, "held: {first} -> {last}");
        // The same hold with g = 0 (time-independent) does not grow.
        let ti = Hardening { g: 0.0, ..M };
        let mut t = PlasticState::new(1.0);
        ti.update(&mut t, strain, K, 0.01);
        let once = t.eps_p;
        for _ in 0..50 {
            ti.update(&mut t, strain, K, 10.0);
        }
        assert!((t.eps_p - once).abs() < 1e-12, "{once} -> {}", t.eps_p);
    }

    #[test]
    fn reversal_resets_the_clock_and_flows_back() {
        let mut s = PlasticState::new(1.0);
        M.update(&mut s, 1.5, K, 1.0);
        M.update(&mut s, 1.5, K, 20.0);
        assert!(s.t_p > 0.0);
        let before = s.eps_p;
        M.update(&mut s, -1.5, K, 1.0);
        assert_eq!(s.dir, -1.0);
        assert_eq!(s.t_p, 0.0);
        assert!(s.eps_p < before);
    }

    #[test]
    fn perfect_plasticity_takes_all_excess_strain() {
        let mut s = PlasticState::new(1.0);
        perfect_update(&mut s, 1.7, 1.0);
        assert!((s.eps_p - 0.7).abs() < 1e-15);
        perfect_update(&mut s, 1.2, 1.0);
        assert!((s.eps_p - 0.7).abs() < 1e-15);
        perfect_update(&mut s, -0.5, 1.0);
        assert!((s.eps_p - 0.5).abs() < 1e-15);
    }
}
