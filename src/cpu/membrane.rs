//! Per-face kernel: the face's three in-plane channels (e_uu, e_vv, e_uv)
//! are updated at the step's start state, then the membrane stress vectors
//! and the face's linearisation for the implicit system are written
//! (docs/physics.md "Membrane", the paper's §3.4 Eq. 15-16).

use crate::cloth::Cloth;
use crate::model::channel::ChannelState;
use crate::model::membrane::{MembraneLin, elastic_strain, green_strain, stress_vectors};
use crate::step::Scales;
use glam::DVec3;
use rayon::prelude::*;

/// What the per-face kernel leaves for the gathers and the solver, one array
/// per quantity so each pass streams only what it reads.
#[derive(Clone)]
pub struct FaceStates {
    /// `A (P_u, P_v)`: the corner forces are `-(beta_a.x AP_u + beta_a.y AP_v)`.
    pub stress: Vec<[DVec3; 2]>,
    /// The face's block of the system matrix (already scaled).
    pub lin: Vec<MembraneLin>,
    /// Friction and plastic state of the three in-plane channels.
    pub channel: Vec<[ChannelState; 3]>,
}

impl FaceStates {
    pub fn new(cloth: &Cloth) -> FaceStates {
        let n = cloth.mesh.faces.len();
        let initial = cloth.material.in_plane_channels.map(|c| c.initial_state());
        FaceStates {
            stress: vec![[DVec3::ZERO; 2]; n],
            lin: vec![MembraneLin::default(); n],
            channel: match &cloth.initial_channels {
                Some(ch) => ch.faces.clone(),
                None => vec![initial; n],
            },
        }
    }
}

pub fn membrane(cloth: &Cloth, x: &[DVec3], v: &[DVec3], scales: &Scales, out: &mut FaceStates) {
    let m = &cloth.material;
    let k = m.in_plane_stiffness();
    let c_elastic = m.stretching.stiffness();
    out.stress
        .par_iter_mut()
        .zip(out.lin.par_iter_mut())
        .zip(out.channel.par_iter_mut())
        .with_min_len(512)
        .enumerate()
        .for_each(|(f, ((stress, lin), state))| {
            let rest = &cloth.face_rest[f];
            let face = cloth.mesh.faces[f];
            let (fu, fv) = rest.deformation(face.map(|i| x[i as usize]));
            let (du, dv) = rest.deformation(face.map(|i| v[i as usize]));
            let e = green_strain(fu, fv);
            let rate = [fu.dot(du), fv.dot(dv), 0.5 * (fu.dot(dv) + fv.dot(du))];
            let mut eps_p = [0.0; 3];
            let mut sigma_friction = [0.0; 3];
            let mut extra = [0.0; 3];
            for c in 0..3 {
                let ch = m.in_plane_channels[c].update(
                    &m.in_plane_models,
                    &mut state[c],
                    e[c],
                    rate[c],
                    k[c],
                    scales.dt,
                    scales.material_dt,
                    f as u32,
                );
                eps_p[c] = ch.eps_p;
                sigma_friction[c] = ch.stress;
                extra[c] = scales.friction * ch.stiffness + scales.damping * ch.damping;
            }
            let sigma_elastic = m.stretching.stress(elastic_strain(e, eps_p));
            let sigma = [0, 1, 2].map(|c| sigma_elastic[c] + sigma_friction[c]);
            *stress = stress_vectors(rest, fu, fv, sigma);
            let s = scales.elastic;
            let c = [
                s * c_elastic[0] + extra[0],
                s * c_elastic[1],
                s * c_elastic[2] + extra[1],
                s * c_elastic[3] + extra[2],
            ];
            // Geometric term from the elastic stress only (friction enters
            // with its Gauss-Newton Hessian), clamped to stay PSD.
            *lin = MembraneLin::new(fu, fv, sigma_elastic.map(|q| q * s), c, true);
        });
}
