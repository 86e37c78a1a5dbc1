//! Bridson, Marino & Fedkiw 2003's toolbox on the CPU reference (the GPU
//! twins are compared with it in tests/gpu.rs).

use crease::cpu::CpuBackend;
use crease::measure::edge_strain_range;
use crease::scene;
use crease::sim::Simulation;
use std::sync::Arc;

/// The range of edge strains a run reaches over its steps.
fn strain_range(sets: &[&str]) -> (f64, f64) {
    let sets: Vec<String> = sets.iter().map(|s| s.to_string()).collect();
    let scene = scene::load("hang", &sets).unwrap();
    let cloth = Arc::clone(&scene.cloth);
    let mut sim = Simulation::new(scene, Box::new(CpuBackend::new(Arc::clone(&cloth))));
    let (mut lo, mut hi) = (0.0f64, 0.0f64);
    while !sim.done() {
        sim.step().unwrap();
        let (l, h) = edge_strain_range(&cloth, &sim.backend().positions().unwrap());
        (lo, hi) = (lo.min(l), hi.max(h));
    }
    (lo, hi)
}

/// §3: a sheet 400x softer than cotton hanging from its top side swings
/// down 29% stretched and 5% compressed; limited to [0%, 10%], no edge
/// ends a step past the limits by more than the Jacobi sweeps leave (the
/// stretch accumulates down 12 rows from the pinned top, which the sweeps
/// settle one neighbour at a time: 32 leave 0.6%, 100 leave 0.2%).
#[test]
fn strain_limiting_holds_a_soft_hanging_sheet_within_its_limits() {
    let soft = [
        "cloth.mesh.grid.resolution=[12,12]",
        "timeline.settle.duration=0.3",
        "cloth.material={\"preset\": \"elastic\", \"stretching\": [1, 0.2, 1, 0.4]}",
    ];
    let (lo, hi) = strain_range(&soft);
    println!("edge strains: free [{lo:.4}, {hi:.4}]");
    assert!(hi > 0.2 && lo < -0.03, "the free sheet should stretch and compress");
    for (iterations, over) in [(32, 0.008), (100, 0.003)] {
        let mut limited = soft.to_vec();
        let limit = format!("strain_limit={{\"extension\": 0.1, \"compression\": 0, \"iterations\": {iterations}}}");
        limited.push(&limit);
        let (lo, hi) = strain_range(&limited);
        println!("{iterations} sweeps: [{lo:.4}, {hi:.4}]");
        assert!(hi < 0.1 + over, "extension {hi}");
        assert!(lo > -over / 2.0, "compression {lo}");
    }
}

/// Runs the built-in `recovery` strip (folded 2.6 rad on one hinge line,
/// held, released) in elastic cotton without self-collision, with the
/// given bending model and damping, until `until`; returns the right
/// half's holding torque at the end of the hold and the fold's bend
/// sampled every 10 steps of the recovery.
fn recovery(model: &str, k_d: f64, until: f64) -> (f64, Vec<f64>) {
    let material = format!(
        "cloth.material={{\"preset\": \"elastic\", \"bending_model\": \"{model}\", \"bending_damping\": {k_d}}}"
    );
    let sets = vec![
        material,
        "self_collision.enabled=false".to_string(),
        "cloth.damping=0".to_string(),
    ];
    let scene = scene::load("recovery", &sets).unwrap();
    let mut sim = Simulation::new(scene.clone(), Box::new(CpuBackend::new(Arc::clone(&scene.cloth))));
    let (mut torque, mut bends) = (0.0, Vec::new());
    while !sim.done() && sim.time() < until {
        let phase = sim.phase_name().to_string();
        let info = sim.step().unwrap();
        if phase == "hold" {
            torque = info.reactions[1].torque;
        } else if phase == "recover" && sim.steps().is_multiple_of(10) {
            bends.push(sim.backend().measure().unwrap().region_max_abs_bend);
        }
    }
    (torque, bends)
}

/// §4: Bridson's force grows as sin(theta/2), the shell's as theta. The
/// strip's five fold hinges (s_e = 1, k_b = 5e-6 N m) held at 2.6 rad
/// take 5 k_b 2.6 = 6.5e-5 N m with the shell and 5 k_b 2 sin(1.3) =
/// 4.82e-5 N m (0.741 of it) with Bridson's model.
#[test]
fn bridson_bending_holds_a_fold_with_the_half_angle_sine() {
    let kb = 5e-6;
    let (shell, _) = recovery("discrete-shell", 0.0, 0.3);
    let (bridson, _) = recovery("bridson", 0.0, 0.3);
    println!("holding torque: shell {shell:.4e} N m, Bridson {bridson:.4e} N m");
    let expect_shell = 5.0 * kb * 2.6;
    let expect_bridson = 5.0 * kb * 2.0 * 1.3f64.sin();
    assert!((shell.abs() - expect_shell).abs() < 1e-3 * expect_shell, "{shell}");
    assert!(
        (bridson.abs() - expect_bridson).abs() < 1e-3 * expect_bridson,
        "{bridson}"
    );
}

/// §4's bending damping `-k_d |E| (dtheta/dt) u` takes the ring out of
/// a released fold: without it (and with no other damping than backward
/// Euler's own) the fold still swings through 0.07 rad on average over the
/// last 0.3 s of 0.6; with k_d = 3e-5 N s, 0.018 rad.
#[test]
fn bending_damping_settles_a_released_fold() {
    let late = |bends: &[f64]| {
        let tail = &bends[bends.len() / 2..];
        tail.iter().sum::<f64>() / tail.len() as f64
    };
    let (_, free) = recovery("bridson", 0.0, 0.9);
    let (_, damped) = recovery("bridson", 3e-5, 0.9);
    let (free, damped) = (late(&free), late(&damped));
    println!("mean fold bend over the last 0.3 s: undamped {free:.4} rad, k_d = 3e-5: {damped:.4} rad");
    assert!(free > 0.04, "{free}");
    assert!(damped < free / 2.5, "{damped} vs {free}");
}

/// A single hinge of two 2 cm triangles of elastic cotton, no gravity, no
/// damping: one face held, the other's wing vertex turned 0.5 rad about the
/// hinge, held still, released to swing (period ~56 ms) for `swing`
/// seconds, with `integrator` at step `dt`. Returns the dihedral angle and
/// the energy (kinetic + bending + membrane) after the swing, and the
/// energy at the release.
fn hinge_swing(integrator: &str, dt: f64, swing: f64) -> (f64, f64, f64) {
    use crease::model::bending::dihedral;
    let text = |base: &str, wing: &str, axis: [f64; 3], point: [f64; 3]| {
        format!(
            r#"{{
            "dt": {dt},
            "gravity": [0, 0, 0],
            "integrator": "{integrator}",
            "solver": {{ "tolerance": 1e-10 }},
            "self_collision": {{ "enabled": false }},
            "cloth": {{
                "mesh": {{ "grid": {{ "size": [0.02, 0.02], "resolution": [1, 1], "plane": "xz" }} }},
                "material": "elastic"
            }},
            "handles": {{ "base": {{ "select": {{ "indices": {base} }} }}, "wing": {{ "select": {{ "indices": {wing} }} }} }},
            "timeline": [
                {{ "name": "bend", "duration": 0.02,
                   "handles": {{ "wing": {{ "rotate": {{ "axis": {axis:?}, "point": {point:?}, "angle": 0.5 }} }} }} }},
                {{ "name": "hold", "duration": 0.01 }},
                {{ "name": "swing", "duration": {swing}, "handles": {{ "wing": "release" }} }}
            ]
        }}"#
        )
    };
    let parse = |t: &str| scene::parse("hinge.json", "hinge", t, std::path::Path::new("."), &[]).unwrap();
    // The hinge's vertices, from the mesh.
    let probe = parse(&text("[0, 1, 2]", "[3]", [1.0, 0.0, 0.0], [0.0; 3]));
    let h = probe.cloth.topology.hinges[0].v;
    let x = &probe.cloth.mesh.positions;
    let axis = (x[h[1] as usize] - x[h[0] as usize]).to_array();
    let scene = parse(&text(
        &format!("[{}, {}, {}]", h[0], h[1], h[2]),
        &format!("[{}]", h[3]),
        axis,
        x[h[0] as usize].to_array(),
    ));
    let cloth = Arc::clone(&scene.cloth);
    let mut sim = Simulation::new(scene, Box::new(CpuBackend::new(Arc::clone(&cloth))));
    let energy = |sim: &Simulation| {
        let m = sim.backend().measure().unwrap();
        m.kinetic_energy + m.bending_energy + m.membrane_energy
    };
    let mut released = None;
    while !sim.done() {
        if sim.phase_name() == "swing" && released.is_none() {
            released = Some(energy(&sim));
        }
        sim.step().unwrap();
    }
    let p = sim.backend().positions().unwrap();
    (dihedral(h.map(|i| p[i as usize])), energy(&sim), released.unwrap())
}

/// §3: the mixed scheme is second order and keeps an undamped swing's
/// energy; backward Euler is first order and damps it. Errors of the
/// angle after 50 ms against a run at dt/8 of the same integrator, at dt =
/// 0.4, 0.2, 0.1 ms: halving dt divides the mixed scheme's error by ~4
/// and backward Euler's by ~2.
#[test]
fn the_mixed_integrator_is_second_order_and_keeps_a_swings_energy() {
    let swing = 0.05;
    for (integrator, order) in [("bridson-mixed", 2.0), ("backward-euler", 1.0)] {
        let (reference, _, _) = hinge_swing(integrator, 0.1e-3 / 8.0, swing);
        let errors: Vec<f64> = [0.4e-3, 0.2e-3, 0.1e-3]
            .iter()
            .map(|&dt| (hinge_swing(integrator, dt, swing).0 - reference).abs())
            .collect();
        let orders: Vec<f64> = errors.windows(2).map(|e| (e[0] / e[1]).log2()).collect();
        println!("{integrator}: angle errors {errors:?}, observed orders {orders:?}");
        for o in orders {
            assert!((o - order).abs() < 0.3, "{integrator}: order {o}, expected {order}");
        }
    }
    let (_, mixed, start) = hinge_swing("bridson-mixed", 0.2e-3, swing);
    let (_, euler, _) = hinge_swing("backward-euler", 0.2e-3, swing);
    println!("energy after {swing} s: released {start:.4e} J, mixed {mixed:.4e} J, backward Euler {euler:.4e} J");
    assert!((mixed - start).abs() < 0.01 * start, "mixed: {mixed} of {start}");
    assert!(euler < 0.9 * start, "backward Euler: {euler} of {start}");
}

/// Runs `scene` on the CPU and returns, at the end of every phase, the
/// vertices stuck and the mean height of the vertices `up` minus that of
/// `down` (no vertices: 0).
fn phase_ends(scene: scene::Scene, up: &[usize], down: &[usize]) -> Vec<(usize, f64)> {
    let cloth = Arc::clone(&scene.cloth);
    let mut sim = Simulation::new(scene, Box::new(CpuBackend::new(cloth)));
    let mut out = Vec::new();
    let mut phase = sim.phase_name().to_string();
    while !sim.done() {
        sim.step().unwrap();
        if sim.done() || sim.phase_name() != phase {
            let x = sim.backend().positions().unwrap();
            let mean = |set: &[usize]| match set.len() {
                0 => 0.0,
                n => set.iter().map(|&i| x[i].y).sum::<f64>() / n as f64,
            };
            out.push((sim.stuck(), mean(up) - mean(down)));
            phase = sim.phase_name().to_string();
        }
    }
    out
}

/// The built-in `sticky-hand` (a 10 x 2 cm cotton strip on a sticky box,
/// its left edge held; the box drops 3 cm in 30 ms, then 10 cm in 50 ms),
/// with or without its sticking. Returns, after each phase, the vertices
/// stuck and the mean height of the strip's right third.
fn sticky_hand(sticking: bool) -> Vec<(usize, f64)> {
    let sets: Vec<String> = if sticking { vec![] } else { vec!["sticking=null".into()] };
    let scene = scene::load("sticky-hand", &sets).unwrap();
    let p0 = &scene.cloth.mesh.positions;
    let right: Vec<usize> = (0..p0.len()).filter(|&i| p0[i].x > 0.065).collect();
    phase_ends(scene, &right, &[])
}

/// §6: the strip's right half sticks to the hand, follows it down 3 cm
/// (the hand outruns gravity: without sticking the strip has fallen under
/// 0.5 cm), and lets go when the hand pulls it away against the held edge.
#[test]
fn a_strip_sticks_to_a_moving_hand_and_lets_go_when_pulled_away() {
    let stuck = sticky_hand(true);
    let free = sticky_hand(false);
    println!("(stuck vertices, right third's mean height): sticky {stuck:?}, without sticking {free:?}");
    let [(touching, _), (following, followed), (pulled, left)] = stuck[..] else {
        panic!("three phases, got {stuck:?}")
    };
    assert!(touching >= 15, "{touching} vertices stuck on touching");
    assert!(following >= 15, "{following} stuck while following");
    assert!(
        (followed + 0.03).abs() < 0.004,
        "followed to {followed}, the hand to -0.03"
    );
    assert!(free[1].1 > -0.006, "the free strip fell to {}", free[1].1);
    assert_eq!(pulled, 0, "still stuck after the pull");
    // The hand's top is at -0.131 m; the strip hangs from its held edge well above.
    assert!(left > -0.1, "the strip went down to {left} with the hand");
}

/// A 10 x 2 cm cotton strip folded in half onto itself, its base half
/// sticky and its flap adhering (sticking to the cloth's own faces); the
/// base is dropped 3 cm in 30 ms, then the flap's tip is pulled up 5 cm in
/// 50 ms. Returns after each phase (fold, settle, drop, peel) the vertices
/// stuck, and the flap tip's height above the base's far end.
fn sticky_fold(sticking: bool) -> Vec<(usize, f64)> {
    let sticking = if sticking {
        r#""sticking": {
            "cloth": { "box": { "min": [0.0549, -1, -1], "max": [1, 1, 1] } },
            "sticky_cloth": { "box": { "min": [-1, -1, -1], "max": [0.0451, 1, 1] } },
            "stiffness": 5, "release": 0.005
        },"#
    } else {
        ""
    };
    let text = format!(
        r#"{{
            "dt": 0.0005,
            {sticking}
            "cloth": {{
                "mesh": {{ "grid": {{ "size": [0.1, 0.02], "resolution": [20, 4], "plane": "xz" }} }},
                "material": "cotton"
            }},
            "handles": {{
                "base": {{ "select": {{ "box": {{ "min": [-1, -1, -1], "max": [0.0451, 1, 1] }} }} }},
                "flap": {{ "select": {{ "box": {{ "min": [0.0549, -1, -1], "max": [1, 1, 1] }} }} }},
                "tip": {{ "select": {{ "box": {{ "min": [0.0949, -1, -1], "max": [1, 1, 1] }} }} }}
            }},
            "timeline": [
                {{ "name": "fold", "duration": 0.2, "handles": {{ "tip": "release",
                    "flap": {{ "rotate": {{ "axis": [0, 0, 1], "point": [0.05, 0.00125, 0], "angle": 3.14159265 }} }} }} }},
                {{ "name": "settle", "duration": 0.02, "handles": {{ "flap": "release" }} }},
                {{ "name": "drop", "duration": 0.03, "handles": {{ "base": {{ "translate": [0, -0.03, 0] }} }} }},
                {{ "name": "peel", "duration": 0.05, "handles": {{ "tip": {{ "translate": [0, 0.05, 0] }} }} }}
            ]
        }}"#
    );
    let scene = scene::parse("fold.json", "fold", &text, std::path::Path::new("."), &[]).unwrap();
    let p0 = &scene.cloth.mesh.positions;
    let tip: Vec<usize> = (0..p0.len()).filter(|&i| p0[i].x > 0.0949).collect();
    let far: Vec<usize> = (0..p0.len()).filter(|&i| p0[i].x < 0.0051).collect();
    phase_ends(scene, &tip, &far)
}

/// §6 on the cloth itself: the folded flap (50 vertices, 5 of them its
/// tip) sticks to the base 2.5 mm below it, follows it down (unstuck, its
/// tip is left 4.7 cm behind), and peels off when its tip is pulled up.
#[test]
fn a_folded_flap_sticks_to_its_base_and_peels_off_when_pulled() {
    let stuck = sticky_fold(true);
    let free = sticky_fold(false);
    println!("(stuck vertices, tip above the base): sticky {stuck:?}, without sticking {free:?}");
    let [_, (settled, _), (dropped, gap), (peeled, _)] = stuck[..] else {
        panic!("four phases, got {stuck:?}")
    };
    assert!(settled >= 40, "{settled} stuck after settling");
    assert!(dropped >= 40, "{dropped} stuck after the drop");
    assert!(gap < 0.004, "the tip ended {gap} m above the base");
    assert!(
        free[2].1 > 0.01,
        "the free tip ended only {} m above the base",
        free[2].1
    );
    assert_eq!(peeled, 0, "still stuck after the peel");
}
