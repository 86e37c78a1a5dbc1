//! The paper's claims as numbers, on the small built-in experiment scenes
//! (CPU reference backend); claims 1-3 live in tests/common and also run on
//! the GPU (tests/gpu.rs).

mod common;

use crease::cpu::CpuBackend;
use crease::measure::Measures;
use crease::scene::Scene;
use crease::step::Backend;
use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

fn cpu(scene: &Scene) -> Box<dyn Backend> {
    Box::new(CpuBackend::new(Arc::clone(&scene.cloth)))
}

/// Runs the experiment `exp` with `sets` into `dir` on the CPU, two
/// variants at a time on one thread each: a specimen's step gains next to
/// nothing from a second thread (the standard crease-recovery specimen to
/// 0.6 s: 16.2 s on one, 15.6 on two, the same frames), so on 2 cores
/// two at a time get through the variants in about half the time.
fn run_experiment(exp: &crease::experiment::Experiment, sets: &[String], dir: &std::path::Path) -> serde_json::Value {
    let one = |s: &Scene| -> crease::Result<Box<dyn Backend>> {
        Ok(Box::new(CpuBackend::with_threads(Arc::clone(&s.cloth), 1)))
    };
    let renderer = crease::render::Renderer::Cpu;
    crease::experiment::run(exp, sets, dir, &one, &renderer, &|_, _| {}, 2).unwrap()
}

/// Final measures of an experiment's variant (with extra overrides), run
/// once per test binary and shared between tests.
fn run_checked(exp: &str, variant: &str, extra: &[&str], settled: bool) -> Measures {
    static CACHE: OnceLock<Mutex<HashMap<String, Measures>>> = OnceLock::new();
    let key = format!("{exp}/{variant}/{extra:?}");
    if let Some(m) = CACHE.get_or_init(Default::default).lock().unwrap().get(&key) {
        return *m;
    }
    let extra: Vec<String> = extra.iter().map(|s| s.to_string()).collect();
    let m = common::run_variant(exp, variant, &extra, &cpu, settled);
    CACHE.get_or_init(Default::default).lock().unwrap().insert(key, m);
    m
}

fn run(exp: &str, variant: &str, extra: &[&str]) -> Measures {
    run_checked(exp, variant, extra, true)
}

#[test]
fn claim_1_friction_wrinkles_persist_longer_after_a_long_hold() {
    common::claim_1(&|e, v| run(e, v, &[]));
}

#[test]
fn claim_2_plastic_wrinkles_grow_with_the_hold_and_outlast_a_brief_friction_fold() {
    common::claim_2(&|e, v| run(e, v, &[]));
}

#[test]
fn claim_3_baselines_have_no_time_dependence() {
    common::claim_3(&|e, v| run(e, v, &[]));
}

#[test]
fn claim_4_residuals_do_not_depend_on_the_time_step() {
    for (exp, variant) in [
        ("ablation-friction", "long"),
        ("ablation-plastic", "long"),
        ("ablation-plastic", "short"),
    ] {
        let h = run(exp, variant, &[]).region_mean_abs_bend;
        let half = run(exp, variant, &["dt=0.001"]).region_mean_abs_bend;
        println!("{exp} {variant}: h {h:.4}, h/2 {half:.4}");
        assert!((h - half).abs() <= 0.15 * h, "{exp} {variant}: {h} vs {half}");
    }
}

/// The same material with friction and plasticity off in both families:
/// what its stiffness alone leaves.
const ELASTIC: [&str; 4] = [
    "cloth.material.bending_friction.model=none",
    "cloth.material.bending_plasticity.model=none",
    "cloth.material.in_plane_friction.model=none",
    "cloth.material.in_plane_plasticity.model=none",
];

#[test]
fn claim_5_cotton_keeps_more_twist_wrinkles_than_denim_than_polyester() {
    // Appendix A.2: twist, hold, twist back, then observe (0.4 s after the
    // return). Observed, not settled: long after the return a long-held denim
    // or polyester cylinder slowly buckles from its in-plane plastic
    // elongation (the tensile channels share one parameter set), a separate,
    // slower instability than the wrinkle memory compared here.
    //
    // Stiffness alone could order the materials (denim's k_b is 24 times
    // cotton's), so each material's memory is its residual above its own
    // elastic control (measured: controls 5e-7 to 1.3e-6 rad; memory
    // 0.179, 0.0136, 0.0019 rad: 13x and 7x between neighbours). Each
    // neighbour keeps at least twice the next.
    let r = |v: &str, extra: &[&str]| run_checked("cylinder-twist", v, extra, false).mean_abs_bend;
    let memory = ["cotton", "denim", "polyester"].map(|m| {
        let (long, elastic) = (r(&format!("{m}-long"), &[]), r(&format!("{m}-long"), &ELASTIC));
        println!("{m}: long hold {long:.3e} rad, elastic control {elastic:.3e} rad");
        assert!(
            elastic < 0.05 * long,
            "{m}: the elastic control keeps {elastic}, the model {long}"
        );
        long - elastic
    });
    println!("cylinder twist memory, long hold (cotton, denim, polyester): {memory:?}");
    assert!(
        memory[0] >= 2.0 * memory[1] && memory[1] >= 2.0 * memory[2],
        "{memory:?}"
    );
    for m in ["cotton", "denim"] {
        let (s, l) = (r(&format!("{m}-short"), &[]), r(&format!("{m}-long"), &[]));
        assert!(l > s, "{m}: long {l} vs short {s}");
    }
}

#[test]
fn claim_6_specimen_folds_remember_their_hold_and_pressing_leaves_a_plastic_crease() {
    // Paper Fig. 2 (cotton): a moderate fold held briefly leaves no wrinkle,
    // held long a clear one; a fold pressed flat under a plate yields
    // plastically, more the longer it is pressed, and after a long hold its
    // crease is sharper than the moderate fold's: pressing puts the whole
    // fold into one hinge, whose anchor and plastic angle hold the flap up
    // when it is let go, where the moderate fold spreads over three.
    let r = |v: &str| run("specimen", &format!("cotton-{v}"), &[]);
    let (ms, ml, es, el) = (
        r("moderate-short"),
        r("moderate-long"),
        r("extreme-short"),
        r("extreme-long"),
    );
    println!(
        "specimen residual (region mean |theta|): moderate {:.4} -> {:.4}, extreme {:.4} -> {:.4}",
        ms.region_mean_abs_bend, ml.region_mean_abs_bend, es.region_mean_abs_bend, el.region_mean_abs_bend
    );
    println!(
        "specimen plastic crease (max |eps_p|): moderate {:.4} -> {:.4}, extreme {:.4} -> {:.4}; region max |theta|: {:.3} {:.3} {:.3} {:.3}",
        ms.max_abs_plastic_bend,
        ml.max_abs_plastic_bend,
        es.max_abs_plastic_bend,
        el.max_abs_plastic_bend,
        ms.region_max_abs_bend,
        ml.region_max_abs_bend,
        es.region_max_abs_bend,
        el.region_max_abs_bend
    );
    for (name, short, long) in [("moderate", ms, ml), ("extreme", es, el)] {
        let (s, l) = (short.region_mean_abs_bend, long.region_mean_abs_bend);
        assert!(l > 0.02 && l > 1.3 * s, "{name}: long {l} vs short {s}");
    }
    assert!(
        ms.max_abs_plastic_bend == 0.0 && ml.max_abs_plastic_bend == 0.0,
        "a moderate fold stays below yield"
    );
    assert!(
        es.max_abs_plastic_bend > 0.1,
        "pressing yields: {}",
        es.max_abs_plastic_bend
    );
    assert!(
        el.max_abs_plastic_bend > 1.3 * es.max_abs_plastic_bend,
        "a longer press hardens more"
    );
    // The pressed crease stands up by its own plastic set even after a
    // short press (the table holds it through the solve, as a resting
    // contact, so its bending moment can lift it): 0.43 against 0.05 rad.
    assert!(
        es.region_max_abs_bend > 2.0 * ms.region_max_abs_bend,
        "a short press leaves a sharper crease than a short moderate fold: {} vs {}",
        es.region_max_abs_bend,
        ms.region_max_abs_bend
    );
    assert!(
        el.region_max_abs_bend > 1.3 * ml.region_max_abs_bend,
        "a long press leaves a sharper crease than a long moderate fold: {} vs {}",
        el.region_max_abs_bend,
        ml.region_max_abs_bend
    );
}

/// The specimen pressed briefly, with and without resting contacts
/// (`solver.contact_solves=0`: the table acts only after the solve): the
/// crease yields either way (max |eps_p| 0.48 and 0.40 rad), but only a
/// table held inside the solve lets its bending moment lift the sides
/// (region max |theta| 0.43 rad, against 0).
#[test]
fn resting_contacts_let_a_pressed_crease_stand_up() {
    let with = run("specimen", "cotton-extreme-short", &[]);
    let without = run("specimen", "cotton-extreme-short", &["solver.contact_solves=0"]);
    println!(
        "pressed specimen, short: region max |theta| {:.3} with resting contacts, {:.3} without; max |eps_p| {:.3}, {:.3}",
        with.region_max_abs_bend, without.region_max_abs_bend, with.max_abs_plastic_bend, without.max_abs_plastic_bend
    );
    assert!(without.max_abs_plastic_bend > 0.3, "{without:?}");
    assert!(without.region_max_abs_bend < 0.05, "{without:?}");
    assert!(with.region_max_abs_bend > 0.3, "{with:?}");
}

/// The in-model controls of claims 1, 2, 5, 6 and 7: the same scenes with
/// the time dependence off inside the models leave the long hold within 1%
/// of the short one (measured: 1.0000x each), where the full model clears
/// its claim's ratio (1.3, 1.3; the container's moderate and pressed
/// cloths 1.2; the specimen's moderate and pressed folds 1.3; the cotton
/// twist cylinder 1.1; measured 8.95, 1.98, 1.56, 3.69, 12.8, 5.06, 1.19). So the hold acts only through dwell growth and hardening decay:
/// a leak of material time anywhere else (the positions, the damping, the
/// contacts) would show here, where Dahl and time-independent runs
/// (claim 3) cannot depend on it by construction.
#[test]
fn the_hold_acts_only_through_dwell_growth_and_hardening_decay() {
    let coarse = "cloth.mesh.grid.resolution=[16,16]";
    let [a, b, c, d] = common::TIMELESS;
    // The specimen names its material; as an object it takes the paths.
    let object = r#"cloth.material={"preset": "cotton"}"#;
    let specimen = [object, a, b, c, d];
    // The container's in-plane channels are elastic (issue 25): only its
    // bending channels have a time dependence to switch off.
    let container = [coarse, a, c];
    for (exp, short, long, timeless, claimed, settled) in [
        ("ablation-friction", "short", "long", &common::TIMELESS[..2], 1.3, true),
        ("ablation-plastic", "short", "long", &common::TIMELESS[2..], 1.3, true),
        (
            "container",
            "moderate-short",
            "moderate-long",
            &container[..],
            1.2,
            false,
        ),
        ("container", "pressed-short", "pressed-long", &container[..], 1.2, false),
        (
            "specimen",
            "cotton-moderate-short",
            "cotton-moderate-long",
            &specimen[..],
            1.3,
            true,
        ),
        (
            "specimen",
            "cotton-extreme-short",
            "cotton-extreme-long",
            &specimen[..],
            1.3,
            true,
        ),
        (
            "cylinder-twist",
            "cotton-short",
            "cotton-long",
            &common::TIMELESS[..],
            1.1,
            false,
        ),
    ] {
        let full: &[&str] = if exp == "container" { &[coarse] } else { &[] };
        let measure = |v: &str, sets: &[&str]| {
            let m = run_checked(exp, v, sets, settled);
            match exp {
                "container" | "cylinder-twist" => m.mean_abs_bend,
                _ => m.region_mean_abs_bend,
            }
        };
        let (s, l) = (measure(short, full), measure(long, full));
        let (cs, cl) = (measure(short, timeless), measure(long, timeless));
        println!(
            "{exp}: full model {s:.4} -> {l:.4} ({:.3}x), timeless {cs:.4} -> {cl:.4} ({:.4}x)",
            l / s,
            cl / cs
        );
        assert!(l >= claimed * s, "{exp}: the full model's long hold {l} vs short {s}");
        assert!(cs > 0.01, "{exp}: the timeless model leaves a wrinkle to compare: {cs}");
        assert!((cl / cs - 1.0).abs() <= 0.01, "{exp}: timeless long {cl} vs short {cs}");
    }
}

#[test]
fn claim_7_container_wrinkles_grow_with_the_hold_and_the_plunger_sharpens_them() {
    // Paper Fig. 3-4, on a 16 x 16 cloth: dropped onto a glass, held short
    // or long (with or without the plunger), lifted by two corners after the
    // glass is taken away; the wrinkles of the hanging cloth. Pressed, a
    // long hold leaves more than a short one in the mean and at the
    // sharpest hinge (issue 25: with the in-plane channels' yield the
    // stretched cloth set into a cup that hung the same after either hold,
    // 1.00x); its in-model control is the hold test above. (Measured:
    // moderate 0.038 -> 0.060 rad, pressed 0.050 -> 0.186, max 0.23 ->
    // 1.15; plastic set 0.001 moderate, 0.012 -> 0.020 pressed.)
    let coarse = ["cloth.mesh.grid.resolution=[16,16]"];
    let r = |v: &str| run_checked("container", v, &coarse, false);
    let (ms, ml, ps, pl) = (
        r("moderate-short"),
        r("moderate-long"),
        r("pressed-short"),
        r("pressed-long"),
    );
    let elastic = run_checked(
        "container",
        "moderate-short",
        &[coarse[0], "cloth.material=elastic"],
        false,
    )
    .mean_abs_bend;
    println!(
        "container hanging mean |theta|: moderate {:.4} -> {:.4}, pressed {:.4} -> {:.4}, elastic {elastic:.4}; \
         max |theta|: moderate {:.3} {:.3}, pressed {:.3} {:.3}; mean |eps_p|: moderate {:.4} -> {:.4}, pressed {:.4} -> {:.4}",
        ms.mean_abs_bend,
        ml.mean_abs_bend,
        ps.mean_abs_bend,
        pl.mean_abs_bend,
        ms.max_abs_bend,
        ml.max_abs_bend,
        ps.max_abs_bend,
        pl.max_abs_bend,
        ms.mean_abs_plastic_bend,
        ml.mean_abs_plastic_bend,
        ps.mean_abs_plastic_bend,
        pl.mean_abs_plastic_bend
    );
    let (s, l) = (ms.mean_abs_bend, ml.mean_abs_bend);
    assert!(l > 1.2 * s, "moderate: long {l} vs short {s}");
    let (s, l) = (ps.mean_abs_bend, pl.mean_abs_bend);
    assert!(l >= 1.2 * s, "pressed: long {l} vs short {s}");
    let (s, l) = (ps.max_abs_bend, pl.max_abs_bend);
    assert!(l >= s, "pressed, sharpest hinge: long {l} vs short {s}");
    let (s, l) = (ps.mean_abs_plastic_bend, pl.mean_abs_plastic_bend);
    assert!(l > 1.2 * s, "pressed: plastic set long {l} vs short {s}");
    // Pressing sharpens: after a long hold the pressed cloth hangs with
    // twice the moderate one's mean bend and half again its sharpest, and
    // either press leaves five times the moderate plastic set.
    assert!(
        pl.mean_abs_bend > 2.0 * ml.mean_abs_bend && pl.max_abs_bend > 1.5 * ml.max_abs_bend,
        "pressing leaves sharper wrinkles: {pl:?} vs {ml:?}"
    );
    for (p, m) in [(ps, ms), (pl, ml)] {
        assert!(
            p.mean_abs_plastic_bend > 5.0 * m.mean_abs_plastic_bend,
            "pressing leaves a plastic set: {p:?} vs {m:?}"
        );
    }
    assert!(
        3.0 * elastic < ms.mean_abs_bend,
        "an elastic cloth hangs smoother: {elastic} vs {ms:?}"
    );
}

/// Fig. 1 c/d: a fold held longer recovers less, whichever mechanism
/// holds it. Holds of 1 and 1000 material seconds (the experiment also
/// runs 3 to 300), recovery shortened to 0.8 s (the angle has settled to
/// 1e-3 rad by then).
#[test]
fn claim_8_crease_recovery_falls_with_the_hold_for_friction_plasticity_and_both() {
    let mut exp = crease::experiment::find("recovery").unwrap();
    exp.variants
        .retain(|v| v.name.ends_with("-1s") || v.name.ends_with("-1000s"));
    let dir = std::env::temp_dir().join(format!("crease-recovery-{}", std::process::id()));
    let sets = vec!["timeline.recover.duration=0.8".to_string()];
    let run = |sets: &[String], dir: &std::path::Path| run_experiment(&exp, sets, dir);
    // A variant's derived figure in an experiment's result.
    let figure = |result: &serde_json::Value, name: &str, key: &str| -> f64 {
        let v = result["variants"]
            .as_array()
            .unwrap()
            .iter()
            .find(|v| v["name"] == name)
            .unwrap();
        v["derived"][key].as_f64().unwrap()
    };
    let result = run(&sets, &dir);
    let derived = |name: &str, key: &str| figure(&result, name, key);
    for family in ["friction", "plastic", "both"] {
        let (short, long) = (format!("{family}-1s"), format!("{family}-1000s"));
        assert!((derived(&short, "hold_material_seconds") - 1.0).abs() < 1e-9);
        assert!((derived(&long, "hold_material_seconds") - 1000.0).abs() < 1e-6);
        let (r1, r1000) = (derived(&short, "recovery_percent"), derived(&long, "recovery_percent"));
        println!("{family}: recovery {r1:.1}% after 1 s, {r1000:.1}% after 1000 s");
        assert!(r1 > 60.0 && r1 < 100.0, "{family}: {r1}");
        assert!(r1 - r1000 > 10.0, "{family}: {r1} -> {r1000}");
    }
    // The in-model control: with the time dependence off inside the
    // models (common::TIMELESS), the 1000 s hold recovers as the 1 s one, within 1%.
    let timeless_dir = dir.join("timeless");
    let mut timeless = sets.clone();
    timeless.extend(common::TIMELESS.iter().map(|s| s.to_string()));
    let control = run(&timeless, &timeless_dir);
    let recovery = |name: &str| figure(&control, name, "recovery_percent");
    for family in ["friction", "plastic", "both"] {
        let (r1, r1000) = (recovery(&format!("{family}-1s")), recovery(&format!("{family}-1000s")));
        println!("{family}, timeless: recovery {r1:.2}% after 1 s, {r1000:.2}% after 1000 s");
        assert!(
            r1 < 100.0 && (r1000 / r1 - 1.0).abs() <= 0.01,
            "{family}: {r1} -> {r1000}"
        );
    }
    assert!(dir.join("recovery.png").exists());
    // The contact sheet: six variants, three across, each 400 x 300 over a
    // label strip.
    let sheet = png::Decoder::new(std::io::BufReader::new(
        std::fs::File::open(dir.join("sheet.png")).unwrap(),
    ));
    let info = sheet.read_info().unwrap().info().clone();
    assert_eq!((info.width, info.height), (1200, 2 * (300 + 28)));
    std::fs::remove_dir_all(&dir).ok();
}

/// Issue 23: the standard crease-recovery test (ISO 2313): a 40 x 15 mm
/// cotton specimen folded in half and pressed under 10 N recovers less
/// after 1000 material seconds under the weight than after 1 s; the weight
/// closes the fold; with the time dependence off inside the models
/// (common::TIMELESS) both holds recover alike, within 1%. The recovery is
/// read 0.3 s after the lift (the experiment: 0.5 s, 300 material seconds;
/// the angle has settled to 0.01 degree 0.2 s after the lift).
#[test]
fn the_standard_crease_recovery_test_recovers_less_after_a_long_press() {
    let mut exp = crease::experiment::find("crease-recovery").unwrap();
    exp.variants
        .retain(|v| v.name == "cotton-1s" || v.name == "cotton-1000s");
    assert_eq!(exp.variants.len(), 2);
    let angles = |extra: &[&str], tag: &str| -> [(f64, f64); 2] {
        let dir = std::env::temp_dir().join(format!("crease-iso-{tag}-{}", std::process::id()));
        let mut sets = vec!["timeline.recover.duration=0.25".to_string()];
        sets.extend(extra.iter().map(|s| s.to_string()));
        let result = run_experiment(&exp, &sets, &dir);
        assert!(dir.join("crease-recovery.png").exists());
        std::fs::remove_dir_all(&dir).ok();
        let v = result["variants"].as_array().unwrap();
        [0, 1].map(|k| {
            let d = &v[k]["derived"];
            let hold = d["hold_material_seconds"].as_f64().unwrap();
            assert!((hold - [1.0, 1000.0][k]).abs() < 1e-6 * hold, "{hold}");
            (
                d["pressed_angle"].as_f64().unwrap(),
                d["recovery_angle"].as_f64().unwrap(),
            )
        })
    };
    let [(p1, r1), (p1000, r1000)] = angles(&[], "paper");
    println!("pressed {p1:.1} / {p1000:.1} deg; recovered {r1:.1} deg after 1 s, {r1000:.1} deg after 1000 s");
    assert!(p1 < 15.0 && p1000 < 15.0, "the weight closes the fold: {p1}, {p1000}");
    assert!(r1 > 30.0 && r1 < 150.0, "{r1}");
    assert!(r1 - r1000 > 10.0, "{r1} -> {r1000}");
    let [(_, t1), (_, t1000)] = angles(&common::TIMELESS, "timeless");
    println!("timeless: recovered {t1:.2} deg after 1 s, {t1000:.2} deg after 1000 s");
    assert!((t1000 / t1 - 1.0).abs() <= 0.01, "{t1} -> {t1000}");
}

/// The recovery experiment `exp` run with `sets` (on the CPU, into a
/// folder named by `tag`): each variant's recovery (`key` of its derived
/// figures: `recovery_percent`, `recovery_angle`), in order, and the
/// least-squares line of recovery against log10 of the hold: its slope
/// and R^2.
fn recovery_against_log_hold(
    exp: &crease::experiment::Experiment,
    sets: &[String],
    tag: &str,
    key: &str,
) -> (Vec<f64>, f64, f64) {
    let dir = std::env::temp_dir().join(format!("crease-{tag}-{}", std::process::id()));
    let result = run_experiment(exp, sets, &dir);
    std::fs::remove_dir_all(&dir).ok();
    let points: Vec<(f64, f64)> = result["variants"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| {
            let d = &v["derived"];
            (
                d["hold_material_seconds"].as_f64().unwrap().log10(),
                d[key].as_f64().unwrap(),
            )
        })
        .collect();
    let n = points.len() as f64;
    let (mx, my) = (
        points.iter().map(|p| p.0).sum::<f64>() / n,
        points.iter().map(|p| p.1).sum::<f64>() / n,
    );
    let sxy: f64 = points.iter().map(|p| (p.0 - mx) * (p.1 - my)).sum();
    let sxx: f64 = points.iter().map(|p| (p.0 - mx).powi(2)).sum();
    let syy: f64 = points.iter().map(|p| (p.1 - my).powi(2)).sum();
    (points.iter().map(|p| p.1).collect(), sxy / sxx, sxy * sxy / (sxx * syy))
}

/// Issue 23: a spread of hardening times (`bending_plasticity.spread`, 3
/// decades of log time around the paper's 30 s) makes the plastic
/// family's recovery fall steadily with log hold time. Over holds of 1 to
/// 1000 material seconds, recovery against log10(hold) fits a straight
/// line with R^2 0.985 (asserted >= 0.95); with the paper's single time
/// constant the same holds give an S (R^2 0.914: 83.6% to 77.0% at 30 s,
/// then 69.1% from 300 s on). The friction family's recovery in this test
/// is all or nothing, whatever the dwell's spread: a fold that slips at
/// its release swings open to 92%, one that does not stays at 36% (the
/// step between 10 and 30 s moves by no hold); a slope there needs
/// elements that lock at different holds (the scatter, next test).
#[test]
fn a_spread_of_hardening_times_makes_recovery_a_slope_in_log_hold_time() {
    let mut exp = crease::experiment::find("recovery").unwrap();
    exp.variants.retain(|v| v.name.starts_with("plastic-"));
    assert_eq!(exp.variants.len(), 7);
    let fit = |spread: f64| -> f64 {
        let sets = vec![
            "timeline.recover.duration=0.8".to_string(),
            format!("cloth.material.bending_plasticity.spread={spread}"),
        ];
        let (recovery, slope, r2) =
            recovery_against_log_hold(&exp, &sets, &format!("spread-{spread}"), "recovery_percent");
        println!("spread {spread}: recovery {recovery:.1?} %, R^2 {r2:.3}");
        assert!(slope < 0.0, "recovery must fall with the hold");
        r2
    };
    let (spread, single) = (fit(3.0), fit(0.0));
    assert!(spread >= 0.95, "R^2 {spread}");
    assert!(
        single < spread - 0.03,
        "R^2 {single} without the spread, {spread} with it"
    );
}

/// Issue 23: dwell times scattered over 3 decades from hinge to hinge
/// (`bending_friction.scatter`, model/decay.rs) turn the friction family's
/// all-or-nothing recovery into a staircase down log hold time: the fold
/// line's hinges (the recovery strip at 20 x 10 quads) lock one after
/// another, as the parallel elements of an Iwan model. Measured: 91.6,
/// 91.6, 68.6, 55.0, 43.1, 40.4, 35.9% over holds of 1 to 1000 s (R^2 of
/// the line in log time 0.931: this strip's few fold hinges give levels,
/// not a line, with any scatter or skew; the standard test's specimen
/// gives the line, last test); without the scatter 91.6-92.2% to 30 s,
/// then 35.9% (R^2 0.744).
#[test]
fn scattered_dwell_times_make_the_friction_recovery_fall_in_steps_over_log_hold_time() {
    let mut exp = crease::experiment::find("recovery").unwrap();
    exp.variants.retain(|v| v.name.starts_with("friction-"));
    assert_eq!(exp.variants.len(), 7);
    let curve = |scatter: f64| -> (Vec<f64>, f64) {
        let sets = vec![
            "timeline.recover.duration=0.8".to_string(),
            "cloth.mesh.grid.resolution=[20, 10]".to_string(),
            format!("cloth.material.bending_friction.scatter={scatter}"),
        ];
        let (recovery, _, r2) =
            recovery_against_log_hold(&exp, &sets, &format!("scatter-{scatter}"), "recovery_percent");
        println!("scatter {scatter}: recovery {recovery:.1?} %, R^2 {r2:.3}");
        (recovery, r2)
    };
    // The distinct levels a curve passes through (steps of over 2 points).
    let levels = |r: &[f64]| 1 + r.windows(2).filter(|w| (w[0] - w[1]).abs() > 2.0).count();
    let (scattered, r2) = curve(3.0);
    let (single, r2_single) = curve(0.0);
    assert!(
        scattered.windows(2).all(|w| w[1] <= w[0] + 0.5),
        "recovery must not rise with the hold: {scattered:?}"
    );
    assert!(
        levels(&scattered) >= 5 && levels(&single) <= 2,
        "{scattered:?} {single:?}"
    );
    assert!(
        r2 >= 0.9 && r2_single <= 0.8,
        "R^2 {r2} with the scatter, {r2_single} without"
    );
}

/// Issue 23, item 3: the standard crease-recovery test (`crease experiment
/// crease-recovery`) of cotton whose hinges' dwell times scatter over 3
/// decades on a spectrum leaning to the long times (`scatter_skew` 0.27,
/// model/decay.rs): pressed for 1 to 1000 material seconds, it recovers
/// along a line in log hold time. Measured (recovery read as the
/// experiment reads it, 0.5 s after the lift, the standard's 5 minutes):
/// 83.9, 78.8, 73.9, 62.2, 59.2, 52.0, 50.1 degrees, R^2 0.972 (asserted
/// at least 0.95; read at 0.25 s, 81.1 to 48.5, R^2 0.946); with the
/// scatter even in log time, 76.4 to 56.4 falling fastest over the first
/// holds (R^2 0.923), and without it 99 then 52 in one step.
#[test]
fn a_skewed_scatter_of_dwell_times_makes_the_standard_recovery_a_line_in_log_hold_time() {
    let mut exp = crease::experiment::find("crease-recovery").unwrap();
    exp.variants.retain(|v| v.name.starts_with("cotton-scatter-"));
    assert_eq!(exp.variants.len(), 7);
    assert!(
        exp.variants[0]
            .sets
            .iter()
            .any(|s| s == "cloth.material.bending_friction.scatter_skew=0.27")
    );
    let (angles, slope, r2) = recovery_against_log_hold(&exp, &[], "iso-skew", "recovery_angle");
    println!("skewed scatter: recovery {angles:.1?} deg, slope {slope:.1} deg per decade, R^2 {r2:.3}");
    assert!(
        angles.windows(2).all(|w| w[1] <= w[0] + 0.5),
        "recovery must not rise with the hold: {angles:?}"
    );
    assert!(angles[0] - angles[6] > 20.0, "{angles:?}");
    assert!(r2 >= 0.95, "R^2 {r2}: {angles:?}");
}
