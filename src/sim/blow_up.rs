//! What a run that blew up is told to change: the fields that set its
//! step's stability, with their values.

use crate::cloth::Cloth;
use crate::scene::Scene;
use crate::step::Integrator;

/// The advice that ends a blow-up's message, naming `dt` (and, by the
/// integrator, its stability limit or `cloth.damping`) with the scene's
/// values, and any obstacle whose thickness is longer than the cloth's
/// mean edge (`thick_obstacles`).
pub fn advice(scene: &Scene) -> String {
    let step = step_advice(scene);
    match thick_obstacles(scene) {
        Some(thick) => format!("{thick}; or {step}"),
        None => step,
    }
}

/// The obstacles whose `thickness` (the gap kept between the cloth and
/// their surface) is longer than the cloth's mean rest edge, said with
/// both lengths. A layer that thick holds cloth fitted closer than it
/// (a garment on a body, with millimetres of ease) inside itself from
/// the first step, and the response throws those vertices out by up to
/// the thickness within a step: `obstacles.body.thickness = 1` on the
/// trousers stretched an edge 50 times its length by step 20.
fn thick_obstacles(scene: &Scene) -> Option<String> {
    let edges: Vec<f64> = scene.cloth.face_rest.iter().flat_map(|r| r.edge_len).collect();
    let mean = edges.iter().sum::<f64>() / edges.len().max(1) as f64;
    let thick: Vec<String> = scene
        .obstacles
        .iter()
        .filter(|o| o.thickness > mean)
        .map(|o| format!("obstacles.{}.thickness is {} m", o.name, o.thickness))
        .collect();
    (!thick.is_empty()).then(|| {
        format!(
            "{}, longer than the cloth's mean edge ({mean:.3e} m): a contact layer that thick throws the cloth \
             within it outwards; make it a few millimetres (the built-in scenes' bodies keep 3 mm)",
            thick.join(", ")
        )
    })
}

fn step_advice(scene: &Scene) -> String {
    match scene.integrator {
        Integrator::BridsonMixed => format!(
            "The mixed integrator takes the elastic forces explicitly: undamped, it is stable on this mesh only \
             below about {:.3e} s a step (a stretching or bending wave crossing its shortest edge; cloth.damping, \
             taken implicitly, stretches that some way), and dt is {} s. Reduce dt, or use integrator \
             \"backward-euler\"",
            explicit_step_limit(&scene.cloth),
            scene.dt
        ),
        Integrator::BackwardEuler => format!(
            "dt is {} s and cloth.damping {} s: reduce dt (a half, then a quarter), or raise cloth.damping",
            scene.dt, scene.cloth.damping
        ),
    }
}

/// About the longest step explicit elastic forces stay stable at on this
/// cloth without damping (a CFL estimate, not a bound): the time a
/// stretching wave (speed `sqrt(k / rho)`, the stiffest channel) takes to
/// cross the shortest rest edge `dx`, or a bending wave's
/// `dx^2 sqrt(rho / k_b)`, whichever is shorter. Measured on `hang` with
/// `cloth.damping = 0`: 8.7e-4 s estimated, stable at 5e-4, blown up at
/// 1e-3; its damping of 0.01 s keeps it stable to about 1e-2.
fn explicit_step_limit(cloth: &Cloth) -> f64 {
    let dx = cloth
        .face_rest
        .iter()
        .flat_map(|r| r.edge_len)
        .fold(f64::INFINITY, f64::min);
    let m = &cloth.material;
    let k = m.stretching.k11.max(m.stretching.k22).max(m.stretching.k33);
    let stretch = dx * (m.density / k).sqrt();
    let bend = dx * dx * (m.density / m.bending).sqrt();
    stretch.min(bend)
}
