//! Self-collision (issue 6): layers folded or dropped onto each other stay
//! at least half the thickness apart, where without self-collision they
//! pass through each other; on the CPU, and the fold on the GPU too.

mod common;

use crease::cloth::Cloth;
use crease::collide::intersect::intersecting_pairs;
use crease::collide::proximity;
use crease::cpu::CpuBackend;
use crease::mesh::{Pattern, grid, write_obj};
use crease::scene::{self, Scene};
use crease::sim::Simulation;
use crease::step::Backend;
use glam::DVec3;
use std::sync::Arc;

fn cpu(cloth: Arc<Cloth>) -> Box<dyn Backend> {
    Box::new(CpuBackend::new(cloth))
}

fn gpu(cloth: Arc<Cloth>) -> Box<dyn Backend> {
    Box::new(crease::gpu::GpuBackend::new(cloth).unwrap())
}

/// What a run did: steps where two layers were closer than half the
/// thickness, the most proximity pairs of a step, the final positions and
/// the final fastest speed.
struct Layers {
    violations: usize,
    most_pairs: usize,
    x: Vec<DVec3>,
    speed: f64,
}

/// Runs `scene` on the CPU until phase `stop` (or the end).
fn closest_layers(scene: Scene, stop: &str) -> Layers {
    closest_layers_on(scene, stop, &cpu)
}

/// The same on the backend `make` gives.
fn closest_layers_on(scene: Scene, stop: &str, make: &dyn Fn(Arc<Cloth>) -> Box<dyn Backend>) -> Layers {
    let cloth = Arc::clone(&scene.cloth);
    let half = 0.5 * scene.self_collision.thickness;
    let mut sim = Simulation::new(scene, make(Arc::clone(&cloth)));
    let (mut violations, mut most) = (0, 0);
    while !sim.done() && sim.phase_name() != stop {
        let info = sim.step().unwrap();
        most = most.max(info.report.proximity_pairs);
        let x = sim.backend().positions().unwrap();
        let close = proximity::find(
            &cloth.mesh.faces,
            &cloth.topology.edges,
            &x,
            &cloth.mesh.positions,
            half,
        );
        if !close.pairs.is_empty() {
            violations += 1;
        }
    }
    let speed = sim
        .backend()
        .velocities()
        .unwrap()
        .iter()
        .map(|v| v.length())
        .fold(0.0, f64::max);
    Layers {
        violations,
        most_pairs: most,
        x: sim.backend().positions().unwrap(),
        speed,
    }
}

/// The specimen's right half is folded over by its handle, let go so that it
/// falls onto the left half, and pressed by a plate down to a gap of one
/// thickness; the run stops before the unfold.
fn folded_and_pressed(self_collision: bool) -> Scene {
    scene::load(
        "specimen",
        &[
            format!("self_collision.enabled={self_collision}"),
            "obstacles.plate.enabled=true".into(),
            "timeline.press.obstacles.plate={\"translate\": [0, -0.036, 0]}".into(),
            "timeline.press.handles.flap=\"release\"".into(),
        ],
    )
    .unwrap()
}

#[test]
fn a_sheet_folded_onto_itself_and_pressed_keeps_its_layers_apart() {
    let without = closest_layers(folded_and_pressed(false), "unfold").violations;
    let Layers {
        violations: with,
        most_pairs: pairs,
        x,
        ..
    } = closest_layers(folded_and_pressed(true), "unfold");
    let cloth = folded_and_pressed(true).cloth;
    println!("steps with layers closer than t/2: without {without}, with {with}; most pairs {pairs}");
    assert!(
        without > 10,
        "the control run should pass through itself ({without} steps)"
    );
    assert!(
        pairs > 10,
        "the layers should have come within the thickness ({pairs} pairs)"
    );
    assert_eq!(with, 0, "layers came closer than half the thickness");
    assert_eq!(intersecting_pairs(&cloth.mesh.faces, &x), 0);
}

#[test]
fn on_the_gpu_the_folded_and_pressed_layers_stay_apart_too() {
    if !common::have_gpu() {
        return;
    }
    let gpu = &gpu;
    let Layers {
        violations: with,
        most_pairs: pairs,
        x,
        ..
    } = closest_layers_on(folded_and_pressed(true), "unfold", gpu);
    let cloth = folded_and_pressed(true).cloth;
    println!("gpu: steps with layers closer than t/2: {with}; most pairs {pairs}");
    assert!(pairs > 10, "{pairs} pairs");
    assert_eq!(with, 0, "layers came closer than half the thickness");
    assert_eq!(intersecting_pairs(&cloth.mesh.faces, &x), 0);
}

/// The small `container` experiment with the plunger (16 x 16 cloth)
/// pressed down to 4 mm over the glass's floor, crushing the cloth's
/// layers together, with `extra` overrides.
fn pressed_container_scene(extra: &[&str]) -> Scene {
    let e = crease::experiment::find("container").unwrap();
    let v = e.variants.iter().find(|v| v.name == "pressed-short").unwrap();
    let mut sets = vec![
        "cloth.mesh.grid.resolution=[16,16]".to_string(),
        r#"timeline.press.obstacles.plunger={"translate": [0, -0.301, 0]}"#.to_string(),
    ];
    sets.extend(extra.iter().map(|s| s.to_string()));
    crease::experiment::variant_scene(&e, v, &sets).unwrap()
}

/// The pressed container (on the GPU with shorter phases): its final frame
/// has no crossing triangles. Returns what the run did.
fn pressed_container(extra: &[&str], make: &dyn Fn(Arc<Cloth>) -> Box<dyn Backend>) -> Layers {
    let scene = pressed_container_scene(extra);
    assert!(scene.self_collision.enabled);
    let cloth = Arc::clone(&scene.cloth);
    let run = closest_layers_on(scene, "", make);
    println!(
        "container pressed-short {extra:?}: most pairs {}, steps with layers within t/2 {}",
        run.most_pairs, run.violations
    );
    assert_eq!(intersecting_pairs(&cloth.mesh.faces, &run.x), 0);
    run
}

/// With a control: the same cloth without self-collision ends crossing
/// itself, and its layers come within half the thickness in a hundred
/// times more steps (measured: 786 against 0).
#[test]
fn the_pressed_container_cloth_ends_without_crossings() {
    let with = pressed_container(&[], &cpu);
    let scene = pressed_container_scene(&["self_collision.enabled=false"]);
    let cloth = Arc::clone(&scene.cloth);
    let without = closest_layers(scene, "");
    let crossing = intersecting_pairs(&cloth.mesh.faces, &without.x);
    println!(
        "without self-collision: {crossing} crossing pairs at the end, {} steps with layers within t/2",
        without.violations
    );
    assert!(crossing > 0, "the control should cross itself");
    assert!(
        20 * with.violations < without.violations,
        "layers within t/2 in {} steps, {} without self-collision",
        with.violations,
        without.violations
    );
}

#[test]
fn on_the_gpu_the_pressed_container_cloth_ends_without_crossings_too() {
    if !common::have_gpu() {
        return;
    }
    let gpu = &gpu;
    pressed_container(
        &[
            "timeline.press.duration=0.3",
            "timeline.hold.duration=0.05",
            "timeline.clear.duration=0.2",
            "timeline.lift.duration=0.5",
            "timeline.hang.duration=0.2",
        ],
        gpu,
    );
}

/// Two 10 cm sheets, the upper one turned 30 degrees, dropped 1 cm apart
/// onto a table.
fn two_sheets(dir: &std::path::Path, self_collision: bool) -> Scene {
    let sheet = grid(0.1, 0.1, 8, 8, Pattern::Alternating, DVec3::ZERO, (DVec3::X, DVec3::Z));
    let mut both = sheet.clone();
    let nv = sheet.positions.len() as u32;
    let (s, c) = (30f64.to_radians().sin(), 30f64.to_radians().cos());
    let turn = |p: DVec3| {
        let q = p - DVec3::new(0.05, 0.0, 0.05);
        DVec3::new(c * q.x - s * q.z + 0.05, 0.0, s * q.x + c * q.z + 0.05)
    };
    both.positions = sheet.positions.iter().map(|p| *p + DVec3::Y * 0.003).collect();
    both.positions
        .extend(sheet.positions.iter().map(|p| turn(*p) + DVec3::Y * 0.013));
    both.faces.extend(sheet.faces.iter().map(|f| f.map(|v| v + nv)));
    both.uv = None;
    std::fs::write(dir.join("two.obj"), write_obj(&both, &both.positions)).unwrap();
    let scene = format!(
        r#"{{
  "dt": 0.002,
  "self_collision": {{ "enabled": {self_collision}, "thickness": 0.002 }},
  "cloth": {{ "mesh": {{ "obj": {{ "path": "two.obj" }} }}, "material": "cotton", "damping": 0.05 }},
  "obstacles": {{ "table": {{ "shape": {{ "box": {{ "center": [0.05, -0.01, 0.05], "half_extents": [0.3, 0.01, 0.3] }} }}, "thickness": 0.001 }} }},
  "timeline": [ {{ "name": "drop", "duration": 0.5 }} ]
}}"#
    );
    let path = dir.join(format!("two-{self_collision}.json"));
    std::fs::write(&path, scene).unwrap();
    scene::load(path.to_str().unwrap(), &[]).unwrap()
}

#[test]
fn two_sheets_dropped_on_each_other_come_to_rest_stacked() {
    let dir = std::env::temp_dir().join(format!("crease-two-sheets-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let without = closest_layers(two_sheets(&dir, false), "").violations;
    let scene = two_sheets(&dir, true);
    let cloth = Arc::clone(&scene.cloth);
    let Layers {
        violations: with,
        most_pairs: pairs,
        x,
        speed,
    } = closest_layers(scene, "");
    let _ = std::fs::remove_dir_all(&dir);
    let nv = x.len() / 2;
    let mean_y = |r: std::ops::Range<usize>| x[r.clone()].iter().map(|p| p.y).sum::<f64>() / r.len() as f64;
    let (lower, upper) = (mean_y(0..nv), mean_y(nv..2 * nv));
    println!(
        "without: {without} close steps; with: {with}, {pairs} pairs, layers at {lower:.5} and {upper:.5} m, \
         fastest {speed:.2e} m/s"
    );
    assert!(speed < 0.01, "not at rest: {speed} m/s");
    assert!(without > 10, "the control run should pass through ({without} steps)");
    assert!(pairs > 50, "{pairs} pairs");
    assert_eq!(with, 0);
    assert!(upper - lower >= 0.001, "not stacked: {lower} {upper}");
    assert_eq!(intersecting_pairs(&cloth.mesh.faces, &x), 0);
}

/// Whether `p` is within a relative 1e-4 of one of the search's thresholds
/// at positions `x` (rest `rest`), in f64: its distance or its rest
/// distance near `t`, or (an edge-edge pair) a closest point near an
/// edge's end or the edges near parallel. There the device's f32 and the
/// host's f64 may decide differently.
fn marginal(p: &proximity::Pair, x: &[DVec3], rest: &[DVec3], t: f64) -> bool {
    let near = |a: f64, b: f64| (a - b).abs() < 1e-4 * b;
    let (d, r) = (p.relative(x).length(), p.relative(rest).length());
    if near(d, t) || near(r, t) {
        return true;
    }
    let edge_edge = p.c[0] != 1.0;
    let (s, u) = (p.c[1], -p.c[3]);
    let [a, b, c, e] = p.v.map(|v| x[v as usize]);
    let sin2 = (b - a).cross(e - c).length_squared() / ((b - a).length_squared() * (e - c).length_squared());
    edge_edge && (s.min(1.0 - s).min(u).min(1.0 - u) < 1e-4 || sin2 < 1e-5)
}

/// The device's search (shaders/proximity.wgsl) finds the host's pairs
/// (collide/proximity.rs), in the host's order, with the same weights,
/// normals and separations to f32's precision, and the same incidence
/// (the host's, built from the device's pairs): on a sheet crumpled to
/// 40% of its size with its vertices jittered by about the thickness, and
/// one vertex thrown 6 m away (its triangles are larger than the grid's
/// cell, the boxes a device lists apart, and its edges' boxes span more
/// cells than a query visits). Thousands of pairs, more than the device's
/// first buffers hold (they grow). The two may disagree only on pairs
/// within 1e-4 of a threshold, checked in f64.
#[test]
fn the_device_finds_the_pairs_the_host_finds() {
    if !common::have_gpu() {
        return;
    }
    let sheet = grid(
        0.2,
        0.2,
        40,
        40,
        Pattern::Alternating,
        DVec3::ZERO,
        (DVec3::X, DVec3::Z),
    );
    let material = crease::model::material::preset("cotton").unwrap();
    let cloth = Arc::new(Cloth::new(sheet.clone(), material, 0.0, DVec3::X).unwrap());
    let mut seed = 7u64;
    let mut rnd = || {
        seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        (seed >> 11) as f64 / (1u64 << 53) as f64 - 0.5
    };
    let rest = &sheet.positions;
    let mut x: Vec<DVec3> = rest
        .iter()
        .map(|p| *p * DVec3::new(0.4, 1.0, 0.4) + DVec3::new(rnd(), rnd(), rnd()) * 0.004)
        .collect();
    x[900] = DVec3::new(3.0, -2.0, 5.0);
    let t = 0.002;
    let host = proximity::find(&sheet.faces, &cloth.topology.edges, &x, rest, t);
    let mut gpu = crease::gpu::GpuBackend::new(Arc::clone(&cloth)).unwrap();
    let zero = vec![DVec3::ZERO; x.len()];
    gpu.set_state(&x, &zero, &zero);
    let device = gpu.proximity(t).unwrap();
    // A vertex-triangle pair and an edge-edge pair may have the same vertices.
    let key = |p: &proximity::Pair| (p.c[0] != 1.0, p.v);
    let on_host: std::collections::HashMap<(bool, [u32; 4]), &proximity::Pair> =
        host.pairs.iter().map(|p| (key(p), p)).collect();
    let on_device: std::collections::HashMap<(bool, [u32; 4]), &proximity::Pair> =
        device.pairs.iter().map(|p| (key(p), p)).collect();
    let huge = device.pairs.iter().filter(|p| p.v.contains(&900)).count();
    println!(
        "host {} pairs, device {} ({huge} with the far vertex)",
        host.pairs.len(),
        device.pairs.len()
    );
    assert!(host.pairs.len() > 4 * x.len(), "{} pairs", host.pairs.len());
    assert!(huge > 0, "the far vertex's edges should pair with others");
    assert_eq!(on_device.len(), device.pairs.len(), "a pair listed twice");
    let mut disagree = 0;
    for (k, p) in &on_host {
        match on_device.get(k) {
            Some(q) => {
                // The far vertex's triangles are metres long: f32 keeps
                // their points to a micrometre, which is all it must.
                if marginal(p, &x, rest, t) || p.v.contains(&900) {
                    continue;
                }
                let dc = (0..4).map(|j| (p.c[j] - q.c[j]).abs()).fold(0.0, f64::max);
                assert!(
                    dc < 1e-3,
                    "{k:?}: weights {:?} on the host, {:?} on the device",
                    p.c,
                    q.c
                );
                assert!((p.d - q.d).abs() < 1e-6, "{k:?}: separation {} vs {}", p.d, q.d);
                if p.d > 0.01 * t {
                    assert!((p.n - q.n).length() < 1e-3, "{k:?}: normal {} vs {}", p.n, q.n);
                }
            }
            None => {
                assert!(marginal(p, &x, rest, t), "the device misses {p:?}");
                disagree += 1;
            }
        }
    }
    for (k, q) in &on_device {
        if !on_host.contains_key(k) {
            assert!(marginal(q, &x, rest, t), "the device adds {q:?}");
            disagree += 1;
        }
    }
    println!("{disagree} marginal pairs on one side only");
    let order = |list: &[proximity::Pair], other: &std::collections::HashMap<(bool, [u32; 4]), &proximity::Pair>| {
        list.iter()
            .map(key)
            .filter(|k| other.contains_key(k))
            .collect::<Vec<_>>()
    };
    assert_eq!(order(&host.pairs, &on_device), order(&device.pairs, &on_host));
    let rebuilt = proximity::Proximity::new(device.pairs.clone(), x.len());
    assert_eq!(device.offsets, rebuilt.offsets);
    assert_eq!(device.entries, rebuilt.entries);
}

/// Two 10 cm sheets 1 to 4.5 mm apart (the upper tilted 2 degrees), the
/// upper thrown down at 3 m/s: with a self-collision thickness of 0.5 mm
/// no pair is close at the start, so no spring or impulse acts, and one
/// 1 ms step carries it through the lower sheet. With the fail-safe on,
/// the step ends with no crossing, the sheets' linear momentum is what it
/// was plus gravity's impulse, and the two backends agree; under either
/// integrator.
fn thrown_through(dir: &std::path::Path, impact_zones: bool, integrator: &str) -> (Scene, Vec<DVec3>) {
    let sheet = grid(0.1, 0.1, 8, 8, Pattern::Alternating, DVec3::ZERO, (DVec3::X, DVec3::Z));
    let nv = sheet.positions.len();
    let tilt = 2f64.to_radians().tan();
    let mut both = sheet.clone();
    both.faces.extend(sheet.faces.iter().map(|f| f.map(|v| v + nv as u32)));
    both.positions.extend(
        sheet
            .positions
            .iter()
            .map(|p| *p + DVec3::new(0.004, 0.001 + tilt * p.x, 0.007)),
    );
    both.uv = None;
    std::fs::write(dir.join("thrown.obj"), write_obj(&both, &both.positions)).unwrap();
    let scene = format!(
        r#"{{
  "dt": 0.001,
  "integrator": "{integrator}",
  "self_collision": {{ "thickness": 0.0005, "impact_zones": {impact_zones} }},
  "cloth": {{ "mesh": {{ "obj": {{ "path": "thrown.obj" }} }}, "material": "cotton" }},
  "timeline": [ {{ "name": "throw", "duration": 0.001 }} ]
}}"#
    );
    let path = dir.join(format!("thrown-{impact_zones}-{integrator}.json"));
    std::fs::write(&path, scene).unwrap();
    let v = (0..2 * nv)
        .map(|i| {
            if i < nv {
                DVec3::ZERO
            } else {
                DVec3::new(0.0, -3.0, 0.0)
            }
        })
        .collect();
    (scene::load(path.to_str().unwrap(), &[]).unwrap(), v)
}

/// One step of `scene` from velocities `v`: the end positions, velocities
/// and the vertices the fail-safe moved.
fn throw(scene: Scene, v: &[DVec3], gpu: bool) -> (Vec<DVec3>, Vec<DVec3>, usize) {
    let cloth = Arc::clone(&scene.cloth);
    let backend: Box<dyn Backend> = match gpu {
        false => {
            let mut b = CpuBackend::new(Arc::clone(&cloth));
            b.set_state(&cloth.mesh.positions, v);
            Box::new(b)
        }
        true => {
            let mut b = crease::gpu::GpuBackend::new(Arc::clone(&cloth)).unwrap();
            b.set_state(&cloth.mesh.positions, v, &vec![DVec3::ZERO; v.len()]);
            Box::new(b)
        }
    };
    let mut sim = Simulation::new(scene, backend);
    let info = sim.step().unwrap();
    assert_eq!(info.report.proximity_pairs, 0, "no pair should be close at the start");
    let b = sim.backend();
    (
        b.positions().unwrap(),
        b.velocities().unwrap(),
        info.report.impacts.vertices,
    )
}

#[test]
fn the_fail_safe_stops_a_sheet_thrown_through_another_on_both_backends() {
    let dir = std::env::temp_dir().join(format!("crease-thrown-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let (control, v) = thrown_through(&dir, false, "backward-euler");
    let faces = control.cloth.mesh.faces.clone();
    let mass = control.cloth.mass.clone();
    let (x, _, moved) = throw(control, &v, false);
    let crossing = intersecting_pairs(&faces, &x);
    assert!(crossing > 20, "the control step should cross ({crossing} pairs)");
    assert_eq!(moved, 0);

    let momentum = |v: &[DVec3]| v.iter().zip(&mass).map(|(v, m)| *v * *m).sum::<DVec3>();
    for integrator in ["backward-euler", "bridson-mixed"] {
        let (scene, v) = thrown_through(&dir, true, integrator);
        let (gravity, dt) = (scene.gravity, scene.dt);
        let (x, v_end, moved) = throw(scene, &v, false);
        assert_eq!(intersecting_pairs(&faces, &x), 0, "{integrator}");
        assert!(moved > 50, "{integrator}: the fail-safe moved {moved} vertices");
        let expected = momentum(&v) + gravity * dt * mass.iter().sum::<f64>();
        let got = momentum(&v_end);
        // The zones carry the lower sheet's hit vertices down with the
        // upper one (in the mixed scheme through the carried `v_tilde`).
        let pushed = v_end[..v.len() / 2].iter().map(|v| -v.y).fold(0.0, f64::max);
        assert!(
            pushed > 1.0,
            "{integrator}: the lower sheet moves down at most {pushed} m/s"
        );
        println!(
            "{integrator}: crossing pairs without the fail-safe {crossing}; moved {moved}; momentum {got} against {expected}; lower sheet down at up to {pushed:.2} m/s"
        );
        assert!(
            (got - expected).length() < 1e-6 * expected.length(),
            "{integrator}: {got} against {expected}"
        );
        if common::have_gpu() {
            let (scene, v) = thrown_through(&dir, true, integrator);
            let (xg, _, moved_g) = throw(scene, &v, true);
            assert_eq!(intersecting_pairs(&faces, &xg), 0, "{integrator}");
            let apart = x.iter().zip(&xg).map(|(a, b)| a.distance(*b)).fold(0.0, f64::max);
            println!("{integrator} on the GPU: moved {moved_g}; farthest from the CPU's {apart:.2e} m");
            assert!(
                apart < 1e-5,
                "{integrator}: the GPU's positions are {apart} m from the CPU's"
            );
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}
