//! The paper's claims as numbers, on the small built-in experiment scenes
//! (CPU reference backend). Residual = `region_mean_abs_bend` (the fold's
//! hinges) or `mean_abs_bend` (the whole cloth) once the cloth has come to
//! rest after release.

use crease::cpu::CpuBackend;
use crease::experiment;
use crease::measure::Measures;
use crease::sim::Simulation;
use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

/// Final measures of an experiment's variant (with extra overrides), run
/// once per test binary and shared between tests; checks that the bends
/// have settled.
fn run(exp: &str, variant: &str, extra: &[&str]) -> Measures {
    run_checked(exp, variant, extra, true)
}

fn run_checked(exp: &str, variant: &str, extra: &[&str], settled: bool) -> Measures {
    static CACHE: OnceLock<Mutex<HashMap<String, Measures>>> = OnceLock::new();
    let key = format!("{exp}/{variant}/{extra:?}");
    if let Some(m) = CACHE.get_or_init(Default::default).lock().unwrap().get(&key) {
        return *m;
    }
    let e = experiment::find(exp).unwrap();
    let v = e.variants.iter().find(|v| v.name == variant).unwrap();
    let sets: Vec<String> = extra.iter().map(|s| s.to_string()).collect();
    let scene = experiment::variant_scene(&e, v, &sets).unwrap();
    let settle = (0.1 / scene.dt).round() as u64;
    let total = scene.total_steps();
    let backend = Box::new(CpuBackend::new(Arc::clone(&scene.cloth)));
    let mut sim = Simulation::new(scene, backend);
    let mut before = None;
    while !sim.done() {
        sim.step().unwrap();
        if sim.steps() == total - settle {
            before = Some(sim.backend().measure());
        }
    }
    let m = sim.backend().measure();
    // At rest: the bends no longer change (a released cloth in zero gravity
    // may still drift or spin as a whole; that changes no bend).
    let b = before.unwrap();
    let pairs = [
        ("region_mean_abs_bend", b.region_mean_abs_bend, m.region_mean_abs_bend),
        ("mean_abs_bend", b.mean_abs_bend, m.mean_abs_bend),
    ];
    for (name, x, y) in pairs.into_iter().filter(|_| settled) {
        assert!(
            (x - y).abs() <= 0.03 * y + 1e-4,
            "{key} not at rest: {name} {x} -> {y} over the last 0.1 s"
        );
    }
    CACHE.get_or_init(Default::default).lock().unwrap().insert(key, m);
    m
}

fn residual(exp: &str, variant: &str) -> f64 {
    run(exp, variant, &[]).region_mean_abs_bend
}

#[test]
fn claim_1_friction_wrinkles_persist_longer_after_a_long_hold() {
    let short = residual("ablation-friction", "short");
    let long = residual("ablation-friction", "long");
    let elastic = residual("ablation-friction", "elastic");
    println!("friction residual: short {short:.4}, long {long:.4}, elastic {elastic:.2e}");
    assert!(short > 0.01, "a short hold leaves some wrinkle: {short}");
    assert!(long >= 1.3 * short, "long {long} vs short {short}");
    assert!(elastic * 5.0 <= short, "elastic {elastic} vs short {short}");
}

#[test]
fn claim_2_plastic_wrinkles_grow_with_hold_and_are_sharper() {
    let short = residual("ablation-plastic", "short");
    let long = residual("ablation-plastic", "long");
    println!("plastic residual: short {short:.4}, long {long:.4}");
    assert!(long >= 1.3 * short, "long {long} vs short {short}");
    for hold in ["short", "long"] {
        let plastic = run("ablation-plastic", hold, &[]).region_max_abs_bend;
        let friction = run("ablation-friction", hold, &[]).region_max_abs_bend;
        assert!(
            plastic > friction,
            "{hold}: plastic peak {plastic} vs friction peak {friction}"
        );
    }
}

#[test]
fn claim_3_baselines_have_no_time_dependence() {
    for (exp, short, long) in [
        ("ablation-friction", "dahl-short", "dahl-long"),
        ("ablation-plastic", "time-independent-short", "time-independent-long"),
    ] {
        let (s, l) = (residual(exp, short), residual(exp, long));
        println!("{exp}: {short} {s:.4}, {long} {l:.4}");
        assert!(s > 0.01, "{exp} {short}: {s}");
        assert!((l - s).abs() <= 0.05 * s, "{exp}: {short} {s} vs {long} {l}");
    }
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

#[test]
fn claim_5_cotton_keeps_more_twist_wrinkles_than_denim_than_polyester() {
    // Appendix A.2: twist, hold, twist back, then observe (0.4 s after the
    // return). Observed, not settled: long after the return a long-held denim
    // or polyester cylinder slowly buckles from its in-plane plastic
    // elongation (the tensile channels share one parameter set), a separate,
    // slower instability than the wrinkle memory compared here.
    let r = |v: &str| run_checked("cylinder-twist", v, &[], false).mean_abs_bend;
    let long = [r("cotton-long"), r("denim-long"), r("polyester-long")];
    println!("cylinder twist residual, long hold (cotton, denim, polyester): {long:?}");
    assert!(long[0] > long[1] && long[1] > long[2], "{long:?}");
    for m in ["cotton", "denim"] {
        let (s, l) = (r(&format!("{m}-short")), r(&format!("{m}-long")));
        assert!(l > s, "{m}: long {l} vs short {s}");
    }
}
