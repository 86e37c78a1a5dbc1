//! Scene loads (`loads`): a force shared by the selected vertices in
//! proportion to their mass, switched on and off by the timeline.

mod common;

use common::tools::cpu;
use crease::scene;
use glam::DVec3;
use std::path::Path;

/// A 10 x 5 cm sheet in the xy plane without gravity, its left side
/// held, a load on its right side; `timeline` as given.
fn sheet(load: &str, timeline: &str) -> scene::Scene {
    let text = format!(
        r#"{{
        "dt": 0.002, "gravity": [0, 0, 0],
        "cloth": {{ "mesh": {{ "grid": {{ "size": [0.1, 0.05], "resolution": [10, 5] }} }}, "material": "elastic", "damping": 0.05 }},
        "handles": {{ "left": {{ "select": {{ "side": "left" }} }} }},
        "loads": {{ "pull": {load} }},
        "timeline": {timeline}
    }}"#
    );
    scene::parse("loads.json", "loads", &text, Path::new("."), &[]).unwrap()
}

/// The shares add up to the load, each in proportion to its vertex's
/// mass (a corner carries a quarter of an inner vertex's share on a
/// regular grid, an edge vertex half).
#[test]
fn a_load_is_shared_in_proportion_to_mass() {
    let s = sheet(
        r#"{ "select": { "side": "right" }, "force": [0.02, 0.01, 0] }"#,
        r#"[{ "name": "pull", "duration": 0.01 }]"#,
    );
    let load = &s.loads[0];
    assert_eq!(load.shares.len(), 6);
    let total: DVec3 = load.shares.iter().map(|l| l.force).sum();
    assert!((total - DVec3::new(0.02, 0.01, 0.0)).length() < 1e-15, "{total}");
    let mass: f64 = load.shares.iter().map(|l| s.cloth.mass[l.vertex as usize]).sum();
    for l in &load.shares {
        let expected = load.force * (s.cloth.mass[l.vertex as usize] / mass);
        assert!((l.force - expected).length() < 1e-15);
    }
}

/// At rest, the held side carries the whole load: the cloth pulls the
/// handle with the load's force, within 0.1%; once the load is removed
/// the sheet springs back and the handle carries nothing (1e-6 of it).
/// A load that starts disabled acts from its `"add"`.
#[test]
fn the_held_side_carries_the_load_and_nothing_once_it_is_removed() {
    let force = DVec3::new(0.02, -0.01, 0.0);
    let s = sheet(
        r#"{ "select": { "side": "right" }, "force": [0.02, -0.01, 0], "enabled": false }"#,
        r#"[{ "name": "wait", "duration": 0.1 },
            { "name": "pull", "duration": 1.5, "loads": { "pull": "add" } },
            { "name": "ease", "duration": 0.5, "loads": { "pull": 0.5 } },
            { "name": "rest", "duration": 1.0 },
            { "name": "let-go", "duration": 1.5, "loads": { "pull": "remove" } }]"#,
    );
    let mut sim = cpu(s);
    let mut at = |t: f64| {
        let mut last = None;
        while sim.time() < t - 1e-9 {
            last = Some(sim.step().unwrap());
        }
        last.unwrap().reactions[0].force
    };
    let waiting = at(0.1);
    assert!(waiting.length() < 1e-12, "before the load: {waiting}");
    let pulled = at(1.6);
    println!("pulled: handle carries {pulled} for a load of {force}");
    assert!((pulled - force).length() < 1e-6 * force.length(), "{pulled}");
    let eased = at(3.1);
    println!("eased to half: {eased}");
    assert!((eased - 0.5 * force).length() < 1e-6 * force.length(), "{eased}");
    let released = at(4.6);
    println!("released: {released}");
    assert!(released.length() < 1e-6 * force.length(), "{released}");
}
