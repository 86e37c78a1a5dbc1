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

/// Element `element`'s factor on a dwell's time constant when the
/// dwell's times scatter over `decades` decades across the cloth
/// (`scatter`): `10^(x - decades/2)`, `x` in [0, decades) the position of
/// the element's quantile `q` (`quantile`) in the scatter's spectrum.
/// Neighbouring hinges and faces thus settle at different rates, as a
/// fabric's yarn contacts do: a fold's elements lock one after another
/// over the decades (in parallel, as the elements of an Iwan model), not
/// all at once. 1 exactly with no scatter.
///
/// The spectrum is a power law: the elements per decade grow as `tau^skew`
/// across the scatter (`skew` 0: evenly in log time, `x = decades q`), so
/// `x` is the inverse of its distribution,
/// `x = log10(1 + q (10^(skew decades) - 1)) / skew`. A fold's recovery
/// goes about as `1 / (1 + kappa f)` in the fraction `f` of its friction
/// stiffness stuck at the release (`kappa` about `k_f / k_b`), so with an
/// even spectrum it falls fastest over the first holds; a spectrum
/// weighted to the long times (`skew` about 0.3 for cotton's `kappa`)
/// makes it fall along a line in log hold time, as measured fabric does
/// (docs/physics.md, "Scattered dwell times").
pub fn scatter(element: u32, decades: f64, skew: f64) -> f64 {
    if decades == 0.0 {
        return 1.0;
    }
    let q = quantile(element);
    if skew == 0.0 {
        return 10f64.powf(decades * (q - 0.5));
    }
    let x = (1.0 + q * (10f64.powf(skew * decades) - 1.0)).log10() / skew;
    10f64.powf(x - 0.5 * decades)
}

/// A fixed quantile in [0, 1) of `element`: the fractional part of
/// `element / phi` (Fibonacci hashing: the product by 2^32 / phi wraps in
/// 32 bits, and its top 24 bits are exact in f32, the same on both
/// backends). Any run of elements, and any evenly strided one (the hinges
/// along a fold line), fills [0, 1) about evenly, so a few dozen elements
/// already spread over the whole scatter.
pub fn quantile(element: u32) -> f64 {
    (element.wrapping_mul(0x9e37_79b9) >> 8) as f64 / (1u32 << 24) as f64
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

    /// No scatter is a factor of exactly 1; 40 elements in a row, or
    /// strided as a fold line's hinges are (every 3rd, 7th, 29th, 120th
    /// index), fill the scatter's decades evenly in log: each fifth of the
    /// range holds 8 of the 40, give or take 2.
    #[test]
    fn a_scatter_fills_its_decades_evenly_and_none_is_one() {
        assert!((0..100).all(|e| scatter(e, 0.0, 0.0) == 1.0 && scatter(e, 0.0, 0.3) == 1.0));
        for (start, stride) in [(0u32, 1u32), (5, 3), (11, 7), (2, 29), (100, 120)] {
            let logs: Vec<f64> = (0..40).map(|k| scatter(start + k * stride, 3.0, 0.0).log10()).collect();
            assert!(logs.iter().all(|l| (-1.5..1.5).contains(l)));
            for bin in 0..5 {
                let lo = -1.5 + 0.6 * bin as f64;
                let count = logs.iter().filter(|l| (lo..lo + 0.6).contains(*l)).count();
                assert!((6..=10).contains(&count), "stride {stride}, bin {bin}: {count}");
            }
        }
    }

    /// A skewed scatter is the power-law spectrum it says: over 1000
    /// elements, the fraction whose factor lies below `10^(x - D/2)` is
    /// `(10^(skew x) - 1) / (10^(skew D) - 1)` within 0.02, every factor
    /// stays within the scatter's decades, and each element keeps its
    /// place in the order (a skew moves the elements, never reorders them).
    /// A positive skew weights the long times (0.27 over 3 decades puts 16%
    /// of the elements in the first decade and 55% in the last), a
    /// negative one the short times; 0 is the even scatter to the bit.
    #[test]
    fn a_skewed_scatter_follows_its_power_law() {
        let decades = 3.0;
        for e in 0..1000 {
            let even = 10f64.powf(decades * (quantile(e) - 0.5));
            assert_eq!(scatter(e, decades, 0.0).to_bits(), even.to_bits());
        }
        for skew in [0.27, -0.5, 1.0] {
            let logs: Vec<f64> = (0..1000)
                .map(|e| scatter(e, decades, skew).log10() + decades / 2.0)
                .collect();
            assert!(logs.iter().all(|x| (0.0..=decades).contains(x)), "skew {skew}");
            for x in [0.5, 1.0, 1.5, 2.0, 2.5] {
                let below = logs.iter().filter(|&&l| l < x).count() as f64 / 1000.0;
                let law = (10f64.powf(skew * x) - 1.0) / (10f64.powf(skew * decades) - 1.0);
                assert!((below - law).abs() < 0.02, "skew {skew}, x {x}: {below} against {law}");
            }
            let even: Vec<f64> = (0..1000).map(quantile).collect();
            for (a, b) in (0..999).map(|i| (i, i + 1)) {
                assert_eq!(even[a] < even[b], logs[a] < logs[b], "skew {skew}: elements {a}, {b}");
            }
        }
        let first_decade = |skew: f64| (0..1000).filter(|&e| scatter(e, decades, skew).log10() < -0.5).count();
        let last_decade = |skew: f64| (0..1000).filter(|&e| scatter(e, decades, skew).log10() >= 0.5).count();
        println!(
            "first and last decade of 1000: even {} {}, skew 0.27 {} {}",
            first_decade(0.0),
            last_decade(0.0),
            first_decade(0.27),
            last_decade(0.27)
        );
        assert!(first_decade(0.27) < 200 && last_decade(0.27) > 480);
    }
}
