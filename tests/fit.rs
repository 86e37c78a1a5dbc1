//! `crease fit`: Miguel 2013's parameter estimation recovers known
//! parameters from synthetic measurements with noise, through the files a
//! user would write.

use crease::fit::{DahlParams, Fit, bending, rms, stretch};
use std::path::PathBuf;

/// Deterministic Gaussian noise (an LCG through Box-Muller).
struct Noise(u64);

impl Noise {
    fn uniform(&mut self) -> f64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        ((self.0 >> 11) as f64 + 0.5) / (1u64 << 53) as f64
    }
    fn gauss(&mut self) -> f64 {
        let (u, v) = (self.uniform(), self.uniform());
        (-2.0 * u.ln()).sqrt() * (std::f64::consts::TAU * v).cos()
    }
}

fn write_csv(name: &str, header: &[&str], rows: impl Iterator<Item = String>) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("crease-fit-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(name);
    let mut text = header.join(",") + "\n";
    for r in rows {
        text += &r;
        text += "\n";
    }
    std::fs::write(&path, text).unwrap();
    path
}

/// Each fitted parameter within three standard errors of the truth, and
/// the errors of those named in `tight` below `tolerance` of the value.
fn check(name: &str, got: [f64; 5], errors: [Option<f64>; 5], want: [f64; 5], tight: &[usize], tolerance: f64) {
    const NAMES: [&str; 5] = ["k", "k2", "a", "b", "tau"];
    for j in 0..5 {
        let Some(e) = errors[j] else { continue };
        println!(
            "{name} {}: {:.4e} +- {:.2e} (true {:.4e})",
            NAMES[j], got[j], e, want[j]
        );
        assert!(
            (got[j] - want[j]).abs() < 3.0 * e,
            "{name} {}: {} +- {e}, true {}",
            NAMES[j],
            got[j],
            want[j]
        );
    }
    for &j in tight {
        let e = errors[j].unwrap_or(f64::INFINITY);
        assert!(
            e < tolerance * want[j].abs(),
            "{name} {}: error {e} of {}",
            NAMES[j],
            want[j]
        );
    }
}

fn stretch_case(p: DahlParams, seed: u64) -> Fit {
    let rest = 0.1;
    let loads = stretch::protocol(6, 3);
    let clean = stretch::synthesize(&p, rest, &loads);
    // 0.05 mm of length noise (a ruler read under a magnifier).
    let mut noise = Noise(seed);
    let rows = clean
        .iter()
        .map(|r| format!("{},{},{:.7}", r[0], r[1], r[2] + 5e-5 * noise.gauss()));
    let path = write_csv(&format!("stretch-{seed}.csv"), &stretch::HEADER, rows);
    let samples = stretch::read(&path, rest).unwrap();
    assert_eq!(samples.len(), loads.len() - 1);
    let fit = stretch::fit(&samples, rest).unwrap();
    println!("rms {:.3e} N", fit.rms_residual);
    // Without friction the same data fits far worse (the loops are real).
    let elastic = stretch::residuals(&fit.stages[0], rest, &samples);
    assert!(
        rms(&elastic) > 3.0 * fit.rms_residual,
        "{} vs {}",
        rms(&elastic),
        fit.rms_residual
    );
    fit
}

#[test]
fn stretch_fit_recovers_miguels_fabrics_from_noisy_lengths() {
    // Miguel 2013's cotton (warp): k1 + k2 eps = 135.6 + 64.03 eps N/m,
    // sigma_max = 2.22 + 3.16 eps N/m, tau = 0.006.
    let cotton = stretch::COTTON;
    let fit = stretch_case(cotton, 7);
    check(
        "cotton",
        fit.params.values(),
        fit.standard_errors,
        cotton.values(),
        &[0, 2, 3, 4],
        0.05,
    );
    assert!(fit.tau_upper_bound.is_none());
    // Miguel 2013's spandex: soft, with a slow friction (tau = 0.088), whose
    // loops the same protocol resolves.
    let spandex = stretch::SPANDEX;
    let fit = stretch_case(spandex, 9);
    check(
        "spandex",
        fit.params.values(),
        fit.standard_errors,
        spandex.values(),
        &[1, 3, 4],
        0.1,
    );
    assert!(fit.tau_upper_bound.is_none());
}

/// Miguel 2013's felt (warp): rho 0.208 kg/m^2, k1 + k2 eps = (145.3 + 0.15
/// eps) 1e-7 N m, sigma_max = (5.12 + 0.15 eps) 1e-4 N, tau = 29.9 1/m.
const FELT: DahlParams = bending::FELT.1;

#[test]
fn bending_fit_recovers_felt_from_noisy_spirals() {
    let density = bending::FELT.0;
    // The paper's twelve cylinders, five samples along each spiral.
    let radii = [3.0, 4.0, 5.0, 6.0, 7.0, 7.5, 10.0, 16.0, 23.0, 27.5, 31.5, 50.0].map(|r| r * 1e-3);
    let along = [(0.9, 0.09), (0.7, 0.075), (0.5, 0.06), (0.35, 0.045), (0.2, 0.03)];
    let clean = bending::synthesize(&FELT, density, &radii, &along);
    // Where friction outweighs elasticity the strip hangs against gravity:
    // the paper drops those samples.
    let opposed = clean.iter().filter(|r| r[3] < 0.0).count();
    // 1% noise on each measured curvature and lever.
    let mut noise = Noise(11);
    let rows = clean.iter().map(|r| {
        format!(
            "{},{:.6},{},{:.9}",
            r[0],
            r[1] * (1.0 + 0.01 * noise.gauss()),
            r[2],
            r[3] * (1.0 + 0.01 * noise.gauss())
        )
    });
    let path = write_csv("bending.csv", &bending::HEADER, rows);
    let (samples, dropped) = bending::read(&path).unwrap();
    assert!(opposed > 0 && dropped == opposed && samples.len() == 60 - opposed);
    // With the stiffness from a cantilever test, as the paper does.
    let fit = bending::fit(&samples, density, Some((FELT.k, FELT.k2))).unwrap();
    let p = fit.params;
    println!("felt: rms {:.3e} N", fit.rms_residual);
    check("felt", p.values(), fit.standard_errors, FELT.values(), &[3, 4], 0.05);
}

#[test]
fn bad_measurement_files_are_named_errors() {
    let header = write_csv("header.csv", &["step", "force", "length_m"], std::iter::empty());
    let e = stretch::read(&header, 0.1).unwrap_err().to_string();
    assert!(
        e.contains("header.csv") && e.contains("step,force_newton,length_m"),
        "{e}"
    );
    let nan = write_csv(
        "nan.csv",
        &stretch::HEADER,
        ["0,0,0.1".to_string(), "1,1,NaN".to_string()].into_iter(),
    );
    let e = stretch::read(&nan, 0.1).unwrap_err().to_string();
    assert!(e.contains("line 3") && e.contains("length_m"), "{e}");
    // Blank lines are skipped but still counted.
    let blank = write_csv(
        "blank.csv",
        &stretch::HEADER,
        ["0,0,0.1", "", "1,1,-0.1"].map(String::from).into_iter(),
    );
    let e = stretch::read(&blank, 0.1).unwrap_err().to_string();
    assert!(e.contains("line 4") && e.contains("positive"), "{e}");
    let order = write_csv(
        "order.csv",
        &stretch::HEADER,
        ["0,0,0.1", "2,1,0.101", "1,2,0.102"].map(String::from).into_iter(),
    );
    let e = stretch::read(&order, 0.1).unwrap_err().to_string();
    assert!(e.contains("line 4") && e.contains("order"), "{e}");
    let unloading = write_csv(
        "unloading.csv",
        &stretch::HEADER,
        ["0,2,0.102", "1,1,0.101"].map(String::from).into_iter(),
    );
    let e = stretch::read(&unloading, 0.1).unwrap_err().to_string();
    assert!(e.contains("load first"), "{e}");
    let negative = write_csv(
        "negative.csv",
        &bending::HEADER,
        ["0.01,-20,0.05,0.01".to_string()].into_iter(),
    );
    let e = bending::read(&negative).unwrap_err().to_string();
    assert!(e.contains("line 2") && e.contains("direction"), "{e}");
}
