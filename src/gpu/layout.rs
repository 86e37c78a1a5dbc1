//! `#[repr(C)]` twins of the WGSL structs in `shaders/shared/types.wgsl`.
//! A test checks each size and field offset against naga's reflection.

use crate::cloth::Cloth;
use crate::model::air::Air;
use crate::model::bending::{BendingModel, BendingStrain};
use crate::model::channel::{Channel, ChannelState, FrictionModel, PlasticModel};
use crate::model::friction::FrictionState;
use crate::model::plastic::PlasticState;
use crate::step::Scales;
use bytemuck::{Pod, Zeroable};
use glam::DVec3;

/// WGSL `ChannelParams`.
#[repr(C)]
#[derive(Clone, Copy, Debug, Pod, Zeroable)]
pub struct ChannelParams {
    pub dwell: [f32; 4],
    pub dahl: [f32; 4],
    pub hardening: [f32; 4],
    /// Decades of the dwell's and the hardening's decay, of the dwell's
    /// scatter across elements and its skew.
    pub spread: [f32; 4],
}

/// WGSL `Params`.
#[repr(C)]
#[derive(Clone, Copy, Debug, Pod, Zeroable)]
pub struct Params {
    /// Vertices, faces, hinges; 1 when the step has loads (the `load`
    /// buffer holds them).
    pub counts: [u32; 4],
    pub models: [u32; 4],
    /// The hinge's models: bending model, bending strain (the ids of
    /// [`bending_model_id`], [`bending_strain_id`]), 1 with Melo's coupling.
    pub hinge: [u32; 4],
    pub stretching: [f32; 4],
    pub step: [f32; 4],
    pub scales: [f32; 4],
    pub gravity: [f32; 4],
    /// Drag `rho_D`, normal drag `rho_R`, 1 / density, 1 when the air acts.
    pub air: [f32; 4],
    /// The wind; 1 when the step has sticking springs.
    pub wind: [f32; 4],
    pub bending: ChannelParams,
    pub in_plane: [ChannelParams; 3],
}

/// WGSL `PackedChannel`: friction (anchor, t_stick, sigma, flags) with
/// flags = slip + 2 (dir + 1), and plastic (eps_p, eps_hp, eps_y, t_p).
#[repr(C)]
#[derive(Clone, Copy, Debug, Pod, Zeroable)]
pub struct PackedChannel {
    pub friction: [f32; 4],
    pub plastic: [f32; 4],
}

/// WGSL `Displacement`: a vertex's displacement from the mesh's position,
/// split as `hi + lo` with `hi` a multiple of [`DISPLACEMENT_QUANTUM`] (see
/// types.wgsl for why).
#[repr(C)]
#[derive(Clone, Copy, Debug, Pod, Zeroable)]
pub struct Displacement {
    pub hi: [f32; 4],
    pub lo: [f32; 4],
}

/// WGSL `DISPLACEMENT_QUANTUM`, m.
pub const DISPLACEMENT_QUANTUM: f64 = 1.0 / 1024.0;

impl Displacement {
    pub fn split(u: DVec3) -> Displacement {
        let hi = (u / DISPLACEMENT_QUANTUM).round() * DISPLACEMENT_QUANTUM;
        let lo = u - hi;
        let q = |v: DVec3| [v.x as f32, v.y as f32, v.z as f32, 0.0];
        Displacement { hi: q(hi), lo: q(lo) }
    }

    pub fn value(&self) -> DVec3 {
        unpack(&self.hi) + unpack(&self.lo)
    }
}

/// The `xyz` of a WGSL `vec4<f32>` word, in f64.
pub fn unpack(a: &[f32; 4]) -> DVec3 {
    DVec3::new(a[0] as f64, a[1] as f64, a[2] as f64)
}

/// WGSL `FaceRest`.
#[repr(C)]
#[derive(Clone, Copy, Debug, Pod, Zeroable)]
pub struct FaceRest {
    pub beta01: [f32; 4],
    pub beta2: [f32; 4],
    pub fx_u: [f32; 4],
    pub fx_v: [f32; 4],
}

/// WGSL `HingeRest`, with its third vector (`X3 - X0`, cos theta_rest),
/// which the device keeps in a buffer of its own.
#[repr(C)]
#[derive(Clone, Copy, Debug, Pod, Zeroable)]
pub struct HingeRest {
    pub e: [f32; 4],
    pub a2: [f32; 4],
}

impl FaceRest {
    /// Rest data of face `f`, with the deformation gradient and strain of
    /// the initial positions computed in f64.
    pub fn new(cloth: &Cloth, f: usize) -> FaceRest {
        let r = &cloth.face_rest[f];
        let x = cloth.mesh.faces[f].map(|v| cloth.mesh.positions[v as usize]);
        let (fu, fv) = r.deformation(x);
        let e = crate::model::membrane::green_strain(fu, fv);
        let q = |a: [f64; 4]| a.map(|x| x as f32);
        FaceRest {
            beta01: q([r.beta[0].x, r.beta[0].y, r.beta[1].x, r.beta[1].y]),
            beta2: q([r.beta[2].x, r.beta[2].y, r.area, e[2]]),
            fx_u: q([fu.x, fu.y, fu.z, e[0]]),
            fx_v: q([fv.x, fv.y, fv.z, e[1]]),
        }
    }
}

impl HingeRest {
    pub fn new(cloth: &Cloth, h: usize) -> (HingeRest, [f32; 4]) {
        let x = cloth.topology.hinges[h].v.map(|v| cloth.mesh.positions[v as usize]);
        let rest = &cloth.hinge_rest[h];
        let q = |v: glam::DVec3, w: f64| [v.x, v.y, v.z, w].map(|x| x as f32);
        let r = HingeRest {
            e: q(x[1] - x[0], rest.theta.sin()),
            a2: q(x[2] - x[0], rest.factor),
        };
        (r, q(x[3] - x[0], rest.theta.cos()))
    }
}

/// `HingeCoupling` of shaders/bending.wgsl: one hinge's stretch-bend
/// coupling (model/cosserat.rs) with `grad_j s_F = F_u p_j + F_v q_j`.
#[repr(C)]
#[derive(Clone, Copy, Debug, Pod, Zeroable)]
pub struct HingeCoupling {
    pub a_p: [f32; 4],
    pub a_q: [f32; 4],
    pub b_p: [f32; 4],
    pub b_q: [f32; 4],
    pub w: [f32; 4],
}

impl HingeCoupling {
    /// Hinge `h` of `cloth`, with its `phi |e| / 2`.
    pub fn new(cloth: &Cloth, h: usize) -> HingeCoupling {
        let c = &cloth.coupling[h];
        // p_j = w_uu beta_j.x + w_uv beta_j.y / 2, q_j = w_vv beta_j.y + w_uv beta_j.x / 2.
        let pq = |face: usize| {
            let w = c.weights[face];
            let b = c.beta[face];
            (
                b.map(|b| w[0] * b.x + 0.5 * w[2] * b.y),
                b.map(|b| w[1] * b.y + 0.5 * w[2] * b.x),
            )
        };
        let ((ap, aq), (bp, bq)) = (pq(0), pq(1));
        let q = |a: [f64; 4]| a.map(|x| x as f32);
        let w = c.weights;
        HingeCoupling {
            a_p: q([ap[0], ap[1], ap[2], w[0][0]]),
            a_q: q([aq[0], aq[1], aq[2], w[0][1]]),
            b_p: q([bp[0], bp[1], bp[2], w[1][0]]),
            b_q: q([bq[0], bq[1], bq[2], w[1][1]]),
            w: q([w[0][2], w[1][2], cloth.material.coupling * c.half_len, 0.0]),
        }
    }
}

/// WGSL `FaceLin`.
#[repr(C)]
#[derive(Clone, Copy, Debug, Pod, Zeroable)]
pub struct FaceLin {
    pub fu: [f32; 4],
    pub fv: [f32; 4],
    pub s: [f32; 4],
    pub c: [f32; 4],
}

/// WGSL `HingeHalf`.
#[repr(C)]
#[derive(Clone, Copy, Debug, Pod, Zeroable)]
pub struct HingeHalf {
    pub a: [f32; 4],
    pub b: [f32; 4],
}

/// WGSL `Scalars`.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, Pod, Zeroable)]
pub struct Scalars {
    pub rr_ref: f32,
    pub rr: f32,
    pub rz: f32,
    pub pq: f32,
    pub alpha: f32,
    pub beta: f32,
    pub tol2: f32,
    pub floor2: f32,
    pub zero: u32,
    pub iterations: u32,
    pub max_iterations: u32,
    pub done: u32,
    pub broke: u32,
}

/// WGSL `PairGpu`: a self-collision pair (collide/proximity.rs `Pair`).
#[repr(C)]
#[derive(Clone, Copy, Debug, Pod, Zeroable)]
pub struct PairGpu {
    pub v: [u32; 4],
    pub c: [f32; 4],
    /// Normal and separation at detection.
    pub n: [f32; 4],
}

impl PairGpu {
    /// The pair as the host's search gives it (weights, normal and
    /// separation widened from f32).
    pub fn pair(&self) -> crate::collide::proximity::Pair {
        crate::collide::proximity::Pair {
            v: self.v,
            c: self.c.map(f64::from),
            n: unpack(&self.n),
            d: self.n[3] as f64,
        }
    }
}

/// WGSL `RepulsionParams`: pair count, whether the obstacle contact flags
/// are this step's; stiffness, thickness, friction and the system factor.
#[repr(C)]
#[derive(Clone, Copy, Debug, Pod, Zeroable)]
pub struct RepulsionParams {
    pub counts: [u32; 4],
    pub coef: [f32; 4],
}

/// WGSL `ProximityParams` of shaders/proximity.wgsl: vertex, face and
/// edge counts with the bucket mask; the pairs' capacity; the thickness.
#[repr(C)]
#[derive(Clone, Copy, Debug, Pod, Zeroable)]
pub struct ProximityParams {
    pub counts: [u32; 4],
    pub capacity: [u32; 4],
    pub coef: [f32; 4],
}

/// `LimitEdge` of shaders/strain_limit.wgsl: an edge's ends, and its
/// vector at the rest positions with its rest length.
#[repr(C)]
#[derive(Clone, Copy, Debug, Pod, Zeroable)]
pub struct LimitEdge {
    pub ends: [u32; 4],
    pub rest: [f32; 4],
}

/// `LimitParams` of shaders/strain_limit.wgsl: the edge count; the bounds
/// `1 - compression`, `1 + extension` on length over rest length.
#[repr(C)]
#[derive(Clone, Copy, Debug, Pod, Zeroable)]
pub struct LimitParams {
    pub counts: [u32; 4],
    pub bounds: [f32; 4],
}

/// WGSL `ProductMode`.
#[repr(C)]
#[derive(Clone, Copy, Debug, Pod, Zeroable)]
pub struct ProductMode {
    pub mass_scale: f32,
    pub filter_rows: u32,
    pub pad: [u32; 2],
}

/// WGSL `SdfInfo` (shaders/collide.wgsl): a grid's origin and cell, its
/// node counts and the offset of its first value in the shared buffer.
#[repr(C)]
#[derive(Clone, Copy, Debug, Pod, Zeroable)]
pub struct SdfInfo {
    pub origin: [f32; 4],
    pub dims: [u32; 4],
}

/// WGSL `ObstacleGpu` (shaders/collide.wgsl): an obstacle over one step.
#[repr(C)]
#[derive(Clone, Copy, Debug, Pod, Zeroable)]
pub struct ObstacleGpu {
    pub start_rot: [f32; 4],
    pub start_trans: [f32; 4],
    pub end_rot: [f32; 4],
    pub end_trans: [f32; 4],
    pub contact: [f32; 4],
    pub grid: [u32; 4],
    pub body: [u32; 4],
}

/// `ObstacleGpu::grid`'s kinds (collide.wgsl `GRID`, `BODY`).
pub const GRID: u32 = 0;
pub const BODY: u32 = 1;

impl ObstacleGpu {
    /// Obstacle `o`; on a body, `body` is where its hierarchy and points
    /// are (kernels/collide.rs `BodyPlace::of`) and `reach` how far it acts.
    pub fn new(o: &crate::collide::ObstacleStep, body: [u32; 4], reach: f64) -> ObstacleGpu {
        let q = |r: glam::DQuat| [r.x, r.y, r.z, r.w].map(|x| x as f32);
        let t = |v: glam::DVec3| [v.x, v.y, v.z, 0.0].map(|x| x as f32);
        ObstacleGpu {
            start_rot: q(o.start.rot),
            start_trans: t(o.start.trans),
            end_rot: q(o.end.rot),
            end_trans: t(o.end.trans),
            contact: [o.friction as f32, o.thickness as f32, reach as f32, 0.0],
            grid: match o.field {
                crate::collide::Field::Grid(k) => [k as u32, GRID, 0, 0],
                crate::collide::Field::Body(k) => [k as u32, BODY, 0, 0],
            },
            body,
        }
    }
}

fn channel_params(c: &Channel) -> ChannelParams {
    let f = |v: [f64; 4]| v.map(|x| x as f32);
    ChannelParams {
        dwell: f([c.dwell.stiffness, c.dwell.eps_0, c.dwell.eps_inf, c.dwell.tau]),
        dahl: f([c.dahl.a, c.dahl.b, c.dahl.tau, 0.0]),
        hardening: f([
            c.hardening.k_h0,
            c.hardening.g,
            c.hardening.tau,
            c.hardening.yield_strain,
        ]),
        spread: f([
            c.dwell.spread,
            c.hardening.spread,
            c.dwell.scatter,
            c.dwell.scatter_skew,
        ]),
    }
}

fn friction_id(m: FrictionModel) -> u32 {
    match m {
        FrictionModel::Dwell => 0,
        FrictionModel::Dahl => 1,
        FrictionModel::None => 2,
    }
}

fn plastic_id(m: PlasticModel) -> u32 {
    match m {
        PlasticModel::Hardening => 0,
        PlasticModel::TimeIndependent => 1,
        PlasticModel::Perfect => 2,
        PlasticModel::None => 3,
    }
}

/// WGSL `BENDING_*` (shared/types.wgsl).
pub fn bending_model_id(m: BendingModel) -> u32 {
    match m {
        BendingModel::DiscreteShell => 0,
        BendingModel::Bridson => 1,
        BendingModel::ShapeOperator => 2,
    }
}

/// WGSL `STRAIN_*` (shared/types.wgsl).
pub fn bending_strain_id(s: BendingStrain) -> u32 {
    match s {
        BendingStrain::Angle => 0,
        BendingStrain::Curvature => 1,
    }
}

impl Params {
    /// A step `h` whose solves take the factors `scales`; `sticking`: the
    /// `stick` buffer holds the step's sticking springs.
    pub fn new(cloth: &Cloth, h: f64, scales: &Scales, gravity: glam::DVec3, air: &Air, sticking: bool) -> Params {
        let m = &cloth.material;
        let s = m.stretching;
        Params {
            counts: [
                cloth.vertex_count() as u32,
                cloth.mesh.faces.len() as u32,
                cloth.topology.hinges.len() as u32,
                0,
            ],
            models: [
                friction_id(m.bending_models.friction),
                plastic_id(m.bending_models.plasticity),
                friction_id(m.in_plane_models.friction),
                plastic_id(m.in_plane_models.plasticity),
            ],
            hinge: [
                bending_model_id(m.bending_model),
                bending_strain_id(m.bending_strain),
                u32::from(m.coupling != 0.0),
                0,
            ],
            stretching: [s.k11, s.k12, s.k22, s.k33].map(|x| x as f32),
            step: [h, scales.material_dt, m.bending, m.bending_damping].map(|x| x as f32),
            scales: [scales.elastic, scales.friction, scales.damping, scales.dt].map(|x| x as f32),
            gravity: [gravity.x, gravity.y, gravity.z, 0.0].map(|x| x as f32),
            air: [
                air.drag,
                air.normal_drag,
                1.0 / m.density,
                f64::from(u8::from(air.acts())),
            ]
            .map(|x| x as f32),
            wind: [air.wind[0], air.wind[1], air.wind[2], f64::from(u8::from(sticking))].map(|x| x as f32),
            bending: channel_params(&m.bending_channel),
            in_plane: m.in_plane_channels.each_ref().map(channel_params),
        }
    }
}

impl PackedChannel {
    pub fn from_state(s: &ChannelState) -> PackedChannel {
        let (f, p) = (&s.friction, &s.plastic);
        let flags = f64::from(u8::from(f.slip)) + 2.0 * (p.dir + 1.0);
        PackedChannel {
            friction: [f.anchor, f.t_stick, f.sigma, flags].map(|x| x as f32),
            plastic: [p.eps_p, p.eps_hp, p.eps_y, p.t_p].map(|x| x as f32),
        }
    }

    pub fn to_state(&self) -> ChannelState {
        let (f, p) = (self.friction.map(f64::from), self.plastic.map(f64::from));
        let half = (f[3] / 2.0).floor();
        ChannelState {
            friction: FrictionState {
                anchor: f[0],
                t_stick: f[1],
                sigma: f[2],
                slip: f[3] - 2.0 * half != 0.0,
            },
            plastic: PlasticState {
                eps_p: p[0],
                eps_hp: p[1],
                eps_y: p[2],
                t_p: p[3],
                dir: half - 1.0,
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `hi` sits on the quantum grid, `lo` within half a quantum, and the
    /// pair holds any displacement to f32's resolution of half a quantum,
    /// 6e-11 m (a plain f32 resolves 0.4 m to 3e-8 m).
    #[test]
    fn displacements_split_onto_the_quantum_grid() {
        for u in [
            DVec3::ZERO,
            DVec3::new(0.4, -0.3, 1e-9),
            DVec3::new(-2.75, 1.0 / 2048.0, 3.000_000_1),
            DVec3::new(123.456_789, -0.000_488_281_25, 7e-12),
        ] {
            let d = Displacement::split(u);
            for k in 0..3 {
                let steps = d.hi[k] as f64 / DISPLACEMENT_QUANTUM;
                assert_eq!(steps, steps.round(), "{u}: hi {} off the grid", d.hi[k]);
                assert!(
                    (d.lo[k] as f64).abs() <= 0.5 * DISPLACEMENT_QUANTUM,
                    "{u}: lo {}",
                    d.lo[k]
                );
            }
            let err = (d.value() - u).abs().max_element();
            assert!(err <= 0.5 * DISPLACEMENT_QUANTUM * f32::EPSILON as f64, "{u}: {err:e}");
        }
    }
}

/// WGSL `LevelParams` of shaders/multilevel.wgsl: one level's dispatch.
#[repr(C)]
#[derive(Clone, Copy, Debug, Pod, Zeroable)]
pub struct LevelParams {
    pub rows: u32,
    pub coarse_rows: u32,
    pub level: u32,
    pub step: u32,
    pub lowest: f32,
    pub margin: f32,
    pub carry: u32,
    pub pad: u32,
}
