//! Miguel et al. 2013's demonstrations (Fig. 11-12) on the built-in
//! `miguel-twist`, coarsened (8 rings of 20 segments), on the CPU.

use crease::cpu::CpuBackend;
use crease::model::bending::dihedral;
use crease::scene;
use crease::sim::Simulation;
use std::sync::Arc;

/// Runs `miguel-twist` coarsened with in-plane friction `model` and the
/// extra `sets`; returns each hinge's bend |theta - theta_rest| at the end
/// of every phase, by phase name.
fn twist(model: &str, sets: &[&str]) -> Vec<(String, Vec<f64>)> {
    let mut all = vec![
        "cloth.mesh.cylinder.rings=8".to_string(),
        "cloth.mesh.cylinder.segments=20".to_string(),
        format!("cloth.material.in_plane_friction.model={model}"),
    ];
    all.extend(sets.iter().map(|s| s.to_string()));
    let scene = scene::load("miguel-twist", &all).unwrap();
    let cloth = Arc::clone(&scene.cloth);
    let mut sim = Simulation::new(scene, Box::new(CpuBackend::new(Arc::clone(&cloth))));
    let mut out = Vec::new();
    while !sim.done() {
        let phase = sim.phase_name().to_string();
        sim.step().unwrap();
        if sim.done() || sim.phase_name() != phase {
            let x = sim.backend().positions().unwrap();
            let bends = cloth
                .topology
                .hinges
                .iter()
                .zip(&cloth.hinge_rest)
                .map(|(h, r)| (dihedral(h.v.map(|i| x[i as usize])) - r.theta).abs())
                .collect();
            out.push((phase, bends));
        }
    }
    out
}

fn mean(v: &[f64]) -> f64 {
    v.iter().sum::<f64>() / v.len() as f64
}

/// Fig. 11: once a quick twist is undone, stretch friction leaves the
/// cylinder wrinkled (mean hinge bend 0.09 rad) where the elastic cloth
/// returns smooth (below 1e-4 rad).
#[test]
fn stretch_friction_leaves_persistent_wrinkles_after_a_twist_is_undone() {
    let with = twist("dahl", &[]);
    let without = twist("none", &[]);
    let (w, wo) = (mean(&with.last().unwrap().1), mean(&without.last().unwrap().1));
    println!("mean hinge bend at rest: with friction {w:.4} rad, without {wo:.2e} rad");
    assert!(w > 0.05, "{w}");
    assert!(wo < 1e-4, "{wo}");
}

/// Fig. 12: with friction the wrinkles of a second twist differ from the
/// first's (history matters); without, the cloth returns to the same state
/// and twists into the same wrinkles. Compared: the correlation of the
/// hinges' bends at the end of the two holds (measured: 0.10 with friction,
/// 1.00000 without).
#[test]
fn with_friction_a_second_twist_wrinkles_differently() {
    let cycles = r#"timeline=[
        {"name": "twist", "duration": 0.1, "handles": {"top": {"rotate": {"axis": [0, 1, 0], "point": [0, 0, 0], "angle": -0.7853981633974483}}}},
        {"name": "hold", "duration": 0.1},
        {"name": "untwist", "duration": 0.1, "handles": {"top": {"rotate": {"axis": [0, 1, 0], "point": [0, 0, 0], "angle": 0.7853981633974483}}}},
        {"name": "rest", "duration": 0.2},
        {"name": "twist2", "duration": 0.1, "handles": {"top": {"rotate": {"axis": [0, 1, 0], "point": [0, 0, 0], "angle": -0.7853981633974483}}}},
        {"name": "hold2", "duration": 0.1}
    ]"#;
    let correlation = |model: &str| {
        let phases = twist(model, &[cycles]);
        let at = |name: &str| phases.iter().find(|(p, _)| p == name).unwrap().1.clone();
        let (a, b) = (at("hold"), at("hold2"));
        let (ma, mb) = (mean(&a), mean(&b));
        let cov: f64 = a.iter().zip(&b).map(|(x, y)| (x - ma) * (y - mb)).sum();
        let va: f64 = a.iter().map(|x| (x - ma).powi(2)).sum();
        let vb: f64 = b.iter().map(|y| (y - mb).powi(2)).sum();
        cov / (va * vb).sqrt()
    };
    let (with, without) = (correlation("dahl"), correlation("none"));
    println!("correlation of the two twists' wrinkles: with friction {with:.3}, without {without:.5}");
    assert!(without > 0.999, "{without}");
    assert!(with < 0.9, "{with}");
}
