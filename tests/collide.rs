//! Obstacle collisions on the CPU reference: resting contact, Coulomb
//! friction on a slope, obstacles that move and go away.

use crease::cpu::CpuBackend;
use crease::scene::{self, Scene};
use crease::sim::Simulation;
use std::path::Path;
use std::sync::Arc;

fn parse(v: &serde_json::Value) -> Scene {
    scene::parse("test.json", "test", &v.to_string(), Path::new("."), &[]).unwrap_or_else(|e| panic!("{e}"))
}

/// The deepest a run went under an obstacle's surface, m, over all steps.
#[derive(Debug, Default)]
struct Depths {
    /// A vertex after the §5.3 lift (reads 0 unless pinched).
    lifted: f64,
    /// A vertex before the lift: what the response left.
    unlifted: f64,
    /// An edge's midpoint after the step.
    edges: f64,
}

fn run(scene: Scene) -> (Simulation, Depths, usize) {
    let backend = Box::new(CpuBackend::new(Arc::clone(&scene.cloth)));
    let mut sim = Simulation::new(scene, backend);
    let (mut deepest, mut contacts) = (Depths::default(), 0);
    while !sim.done() {
        let info = sim.step().unwrap_or_else(|e| panic!("{e}"));
        let c = info.report.contact;
        deepest.lifted = deepest.lifted.max(c.penetration);
        deepest.unlifted = deepest.unlifted.max(c.unlifted);
        deepest.edges = deepest.edges.max(c.edge_penetration);
        contacts = c.contacts;
    }
    (sim, deepest, contacts)
}

#[test]
fn a_cloth_dropped_on_a_sphere_comes_to_rest_on_it() {
    let r = 0.12;
    let t = 0.002;
    let scene = scene::load(
        "sphere-drop",
        &[
            "cloth.mesh.grid.resolution=[12,12]".into(),
            "timeline.fall.duration=1.2".into(),
        ],
    )
    .unwrap();
    let (sim, deepest, contacts) = run(scene);
    let x = sim.backend().positions().unwrap();
    let v = sim.backend().velocities().unwrap();
    let nearest = x.iter().map(|p| p.length() - r).fold(f64::INFINITY, f64::min);
    // The part that lies on the ball is at rest (the free corners below it
    // may still swing: a coarse, lightly damped cloth).
    let fastest = x
        .iter()
        .zip(&v)
        .filter(|(p, _)| p.length() - r < 2.0 * t)
        .map(|(_, v)| v.length())
        .fold(0.0, f64::max);
    println!("deepest {deepest:?} m, nearest {nearest:.2e} m, {contacts} contacts, fastest {fastest:.2e} m/s");
    // Contact is per vertex: an edge between two vertices resting on the
    // ball cuts in by its chord's sagitta, `R - sqrt((R + t)^2 - L^2 / 4)`
    // for the longest edge (a 5.9 cm diagonal: 1.6 mm).
    let longest = sim.scene.cloth.edge_rest.iter().copied().fold(0.0, f64::max);
    let chord = r - ((r + t).powi(2) - longest * longest / 4.0).sqrt();
    assert!(
        deepest.unlifted < 0.1 * t && deepest.edges < chord + 0.25 * t,
        "went deeper than the response allows (t {t}, chord {chord}): {deepest:?}"
    );
    assert!(nearest > -0.1 * t, "a vertex ended {nearest} m inside the ball");
    assert!(contacts >= 9, "only {contacts} vertices rest on the ball");
    // The middle vertex lies on top of the ball, at the contact thickness.
    let top = x.iter().map(|p| p.y).fold(f64::NEG_INFINITY, f64::max);
    assert!((top - (r + t)).abs() < 0.5 * t, "top of the cloth at {top}");
    assert!(fastest < 0.01, "the cloth on the ball still moves at {fastest} m/s");
}

/// A 10 cm square on a horizontal floor with gravity tilted by `slope`:
/// the same as a slope of that angle. Returns the mean downhill travel.
fn slide(slope: f64, mu: f64) -> f64 {
    let g = 9.81;
    let scene = parse(&serde_json::json!({
        "dt": 0.002,
        "gravity": [g * slope.sin(), -g * slope.cos(), 0.0],
        "cloth": {
            "mesh": { "grid": { "size": [0.1, 0.1], "resolution": [6, 6], "plane": "xz", "origin": [0.0, 0.001, 0.0] } },
            "material": "elastic"
        },
        "obstacles": { "floor": {
            "shape": { "plane": { "point": [0, 0, 0], "normal": [0, 1, 0] } },
            "friction": mu, "thickness": 0.001
        } },
        "timeline": [ { "name": "rest", "duration": 0.4 } ]
    }));
    let x0 = scene.cloth.mesh.positions.clone();
    let (sim, deepest, _) = run(scene);
    assert!(
        deepest.unlifted < 0.001 && deepest.edges < 0.001,
        "went into the floor: {deepest:?}"
    );
    let x = sim.backend().positions().unwrap();
    x.iter().zip(&x0).map(|(a, b)| a.x - b.x).sum::<f64>() / x.len() as f64
}

#[test]
fn on_a_slope_cloth_sticks_when_mu_exceeds_tan_slope_and_slides_otherwise() {
    let slope = 20f64.to_radians(); // tan = 0.364
    let stuck = slide(slope, 0.5);
    let slid = slide(slope, 0.2);
    // Sliding: a = g (sin - mu cos), travel a t^2 / 2 = 0.117 m in 0.4 s.
    let expected = 0.5 * 9.81 * (slope.sin() - 0.2 * slope.cos()) * 0.4 * 0.4;
    println!("travel: mu 0.5 {stuck:.2e} m, mu 0.2 {slid:.4} m (Coulomb {expected:.4} m)");
    assert!(stuck.abs() < 1e-4, "mu 0.5 > tan 20 deg, yet it moved {stuck} m");
    assert!(
        (slid - expected).abs() < 0.1 * expected,
        "mu 0.2 slid {slid} m, Coulomb says {expected}"
    );
}

#[test]
fn a_plate_presses_down_holds_and_is_taken_away() {
    // A sheet on a table; a plate comes down onto it, holds, is removed.
    let t = 0.001;
    let scene = parse(&serde_json::json!({
        "dt": 0.002,
        "cloth": {
            "mesh": { "grid": { "size": [0.1, 0.1], "resolution": [6, 6], "plane": "xz", "origin": [-0.05, 0.001, 0.05] } },
            "material": "cotton"
        },
        "obstacles": {
            "table": { "shape": { "box": { "center": [0, -0.05, 0], "half_extents": [0.2, 0.05, 0.2] } }, "thickness": t },
            "plate": { "shape": { "box": { "center": [0, 0.05, 0], "half_extents": [0.1, 0.01, 0.1] } }, "thickness": t }
        },
        "timeline": [
            { "name": "press", "duration": 0.1, "obstacles": { "plate": { "translate": [0, -0.038, 0] } } },
            { "name": "hold", "duration": 0.1 },
            { "name": "lift", "duration": 0.1, "obstacles": { "plate": "remove" } }
        ]
    }));
    let backend = Box::new(CpuBackend::new(Arc::clone(&scene.cloth)));
    let mut sim = Simulation::new(scene, backend);
    let mut pinched = 0;
    while !sim.done() {
        let info = sim.step().unwrap();
        let x = sim.backend().positions().unwrap();
        let y = x.iter().map(|p| p.y).fold(f64::NEG_INFINITY, f64::max);
        if sim.phase_name() == "hold" {
            // The plate's underside is at 0.002: the sheet is held between.
            assert!(y < 0.0021, "the sheet is at {y}, above the plate's underside");
            pinched = pinched.max(info.report.contact.contacts);
        }
    }
    assert_eq!(pinched, 49, "every vertex is between table and plate while held");
    let x = sim.backend().positions().unwrap();
    assert!(
        x.iter().all(|p| p.y > 0.0),
        "after the plate goes, the sheet is above the table"
    );
}

#[test]
fn a_mesh_obstacle_bakes_like_its_analytic_twin_and_is_cached() {
    // A closed, outward-wound cube of side 0.2 centred at the origin.
    let dir = std::env::temp_dir().join(format!("crease-cube-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let mut obj = String::new();
    for k in 0..8 {
        let c = |b: usize| if k >> b & 1 == 1 { 0.1 } else { -0.1 };
        obj += &format!("v {} {} {}\n", c(0), c(1), c(2));
    }
    for f in [
        [1, 3, 4, 2],
        [5, 6, 8, 7],
        [1, 2, 6, 5],
        [3, 7, 8, 4],
        [1, 5, 7, 3],
        [2, 4, 8, 6],
    ] {
        obj += &format!("f {} {} {} {}\n", f[0], f[1], f[2], f[3]);
    }
    std::fs::write(dir.join("cube.obj"), obj).unwrap();
    let scene_with = |shape: serde_json::Value| {
        let v = serde_json::json!({
            "dt": 0.001,
            "cloth": { "mesh": { "grid": { "size": [0.1, 0.1], "resolution": [2, 2] } }, "material": "cotton" },
            "obstacles": { "block": { "shape": shape, "cell": 0.01 } },
            "timeline": [ { "name": "a", "duration": 0.001 } ]
        });
        scene::parse("test.json", "test", &v.to_string(), &dir, &[]).unwrap_or_else(|e| panic!("{e}"))
    };
    let mesh = scene_with(serde_json::json!({ "mesh": { "path": "cube.obj" } }));
    let again = scene_with(serde_json::json!({ "mesh": { "path": "cube.obj" } }));
    let analytic = scene_with(serde_json::json!({ "box": { "center": [0, 0, 0], "half_extents": [0.1, 0.1, 0.1] } }));
    std::fs::remove_dir_all(&dir).unwrap();
    let grid = |s: &scene::Scene| s.obstacles[0].grid().unwrap().clone();
    let (m, a) = (&grid(&mesh), &grid(&analytic));
    assert_eq!(m, &grid(&again), "the cached bake differs");
    assert_eq!((m.dims, m.origin), (a.dims, a.origin));
    let worst = m
        .values
        .iter()
        .zip(&a.values)
        .map(|(p, q)| (p - q).abs())
        .fold(0.0f32, f32::max);
    assert!(worst < 1e-6, "mesh and analytic cube differ by {worst} m at a node");
    let cached = std::fs::read_dir(crease::collide::cache::cache_dir())
        .unwrap()
        .filter(|e| {
            e.as_ref()
                .is_ok_and(|e| e.file_name().to_string_lossy().starts_with("sdf-"))
        })
        .count();
    assert!(cached >= 1, "no cache entry was written");
}
