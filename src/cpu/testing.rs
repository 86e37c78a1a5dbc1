//! A fixture of the solver's tests: a cotton sheet with its elements
//! evaluated at a given state.

use super::bending::{HingeStates, bending};
use super::hessian::Operator;
use super::membrane::{FaceStates, membrane};
use crate::cloth::Cloth;
use crate::mesh::{Pattern, TriMesh, grid};
use crate::model::material::preset;
use crate::model::testing::Rng;
use glam::{DMat3, DVec3};

/// A 0.3 x 0.2 m cotton sheet, its elements evaluated at `x` with step
/// `h`, and its inverse diagonal blocks.
pub struct Sheet {
    pub cloth: Cloth,
    pub faces: FaceStates,
    pub hinges: HingeStates,
    pub inv_diag: Vec<DMat3>,
}

impl Sheet {
    /// The sheet's cloth, `nx x ny` quads.
    pub fn cloth(nx: usize, ny: usize) -> Cloth {
        let mesh = grid(
            0.3,
            0.2,
            nx,
            ny,
            Pattern::Alternating,
            DVec3::ZERO,
            (DVec3::X, DVec3::Y),
        );
        Cloth::new(mesh, preset("cotton").unwrap(), 0.0, DVec3::X).unwrap()
    }

    pub fn at(cloth: Cloth, x: &[DVec3], h: f64) -> Sheet {
        let (mut faces, mut hinges) = (FaceStates::new(&cloth), HingeStates::new(&cloth));
        let scales = crate::step::Scales::new(h, h, 0.0);
        let v = vec![DVec3::ZERO; x.len()];
        membrane(&cloth, x, &v, &scales, &mut faces);
        bending(&cloth, x, &v, &faces, &scales, &mut hinges);
        let mut inv_diag = vec![DMat3::IDENTITY; x.len()];
        super::gather::inverse_diagonal(&cloth, &faces, &hinges, None, None, &mut inv_diag);
        Sheet {
            cloth,
            faces,
            hinges,
            inv_diag,
        }
    }

    pub fn operator(&self) -> Operator<'_> {
        Operator {
            cloth: &self.cloth,
            faces: &self.faces,
            hinges: &self.hinges,
            repulsion: None,
            blocks: None,
            mass_scale: 1.0,
        }
    }
}

/// A 5 x 4 cm patch of `nx x ny` quads (alternating diagonals) in the xy
/// plane, the element tests' small mesh.
pub fn patch(nx: usize, ny: usize) -> TriMesh {
    grid(
        0.05,
        0.04,
        nx,
        ny,
        Pattern::Alternating,
        DVec3::ZERO,
        (DVec3::X, DVec3::Y),
    )
}

/// The tests' constraints on `n` vertices: every 17th pinned, every 7th of
/// the rest resting on a surface of random normal (`free`, `normals`).
pub fn constraints(n: usize, rng: &mut Rng) -> (Vec<bool>, Vec<DVec3>) {
    let free: Vec<bool> = (0..n).map(|i| i % 17 != 0).collect();
    let normals = (0..n)
        .map(|i| match free[i] && i % 7 == 3 {
            true => rng.vec3(1.0).normalize(),
            false => DVec3::ZERO,
        })
        .collect();
    (free, normals)
}
