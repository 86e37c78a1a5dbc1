//! Melo's Cosserat coupling (model/cosserat.rs) on the CPU: the built-in
//! `melo-compression`, a square squeezed between two opposite edges.

use crease::cpu::CpuBackend;
use crease::scene;
use crease::sim::Simulation;
use std::sync::Arc;

/// The largest out-of-plane displacement at the end of `melo-compression`
/// with the extra `sets`.
fn buckle(sets: &[&str]) -> f64 {
    let sets: Vec<String> = sets.iter().map(|s| s.to_string()).collect();
    let scene = scene::load("melo-compression", &sets).unwrap();
    let cloth = Arc::clone(&scene.cloth);
    let mut sim = Simulation::new(scene, Box::new(CpuBackend::new(cloth)));
    while !sim.done() {
        sim.step().unwrap();
    }
    let x = sim.backend().positions().unwrap();
    x.iter().map(|p| p.z.abs()).fold(0.0, f64::max)
}

/// Fig. 1 / 7: squeezed 10% in its plane, the square buckles 1.5 cm out of
/// it with the coupling (phi > 0), and stays exactly flat without it
/// (phi = 0: nothing pushes it out of its plane).
#[test]
fn the_coupling_turns_compression_into_buckles() {
    let coupled = buckle(&[]);
    let flat = buckle(&["cloth.material.coupling=0"]);
    println!("largest out-of-plane displacement: with the coupling {coupled:.4} m, without {flat:e} m");
    assert!(coupled > 0.01, "{coupled}");
    assert!(flat < 1e-12, "{flat}");
}
