//! Energies, bend statistics and channel statistics of a state, computed
//! the same way for every backend (a GPU backend reads its state back).

pub mod fold;

use crate::cloth::Cloth;
use crate::model::bending::{BendingModel, bridson_factor, dihedral, energy, unwrap};
use crate::model::channel::{ChannelState, Channels, FrictionModel, Models, PlasticModel};
use crate::model::membrane::{eigenvalues, elastic_strain, green_strain};
use glam::DVec3;
use std::collections::BTreeMap;

/// Energies and statistics of one state. Bends are |theta - theta_rest| in
/// radians over interior hinges; `region_*` over the scene's measurement
/// region (all hinges when the scene names none).
#[derive(Clone, Copy, Debug, Default, serde::Serialize)]
pub struct Measures {
    pub kinetic_energy: f64,
    pub membrane_energy: f64,
    pub bending_energy: f64,
    pub mean_abs_bend: f64,
    pub max_abs_bend: f64,
    pub region_mean_abs_bend: f64,
    pub region_max_abs_bend: f64,
    /// Fraction of friction channels (bending and in-plane, where a model is
    /// on) that slipped at the last update.
    pub slip_fraction: f64,
    /// Fraction of plastic channels that have yielded.
    pub yield_fraction: f64,
    /// Mean and max |eps_p| over bending channels, rad.
    pub mean_abs_plastic_bend: f64,
    pub max_abs_plastic_bend: f64,
    /// Mean |eps_p| over in-plane channels.
    pub mean_abs_plastic_in_plane: f64,
    /// Largest distance of a vertex from its initial position, m.
    pub max_displacement: f64,
    /// Largest and smallest edge strain `|x_b - x_a| / rest - 1` (the
    /// quantity strain limiting bounds).
    pub max_edge_strain: f64,
    pub min_edge_strain: f64,
    /// Largest principal stretch of any triangle (`max_stretch`): how far
    /// the fabric is stretched in its most stretched direction, which an
    /// edge's strain misses where a triangle shears.
    pub max_stretch: f64,
}

/// Counts over the channels of one family whose models are on.
#[derive(Default)]
struct Tally {
    friction: usize,
    slips: usize,
    plastic: usize,
    yields: usize,
    sum_abs_plastic: f64,
    max_abs_plastic: f64,
}

impl Tally {
    fn of(channels: impl Iterator<Item = ChannelState>, models: &Models) -> Tally {
        let friction_on = models.friction != FrictionModel::None;
        let plastic_on = models.plasticity != PlasticModel::None;
        let mut t = Tally::default();
        for c in channels {
            if friction_on {
                t.friction += 1;
                t.slips += usize::from(c.friction.slip);
            }
            if plastic_on {
                t.plastic += 1;
                t.yields += usize::from(c.plastic.yielded());
                t.sum_abs_plastic += c.plastic.eps_p.abs();
                t.max_abs_plastic = t.max_abs_plastic.max(c.plastic.eps_p.abs());
            }
        }
        t
    }
}

/// Total elastic membrane energy (serial sum in face order: reproducible).
pub fn membrane_energy(cloth: &Cloth, x: &[DVec3], channel: &[[ChannelState; 3]]) -> f64 {
    let k = cloth.material.stretching;
    cloth
        .mesh
        .faces
        .iter()
        .zip(&cloth.face_rest)
        .zip(channel)
        .map(|((face, rest), ch)| {
            let (fu, fv) = rest.deformation(face.map(|v| x[v as usize]));
            let eps_p = ch.map(|c| c.plastic.eps_p);
            rest.area * k.energy_density(elastic_strain(green_strain(fu, fv), eps_p))
        })
        .sum()
}

fn mean(sum: f64, n: usize) -> f64 {
    if n == 0 { 0.0 } else { sum / n as f64 }
}

pub fn measure(cloth: &Cloth, x: &[DVec3], v: &[DVec3], ch: &Channels) -> Measures {
    let m = &cloth.material;
    let mut out = Measures {
        kinetic_energy: v
            .iter()
            .zip(&cloth.mass)
            .map(|(v, m)| 0.5 * m * v.length_squared())
            .sum(),
        ..Measures::default()
    };
    let bends = bends(cloth, x, ch);
    let mut elastic = Vec::with_capacity(bends.len());
    for (((d, rest), c), h) in bends
        .iter()
        .zip(&cloth.hinge_rest)
        .zip(&ch.hinges)
        .zip(&cloth.topology.hinges)
    {
        let factor = match m.bending_model {
            BendingModel::DiscreteShell => rest.factor,
            BendingModel::Bridson => bridson_factor(h.v.map(|i| x[i as usize])),
            // Its elastic energy is the coupling's, below.
            BendingModel::ShapeOperator => 0.0,
        };
        let eps_p = rest.plastic_angle(m.bending_strain, c.plastic.eps_p);
        out.bending_energy += energy(m.bending_model, m.bending, factor, rest.theta, *d, eps_p);
        elastic.push(d - eps_p);
        out.mean_abs_bend += d.abs();
        out.max_abs_bend = out.max_abs_bend.max(d.abs());
    }
    if let Some(k) = &cloth.shape_operator {
        out.bending_energy += m.bending * k.energy(&elastic);
    }
    out.mean_abs_bend = mean(out.mean_abs_bend, bends.len());
    let region: Vec<f64> = match &cloth.region_hinges {
        Some(r) => r.iter().map(|&h| bends[h as usize].abs()).collect(),
        None => bends.iter().map(|d| d.abs()).collect(),
    };
    out.region_mean_abs_bend = mean(region.iter().sum(), region.len());
    out.region_max_abs_bend = region.iter().fold(0.0, |a, &b| a.max(b));
    out.membrane_energy = membrane_energy(cloth, x, &ch.faces);
    out.max_displacement = x
        .iter()
        .zip(&cloth.mesh.positions)
        .map(|(p, q)| (*p - *q).length())
        .fold(0.0, f64::max);
    (out.min_edge_strain, out.max_edge_strain) = edge_strain_range(cloth, x);
    out.max_stretch = max_stretch(cloth, x);

    // Bending plastic strains as angles, whatever the channel's strain.
    let as_angles = ch.hinges.iter().zip(&cloth.hinge_rest).map(|(c, rest)| {
        let mut c = *c;
        c.plastic.eps_p = rest.plastic_angle(m.bending_strain, c.plastic.eps_p);
        c
    });
    let bending = Tally::of(as_angles, &m.bending_models);
    let in_plane = Tally::of(ch.faces.iter().flatten().copied(), &m.in_plane_models);
    out.mean_abs_plastic_bend = mean(bending.sum_abs_plastic, bending.plastic);
    out.max_abs_plastic_bend = bending.max_abs_plastic;
    out.mean_abs_plastic_in_plane = mean(in_plane.sum_abs_plastic, in_plane.plastic);
    out.slip_fraction = mean(
        (bending.slips + in_plane.slips) as f64,
        bending.friction + in_plane.friction,
    );
    out.yield_fraction = mean(
        (bending.yields + in_plane.yields) as f64,
        bending.plastic + in_plane.plastic,
    );
    out
}

/// Each hinge's `theta - theta_rest`, unwrapped past pi like the kernels'
/// strain (cpu/bending.rs).
fn bends(cloth: &Cloth, x: &[DVec3], ch: &Channels) -> Vec<f64> {
    cloth
        .topology
        .hinges
        .iter()
        .zip(&cloth.hinge_rest)
        .enumerate()
        .map(|(k, (h, rest))| {
            let raw = dihedral(h.v.map(|i| x[i as usize])) - rest.theta;
            ch.hinge_strain.get(k).map_or(raw, |&last| unwrap(raw, last))
        })
        .collect()
}

/// Bend statistics over one named group of a garment (its knees, its
/// seat): the hinges whose edge has both ends in the group.
#[derive(Clone, Copy, Debug, Default, PartialEq, serde::Serialize)]
pub struct GroupBend {
    pub hinges: usize,
    /// Mean and max |theta - theta_rest|, rad.
    pub mean_abs_bend: f64,
    pub max_abs_bend: f64,
    /// Mean |eps_p| of the bending channels, as an angle (rad); 0 where
    /// bending plasticity is off.
    pub mean_abs_plastic_bend: f64,
    /// The wrinkles: hinges bent more than [`WRINKLE`] from rest.
    pub wrinkles: usize,
}

/// A hinge bent more than this from rest (rad, about 17 degrees) is a
/// wrinkle's ([`GroupBend::wrinkles`]): a fold, not the gentle curve of
/// cloth draped over a limb.
pub const WRINKLE: f64 = 0.3;

/// `GroupBend` of every vertex group of the cloth's mesh, by name (groups
/// with no hinge are left out).
pub fn group_bends(cloth: &Cloth, x: &[DVec3], ch: &Channels) -> BTreeMap<String, GroupBend> {
    let bends = bends(cloth, x, ch);
    let plastic_on = cloth.material.bending_models.plasticity != PlasticModel::None;
    let mut out = BTreeMap::new();
    for (name, vertices) in cloth.mesh.groups() {
        let mut g = GroupBend::default();
        for k in cloth.topology.hinges_inside(vertices) {
            let k = k as usize;
            let plastic = cloth.hinge_rest[k].plastic_angle(cloth.material.bending_strain, ch.hinges[k].plastic.eps_p);
            g.hinges += 1;
            g.mean_abs_bend += bends[k].abs();
            g.max_abs_bend = g.max_abs_bend.max(bends[k].abs());
            g.wrinkles += (bends[k].abs() > WRINKLE) as usize;
            if plastic_on {
                g.mean_abs_plastic_bend += plastic.abs();
            }
        }
        if g.hinges > 0 {
            g.mean_abs_bend = mean(g.mean_abs_bend, g.hinges);
            g.mean_abs_plastic_bend = mean(g.mean_abs_plastic_bend, g.hinges);
            out.insert(name.to_string(), g);
        }
    }
    out
}

/// The smallest and largest edge strain of the cloth at `x`.
pub fn edge_strain_range(cloth: &Cloth, x: &[DVec3]) -> (f64, f64) {
    cloth
        .topology
        .edges
        .iter()
        .zip(&cloth.edge_rest)
        .map(|(&[a, b], &l)| (x[b as usize] - x[a as usize]).length() / l - 1.0)
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), s| (lo.min(s), hi.max(s)))
}

/// The largest principal stretch over the cloth's triangles:
/// `sqrt(lambda) - 1`, `lambda` the larger eigenvalue of `C = F^T F` (the
/// right Cauchy-Green tensor of the deformation gradient `F = [f_u f_v]`
/// from the rest shape). Its sides' strains bound it from below only: a tall,
/// sheared triangle stretches along neither of its sides, and a mesh of
/// long triangles can pass an edge bound while its fabric tears.
pub fn max_stretch(cloth: &Cloth, x: &[DVec3]) -> f64 {
    cloth
        .mesh
        .faces
        .iter()
        .zip(&cloth.face_rest)
        .map(|(face, rest)| {
            let (fu, fv) = rest.deformation(face.map(|v| x[v as usize]));
            let (lambda, _) = eigenvalues([fu.dot(fu), fv.dot(fv), fu.dot(fv)]);
            lambda.sqrt() - 1.0
        })
        .fold(f64::NEG_INFINITY, f64::max)
}

/// Every element's corner forces: faces (`-(beta_a.x AP_u + beta_a.y AP_v)`,
/// 3 corners each) then hinges (`force * grad_a`, 4 corners each). Net
/// vertex forces are small sums of large element terms, so kernels are
/// compared element by element.
pub fn element_forces(
    cloth: &Cloth,
    stress: &[[DVec3; 2]],
    hinge_force: &[f64],
    hinge_grad: &[[DVec3; 4]],
) -> Vec<DVec3> {
    let faces = stress
        .iter()
        .zip(&cloth.face_rest)
        .flat_map(|(s, r)| crate::model::membrane::spread(r, *s).map(|f| -f));
    let hinges = hinge_force.iter().zip(hinge_grad).flat_map(|(f, g)| g.map(|g| g * *f));
    faces.chain(hinges).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A sheet of tall triangles (1 x 8 cm quads) sheared by `x += gamma
    /// z` stretches most along neither of their sides: its principal
    /// stretch is the analytic `sqrt(1 + gamma^2 / 2 + gamma sqrt(1 +
    /// gamma^2 / 4)) - 1` on every triangle (0.281 at gamma 0.5), where the
    /// most stretched side, a diagonal, is at 0.170. A plain scaling by 1.3
    /// is 0.3, and the rest shape 0.
    #[test]
    fn the_largest_stretch_is_the_principal_one_not_a_sides() {
        use crate::mesh::{Pattern, grid};
        let mesh = grid(
            0.1,
            0.8,
            10,
            10,
            Pattern::Alternating,
            DVec3::ZERO,
            (DVec3::X, DVec3::Z),
        );
        let rest = mesh.positions.clone();
        let material = crate::model::material::preset("cotton").unwrap();
        let cloth = Cloth::new(mesh, material, 0.0, DVec3::X).unwrap();
        let gamma = 0.5f64;
        let sheared: Vec<DVec3> = rest.iter().map(|p| *p + DVec3::X * gamma * p.z).collect();
        let exact = (1.0 + 0.5 * gamma * gamma + gamma * (1.0 + 0.25 * gamma * gamma).sqrt()).sqrt() - 1.0;
        let (_, edges) = edge_strain_range(&cloth, &sheared);
        let stretch = max_stretch(&cloth, &sheared);
        println!("sheared: principal stretch {stretch:.6} (exact {exact:.6}), largest edge strain {edges:.6}");
        assert!(
            (stretch - exact).abs() < 1e-12 && edges < exact - 0.1,
            "{stretch} {exact} {edges}"
        );
        let scaled: Vec<DVec3> = rest.iter().map(|p| *p * 1.3).collect();
        assert!((max_stretch(&cloth, &scaled) - 0.3).abs() < 1e-12);
        assert!(max_stretch(&cloth, &rest).abs() < 1e-12);
    }

    /// A sheet folded 0.5 rad along x = 5 cm: a group around the fold has
    /// the fold's hinges, bent 0.5 rad, among flat ones; a group away from
    /// it none bent; plastic set counts where the channels carry it; a
    /// group with no hinge inside is left out.
    #[test]
    fn a_group_around_a_fold_reports_its_bend_and_plastic_set() {
        let (mut mesh, x) = crate::mesh::testing::folded_sheet();
        let near = |lo: f64, hi: f64| -> Vec<u32> {
            (0..mesh.positions.len() as u32)
                .filter(|&v| (lo..=hi).contains(&mesh.positions[v as usize].x))
                .collect()
        };
        let (fold, flat) = (near(0.035, 0.065), near(0.0, 0.02));
        mesh.named_sets.insert("group:fold".into(), fold);
        mesh.named_sets.insert("group:flat".into(), flat);
        mesh.named_sets.insert("group:lone".into(), vec![0]);
        let material = crate::model::material::preset("cotton").unwrap();
        let cloth = Cloth::new(mesh, material, 0.0, DVec3::X).unwrap();
        let initial = cloth.material.bending_channel.initial_state();
        let mut ch = Channels {
            hinges: vec![initial; cloth.topology.hinges.len()],
            faces: vec![cloth.material.in_plane_channels.map(|c| c.initial_state()); cloth.mesh.faces.len()],
            hinge_strain: Vec::new(),
        };
        let on_fold = |h: &crate::mesh::Hinge| {
            h.v[..2]
                .iter()
                .all(|&v| (cloth.mesh.positions[v as usize].x - 0.05).abs() < 1e-9)
        };
        for (c, h) in ch.hinges.iter_mut().zip(&cloth.topology.hinges) {
            if on_fold(h) {
                c.plastic.eps_p = 0.2;
            }
        }
        let g = group_bends(&cloth, &x, &ch);
        assert!(!g.contains_key("lone"));
        let (fold, flat) = (g["fold"], g["flat"]);
        let folded = cloth.topology.hinges.iter().filter(|h| on_fold(h)).count();
        println!("{fold:?} {flat:?}, {folded} fold hinges");
        assert!((fold.max_abs_bend - 0.5).abs() < 1e-9);
        let share = folded as f64 / fold.hinges as f64;
        assert!((fold.mean_abs_bend - 0.5 * share).abs() < 1e-9);
        let angle = cloth.hinge_rest[0].plastic_angle(cloth.material.bending_strain, 0.2);
        assert!((fold.mean_abs_plastic_bend - angle * share).abs() < 1e-12);
        assert!(flat.hinges > 0 && flat.max_abs_bend < 1e-12 && flat.mean_abs_plastic_bend == 0.0);
    }
}
