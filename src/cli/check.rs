//! `crease check` and `crease scenes`: a scene resolved, and the built-in scenes.

use anyhow::Result;
use crease::collide::Surface;
use crease::model::channel::{Channel, FrictionModel, PlasticModel};
use crease::scene::schema::Motion;
use crease::scene::{self, Action, ObstacleAction, Scene};
use crease::step::Preconditioner;

#[derive(clap::Args)]
pub struct CheckArgs {
    pub scene: String,
    #[arg(long = "set", value_name = "PATH=VALUE")]
    pub set: Vec<String>,
}

pub fn check(args: CheckArgs) -> Result<()> {
    let CheckArgs { scene, set } = args;
    let s = super::load_scene(&scene, &set)?;
    print_scene(&s);
    Ok(())
}

/// `crease scenes`.
pub fn scenes() -> Result<()> {
    for (name, text) in scene::BUILTIN {
        println!("{name:18} {}", scene::builtin_description(text));
    }
    Ok(())
}

/// The scene's preconditioner, and for `auto` what each backend makes of
/// it at this size.
fn preconditioner(s: &Scene) -> String {
    let p = s.solver.preconditioner;
    let n = s.cloth.vertex_count();
    let name = |gpu| p.concrete(n, gpu).name();
    match p {
        Preconditioner::Auto => format!("auto ({} on the CPU, {} on the GPU)", name(false), name(true)),
        _ => p.name().to_string(),
    }
}

fn print_scene(s: &Scene) {
    let c = &s.cloth;
    println!("scene {} ({})", s.name, s.source);
    if !s.description.is_empty() {
        println!("  {}", s.description);
    }
    println!(
        "  dt {} s, gravity {}, solver tolerance {} max {} iterations, {} preconditioner, {}",
        num(s.dt),
        vec3(s.gravity.to_array()),
        num(s.solver.tolerance),
        s.solver.max_iterations,
        preconditioner(s),
        match s.solver.contact_solves {
            0 => "no resting contacts".to_string(),
            n => format!("resting contacts (up to {n} solves a step)"),
        }
    );
    println!(
        "  mesh {}: {} vertices, {} faces, {} hinges, {} boundary edges",
        c.mesh.name,
        c.vertex_count(),
        c.mesh.faces.len(),
        c.topology.hinges.len(),
        c.topology.boundary_edges.len()
    );
    let groups: Vec<String> = c
        .mesh
        .groups()
        .map(|(name, vertices)| format!("{name} ({} vertices)", vertices.len()))
        .collect();
    if !groups.is_empty() {
        println!("  groups: {}", groups.join(", "));
    }
    let m = &c.material;
    println!(
        "  material: density {} kg/m^2, bending {} N m, stretching k11 {} k12 {} k22 {} k33 {} N/m; damping {} s",
        num(m.density),
        num(m.bending),
        num(m.stretching.k11),
        num(m.stretching.k12),
        num(m.stretching.k22),
        num(m.stretching.k33),
        num(c.damping)
    );
    // Enum values as scenes spell them.
    let name = |v: serde_json::Value| v.as_str().unwrap_or("?").to_string();
    let friction = |model: FrictionModel, ch: &Channel| match model {
        FrictionModel::Dwell => format!(
            "dwell (stiffness {}, eps_0 {}, eps_inf {}, tau {} s)",
            num(ch.dwell.stiffness),
            num(ch.dwell.eps_0),
            num(ch.dwell.eps_inf),
            num(ch.dwell.tau)
        ),
        FrictionModel::Dahl => format!(
            "dahl (a {}, b {}, tau {})",
            num(ch.dahl.a),
            num(ch.dahl.b),
            num(ch.dahl.tau)
        ),
        FrictionModel::None => "none".to_string(),
    };
    let plastic = |model: PlasticModel| name(serde_json::json!(model));
    println!(
        "  bending: {} model on the {} strain, friction {}, plasticity {}",
        name(serde_json::json!(m.bending_model)),
        name(serde_json::json!(m.bending_strain)),
        friction(m.bending_models.friction, &m.bending_channel),
        plastic(m.bending_models.plasticity)
    );
    println!(
        "  in-plane (uu channel): friction {}, plasticity {}",
        friction(m.in_plane_models.friction, &m.in_plane_channels[0]),
        plastic(m.in_plane_models.plasticity)
    );
    if c.initial_channels.is_some() {
        println!("  starts deformed, its channels loaded as if rolled there (cloth.roll)");
    }
    let sc = &s.self_collision;
    if sc.enabled {
        println!(
            "  self-collision: thickness {} m, stiffness {} N/m, friction {}",
            num(sc.thickness),
            num(sc.stiffness),
            num(sc.friction)
        );
    } else {
        println!("  self-collision: off");
    }
    for h in &s.handles {
        let axis = h
            .torque_axis
            .map(|a| {
                format!(
                    ", torque about {} through {}",
                    vec3(a.direction.to_array()),
                    vec3(a.point.to_array())
                )
            })
            .unwrap_or_default();
        let rides = h
            .attach
            .as_ref()
            .map(|a| format!(", riding on obstacle {}", s.obstacles[a.obstacle].name))
            .unwrap_or_default();
        println!("  handle {}: {} vertices{axis}{rides}", h.name, h.vertices.len());
    }
    for o in &s.obstacles {
        let surface = match &o.surface {
            Surface::Grid(g) => format!(
                "grid {} x {} x {} at {} m ({:.1} MiB)",
                g.dims[0],
                g.dims[1],
                g.dims[2],
                num(g.cell),
                g.bytes() as f64 / (1 << 20) as f64
            ),
            Surface::Sequence(q) => format!(
                "deforming body of {} vertices and {} triangles, {} frames at {} fps ({:.3} s{}), reach {} m",
                q.mesh.vertices,
                q.faces.len(),
                q.frames.len(),
                num(q.fps),
                q.duration(),
                if q.looped { ", looped" } else { ", then held" },
                num(q.reach)
            ),
        };
        println!(
            "  obstacle {}: friction {}, thickness {} m, {surface}{}",
            o.name,
            num(o.friction),
            num(o.thickness),
            if o.enabled { "" } else { ", added later" }
        );
    }
    for l in &s.loads {
        let mass: f64 = l.shares.iter().map(|v| s.cloth.mass[v.vertex as usize]).sum();
        let area = mass / s.cloth.material.density;
        println!(
            "  load {}: {} N on {} vertices ({} m^2 of cloth, {} Pa)",
            l.name,
            vec3(l.force.to_array()),
            l.shares.len(),
            num(area),
            num(l.force.length() / area)
        );
    }
    for (k, p) in s.phases.iter().enumerate() {
        let mut actions: Vec<String> = s
            .handles
            .iter()
            .zip(&p.actions)
            .filter_map(|(h, a)| {
                a.as_ref().map(|a| match a {
                    Action::Hold => format!("{} hold", h.name),
                    Action::Release => format!("{} release", h.name),
                    Action::Move(m) => format!("{} {}", h.name, motion(m)),
                })
            })
            .collect();
        actions.extend(s.obstacles.iter().zip(&p.obstacle_actions).filter_map(|(o, a)| {
            a.as_ref().map(|a| match a {
                ObstacleAction::Hold => format!("{} hold", o.name),
                ObstacleAction::Remove => format!("{} remove", o.name),
                ObstacleAction::Add => format!("{} add", o.name),
                ObstacleAction::Move(m) => format!("{} {}", o.name, motion(m)),
            })
        }));
        // A load's scale where it changes (in the first phase, where on).
        let before = k.checked_sub(1).map(|j| s.phases[j].load_scales.as_slice());
        actions.extend(s.loads.iter().enumerate().filter_map(|(i, l)| {
            let [start, end] = p.load_scales[i];
            let was = before.map_or(0.0, |b| b[i][1]);
            (start != was || end != start).then(|| match start == end {
                true => format!("load {} at {}", l.name, num(end)),
                false => format!("load {} from {} to {}", l.name, num(start), num(end)),
            })
        }));
        println!(
            "  phase {}: {} steps ({} s), material time {} s{}",
            p.name,
            p.steps,
            num(p.steps as f64 * s.dt),
            num(p.material_time),
            if actions.is_empty() {
                String::new()
            } else {
                format!("; {}", actions.join(", "))
            }
        );
    }
    let formats: Vec<&str> = s
        .formats
        .iter()
        .map(|f| match f {
            crease::scene::Format::Obj => "frames/*.obj",
            crease::scene::Format::Usd => "cloth.usda",
        })
        .collect();
    let frames = s.output_frames(s.total_steps());
    println!(
        "  output every {} s ({} steps, {} frames a second) as {}: {frames} frames, about {}",
        num(s.frame_interval),
        s.frame_steps(),
        num(1.0 / s.frame_interval),
        formats.join(" and "),
        crease::util::memory::size(frames.saturating_mul(crease::output::frame_bytes(s)))
    );
}

/// A number as a person writes it: to 4 significant digits, in exponent
/// form when very large or small (`0.7`, not `0.7000000000000001`; `1.571`
/// for pi/2; `1e308`, not 309 digits).
fn num(x: f64) -> String {
    match format!("{x:.3e}").parse::<f64>() {
        Ok(r) if r.fract() == 0.0 && r.abs() < 1e15 => format!("{r:.0}"),
        Ok(r) => format!("{r:?}"),
        Err(_) => x.to_string(),
    }
}

fn vec3(v: [f64; 3]) -> String {
    format!("[{}, {}, {}]", num(v[0]), num(v[1]), num(v[2]))
}

/// A handle's or obstacle's motion over a phase.
fn motion(m: &Motion) -> String {
    let mut parts = Vec::new();
    if let Some(t) = m.translate {
        parts.push(format!("moves by {} m", vec3(t)));
    }
    if let Some(r) = &m.rotate {
        parts.push(format!(
            "turns {} rad about {} through {}",
            num(r.angle),
            vec3(r.axis),
            vec3(r.point)
        ));
    }
    match parts.is_empty() {
        true => "holds still".to_string(),
        false => parts.join(" and "),
    }
}
