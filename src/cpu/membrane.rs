//! Per-face kernel: membrane stress vectors and the face's linearisation at
//! the current positions (MODEL.md "Membrane: orthotropic StVK").

use crate::cloth::Cloth;
use crate::model::membrane::{MembraneLin, green_strain, stress_vectors};
use glam::DVec3;
use rayon::prelude::*;

/// What the per-face kernel leaves for the gathers and the solver, one array
/// per quantity so each pass streams only what it reads.
pub struct FaceStates {
    /// `A (P_u, P_v)`: the corner gradients are `beta_a.x AP_u + beta_a.y AP_v`.
    pub stress: Vec<[DVec3; 2]>,
    /// Linearisation for Hessian products (clamped, PSD).
    pub lin: Vec<MembraneLin>,
}

impl FaceStates {
    pub fn new(faces: usize) -> FaceStates {
        FaceStates {
            stress: vec![[DVec3::ZERO; 2]; faces],
            lin: vec![MembraneLin::default(); faces],
        }
    }
}

pub fn membrane(cloth: &Cloth, x: &[DVec3], out: &mut FaceStates) {
    let k = cloth.material.stretching;
    out.stress
        .par_iter_mut()
        .zip(out.lin.par_iter_mut())
        .with_min_len(512)
        .enumerate()
        .for_each(|(f, (stress, lin))| {
            let rest = &cloth.face_rest[f];
            let (fu, fv) = rest.deformation(cloth.mesh.faces[f].map(|v| x[v as usize]));
            let sigma = k.stress(green_strain(fu, fv));
            *stress = stress_vectors(rest, fu, fv, sigma);
            *lin = MembraneLin::new(fu, fv, sigma, true);
        });
}

/// Total membrane energy (serial sum in face order: reproducible).
pub fn membrane_energy(cloth: &Cloth, x: &[DVec3]) -> f64 {
    let k = cloth.material.stretching;
    cloth
        .mesh
        .faces
        .iter()
        .zip(&cloth.face_rest)
        .map(|(face, rest)| {
            let (fu, fv) = rest.deformation(face.map(|v| x[v as usize]));
            rest.area * k.energy_density(green_strain(fu, fv))
        })
        .sum()
}
