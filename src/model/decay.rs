//! How a dwell or a hardening relaxes with time: the paper's single
//! exponential (Eq. 8's threshold, Eq. 10's modulus), or, with a spread,
//! the mean of `TERMS` exponentials whose time constants are spaced evenly
//! in log time over `decades` decades around the channel's `tau` (its
//! geometric mean): the yarn contacts of a real fabric settle at many
//! rates, so a fold's hold shows as a slope in log time, not a step.

/// The exponentials of a spread.
pub const TERMS: usize = 5;

/// The fraction of the relaxation left after time `t`: `exp(-t / tau)`
/// with no spread (`decades` 0, exactly the paper's law), else the mean of
/// `exp(-t / tau_k)`, `tau_k = tau 10^(decades (k / (TERMS - 1) - 1/2))`.
pub fn decay(t: f64, tau: f64, decades: f64) -> f64 {
    if decades == 0.0 {
        return (-t / tau).exp();
    }
    let term = |k: usize| {
        let exponent = decades * (k as f64 / (TERMS - 1) as f64 - 0.5);
        (-t / (tau * 10f64.powf(exponent))).exp()
    };
    (0..TERMS).map(term).sum::<f64>() / TERMS as f64
}

#[cfg(test)]
mod tests {
    use super::*;

    /// No spread is the paper's exponential to the bit; a spread starts at
    /// 1, ends at 0, falls monotonically, and over its decades falls by
    /// nearly equal steps per decade (what makes recovery a slope in log
    /// time), where the single exponential falls within one decade.
    #[test]
    fn a_spread_falls_evenly_in_log_time_and_none_is_the_papers_law() {
        for t in [0.0, 0.3, 1.0, 30.0, 1e3, 1e6] {
            assert_eq!(decay(t, 30.0, 0.0).to_bits(), (-t / 30.0f64).exp().to_bits());
        }
        assert_eq!(decay(0.0, 30.0, 3.0), 1.0);
        assert!(decay(1e7, 30.0, 3.0) < 1e-9);
        let times: Vec<f64> = (0..=12).map(|k| 10f64.powf(k as f64 * 0.5 - 1.0)).collect();
        let spread: Vec<f64> = times.iter().map(|&t| decay(t, 30.0, 3.0)).collect();
        assert!(spread.windows(2).all(|w| w[1] < w[0]), "{spread:?}");
        // Per decade from 1 s to 1000 s: the spread's drops stay within a
        // factor 2 of each other; the single exponential's do not.
        let drops =
            |f: &dyn Fn(f64) -> f64| -> Vec<f64> { [1.0, 10.0, 100.0].iter().map(|&t| f(t) - f(10.0 * t)).collect() };
        let even = drops(&|t| decay(t, 30.0, 3.0));
        let single = drops(&|t| decay(t, 30.0, 0.0));
        let ratio = |d: &[f64]| d.iter().cloned().fold(0.0, f64::max) / d.iter().cloned().fold(f64::INFINITY, f64::min);
        println!("drops per decade: spread {even:.3?}, single {single:.3?}");
        assert!(ratio(&even) < 2.0 && ratio(&single) > 10.0, "{even:?} {single:?}");
    }
}
