//! Dahl friction on one monotonic loading path (Miguel et al. 2013, Eq. 4),
//! the five parameters its fits estimate, and Miguel's fitted tables (the
//! stretch table of §4.2, the bending table of §4.3), which the material
//! presets and the fit tests use.

/// Eq. 4: the friction stress at strain `eps` on a monotonic path of
/// direction `s` (+1 loading, -1 unloading) that started saturated at
/// `anchor`, for `sigma_max = a + b eps` and time constant `tau` (strain
/// units): `s (a + b eps) - 2 s (a + b anchor) exp(-s (eps - anchor) / tau)`.
pub fn dahl_path_stress(a: f64, b: f64, tau: f64, s: f64, eps: f64, anchor: f64) -> f64 {
    s * (a + b * eps) - 2.0 * s * (a + b * anchor) * (-s * (eps - anchor) / tau).exp()
}

/// The five parameters both procedures fit: stiffness `k + k2 eps`,
/// friction `sigma_max = a + b eps`, time constant `tau` (in strain units;
/// each procedure names its strain and units).
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize)]
pub struct DahlParams {
    pub k: f64,
    pub k2: f64,
    pub a: f64,
    pub b: f64,
    pub tau: f64,
}

impl DahlParams {
    /// `(k, k2, a, b, tau)`, the order of `Fit::standard_errors`.
    pub fn values(&self) -> [f64; 5] {
        [self.k, self.k2, self.a, self.b, self.tau]
    }

    /// Elastic plus friction stress at strain `eps` on a path of direction
    /// `s` from `anchor`: `(k + k2 eps) eps + sigma` with Eq. 4's sigma.
    pub fn stress(&self, s: f64, eps: f64, anchor: f64) -> f64 {
        (self.k + self.k2 * eps) * eps + dahl_path_stress(self.a, self.b, self.tau, s, eps, anchor)
    }
}

/// Miguel 2013's fitted stretch parameters (warp; the paper's §4.2 table).
pub const COTTON: DahlParams = DahlParams {
    k: 135.6,
    k2: 64.03,
    a: 2.22,
    b: 3.16,
    tau: 0.006,
};
pub const SPANDEX: DahlParams = DahlParams {
    k: 4.42,
    k2: 32.19,
    a: 0.40,
    b: 4.84,
    tau: 0.088,
};
pub const POLYESTER: DahlParams = DahlParams {
    k: 26.62,
    k2: 3.64,
    a: 2.10,
    b: 5.41,
    tau: 0.031,
};

/// Miguel 2013's fitted bending parameters (warp; the paper's §4.3 table,
/// its units N m x 1e-7 and N x 1e-4 written out), with their densities.
pub const FELT: (f64, DahlParams) = (
    0.208,
    DahlParams {
        k: 145.3e-7,
        k2: 0.15e-7,
        a: 5.12e-4,
        b: 0.15e-4,
        tau: 29.9,
    },
);
pub const DOUBLECLOTH: (f64, DahlParams) = (
    0.255,
    DahlParams {
        k: 62.19e-7,
        k2: 0.07e-7,
        a: 12.84e-4,
        b: 0.05e-4,
        tau: 7.67,
    },
);
pub const PAPER: (f64, DahlParams) = (
    0.075,
    DahlParams {
        k: 479.7e-7,
        k2: 0.47e-7,
        a: 0.04e-4,
        b: 0.64e-4,
        tau: 10.2,
    },
);
