//! The bending rigidity the paper's hinge energy gives a sheet (issue 23):
//! a flat grid mapped onto a cylinder of curvature `kappa`, and its
//! discrete energy `sum k_b s_e theta^2 / 2` (Gong 2025 Eq. 5) against the
//! continuum's `k_b kappa^2 / 2` per unit area, over the hinges away from
//! the sheet's edges, each owning a third of its two faces `(A0 + A1) / 3`. The
//! ratio is the rigidity the hinges give over the material's `bending`:
//! docs/physics.md "Effective rigidity" tabulates it per pattern.

use crease::cloth::Cloth;
use crease::mesh::{Hinge, Pattern, TriMesh, grid};
use crease::model::bending::{BendingModel, dihedral, energy};
use crease::model::material::preset;
use crease::scene;
use glam::{DVec2, DVec3};
use std::path::Path;

mod common;

/// Cotton's bending stiffness `k_b` (N m); the ratio does not depend on it.
const KB: f64 = 5e-6;

/// A 20 x 20 cm sheet of `n x n` quads in the xy plane split by
/// `pattern`; `jitter` moves each inner vertex by up to that fraction of
/// a quad in x and y (deterministically), the rest shape moving with it.
fn sheet(n: usize, pattern: Pattern, jitter: f64) -> TriMesh {
    let mut mesh = grid(0.2, 0.2, n, n, pattern, DVec3::ZERO, (DVec3::X, DVec3::Y));
    let h = 0.2 / n as f64;
    for (k, p) in mesh.positions.iter_mut().enumerate() {
        let (i, j) = (k % (n + 1), k / (n + 1));
        if i == 0 || j == 0 || i == n || j == n {
            continue;
        }
        // A fixed pseudo-random offset in [-1, 1]^2 per vertex.
        let t = k as f64;
        let u = DVec2::new((t * 12.9898).sin() * 43758.5453, (t * 78.233).sin() * 12345.6789);
        let u = (u - u.floor()) * 2.0 - DVec2::ONE;
        *p += (u * jitter * h).extend(0.0);
    }
    mesh.uv = Some(
        mesh.faces
            .iter()
            .map(|f| f.map(|v| mesh.positions[v as usize].truncate()))
            .collect(),
    );
    mesh
}

/// The energy of `mesh` wrapped onto a cylinder of curvature `kappa`
/// whose curvature runs along `angle` (radians from x) over the
/// continuum's, per hinge area, under `model`: the shell's hinges, or the
/// shape operator's coupled hinges (each hinge's share
/// `theta_h (K theta)_h / 2`).
fn rigidity(mesh: &TriMesh, model: BendingModel, kappa: f64, angle: f64) -> f64 {
    let mut material = preset("elastic").unwrap();
    material.bending = KB;
    material.bending_model = model;
    let cloth = Cloth::new(mesh.clone(), material, 0.0, DVec3::X).unwrap();
    let topology = &cloth.topology;
    let d = DVec2::new(angle.cos(), angle.sin());
    let wrap = |p: DVec3| {
        let (s, t) = (p.truncate().dot(d), p.truncate().perp_dot(d));
        let r = 1.0 / kappa;
        DVec3::new(r * (s / r).sin(), t, r * (1.0 - (s / r).cos()))
    };
    let x: Vec<DVec3> = mesh.positions.iter().map(|&p| wrap(p)).collect();
    let area = |f: u32| {
        let [a, b, c] = mesh.faces[f as usize].map(|v| mesh.positions[v as usize]);
        (b - a).cross(c - a).length() / 2.0
    };
    let theta: Vec<f64> = topology
        .hinges
        .iter()
        .map(|h| dihedral(h.v.map(|v| x[v as usize])))
        .collect();
    let (mut discrete, mut continuum) = (0.0, 0.0);
    // The hinges whose edge's midpoint lies in a box of whole quads away
    // from the sheet's edges (where hinges are missing): the box holds as
    // many edges of each direction as it holds quads.
    let inner = |h: &Hinge| {
        let mid = (mesh.positions[h.v[0] as usize] + mesh.positions[h.v[1] as usize]).truncate() / 2.0;
        mid.cmpge(DVec2::splat(0.02)).all() && mid.cmplt(DVec2::splat(0.18)).all()
    };
    for (i, h) in topology.hinges.iter().enumerate().filter(|(_, h)| inner(h)) {
        let [a, b] = h.faces.map(area);
        discrete += match &cloth.shape_operator {
            Some(k) => KB * theta[i] * (k.diag[i] * theta[i] + k.off_diagonal(i, &theta)) / 2.0,
            None => energy(model, KB, cloth.hinge_rest[i].factor, 0.0, theta[i], 0.0),
        };
        continuum += KB * kappa * kappa / 2.0 * (a + b) / 3.0;
    }
    discrete / continuum
}

/// Bent along the mesh lines, the hinges give the material's rigidity on
/// both patterns (to 0.1%); across the diagonals the hinge energy is
/// anisotropic: on the regular pattern a bend whose curvature runs along
/// its diagonals is 3.00 times as stiff (across them 1.00), on the
/// alternating one 1.50 times both ways, and a jittered mesh is stiffer
/// in every direction (1.25-1.27 along its lines, 1.82-1.85 at 45 degrees). Issue 23 asks for 5% on every
/// mesh and direction; the paper's angle mode keeps these.
#[test]
fn the_hinge_energy_gives_the_rigidity_along_mesh_lines_and_more_across_diagonals() {
    let kappa = 2.0;
    let deg = |a: f64| a.to_radians();
    let regular = sheet(50, Pattern::Regular, 0.0);
    let alternating = sheet(50, Pattern::Alternating, 0.0);
    let jittered = sheet(50, Pattern::Alternating, 0.25);
    let mut table = Vec::new();
    for (name, mesh) in [
        ("regular", &regular),
        ("alternating", &alternating),
        ("jittered", &jittered),
    ] {
        let row: Vec<f64> = [0.0, 45.0, -45.0, 90.0]
            .iter()
            .map(|&a| rigidity(mesh, BendingModel::DiscreteShell, kappa, deg(a)))
            .collect();
        println!(
            "{name:12} 0 deg {:.3}, 45 deg {:.3}, -45 deg {:.3}, 90 deg {:.3}",
            row[0], row[1], row[2], row[3]
        );
        table.push(row);
    }
    for row in &table[..2] {
        assert!((row[0] - 1.0).abs() < 1e-3 && (row[3] - 1.0).abs() < 1e-3, "{row:?}");
    }
    let near = |v: f64, want: f64| (v - want).abs() < 0.01 * want;
    assert!(
        near(table[0][1], 3.0) && near(table[0][2], 1.0),
        "regular {:?}",
        table[0]
    );
    assert!(
        near(table[1][1], 1.5) && near(table[1][2], 1.5),
        "alternating {:?}",
        table[1]
    );
    assert!(table[2].iter().all(|&r| r > 1.2), "jittered {:?}", table[2]);
}

/// The shape operator (`bending_model: "shape-operator"`) gives every
/// mesh the material's rigidity in every direction within 5% (issue 23),
/// with 4 and 8 mm quads: measured exact on the regular pattern, 1.000
/// to 1.025 on the alternating one (its faces' own operators, 5% of the
/// energy, are 1.5 across its diagonals), 1.01 to 1.05 on jittered ones.
#[test]
fn the_shape_operator_gives_the_rigidity_on_any_mesh_in_any_direction() {
    let kappa = 2.0;
    let meshes = [50, 25].into_iter().flat_map(|n| {
        [
            (n, "regular", sheet(n, Pattern::Regular, 0.0)),
            (n, "alternating", sheet(n, Pattern::Alternating, 0.0)),
            (n, "jittered", sheet(n, Pattern::Alternating, 0.25)),
            (n, "jittered regular", sheet(n, Pattern::Regular, 0.25)),
        ]
    });
    for (n, name, mesh) in meshes {
        let row: Vec<f64> = [0.0, 22.5, 45.0, -45.0, 90.0]
            .iter()
            .map(|&a: &f64| rigidity(&mesh, BendingModel::ShapeOperator, kappa, a.to_radians()))
            .collect();
        println!("{n} x {n} {name:17} 0, 22.5, 45, -45, 90 deg: {row:.3?}");
        assert!(row.iter().all(|r| (r - 1.0).abs() < 0.05), "{name}: {row:?}");
    }
}

/// Areal density of the strip (cotton's), kg/m^2.
const RHO: f64 = 0.06;
/// Gravity, m/s^2.
const G: f64 = 9.81;

/// The tip drop of the elastica: a strip of rigidity `b` per unit width
/// and length `l`, clamped level at one end and loaded by its weight
/// `q = rho g` per unit area. Its slope `phi(s)` below the horizontal
/// obeys `b phi'' = -q (l - s) cos(phi)` with `phi(0) = 0`, and the free
/// end carries no moment, `phi'(l) = 0`: shoot on `phi'(0)` by bisection,
/// integrating with RK4, and return `int sin(phi) ds`.
fn elastica_drop(b: f64, l: f64) -> f64 {
    let q = RHO * G;
    // (phi, phi', drop) at the free end for a start curvature `k0`.
    let shoot = |k0: f64| {
        let n = 4000;
        let ds = l / n as f64;
        let f = |s: f64, y: [f64; 3]| [y[1], -q * (l - s) * y[0].cos() / b, y[0].sin()];
        let mut y = [0.0, k0, 0.0];
        for i in 0..n {
            let s = i as f64 * ds;
            let add = |y: [f64; 3], k: [f64; 3], h: f64| [0, 1, 2].map(|j| y[j] + h * k[j]);
            let k1 = f(s, y);
            let k2 = f(s + ds / 2.0, add(y, k1, ds / 2.0));
            let k3 = f(s + ds / 2.0, add(y, k2, ds / 2.0));
            let k4 = f(s + ds, add(y, k3, ds));
            y = [0, 1, 2].map(|j| y[j] + ds / 6.0 * (k1[j] + 2.0 * k2[j] + 2.0 * k3[j] + k4[j]));
        }
        y
    };
    // The clamp's curvature lies between 0 (phi' ends negative) and the
    // small-deflection beam's `q l^2 / (2 b)` (phi' ends positive, as the
    // bent strip's lever arms are shorter).
    let (mut lo, mut hi) = (0.0, q * l * l / (2.0 * b));
    for _ in 0..60 {
        let mid = 0.5 * (lo + hi);
        if shoot(mid)[1] < 0.0 { lo = mid } else { hi = mid }
    }
    shoot(0.5 * (lo + hi))[2]
}

/// A 3 cm strip, 1 cm wide, of cotton's rigidity (no friction or
/// plasticity), clamped level by three columns of vertices and settled
/// under its weight on the CPU: its tip drop, with `nx x ny` quads over
/// its 3.5 cm (half a centimetre in the clamp).
fn cantilever_drop(model: &str, nx: usize, ny: usize) -> f64 {
    let text = format!(
        r#"{{
  "dt": 0.002,
  "self_collision": {{ "enabled": false }},
  "cloth": {{
    "mesh": {{ "grid": {{ "size": [0.035, 0.01], "resolution": [{nx}, {ny}], "pattern": "alternating", "plane": "xz", "origin": [-0.005, 0.1, 0.005] }} }},
    "material": {{ "preset": "elastic", "bending_strain": "curvature", "bending_model": "{model}" }},
    "damping": 0.05
  }},
  "handles": {{ "clamp": {{ "select": {{ "box": {{ "min": [-1, -1, -1], "max": [0.0001, 1, 1] }} }} }} }},
  "timeline": [ {{ "name": "settle", "duration": 2.0 }} ]
}}"#
    );
    let scene = scene::parse("cantilever.json", "cantilever", &text, Path::new("."), &[]).unwrap();
    assert_eq!(scene.cloth.material.bending, KB);
    let mut sim = common::tools::cpu(scene);
    while !sim.done() {
        sim.step().unwrap();
    }
    let x = sim.backend().positions().unwrap();
    x.iter().map(|p| 0.1 - p.y).fold(0.0, f64::max)
}

/// The clamped strip against the elastica of cotton's rigidity (issue
/// 23's cantilever, the classic bending test of fabrics). The discrete
/// clamp holds the strip a fraction of an edge inside its line, an error
/// that halves with the edge, so the drops at 2.5 and 1.25 mm edges are
/// extrapolated to zero edge (`2 d(h/2) - d(h)`). The shape operator
/// gives the elastica's drop within 2% (measured: 13.16 and 11.92 mm
/// extrapolate to 10.68 mm, the elastica's 10.68); the paper's hinges
/// 17% more (13.84 and 13.15 mm to 12.47, the drop of a rigidity of 0.82
/// of `bending`: issue 23's report).
#[test]
fn a_clamped_strip_sags_as_the_elastica_under_the_shape_operator() {
    let exact = elastica_drop(KB, 0.03);
    let extrapolate = |model: &str| {
        let (coarse, fine) = (cantilever_drop(model, 14, 4), cantilever_drop(model, 28, 8));
        println!(
            "{model}: {:.2} mm, {:.2} mm -> {:.2} mm; elastica {:.2} mm",
            coarse * 1e3,
            fine * 1e3,
            (2.0 * fine - coarse) * 1e3,
            exact * 1e3
        );
        2.0 * fine - coarse
    };
    let shape = extrapolate("shape-operator");
    let hinges = extrapolate("discrete-shell");
    assert!((shape - exact).abs() < 0.02 * exact, "{shape} vs {exact}");
    assert!(hinges > 1.1 * exact, "{hinges} vs {exact}");
}
