//! Drag and wind (Melo et al. Eq. 14-16) on the CPU reference (the GPU
//! twin is compared with it in tests/gpu.rs).

use crease::cpu::CpuBackend;
use crease::scene::{self, Scene};
use crease::sim::Simulation;
use glam::DVec3;
use std::path::Path;
use std::sync::Arc;

/// A 10 cm cotton square (rho = 0.06 kg/m^2) lying flat (normal +y), free,
/// for `seconds`, in the given air.
fn square(air: &str, plane: &str, seconds: f64) -> Scene {
    let text = format!(
        r#"{{
            "dt": 0.002,
            "self_collision": {{ "enabled": false }},
            "air": {air},
            "cloth": {{
                "mesh": {{ "grid": {{ "size": [0.1, 0.1], "resolution": [6, 6], "plane": "{plane}" }} }},
                "material": "elastic"
            }},
            "timeline": [ {{ "name": "fall", "duration": {seconds} }} ]
        }}"#
    );
    scene::parse("air.json", "air", &text, Path::new("."), &[]).unwrap()
}

fn run(scene: Scene) -> (Vec<DVec3>, Vec<DVec3>) {
    let cloth = Arc::clone(&scene.cloth);
    let mut sim = Simulation::new(scene, Box::new(CpuBackend::new(cloth)));
    while !sim.done() {
        sim.step().unwrap();
    }
    let b = sim.backend();
    (b.positions().unwrap(), b.velocities().unwrap())
}

/// A flat sheet falling face first reaches the terminal speed where the
/// air's force per area balances its weight: `rho g = (rho_D + rho_R) v`,
/// 0.589 m/s with rho_R = 1 N s/m^3, 0.392 m/s with rho_D = 0.5 added.
/// Falling edge first it feels only rho_D.
#[test]
fn a_falling_sheet_reaches_its_terminal_speed() {
    let g = 9.81;
    for (air, plane, terminal) in [
        (r#"{"normal_drag": 1.0}"#, "xz", 0.06 * g / 1.0),
        (r#"{"drag": 0.5, "normal_drag": 1.0}"#, "xz", 0.06 * g / 1.5),
        (r#"{"drag": 0.5, "normal_drag": 1.0}"#, "xy", 0.06 * g / 0.5),
    ] {
        // Ten time constants rho / (rho_D + rho_R) at most 1.2 s.
        let (_, v) = run(square(air, plane, 1.5));
        let mean: DVec3 = v.iter().sum::<DVec3>() / v.len() as f64;
        println!("{air} {plane}: mean velocity {mean}, terminal {terminal:.4}");
        assert!((-mean.y - terminal).abs() < 2e-3 * terminal, "{mean} vs {terminal}");
        // No sideways drift: at the terminal speed the forces balance, and
        // the solve resolves them to 1e-5 of the weight (1.4e-9 m/s here).
        assert!(
            mean.x.abs() < 1e-6 * terminal && mean.z.abs() < 1e-6 * terminal,
            "{mean}"
        );
    }
}

/// Wind pushes a sheet along its normal, not along its plane: in a 2 m/s
/// wind along +z a sheet facing +y (no gravity) does not move, one facing
/// +z is blown along and tends to the wind's speed (the relative normal
/// velocity vanishes), with rho_D = 0.
#[test]
fn wind_blows_a_sheet_along_its_normal() {
    let air = r#"{"normal_drag": 1.0, "wind": [0, 0, 2]}"#;
    let no_gravity = |mut s: Scene| {
        s.gravity = DVec3::ZERO;
        s
    };
    let (x, v) = run(no_gravity(square(air, "xz", 0.5)));
    let still = v.iter().map(|v| v.length()).fold(0.0, f64::max);
    assert!(still < 1e-9, "edge-on sheet moved at {still} m/s");
    assert!(x.iter().all(|p| p.is_finite()));
    let (_, v) = run(no_gravity(square(air, "xy", 1.0)));
    let mean: DVec3 = v.iter().sum::<DVec3>() / v.len() as f64;
    println!("face-on sheet after 1 s in a 2 m/s wind: {mean}");
    // rho / rho_R = 0.06 s: after 1 s the sheet moves with the wind.
    assert!((mean.z - 2.0).abs() < 1e-3, "{mean}");
}
