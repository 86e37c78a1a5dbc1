//! `crease fit`: Miguel 2013's parameter estimation recovers known
//! parameters from synthetic measurements with noise, through the files a
//! user would write.

use crease::fit::{DahlParams, Fit, bending, rms, stretch};
use std::path::{Path, PathBuf};

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

/// A measurement table written for a test, removed when the test is done
/// with it (kept when the test fails, to read).
struct Table(PathBuf);

impl std::ops::Deref for Table {
    type Target = Path;
    fn deref(&self) -> &Path {
        &self.0
    }
}

impl Drop for Table {
    fn drop(&mut self) {
        if !std::thread::panicking() {
            std::fs::remove_file(&self.0).ok();
        }
    }
}

fn write_csv(name: &str, header: &[&str], rows: impl Iterator<Item = String>) -> Table {
    let path = std::env::temp_dir().join(format!("crease-fit-{}-{name}", std::process::id()));
    let mut text = header.join(",") + "\n";
    for r in rows {
        text += &r;
        text += "\n";
    }
    std::fs::write(&path, text).unwrap();
    Table(path)
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

/// Miguel's Eq. 2, `dsigma/deps = (sigma_max(eps) - s sigma) / tau` with
/// `sigma_max = a + b eps`, integrated by RK4 in the strain: the friction
/// stress after moving from `(eps, sigma)` by `d` (direction `s`).
fn eq_2(p: &DahlParams, eps: f64, sigma: f64, d: f64) -> f64 {
    let s = d.signum();
    let slope = |e: f64, sg: f64| (p.a + p.b * e - s * sg) / p.tau;
    let k1 = slope(eps, sigma);
    let k2 = slope(eps + d / 2.0, sigma + d / 2.0 * k1);
    let k3 = slope(eps + d / 2.0, sigma + d / 2.0 * k2);
    let k4 = slope(eps + d, sigma + d * k3);
    sigma + d / 6.0 * (k1 + 2.0 * k2 + 2.0 * k3 + k4)
}

/// Integrates Eq. 2 from `(eps, sigma)` in steps of `step` (direction its
/// sign) until `stop(eps, sigma)` turns true, bisecting the last step;
/// returns the state there.
fn follow(p: &DahlParams, (mut eps, mut sigma): (f64, f64), step: f64, stop: impl Fn(f64, f64) -> bool) -> (f64, f64) {
    loop {
        let next = eq_2(p, eps, sigma, step);
        if !stop(eps + step, next) {
            (eps, sigma) = (eps + step, next);
            continue;
        }
        let (mut lo, mut hi) = (0.0, 1.0);
        for _ in 0..60 {
            let mid = 0.5 * (lo + hi);
            match stop(eps + mid * step, eq_2(p, eps, sigma, mid * step)) {
                true => hi = mid,
                false => lo = mid,
            }
        }
        return (eps + lo * step, eq_2(p, eps, sigma, lo * step));
    }
}

/// The stretch protocol measured on a sample that obeys Eq. 2 itself (not
/// the fit's closed form, Eq. 3-4, which omits an offset bounded by
/// `|b tau|`, Miguel §3.2): from a virgin sample (sigma 0 at rest), each
/// load's length where the hanging force balances the internal one, `F =
/// ((k + k2 eps) eps + sigma) L`. Rows `(step, force, length)`.
fn stretch_by_eq_2(p: &DahlParams, rest: f64, loads: &[f64]) -> Vec<[f64; 3]> {
    let internal = |eps: f64, sigma: f64| ((p.k + p.k2 * eps) * eps + sigma) * stretch::length_at(eps, rest);
    let mut state = (0.0, 0.0);
    let step = p.tau / 200.0;
    loads
        .iter()
        .enumerate()
        .map(|(i, &load)| {
            let s = (load - internal(state.0, state.1)).signum();
            if s != 0.0 {
                state = follow(p, state, s * step, |e, sg| (load - internal(e, sg)) * s <= 0.0);
            }
            [i as f64, load, stretch::length_at(state.0, rest)]
        })
        .collect()
}

/// The fits on measurements they did not make themselves (issue 24): the
/// data integrate Eq. 2 numerically along the whole load history, from a
/// virgin sample, without noise (the tests above add it), so what the fit
/// misses is the closed form's own error, the omitted offset bounded by
/// `|b tau|`. Cotton (`|b tau|` 0.9% of `a`): every parameter within 2%
/// (measured: 1.6% at most, b). Polyester (8%): within 20% (k2 17% high,
/// k 2.6% low, the rest within 1%). Both: `a` within `|b tau|`. Miguel's
/// spandex (`b tau` 0.43 N/m against `a` 0.40) is left out: there the
/// closed form is not Eq. 2's solution, and the fit returns k 35% low and
/// a 59% high.
#[test]
fn stretch_fit_recovers_parameters_from_data_that_integrate_eq_2() {
    let rest = 0.1;
    let loads = stretch::protocol(6, 3);
    for (name, p, tolerance) in [
        ("cotton", stretch::COTTON, 0.02),
        ("polyester", stretch::POLYESTER, 0.2),
    ] {
        let rows = stretch_by_eq_2(&p, rest, &loads)
            .into_iter()
            .map(|r| format!("{},{},{:.9}", r[0], r[1], r[2]));
        let path = write_csv(&format!("eq2-{name}.csv"), &stretch::HEADER, rows);
        let fit = stretch::fit(&stretch::read(&path, rest).unwrap(), rest).unwrap();
        within(name, fit.params, p, tolerance);
        let offset = (p.b * p.tau).abs();
        assert!(
            (fit.params.a - p.a).abs() <= offset,
            "{name} a: {} vs {} (|b tau| {offset})",
            fit.params.a,
            p.a
        );
    }
}

/// Every fitted parameter within `tolerance` of the truth (none skipped;
/// a parameter whose truth is 0 is checked by the caller and passed here
/// as 0).
fn within(name: &str, got: DahlParams, want: DahlParams, tolerance: f64) {
    const NAMES: [&str; 5] = ["k", "k2", "a", "b", "tau"];
    for ((n, g), w) in NAMES.iter().zip(got.values()).zip(want.values()) {
        println!("{name} {n}: {g:.4e} (true {w:.4e})");
        assert!((g - w).abs() <= tolerance * w.abs(), "{name} {n}: {g} vs {w}");
    }
}

/// The bending protocol on spirals that obey Eq. 2: each strip rolled from
/// flat and virgin onto its cylinder (strain `3 / R`, loading), then
/// unrolled (unloading) to each sample's curvature, where the lever
/// balances the stress, `rho l d g = (k + k2 eps) eps + sigma`; without
/// noise, as above. Miguel's doublecloth (`|b tau|` 3% of `a`) with the
/// stiffness given (k and k2 come back as given), as the fit takes it from
/// a cantilever test: `a`, `b` and `tau` within 5% (measured: a 2.7% high,
/// b 0.1%, tau 3.0% low), `a` within `|b tau|`. Felt and paper have `|b
/// tau|` of 88% and 16000% of `a`: there the closed form is not Eq. 2's
/// solution.
#[test]
fn bending_fit_recovers_parameters_from_spirals_that_integrate_eq_2() {
    let (density, p) = bending::DOUBLECLOTH;
    let radii = [3.0, 4.0, 5.0, 6.0, 7.0, 7.5, 10.0, 16.0, 23.0, 27.5, 31.5, 50.0].map(|r| r * 1e-3);
    let along = [(0.9, 0.09), (0.7, 0.075), (0.5, 0.06), (0.35, 0.045), (0.2, 0.03)];
    let mut rows = Vec::new();
    for r in radii {
        let anchor = 3.0 / r;
        let rolled = follow(&p, (0.0, 0.0), anchor / 2000.0, |e, _| e >= anchor);
        for (fraction, length) in along {
            let eps = 3.0 * fraction / r;
            let (e, sigma) = follow(&p, rolled, -anchor / 2000.0, |e, _| e <= eps);
            let lever = ((p.k + p.k2 * e) * e + sigma) / (density * length * 9.81);
            rows.push(format!("{r},{:.9},{length},{lever:.12}", e / 3.0));
        }
    }
    let path = write_csv("eq2-bending.csv", &bending::HEADER, rows.into_iter());
    let (samples, _) = bending::read(&path).unwrap();
    let fit = bending::fit(&samples, density, Some((p.k, p.k2))).unwrap();
    within("doublecloth", fit.params, p, 0.05);
    let offset = (p.b * p.tau).abs();
    assert!(
        (fit.params.a - p.a).abs() <= offset,
        "a: {} vs {} (|b tau| {offset})",
        fit.params.a,
        p.a
    );
}

/// The stretch protocol run by the simulator itself (issue 24): Miguel's
/// cotton (`miguel-cotton`: Dahl friction in plane, its stiffness linear,
/// k12 set to 0 so that the square stretches uniformly) as a 10 cm square
/// held along its top edge, its bottom edge moved down to each strain of
/// the protocol (steps of 0.02 in Green strain, 3.3 tau) over 0.15 s and
/// held 0.3 s; the reaction on the bottom edge and the square's length at
/// the end of each hold are the measurements. The fit gets back what the
/// simulator ran: k, a, b and tau within 1% (measured: 0.02%, 0.4%, 0.4%,
/// 0.8%), k2 (0 in the simulator) within 1 N/m (-0.09). With steps of
/// 0.008 (1.3 tau) the friction is not saturated at the turning points,
/// which the fit's anchor rule assumes, and b comes back 59% low.
#[test]
fn stretch_fit_recovers_what_the_simulator_ran() {
    use crease::cpu::CpuBackend;
    use crease::sim::Simulation;
    use std::sync::Arc;
    let rest = 0.1;
    let strains: Vec<f64> = stretch::protocol(6, 3).iter().map(|n| n * 0.02).collect();
    let mut phases = vec![];
    let mut last = 0.0;
    for (i, &e) in strains.iter().enumerate() {
        let stretch = (1.0 + 2.0 * e).sqrt() - 1.0;
        let down = (stretch - last) * rest;
        last = stretch;
        phases.push(serde_json::json!({ "name": format!("move{i}"), "duration": 0.15,
            "handles": { "bottom": { "translate": [0, -down, 0] } } }));
        phases.push(serde_json::json!({ "name": format!("hold{i}"), "duration": 0.3 }));
    }
    let json = serde_json::json!({
        "dt": 0.001, "gravity": [0, 0, 0], "self_collision": { "enabled": false },
        "cloth": { "mesh": { "grid": { "size": [rest, rest], "resolution": [4, 4], "plane": "xy" } },
            "material": { "preset": "miguel-cotton", "stretching": [135.6, 0, 135.6, 33.9] }, "damping": 0.02 },
        "handles": { "top": { "select": { "side": "top" } }, "bottom": { "select": { "side": "bottom" } } },
        "timeline": phases,
    });
    let scene = crease::scene::parse(
        "square.json",
        "square",
        &json.to_string(),
        std::path::Path::new("."),
        &[],
    )
    .unwrap();
    let edge = |name: &str| scene.handles.iter().find(|h| h.name == name).unwrap().vertices.clone();
    let (top, bottom) = (edge("top"), edge("bottom"));
    let handle = scene.handles.iter().position(|h| h.name == "bottom").unwrap();
    let cloth = Arc::clone(&scene.cloth);
    let mut sim = Simulation::new(scene, Box::new(CpuBackend::new(cloth)));
    let mut rows = vec![format!("0,0,{rest}")];
    while !sim.done() {
        let phase = sim.phase_name().to_string();
        let info = sim.step().unwrap();
        if phase.starts_with("hold") && (sim.done() || sim.phase_name() != phase) {
            let x = sim.backend().positions().unwrap();
            let y = |v: &[u32]| v.iter().map(|&i| x[i as usize].y).sum::<f64>() / v.len() as f64;
            let force = info.reactions[handle].force.y;
            rows.push(format!("{},{force:.9},{:.9}", rows.len(), y(&top) - y(&bottom)));
        }
    }
    assert_eq!(rows.len(), strains.len() + 1);
    let path = write_csv("simulated-stretch.csv", &stretch::HEADER, rows.into_iter());
    let fit = stretch::fit(&stretch::read(&path, rest).unwrap(), rest).unwrap();
    let ran = DahlParams {
        k2: 0.0,
        ..stretch::COTTON
    };
    println!("simulated cotton k2: {:.3} N/m (ran 0)", fit.params.k2);
    assert!(fit.params.k2.abs() <= 1.0, "k2 {}", fit.params.k2);
    within("simulated cotton", DahlParams { k2: 0.0, ..fit.params }, ran, 0.01);
}

/// A crease-recovery specimen of 10 x 4 quads read 0.25 s after the lift
/// (0.5 s a specimen here; the standard's 40 x 15 takes 30 s), on one
/// thread per specimen.
fn small_specimen() -> crease::fit::recovery::Specimen {
    crease::fit::recovery::Specimen {
        scene: "crease-recovery".into(),
        sets: vec![
            "cloth.mesh.grid.resolution=[10, 4]".into(),
            "timeline.recover.duration=0.25".into(),
        ],
        jobs: 2,
    }
}

/// Issue 23, item 4: `crease fit recovery` recovers the yield strain and
/// the hardening's time constant that a table crease generated was made
/// with (cotton with `eps_Y0` 1.6 and `tau_p` 60 s instead of 1.8 and 30
/// s), with Gaussian noise of 0.3 degrees on the angles, starting from
/// cotton's own. Measured: 1.589 +- 0.020 and 58.3 +- 8.9 s (asserted within
/// 15%, and within three standard errors).
#[test]
fn recovery_fit_recovers_the_yield_and_hardening_time_crease_was_run_with() {
    use crease::fit::recovery::{self, Param, Row};
    let specimen = small_specimen();
    let mut truth = specimen.start().unwrap();
    truth[Param::Yield.index()] = 1.6;
    truth[Param::TauP.index()] = 60.0;
    let holds = [1.0, 3.0, 10.0, 30.0, 100.0, 300.0, 1000.0];
    let rows: Vec<Row> = holds
        .iter()
        .enumerate()
        .map(|(i, &hold)| Row {
            line: i + 2,
            hold,
            load: 10.0,
            angle: 0.0,
        })
        .collect();
    let clean = specimen.angles(&[truth], &rows).unwrap().remove(0);
    println!("truth: {clean:.2?} deg");
    assert!(clean[0] - clean[6] > 3.0, "the long hold must recover less: {clean:?}");
    let mut noise = Noise(23);
    let table = write_csv(
        "recovery.csv",
        &recovery::HEADER,
        holds
            .iter()
            .zip(&clean)
            .map(|(h, a)| format!("{h},10,{}", a + 0.3 * noise.gauss())),
    );
    let measured = recovery::read(&table).unwrap();
    let free = [Param::Yield, Param::TauP];
    let fit = recovery::fit(&measured, &specimen, &free, 20).unwrap();
    println!(
        "fit: {:?} +- {:?}, rms {:.3} deg, {} iterations, {} specimens",
        free.map(|p| fit.values[p.index()]),
        fit.standard_errors,
        fit.rms_residual,
        fit.iterations,
        fit.simulations
    );
    for (j, p) in free.iter().enumerate() {
        let (got, want) = (fit.values[p.index()], truth[p.index()]);
        let e = fit.standard_errors[j].expect("both are determined");
        assert!(
            (got / want - 1.0).abs() <= 0.15 && (got - want).abs() <= 3.0 * e,
            "{}: {got} +- {e}, truth {want}",
            p.name()
        );
    }
    // The parameters not fitted keep the scene's values, exactly.
    for p in Param::ALL.into_iter().filter(|p| !free.contains(p)) {
        assert_eq!(fit.values[p.index()], fit.start[p.index()], "{}", p.name());
    }
    assert!(fit.rms_residual < 0.6, "{}", fit.rms_residual);
}

/// The fit's specimens, which share the fold and the press and continue
/// from a saved state per hold, recover as `crease experiment
/// crease-recovery` runs them from the start.
#[test]
fn recovery_fit_simulates_the_specimen_as_the_experiment_runs_it() {
    use crease::fit::recovery::Row;
    let specimen = small_specimen();
    let mut exp = crease::experiment::find("crease-recovery").unwrap();
    exp.variants
        .retain(|v| v.name == "cotton-1s" || v.name == "cotton-1000s");
    let dir = std::env::temp_dir().join(format!("crease-fit-experiment-{}", std::process::id()));
    let backend = |s: &crease::scene::Scene| -> crease::Result<Box<dyn crease::step::Backend>> {
        Ok(Box::new(crease::cpu::CpuBackend::new(std::sync::Arc::clone(&s.cloth))))
    };
    let result = crease::experiment::run(
        &exp,
        &specimen.sets,
        &dir,
        &backend,
        &crease::render::Renderer::Cpu,
        &|_, _| {},
        2,
    )
    .unwrap();
    std::fs::remove_dir_all(&dir).ok();
    let rows = [1.0, 1000.0].map(|hold| Row {
        line: 0,
        hold,
        load: 10.0,
        angle: 0.0,
    });
    let angles = specimen.angles(&[specimen.start().unwrap()], &rows).unwrap().remove(0);
    for (k, v) in result["variants"].as_array().unwrap().iter().enumerate() {
        let ran = v["derived"]["recovery_angle"].as_f64().unwrap();
        println!(
            "{}: experiment {ran:.6} deg, fit's specimen {:.6}",
            v["name"], angles[k]
        );
        assert!((ran - angles[k]).abs() < 1e-6, "{ran} vs {}", angles[k]);
    }
    assert!(angles[0] - angles[1] > 3.0, "{angles:?}");
}

#[test]
fn bad_recovery_tables_are_named_errors() {
    use crease::fit::recovery;
    let angle = write_csv(
        "angle.csv",
        &recovery::HEADER,
        ["1,10,80", "10,10,200"].map(String::from).into_iter(),
    );
    let e = recovery::read(&angle).unwrap_err().to_string();
    assert!(
        e.contains("angle.csv") && e.contains("line 3") && e.contains("recovery_deg = 200"),
        "{e}"
    );
    let load = write_csv("load.csv", &recovery::HEADER, ["1,0,80".to_string()].into_iter());
    let e = recovery::read(&load).unwrap_err().to_string();
    assert!(e.contains("line 2") && e.contains("load_n = 0"), "{e}");
    let empty = write_csv("empty.csv", &recovery::HEADER, std::iter::empty());
    let e = recovery::read(&empty).unwrap_err().to_string();
    assert!(e.contains("empty.csv") && e.contains("no measurements"), "{e}");
    // A scene without the test's timeline is refused before anything runs.
    let specimen = crease::fit::recovery::Specimen {
        scene: "hang".into(),
        sets: Vec::new(),
        jobs: 1,
    };
    let e = specimen.start().unwrap_err().to_string();
    assert!(e.contains("timeline") && e.contains("`hold`"), "{e}");
}
