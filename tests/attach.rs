//! Attachments (issue 19, part 4): a handle riding on an obstacle, a
//! waistband on moving, turning, widening hips, then released; a handle on
//! a rigid obstacle's motion; the errors of bad attachments; the GPU
//! against the CPU (skipped without an adapter unless CREASE_REQUIRE_GPU=1).

mod common;

use common::bodies::{obj, tube};
use common::tools::{cpu, folder};
use crease::collide::attach::Carrier;
use crease::scene::{self, Scene};
use glam::{DQuat, DVec3};
use std::path::Path;

/// Hips: a 6 cm tube from y = -0.05 to 0.35 that, over 0.5 s at 24 fps,
/// rises 4 cm, sways 3 cm along x, turns 0.5 rad about y and widens 10%
/// along x (a deforming body, not a rigid one).
fn write_hips(dir: &Path) {
    let (x, faces) = tube(0.06, -0.05, 0.35, 9, 16);
    for k in 0..13 {
        let s = k as f64 / 12.0;
        let turn = DQuat::from_rotation_y(0.5 * s);
        let moved: Vec<DVec3> = x
            .iter()
            .map(|p| turn * (*p * DVec3::new(1.0 + 0.1 * s, 1.0, 1.0)) + DVec3::new(0.03 * s, 0.04 * s, 0.0))
            .collect();
        std::fs::write(dir.join(format!("hips{:04}.obj", k + 1)), obj(&moved, &faces)).unwrap();
    }
}

/// A skirt (a 6.6 cm tube, 6 mm outside the hips, 25 cm long) whose top
/// ring rides on the hips, then lets go; `extra` overrides.
fn skirt(dir: &Path, extra: &[&str]) -> crease::Result<Scene> {
    let json = serde_json::json!({
        "dt": 0.0025,
        "cloth": { "mesh": { "cylinder": { "radius": 0.066, "height": 0.25, "rings": 11, "segments": 24 } },
                   "material": "cotton", "damping": 0.01 },
        "self_collision": { "enabled": false },
        "handles": { "waist": { "select": { "ring": "top" }, "attach": "hips" } },
        "obstacles": { "hips": { "shape": { "sequence": { "path": "hips####.obj", "fps": 24 } },
                                 "friction": 0.1, "thickness": 0.003 } },
        "timeline": [
            { "name": "ride", "duration": 0.5 },
            { "name": "drop", "duration": 0.1, "handles": { "waist": "release" } }
        ]
    });
    let sets: Vec<String> = extra.iter().map(|s| s.to_string()).collect();
    scene::parse("skirt.json", "skirt", &json.to_string(), dir, &sets)
}

/// Where the handle's vertices should be at time `t`: its ride placed on
/// the hips' frames there.
fn placed(scene: &Scene, t: f64) -> Vec<DVec3> {
    let a = scene.handles[0].attach.as_ref().unwrap();
    let mut out = Vec::new();
    let o = &scene.obstacles[a.obstacle];
    o.carrier(t, &Default::default(), |c: &Carrier| c.place(&a.ride, &mut out));
    out
}

#[test]
fn a_waistband_rides_on_moving_hips_and_falls_when_released() {
    let dir = folder("attach-skirt");
    write_hips(&dir);
    let scene = skirt(&dir, &[]).unwrap_or_else(|e| panic!("{e}"));
    let waist = scene.handles[0].vertices.clone();
    let rest: Vec<DVec3> = waist.iter().map(|&v| scene.cloth.mesh.positions[v as usize]).collect();
    // Bound where it is: the ride gives the start back.
    for (p, q) in placed(&scene, 0.0).iter().zip(&rest) {
        assert!((*p - *q).length() < 1e-12, "{p} vs {q}");
    }
    let ride_steps = scene.phases[0].steps;
    let mut sim = cpu(scene.clone());
    let mut worst = 0.0f64;
    while sim.steps() < ride_steps {
        sim.step().unwrap();
        let x = sim.backend().positions().unwrap();
        let want = placed(&scene, sim.time());
        for (&v, w) in waist.iter().zip(&want) {
            worst = worst.max((x[v as usize] - *w).length());
        }
    }
    let x = sim.backend().positions().unwrap();
    let centre = |x: &[DVec3]| waist.iter().map(|&v| x[v as usize]).sum::<DVec3>() / waist.len() as f64;
    let (start, end) = (centre(&scene.cloth.mesh.positions), centre(&x));
    println!("skirt: waistband off its ride by at most {worst:.2e} m; centre {start} -> {end}");
    assert!(worst < 1e-9, "the waistband left the hips by {worst} m");
    // It rose 4 cm and swayed 3 cm with the hips (the ring's centre also
    // shifts a little as the hips widen and turn).
    let moved = end - start;
    assert!(
        (moved.y - 0.04).abs() < 1e-3 && (moved.x - 0.03).abs() < 3e-3,
        "{moved}"
    );
    // The ring turned with the hips: a vertex on +x went round by 0.5 rad.
    let first = x[waist[0] as usize] - end;
    let turned = (-first.z).atan2(first.x) - {
        let p = rest[0] - start;
        (-p.z).atan2(p.x)
    };
    assert!((turned - 0.5).abs() < 0.02, "turned {turned} rad");
    // Released, the skirt slides down the hips under its own weight.
    while !sim.done() {
        sim.step().unwrap();
    }
    let fallen = centre(&sim.backend().positions().unwrap());
    println!("released: waistband centre at {fallen}");
    assert!(
        end.y - fallen.y > 0.01,
        "the released waistband stayed: {end} -> {fallen}"
    );
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn a_handle_rides_on_a_rigid_obstacle_as_it_moves() {
    // A strip hanging from a ball that moves 5 cm and turns 0.3 rad: the
    // strip's top row, 2 mm above the ball, goes with it.
    let json = serde_json::json!({
        "dt": 0.002,
        "cloth": { "mesh": { "grid": { "size": [0.04, 0.1], "resolution": [4, 10], "origin": [-0.02, -0.1, 0.052] } },
                   "material": "cotton" },
        "handles": { "top": { "select": { "side": "top" }, "attach": "ball" } },
        "obstacles": { "ball": { "shape": { "sphere": { "center": [0, 0, 0], "radius": 0.05 } } } },
        "timeline": [ { "name": "swing", "duration": 0.1, "obstacles": { "ball": {
            "translate": [0.05, 0.0, 0.0], "rotate": { "axis": [0, 1, 0], "point": [0, 0, 0], "angle": 0.3 } } } } ]
    });
    let scene = scene::parse("ball.json", "ball", &json.to_string(), Path::new("."), &[]).unwrap();
    let top = scene.handles[0].vertices.clone();
    let x0 = scene.cloth.mesh.positions.clone();
    let mut sim = cpu(scene);
    while !sim.done() {
        sim.step().unwrap();
    }
    let x = sim.backend().positions().unwrap();
    let pose = sim.obstacles()[0].end;
    for &v in &top {
        let want = pose.to_world(x0[v as usize]);
        assert!(
            (x[v as usize] - want).length() < 1e-9,
            "vertex {v}: {} vs {want}",
            x[v as usize]
        );
    }
    assert!((pose.trans.x - 0.05).abs() < 1e-12);
}

#[test]
fn bad_attachments_are_errors_that_name_the_handle_vertex_or_obstacle() {
    let dir = folder("attach-bad");
    write_hips(&dir);
    let error = |extra: &[&str]| skirt(&dir, extra).unwrap_err().to_string();
    let e = error(&["handles.waist.attach=belt"]);
    assert!(
        e.contains("handles.waist.attach") && e.contains("`belt`") && e.contains("hips"),
        "{e}"
    );
    // A skirt 14 cm outside the hips: its waistband is too far to attach.
    let e = error(&["cloth.mesh.cylinder.radius=0.2"]);
    assert!(
        e.contains("handles.waist.attach") && e.contains("vertex 241") && e.contains("wrong group"),
        "{e}"
    );
    let e = error(&[r#"timeline.drop.handles.waist={"translate": [0, 0.1, 0]}"#]);
    assert!(
        e.contains("timeline[1] (drop).handles.waist") && e.contains("move the obstacle"),
        "{e}"
    );
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn gpu_matches_the_cpu_on_a_riding_waistband() {
    if !common::have_gpu() {
        return;
    }
    let dir = folder("attach-gpu");
    write_hips(&dir);
    let scene = skirt(&dir, &["solver.tolerance=1e-6"]).unwrap();
    let checks = crease::validate::validate(scene, 0, 40, &mut |_| {}).unwrap();
    assert_eq!(checks.len(), 40);
    common::parity::assert_within_defaults("skirt", &checks);
    println!("skirt, step 40: {:?}", checks.last().unwrap());
    std::fs::remove_dir_all(&dir).ok();
}
