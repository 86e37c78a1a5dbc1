//! The bending rigidity the paper's hinge energy gives a sheet (issue 23):
//! a flat grid mapped onto a cylinder of curvature `kappa`, and its
//! discrete energy `sum k_b s_e theta^2 / 2` (Gong 2025 Eq. 5) against the
//! continuum's `k_b kappa^2 / 2` per unit area, over the hinges away from
//! the sheet's edges, each owning a third of its two faces `(A0 + A1) / 3`. The
//! ratio is the rigidity the hinges give over the material's `bending`:
//! docs/physics.md "Effective rigidity" tabulates it per pattern.

use crease::mesh::{Hinge, Pattern, Topology, TriMesh, grid};
use crease::model::bending::{BendingModel, dihedral, energy, stiffness_factor};
use glam::{DVec2, DVec3};

/// Cotton's bending stiffness `k_b` (N m); the ratio does not depend on it.
const KB: f64 = 5e-6;

/// A 20 x 20 cm sheet of 4 x 4 mm quads in the xy plane split by
/// `pattern`; `jitter` moves each inner vertex by up to that fraction of
/// a quad in x and y (deterministically), the rest shape moving with it.
fn sheet(pattern: Pattern, jitter: f64) -> TriMesh {
    let n = 50;
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
/// continuum's, per hinge area.
fn rigidity(mesh: &TriMesh, kappa: f64, angle: f64) -> f64 {
    let topology = Topology::build(mesh).unwrap();
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
    let (mut discrete, mut continuum) = (0.0, 0.0);
    // The hinges whose edge's midpoint lies in a box of whole quads away
    // from the sheet's edges (where hinges are missing): the box holds as
    // many edges of each direction as it holds quads.
    let inner = |h: &&Hinge| {
        let mid = (mesh.positions[h.v[0] as usize] + mesh.positions[h.v[1] as usize]).truncate() / 2.0;
        mid.cmpge(DVec2::splat(0.02)).all() && mid.cmplt(DVec2::splat(0.18)).all()
    };
    for h in topology.hinges.iter().filter(inner) {
        let [a, b] = h.faces.map(area);
        let len = (mesh.positions[h.v[1] as usize] - mesh.positions[h.v[0] as usize]).length();
        let theta = dihedral(h.v.map(|v| x[v as usize]));
        discrete += energy(
            BendingModel::DiscreteShell,
            KB,
            stiffness_factor(len, a, b),
            0.0,
            theta,
            0.0,
        );
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
    let regular = sheet(Pattern::Regular, 0.0);
    let alternating = sheet(Pattern::Alternating, 0.0);
    let jittered = sheet(Pattern::Alternating, 0.25);
    let mut table = Vec::new();
    for (name, mesh) in [
        ("regular", &regular),
        ("alternating", &alternating),
        ("jittered", &jittered),
    ] {
        let row: Vec<f64> = [0.0, 45.0, -45.0, 90.0]
            .iter()
            .map(|&a| rigidity(mesh, kappa, deg(a)))
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
