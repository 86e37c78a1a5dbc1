//! The paper's garment claims (Gong et al. 2025 §4.2, Figs. 5-7, issue 20
//! part 5) and `crease experiment` on a garment, end to end. The trousers'
//! claims run on the CPU, on a smaller and faster version of the built-in
//! `trousers-sit` scene: 3.5 cm edges (about 1.1K vertices), a 4 ms step,
//! and every phase half as long (pose 0.5 s, hold 0.25 s, return 0.5 s,
//! settle 0.25 s, bare 0.25 s), with the scenes' multilevel
//! preconditioner (the claims on the seat take 2.5 cm edges; the claims on
//! stretch and contact run at the scenes' own pace, 1 ms steps). Runs go
//! two at a time on one thread each (`run_until`), which on 2 cores gets
//! more done than one run at a time on both: the file took 194 s
//! (2026-12-03, in the whole suite, once the steps between output frames
//! stopped measuring the contact depths; 277 s before; 602 s on
//! 2026-12-02, when the machine ran at half speed; 375 s with block
//! Jacobi and the 2 ms steps before 2026-11-29).
//! Residual bend here is the mean plastic bend angle of a garment group's
//! hinges once the body has returned to rest and the cloth has settled:
//! the set that stays (|theta - theta_rest| at this resolution is
//! dominated by how the whole garment hangs, which a hold does not
//! change). The claims read it on the body, as the `bare` phase (the body
//! taken away) begins, but for Fig. 6 e-h's, read at the end.

mod common;

use common::tools::{crease, folder, png_pixels};
use crease::cpu::CpuBackend;
use crease::experiment;
use crease::measure::{GroupBend, group_bends};
use crease::output::{self, RunOptions, SceneKey};
use crease::plot::Metrics;
use crease::scene;
use crease::sim::Simulation;
use std::collections::BTreeMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

/// The smaller version of the experiment's scene.
const SMALL: [&str; 10] = [
    "cloth.mesh.trousers.edge=0.035",
    "dt=0.004",
    "timeline.pose.duration=0.5",
    "timeline.hold.duration=0.25",
    "timeline.return.duration=0.5",
    "timeline.settle.duration=0.25",
    "timeline.bare.duration=0.25",
    "obstacles.body.shape.mannequin.ramp=0.5",
    "obstacles.body.shape.mannequin.hold=0.25",
    "obstacles.body.shape.mannequin.back=0.5",
];

/// What a run left: its garment groups' bends on the body after it has
/// settled, and at the end with the body taken away (where it ran that
/// far), and per output frame the deepest point inside the body, the
/// crossing triangle pairs and the most stretched edge.
struct Outcome {
    groups: BTreeMap<String, GroupBend>,
    bare: BTreeMap<String, GroupBend>,
    /// Per frame: the deepest vertex inside an obstacle before the §5.3
    /// lift (the last step's), m, and the deepest edge midpoint.
    penetration: Vec<f64>,
    edge_penetration: Vec<f64>,
    intersections: Vec<f64>,
    /// Per frame: the largest edge strain (length over rest length, less 1),
    /// and the largest principal stretch of a triangle.
    stretch: Vec<f64>,
    principal: Vec<f64>,
    thickness: f64,
}

impl Outcome {
    fn plastic(&self, group: &str) -> f64 {
        self.groups[group].mean_abs_plastic_bend
    }

    fn bare_plastic(&self, group: &str) -> f64 {
        self.bare[group].mean_abs_plastic_bend
    }
}

/// Runs (once per test binary) the experiment's variant `name`, made
/// [`SMALL`], with the extra overrides `extra`.
fn run(name: &str, extra: &[&str]) -> Arc<Outcome> {
    let sets: Vec<&str> = SMALL.iter().chain(extra).copied().collect();
    run_until(name, &sets, None)
}

/// Runs (once per test binary) the experiment's variant `name` with the
/// overrides `sets`, to the end of its timeline or to `until` seconds.
/// Tests that need the same run wait for the first one's; different runs
/// go side by side (as many as the harness has test threads), each on one
/// thread (`CpuBackend::with_threads`), which on 2 cores gets more done
/// than one run at a time on both.
fn run_until(name: &str, sets: &[&str], until: Option<f64>) -> Arc<Outcome> {
    /// A run by its key, done or under way.
    type Run = Arc<OnceLock<Arc<Outcome>>>;
    static RUNS: OnceLock<Mutex<BTreeMap<String, Run>>> = OnceLock::new();
    let key = format!("{name} {sets:?} {until:?}");
    let run = Arc::clone(
        RUNS.get_or_init(Default::default)
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .entry(key.clone())
            .or_default(),
    );
    Arc::clone(run.get_or_init(|| simulate(name, sets, until, &key)))
}

/// The run of [`run_until`], into a folder of its own.
fn simulate(name: &str, sets: &[&str], until: Option<f64>, key: &str) -> Arc<Outcome> {
    static FOLDERS: AtomicUsize = AtomicUsize::new(0);
    let exp = experiment::find("trousers").unwrap();
    let v = exp.variants.iter().find(|v| v.name == name).unwrap();
    let sets: Vec<String> = v
        .sets
        .iter()
        .cloned()
        .chain(sets.iter().map(|s| s.to_string()))
        .collect();
    let scene = scene::load(exp.scene, &sets).unwrap();
    let thickness = scene.obstacles[0].thickness;
    let out_dir = folder(&format!("trousers-{name}-{}", FOLDERS.fetch_add(1, Ordering::Relaxed)));
    let opts = RunOptions {
        out_dir: out_dir.clone(),
        until,
        dump_state: false,
        check_intersections: true,
        checkpoint_every: None,
        scene_key: SceneKey::new(&scene, exp.scene, &sets),
        resume: None,
    };
    let backend = Box::new(CpuBackend::with_threads(Arc::clone(&scene.cloth), 1));
    let mut sim = Simulation::new(scene, backend);
    let groups = |sim: &Simulation| {
        let b = sim.backend();
        group_bends(&b.cloth(), &b.positions().unwrap(), &b.channels().unwrap())
    };
    let mut dressed = None;
    output::run(&mut sim, &opts, &mut |p| {
        if p.phase == experiment::garment::BARE && dressed.is_none() {
            dressed = Some(groups(p.sim));
        }
    })
    .unwrap();
    let m = Metrics::read(&out_dir.join("metrics.csv")).unwrap();
    let outcome = Arc::new(Outcome {
        groups: match until {
            None => dressed.expect("the scene takes the body away"),
            Some(_) => dressed.unwrap_or_default(),
        },
        bare: groups(&sim),
        penetration: m.column("unlifted_penetration").unwrap().to_vec(),
        edge_penetration: m.column("edge_penetration").unwrap().to_vec(),
        intersections: m.column("intersections").unwrap().to_vec(),
        stretch: m.column("max_edge_strain").unwrap().to_vec(),
        principal: m.column("max_stretch").unwrap().to_vec(),
        thickness,
    });
    println!("{key}: {:?}\nbare: {:?}", outcome.groups, outcome.bare);
    // The frames are not read again; `crease run trousers-sit` with the
    // key's settings writes them.
    std::fs::remove_dir_all(&out_dir).unwrap();
    outcome
}

/// Edges fine enough for the seat, squeezed between the seated body and
/// the seat: at 3.5 cm its cloth crosses itself (48 pairs; 6 at 3 cm),
/// and its plastic set after a short hold swings between 0.010 and 0.048
/// rad as rounding-sized changes to the step tip the tangle one way or the
/// other; at 2.5 cm the seat crosses nowhere and its figures move by a few
/// percent under the same changes.
const FINE: &str = "cloth.mesh.trousers.edge=0.025";

/// After release, the 500-material-second hold leaves more residual bend
/// than the short hold at the knees and the seat: at least 1.2 times as
/// much, in cotton and in denim.
#[test]
fn a_long_hold_leaves_sharper_knees_and_seat_in_cotton_and_denim() {
    for fabric in ["cotton", "denim"] {
        let short = run(&format!("{fabric}-sit-short"), &[FINE]);
        let long = run(&format!("{fabric}-sit-long"), &[FINE]);
        for group in ["knees", "seat"] {
            let ratio = long.plastic(group) / short.plastic(group);
            println!(
                "{fabric} {group}: residual {:.4} rad after the long hold, {:.4} after the short: {ratio:.2}x",
                long.plastic(group),
                short.plastic(group)
            );
            assert!(ratio >= 1.2, "{fabric} {group}: long/short {ratio:.3}");
        }
    }
}

/// The in-model control of the claim above (issue 24): cotton with its
/// time dependence off inside the models (`common::TIMELESS`: the dwell
/// threshold cannot grow, the hardening modulus cannot decay) leaves the
/// same plastic set at the knees and the seat after either hold, within 1%
/// (measured: equal), where the full model clears 1.2x.
#[test]
fn without_the_models_clocks_the_hold_leaves_the_trousers_as_they_were() {
    let mut timeless = vec![FINE, r#"cloth.material={"preset": "trousers-cotton"}"#];
    timeless.extend(common::TIMELESS);
    let short = run("cotton-sit-short", &timeless);
    let long = run("cotton-sit-long", &timeless);
    for group in ["knees", "seat"] {
        let (s, l) = (short.plastic(group), long.plastic(group));
        println!("timeless cotton {group}: residual {l:.5} rad after the long hold, {s:.5} after the short");
        assert!(s > 0.005, "{group}: the timeless trousers keep a set to compare: {s}");
        assert!((l / s - 1.0).abs() <= 0.01, "{group}: long {l} vs short {s}");
    }
}

/// Sitting (both knees at 90 degrees, on a seat) leaves more residual bend
/// at the knees than lifting one leg, after the long hold.
#[test]
fn sitting_leaves_more_at_the_knees_than_lifting_a_leg() {
    let sit = run("cotton-sit-long", &[]);
    let lift = run("cotton-lift-leg-long", &[]);
    println!(
        "knees: {:.4} rad after sitting, {:.4} after lifting a leg",
        sit.plastic("knees"),
        lift.plastic("knees")
    );
    assert!(sit.plastic("knees") > 1.2 * lift.plastic("knees"));
}

/// The set is the pose's: the same trousers on a mannequin that stands
/// still through the same timeline (the `a-pose` clip, no seat) keep under
/// a tenth of the sit's plastic bend at the knees and the seat after the
/// long hold. Measured here (3.5 cm edges): no hinge of the standing
/// trousers yields, against the sit's 0.0849 rad at the knees and 0.0177
/// at the seat (2026-12-07). At the pictures' 2 cm edges
/// (`crease experiment trousers --variants cotton-sit-long --set
/// obstacles.body.shape.mannequin.clip=a-pose`): 0.00003 rad at the knees
/// against the sit's 0.0559, 0.00001 at the seat against 0.0169.
#[test]
fn standing_still_leaves_no_set() {
    let sit = run("cotton-sit-long", &[]);
    let stand = run("cotton-sit-long", &["obstacles.body.shape.mannequin.clip=a-pose"]);
    for group in ["knees", "seat"] {
        let (s, a) = (sit.plastic(group), stand.plastic(group));
        println!("{group}: {a:.2e} rad standing still, {s:.5} after sitting");
        assert!(s > 0.005, "{group}: the sit leaves a set to compare: {s}");
        assert!(a < 0.1 * s, "{group}: standing {a} vs sitting {s}");
    }
}

/// Gong Fig. 6 e-h: the same trousers with the body taken away, hanging
/// from the waistband. They keep the set they took on the body (at the
/// knees and the seat they lose at most 5% of it; hanging may add a little,
/// at most a quarter: measured at most 7.6%, the short sit's seat),
/// so without the body the long sit still leaves at least 1.2 times the
/// short one's, and sitting more than lifting a leg at the knees.
#[test]
fn without_the_body_the_trousers_keep_what_the_hold_left() {
    let short = run("cotton-sit-short", &[FINE]);
    let long = run("cotton-sit-long", &[FINE]);
    let lift = run("cotton-lift-leg-long", &[]);
    let sit = run("cotton-sit-long", &[]);
    for (name, o) in [("short", &short), ("long", &long)] {
        for group in ["knees", "seat"] {
            let (on, off) = (o.plastic(group), o.bare_plastic(group));
            println!("{name} {group}: {on:.5} rad on the body, {off:.5} without it");
            assert!(off >= 0.95 * on && off <= 1.25 * on, "{name} {group}: {on} -> {off}");
        }
    }
    for group in ["knees", "seat"] {
        let ratio = long.bare_plastic(group) / short.bare_plastic(group);
        println!("without the body, {group}: long/short {ratio:.2}x");
        assert!(ratio >= 1.2, "{group}: {ratio}");
    }
    let (s, l) = (sit.bare_plastic("knees"), lift.bare_plastic("knees"));
    println!("without the body, knees: {s:.4} rad after sitting, {l:.4} after lifting a leg");
    assert!(s > 1.2 * l);
}

/// Gong §4.2 on Fig. 6 e-h: without the body "some wrinkles disappear
/// ... the ones that are soft and mainly caused by the internal
/// friction". The long sit with bending and in-plane plasticity off
/// (friction alone holds its wrinkles) and with friction off (plasticity
/// alone): taken off the body, the friction-only trousers lose more of
/// their knees' wrinkles (hinges bent more than 0.3 rad from rest) and
/// more of their knees' mean bend than the plastic-only ones, by at
/// least 5 points each (measured 241 -> 213 wrinkles, 11.6%, and 0.918 of
/// the bend; plastic-only 176 -> 193, -9.7%, and 1.041: hanging adds
/// some). How many go swings with rounding-sized changes of the
/// trajectory, since many hinges lie near the line (8% to 28% as the mesh
/// and the solver changed, 2026-11-29 to 2026-12-02).
///
/// Why not most of them: after a long hold a hinge's friction threshold
/// (Eq. 8, up to `eps_inf` = 1.2 rad) is far above what its spring to the
/// anchor carries, so nothing slips, and with the body gone the hinge
/// settles no further than where its elastic spring (to the rest angle)
/// and its friction spring (to the anchor) balance: `theta - theta_rest =
/// k_f / (k_b + k_f) (anchor - theta_rest)`, 0.8 of the anchored bend with
/// Table 3's cotton trousers (`k_f` = 4 `k_b`). So the friction-only knees
/// keep at least three quarters of their mean bend, and the plastic-only
/// ones all of theirs.
#[test]
fn without_the_body_friction_wrinkles_go_and_plastic_ones_stay() {
    let cotton = r#"cloth.material={"preset": "trousers-cotton"}"#;
    let friction = run(
        "cotton-sit-long",
        &[
            cotton,
            "cloth.material.bending_plasticity.model=none",
            "cloth.material.in_plane_plasticity.model=none",
        ],
    );
    let plastic = run(
        "cotton-sit-long",
        &[
            cotton,
            "cloth.material.bending_friction.model=none",
            "cloth.material.in_plane_friction.model=none",
        ],
    );
    let lost = |o: &Outcome| {
        let (on, off) = (o.groups["knees"].wrinkles, o.bare["knees"].wrinkles);
        assert!(on > 50, "{on} wrinkles at the knees to compare");
        (on as f64 - off as f64) / on as f64
    };
    let (f, p) = (lost(&friction), lost(&plastic));
    println!(
        "knees' wrinkles lost without the body: {:.1}% friction only ({} -> {}), {:.1}% plasticity only ({} -> {})",
        100.0 * f,
        friction.groups["knees"].wrinkles,
        friction.bare["knees"].wrinkles,
        100.0 * p,
        plastic.groups["knees"].wrinkles,
        plastic.bare["knees"].wrinkles
    );
    let kept = |o: &Outcome| o.bare["knees"].mean_abs_bend / o.groups["knees"].mean_abs_bend;
    let (fk, pk) = (kept(&friction), kept(&plastic));
    println!("knees' mean bend kept without the body: {fk:.3} friction only, {pk:.3} plasticity only");
    assert!(f >= p + 0.05, "wrinkles lost: friction only {f}, plasticity only {p}");
    assert!(fk <= pk - 0.05, "bend kept: friction only {fk}, plasticity only {pk}");
    assert!(
        fk >= 0.75,
        "friction only keeps {fk} of its bend, the model at least 0.8"
    );
    assert!(pk >= 0.95, "plasticity only keeps {pk} of its bend");
}

/// Polyester, whose yield is highest (Table 3), keeps the least of the
/// three fabrics at the knees and the seat after the long hold (at the
/// seat's edges, [`FINE`]).
#[test]
fn polyester_keeps_the_least() {
    let of = |f: &str| run(&format!("{f}-sit-long"), &[FINE]);
    let (polyester, others) = (of("polyester"), [of("cotton"), of("denim")]);
    for group in ["knees", "seat"] {
        let least = others.iter().map(|o| o.plastic(group)).fold(f64::INFINITY, f64::min);
        println!(
            "{group}: polyester {:.5} rad, cotton and denim at least {least:.5}",
            polyester.plastic(group)
        );
        assert!(polyester.plastic(group) < 0.2 * least, "{group}");
    }
}

/// At every output frame of `o`: no edge stretched past 30%, no
/// triangle's largest principal stretch past 50% (the trousers' mesh had
/// tall slivers below the crotch ring before 2026-12-01, whose sides
/// stayed within 24% while they stretched 67%), no cloth point deeper than
/// half the contact thickness inside the body, and no two cloth triangles
/// crossing.
fn assert_clean(o: &Outcome) {
    let deepest = o.penetration.iter().copied().fold(0.0, f64::max);
    let edges = o.edge_penetration.iter().copied().fold(0.0, f64::max);
    let crossings = o.intersections.iter().copied().fold(0.0, f64::max);
    let stretch = o.stretch.iter().copied().fold(0.0, f64::max);
    let principal = o.principal.iter().copied().fold(0.0, f64::max);
    println!(
        "most stretched edge {:.1}% (a triangle's principal stretch {:.1}%), deepest {:.2} mm inside the body before the lift ({:.2} mm at an edge's midpoint), at most {crossings} crossing pairs, over {} frames",
        stretch * 100.0,
        principal * 100.0,
        deepest * 1e3,
        edges * 1e3,
        o.penetration.len()
    );
    assert!(o.penetration.len() > 60, "{} frames", o.penetration.len());
    assert!(stretch <= 0.3, "an edge stretched {stretch}");
    assert!(principal <= 0.5, "a triangle stretched {principal}");
    assert!(deepest <= o.thickness / 2.0, "{deepest} m inside");
    assert_eq!(crossings, 0.0);
}

/// Sat down at the scene's own pace (1 s to sit, held 0.5 s, 1 s to
/// stand up, at 1 ms steps) with 2.5 cm edges, up to the end of the
/// return, the trousers stay clean ([`assert_clean`]): measured 21.3%
/// at most, a triangle's principal stretch 37.6% (26.0% on edges at the
/// 2 ms steps and block Jacobi of before 2026-11-29). (Twice as fast, as
/// the other claims run, the cloth lagged the body at 2 ms steps and
/// single edges at the front of the knees reached 40-60% for a frame or
/// two.)
#[test]
fn sitting_at_the_scenes_pace_stretches_no_edge_past_30_percent_and_stays_outside_the_body() {
    assert_clean(&run_until("cotton-sit-long", &[FINE], Some(2.5)));
}

/// Lifting a leg at the scene's pace, likewise: measured 26.0% at most,
/// under the back of the crotch seam through the hold (1.16 s), and a
/// triangle's principal stretch 42.4% (docs/garments.md). Before the band
/// below the crotch ring was divided (2026-12-01) its edges reached 23.4%
/// while its tall triangles stretched 67.1%.
#[test]
fn lifting_a_leg_at_the_scenes_pace_stretches_no_edge_past_30_percent_and_stays_outside_the_body() {
    assert_clean(&run_until("cotton-lift-leg-long", &[FINE], Some(2.5)));
}

/// Every phase of a garment scene a tenth as long (0.3 s in all), at 5 ms
/// steps: with 5 cm edges, a tiny garment's experiment in seconds.
const TINY: [&str; 8] = [
    "dt=0.005",
    "timeline.pose.duration=0.1",
    "timeline.hold.duration=0.05",
    "timeline.return.duration=0.1",
    "timeline.settle.duration=0.05",
    "obstacles.body.shape.mannequin.ramp=0.1",
    "obstacles.body.shape.mannequin.hold=0.05",
    "obstacles.body.shape.mannequin.back=0.1",
];

/// Runs `crease experiment NAME` on the CPU into `out` with [`TINY`] and
/// `sets`; asserts that it succeeds and returns what it printed and its
/// `experiment.json`.
fn tiny_experiment(name: &str, out: &std::path::Path, sets: &[&str]) -> (String, serde_json::Value) {
    let mut args = vec![
        "experiment",
        name,
        "--backend",
        "cpu",
        "--quiet",
        "--out",
        out.to_str().unwrap(),
    ];
    for s in TINY.iter().chain(sets) {
        args.extend(["--set", s]);
    }
    let o = crease(&args);
    let stdout = String::from_utf8_lossy(&o.stdout).into_owned();
    println!("{stdout}{}", String::from_utf8_lossy(&o.stderr));
    assert!(o.status.success());
    let text = std::fs::read_to_string(out.join("experiment.json")).unwrap();
    (stdout, serde_json::from_str(&text).unwrap())
}

/// `crease experiment trousers` on tiny trousers (5 cm edges, every phase
/// a tenth as long): each variant reports its groups on the body and, as
/// `bare_groups`, with the body taken away; `sheet.png` draws the
/// trousers on the body as it is taken away (Fig. 6 a-d: the grey body
/// fills much of each tile) and `bare.png` at the end without it (e-h).
#[test]
fn the_trousers_experiment_shows_them_on_the_body_and_without_it() {
    let out = folder("garments-trousers");
    let sets = ["cloth.mesh.trousers.edge=0.05", "timeline.bare.duration=0.05"];
    let (stdout, result) = tiny_experiment("trousers", &out, &sets);
    assert!(stdout.contains("With the body taken away"));
    assert_eq!(
        result["pictures"],
        serde_json::json!(["sheet.png", "bare.png", "difference.png"])
    );
    let variants = result["variants"].as_array().unwrap();
    assert_eq!(variants.len(), 12);
    for v in variants {
        for key in ["groups", "bare_groups"] {
            assert!(v[key]["knees"]["hinges"].as_u64().unwrap() > 20, "{} {key}", v["name"]);
        }
        // The table's strain is the run's worst frame, not the last
        // (taken without the body).
        let name = v["name"].as_str().unwrap();
        let m = Metrics::read(&out.join(name).join("metrics.csv")).unwrap();
        let most = m
            .column("max_edge_strain")
            .unwrap()
            .iter()
            .copied()
            .fold(f64::MIN, f64::max);
        assert_eq!(v["summary"]["worst"]["max_edge_strain"].as_f64(), Some(most), "{name}");
        assert!(most >= v["summary"]["final"]["max_edge_strain"].as_f64().unwrap());
        let row = stdout.lines().find(|l| l.starts_with(name)).unwrap();
        assert!(row.contains(&format!("{most:.6}")), "{name}: {row}, worst {most}");
    }
    assert!(stdout.contains("worst_max_edge_strain"));
    // Grey, as the body is drawn: red and blue within 6 of each other,
    // darker than the background.
    let grey = |name: &str| {
        let (_, _, pixels) = png_pixels(&out.join(name));
        pixels
            .iter()
            .filter(|p| (p[0] as i32 - p[2] as i32).abs() < 6 && p[0] < 200)
            .count()
    };
    let (on, off) = (grey("sheet.png"), grey("bare.png"));
    println!("grey pixels: {on} on the body, {off} without it");
    assert!(on > 10 * off, "{on} vs {off}");
    std::fs::remove_dir_all(&out).unwrap();
}

/// `crease experiment tshirt` on a tiny t-shirt (5 cm edges, every phase a
/// tenth as long: 0.3 s): the groups' table and `experiment.json`, the
/// elbows keeping more plastic bend after the long hold, the contact sheet
/// of both variants with the body, and the difference picture, red at the
/// elbows, over its colour bar.
#[test]
fn the_tshirt_experiment_reports_its_groups_and_draws_the_difference() {
    let out = folder("garments-tshirt");
    let edge = "cloth.mesh.tshirt.edge=0.05";
    let (stdout, result) = tiny_experiment("tshirt", &out, &[edge]);
    assert!(stdout.contains("mean_abs_plastic_bend") && stdout.contains("elbows"));
    let elbows = |k: usize| result["variants"][k]["groups"]["elbows"].clone();
    assert_eq!(result["variants"][0]["name"], "short");
    assert_eq!(result["pictures"], serde_json::json!(["sheet.png", "difference.png"]));
    assert!(elbows(0)["hinges"].as_u64().unwrap() > 20);
    let plastic = |k: usize| elbows(k)["mean_abs_plastic_bend"].as_f64().unwrap();
    println!(
        "elbows: {:.4} rad after the short hold, {:.4} after the long",
        plastic(0),
        plastic(1)
    );
    assert!(plastic(1) > 1.2 * plastic(0) && plastic(0) > 0.0);
    // The in-model control (issue 24): with the time dependence off inside
    // the models, the long hold leaves the elbows as the short one does.
    let control = folder("garments-tshirt-timeless");
    let mut sets = vec![edge, r#"cloth.material={"preset": "trousers-cotton"}"#];
    sets.extend(common::TIMELESS);
    let (_, timeless) = tiny_experiment("tshirt", &control, &sets);
    let plastic = |k: usize| {
        timeless["variants"][k]["groups"]["elbows"]["mean_abs_plastic_bend"]
            .as_f64()
            .unwrap()
    };
    println!(
        "timeless elbows: {:.4} rad after the short hold, {:.4} after the long",
        plastic(0),
        plastic(1)
    );
    assert!(plastic(0) > 0.0 && (plastic(1) / plastic(0) - 1.0).abs() <= 0.01);
    // Two tiles of 400 x 300 over their labels.
    let (w, h, _) = png_pixels(&out.join("sheet.png"));
    assert_eq!((w, h), (800, 328));
    // One tile of 360 x 420, its label, and the colour bar.
    let (w, h, pixels) = png_pixels(&out.join("difference.png"));
    assert_eq!((w, h), (360, 420 + 28 + 64));
    let red = pixels[..(360 * 420) as usize]
        .iter()
        .filter(|p| p[0] as i32 > p[2] as i32 + 40)
        .count();
    println!("{red} red pixels");
    assert!(red > 50, "{red} red pixels: the long hold's extra set is not drawn");
    std::fs::remove_dir_all(&out).unwrap();
    std::fs::remove_dir_all(&control).unwrap();
}
