//! A test fixture shared by the measures and the renderer.

use super::{Pattern, TriMesh, grid};
use glam::DVec3;

/// A 10 cm sheet of 10 x 10 cells in the xz plane, and its positions with
/// the half past x = 5 cm folded up by 0.5 rad about that line: the fold's
/// hinges are bent 0.5 rad, every other hinge is flat.
pub fn folded_sheet() -> (TriMesh, Vec<DVec3>) {
    let sheet = grid(
        0.1,
        0.1,
        10,
        10,
        Pattern::Alternating,
        DVec3::ZERO,
        (DVec3::X, DVec3::Z),
    );
    let folded = sheet
        .positions
        .iter()
        .map(|p| match p.x > 0.05 {
            true => DVec3::new(0.05 + (p.x - 0.05) * 0.5f64.cos(), (p.x - 0.05) * 0.5f64.sin(), p.z),
            false => *p,
        })
        .collect();
    (sheet, folded)
}
