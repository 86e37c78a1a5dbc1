//! Materials: the elastic constants of a cloth and the presets of the
//! paper's Appendix C tables (MODEL.md "Parameter tables").

use super::membrane::Stretching;

/// A cloth material, SI units.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize)]
pub struct Material {
    /// Areal density, kg/m^2.
    pub density: f64,
    /// Bending stiffness `k_b` (the tables' `3 x K_b` column), N m.
    pub bending: f64,
    /// Orthotropic StVK constants, N/m.
    pub stretching: Stretching,
}

const fn table(density: f64, bending: f64, k11: f64, k22: f64, k12: f64, k33: f64) -> Material {
    Material {
        density,
        bending,
        stretching: Stretching { k11, k12, k22, k33 },
    }
}

/// The presets, by name: the specimen table (`cotton`, `denim`, `polyester`)
/// and the trousers table (`trousers-cotton`, ...). Columns as in the paper:
/// rho, k_b, k11, k22, k12, k33.
pub const PRESETS: &[(&str, Material)] = &[
    ("cotton", table(0.06, 5e-6, 50.0, 50.0, 0.2, 30.0)),
    ("denim", table(0.25, 1.2e-4, 100.0, 100.0, 0.2, 20.0)),
    ("polyester", table(0.18, 1.2e-4, 50.0, 50.0, 0.2, 30.0)),
    ("trousers-cotton", table(0.1, 1e-6, 200.0, 200.0, 0.2, 20.0)),
    ("trousers-denim", table(0.2, 3e-5, 200.0, 200.0, 0.2, 150.0)),
    (
        "trousers-polyester",
        table(0.15, 1e-6, 100.0, 100.0, 0.2, 20.0),
    ),
];

/// Looks a preset up by name.
pub fn preset(name: &str) -> Option<Material> {
    PRESETS.iter().find(|(n, _)| *n == name).map(|(_, m)| *m)
}
