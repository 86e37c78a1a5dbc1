//! Materials: elastic constants, the friction and plasticity models of each
//! channel family with their parameters, and the presets of the paper's
//! Appendix C tables and of Miguel et al. 2013 (docs/physics.md "Parameters").

use super::bending::{BendingModel, BendingStrain};
use super::channel::{Channel, FrictionModel, Models, PlasticModel};
use super::friction::{Dahl, Dwell};
use super::membrane::Stretching;
use super::plastic::Hardening;

/// A cloth material, SI units. Bending thresholds are dihedral angles (rad).
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize)]
pub struct Material {
    /// Areal density, kg/m^2.
    pub density: f64,
    /// Bending stiffness `k_b` (the tables' `3 x K_b` column), N m.
    pub bending: f64,
    /// The elastic bending force (model/bending.rs).
    pub bending_model: BendingModel,
    /// What the bending channel's strain is: the angle, or Miguel's
    /// curvature strain (model/bending.rs `BendingStrain`).
    pub bending_strain: BendingStrain,
    /// Bridson 2003 §4 bending damping `k_d`, N s: each hinge adds the
    /// force `-k_d |E| (dtheta/dt) dtheta/dx`.
    pub bending_damping: f64,
    /// Melo's buckling factor `phi`, N: the stretch-bend coupling of the
    /// Cosserat model (model/cosserat.rs); 0: none.
    pub coupling: f64,
    /// Orthotropic StVK constants, N/m.
    pub stretching: Stretching,
    /// Models of the bending channel (one per hinge).
    pub bending_models: Models,
    /// Models of the in-plane channels (e_uu, e_vv, e_uv of each face).
    pub in_plane_models: Models,
    pub bending_channel: Channel,
    pub in_plane_channels: [Channel; 3],
}

impl Material {
    /// Elastic stiffness of each in-plane channel (for plasticity's ratio).
    pub fn in_plane_stiffness(&self) -> [f64; 3] {
        [self.stretching.k11, self.stretching.k22, self.stretching.k33]
    }

    /// Elastic stiffness of the bending channel on its own strain:
    /// `k_b / 3` on Miguel's (`BendingStrain::stiffness_ratio`).
    pub fn bending_channel_stiffness(&self) -> f64 {
        self.bending / self.bending_strain.stiffness_ratio()
    }
}

/// The paper's tensile (in-plane) defaults, per (uu, vv, uv): friction
/// K = [200, 200, 5], eps_0 = 0.005, eps_inf = 0.05, tau_f = 30;
/// plasticity K_h0 = [10, 10, 5], g = 0.5, tau_p = 30, eps_Y0 = 0.033.
fn tensile_channels() -> [Channel; 3] {
    [(200.0, 10.0), (200.0, 10.0), (5.0, 5.0)].map(|(k_f, k_h0)| {
        channel(
            Dwell {
                stiffness: k_f,
                eps_0: 0.005,
                eps_inf: 0.05,
                tau: 30.0,
                spread: 0.0,
                scatter: 0.0,
                scatter_skew: 0.0,
            },
            Hardening {
                k_h0,
                g: 0.5,
                tau: 30.0,
                spread: 0.0,
                yield_strain: 0.033,
            },
        )
    })
}

/// A channel whose Dahl baseline parameters match its dwell model at zero
/// dwell: the same saturation stress `k_f eps_0` and the same initial
/// stiffness `2a/tau = k_f` (so `tau = 2 eps_0`), and no strain dependence.
/// The comparison then isolates the time dependence.
fn channel(dwell: Dwell, hardening: Hardening) -> Channel {
    Channel {
        dwell,
        dahl: Dahl {
            a: dwell.stiffness * dwell.eps_0,
            b: 0.0,
            tau: 2.0 * dwell.eps_0,
        },
        hardening,
    }
}

const OURS: Models = Models {
    friction: FrictionModel::Dwell,
    plasticity: PlasticModel::Hardening,
};

/// A row of the paper's tables: rho, k_b, k11, k22, k12, k33, k_f, eps_0,
/// eps_inf, tau_f, K_h0, g, tau_p, eps_Y0.
fn gong(row: [f64; 14]) -> Material {
    let [
        rho,
        k_b,
        k11,
        k22,
        k12,
        k33,
        k_f,
        eps_0,
        eps_inf,
        tau_f,
        k_h0,
        g,
        tau_p,
        eps_y0,
    ] = row;
    Material {
        density: rho,
        bending: k_b,
        bending_model: BendingModel::DiscreteShell,
        bending_strain: BendingStrain::Angle,
        bending_damping: 0.0,
        coupling: 0.0,
        stretching: Stretching { k11, k12, k22, k33 },
        bending_models: OURS,
        in_plane_models: OURS,
        bending_channel: channel(
            Dwell {
                stiffness: k_f,
                eps_0,
                eps_inf,
                tau: tau_f,
                spread: 0.0,
                scatter: 0.0,
                scatter_skew: 0.0,
            },
            Hardening {
                k_h0,
                g,
                tau: tau_p,
                spread: 0.0,
                yield_strain: eps_y0,
            },
        ),
        in_plane_channels: tensile_channels(),
    }
}

/// Miguel et al. 2013's stretch measurements (warp): rho, k1 (N/m), a, b
/// (N/m), tau. Their Dahl model drives the in-plane channels; the strain
/// dependence `k2` of the elastic stiffness is not modelled (StVK with
/// k11 = k22 = k1). Bending takes the cotton specimen's values.
fn miguel(rho: f64, k1: f64, a: f64, b: f64, tau: f64) -> Material {
    let mut m = gong(COTTON);
    m.density = rho;
    m.stretching = Stretching {
        k11: k1,
        k12: 0.2,
        k22: k1,
        k33: k1 / 4.0,
    };
    let dahl = Models {
        friction: FrictionModel::Dahl,
        plasticity: PlasticModel::None,
    };
    m.bending_models = dahl;
    m.in_plane_models = dahl;
    for c in &mut m.in_plane_channels {
        c.dahl = Dahl { a, b, tau };
    }
    m
}

/// Miguel et al. 2013 §4.3's bending fits (warp; `fit/bending.rs` `FELT`,
/// `DOUBLECLOTH`, `PAPER`): rho, stiffness `k` (N m), Dahl `a`, `b` (N),
/// `tau` (1/m), on their discrete-shells strain `eps = 3 kappa`
/// (`BendingStrain::Curvature`), so `k_b = 3 k1` (their `T_elastic = 3 k w
/// kappa`); their small strain dependence `k2` of the stiffness is
/// not modelled. Bending friction only: their strips were not stretched. The
/// paper gives no membrane for these; they take Miguel's cotton's stretch
/// stiffness (k1 = 135.6 N/m), which keeps the strips inextensible.
fn miguel_bending((rho, p): (f64, super::dahl::DahlParams)) -> Material {
    let mut m = miguel(rho, 135.6, 0.0, 0.0, 1.0);
    m.bending = 3.0 * p.k;
    m.bending_strain = BendingStrain::Curvature;
    m.in_plane_models = Models {
        friction: FrictionModel::None,
        plasticity: PlasticModel::None,
    };
    m.bending_channel.dahl = Dahl {
        a: p.a,
        b: p.b,
        tau: p.tau,
    };
    m
}

/// Melo's Table 1 (Fig. 1: satin, cotton, jeans, sailcloth): areal density
/// (g/m^2), `zeta`, `xi`, `phi`, in the paper's own units, which it does not
/// state (its grid spacing is "0.01 unit"). They are mapped so that Melo's
/// cotton has the paper's cotton membrane and bending (`cotton` preset):
/// `k11 = k22 = 6 zeta Z`, `k33 = 2 zeta Z`, `k12 = 0` (Eq. 10's weights 3
/// and 1 on `Phi eps eps`), `k_b = 9/2 xi X` (a hinge's share of `Psi kappa
/// kappa` across its edge), with `Z = 50 / 2400` N/m and `X = 5e-6 / 0.09`
/// N m, and `phi` scaled by `sqrt(Z X)` N. The ratios between the four
/// materials are Melo's. Elastic, no friction or plasticity.
fn melo(grams: f64, zeta: f64, xi: f64, phi: f64) -> Material {
    let (z, x) = (50.0 / 2400.0, 5e-6 / 0.09);
    let mut m = preset("elastic").unwrap_or_else(|| gong(COTTON));
    m.density = grams / 1000.0;
    m.stretching = Stretching {
        k11: 6.0 * zeta * z,
        k12: 0.0,
        k22: 6.0 * zeta * z,
        k33: 2.0 * zeta * z,
    };
    m.bending = 4.5 * xi * x;
    m.coupling = phi * (z * x).sqrt();
    m
}

const COTTON: [f64; 14] = [
    0.06, 5e-6, 50.0, 50.0, 0.2, 30.0, 1e-5, 0.1, 1.7, 30.0, 5e-6, 0.99, 30.0, 1.8,
];

/// The preset names, in the order `crease check` lists them.
pub const PRESET_NAMES: &[&str] = &[
    "cotton",
    "denim",
    "polyester",
    "trousers-cotton",
    "trousers-denim",
    "trousers-polyester",
    "miguel-cotton",
    "miguel-spandex",
    "miguel-polyester",
    "miguel-felt",
    "miguel-doublecloth",
    "miguel-paper",
    "melo-satin",
    "melo-cotton",
    "melo-jeans",
    "melo-sailcloth",
    "elastic",
];

/// Looks a preset up by name: the specimen table (`cotton`, `denim`,
/// `polyester`), the trousers table (`trousers-*`), Miguel's stretch
/// measurements (`miguel-cotton|spandex|polyester`) and bending fits
/// (`miguel-felt|doublecloth|paper`: Dahl friction, no plasticity), Melo's
/// table (`melo-*`), and `elastic`
/// (cotton without friction or plasticity).
pub fn preset(name: &str) -> Option<Material> {
    Some(match name {
        "cotton" => gong(COTTON),
        "denim" => gong([
            0.25, 1.2e-4, 100.0, 100.0, 0.2, 20.0, 5e-5, 0.1, 1.8, 30.0, 1.2e-4, 0.99, 30.0, 2.0,
        ]),
        "polyester" => gong([
            0.18, 1.2e-4, 50.0, 50.0, 0.2, 30.0, 1e-7, 0.01, 0.1, 30.0, 1.2e-4, 0.99, 30.0, 3.0,
        ]),
        "trousers-cotton" => gong([
            0.1, 1e-6, 200.0, 200.0, 0.2, 20.0, 4e-6, 0.1, 1.2, 30.0, 1e-6, 0.99, 30.0, 1.5,
        ]),
        "trousers-denim" => gong([
            0.2, 3e-5, 200.0, 200.0, 0.2, 150.0, 6e-5, 0.2, 1.2, 30.0, 3e-5, 0.99, 30.0, 1.2,
        ]),
        "trousers-polyester" => gong([
            0.15, 1e-6, 100.0, 100.0, 0.2, 20.0, 7e-7, 0.1, 0.1, 30.0, 1e-6, 0.99, 30.0, 3.1,
        ]),
        "miguel-cotton" => miguel(0.143, 135.6, 2.22, 3.16, 0.006),
        "miguel-spandex" => miguel(0.157, 4.42, 0.40, 4.84, 0.088),
        "miguel-polyester" => miguel(0.121, 26.62, 2.10, 5.41, 0.031),
        "miguel-felt" => miguel_bending(super::dahl::FELT),
        "miguel-doublecloth" => miguel_bending(super::dahl::DOUBLECLOTH),
        "miguel-paper" => miguel_bending(super::dahl::PAPER),
        "melo-satin" => melo(78.0, 400.0, 0.01, 0.1),
        "melo-cotton" => melo(88.0, 400.0, 0.02, 0.1),
        "melo-jeans" => melo(111.0, 400.0, 0.04, 0.1),
        "melo-sailcloth" => melo(133.0, 400.0, 0.1, 0.1),
        "elastic" => {
            let mut m = gong(COTTON);
            let none = Models {
                friction: FrictionModel::None,
                plasticity: PlasticModel::None,
            };
            m.bending_models = none;
            m.in_plane_models = none;
            m
        }
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_listed_preset_exists_and_cotton_matches_the_table() {
        for name in PRESET_NAMES {
            assert!(preset(name).is_some(), "{name}");
        }
        let c = preset("cotton").unwrap();
        assert_eq!((c.density, c.bending), (0.06, 5e-6));
        assert_eq!(c.bending_channel.dwell.eps_inf, 1.7);
        assert_eq!(c.bending_channel.hardening.yield_strain, 1.8);
        assert_eq!(c.in_plane_channels[2].dwell.stiffness, 5.0);
        assert_eq!(c.in_plane_channels[0].hardening.k_h0, 10.0);
        // Melo's cotton maps onto the cotton membrane and bending.
        let m = preset("melo-cotton").unwrap();
        assert!((m.stretching.k11 - 50.0).abs() < 1e-12 && (m.bending - 5e-6).abs() < 1e-18);
        assert!(m.coupling > 0.0 && m.bending_models.friction == FrictionModel::None);
        // Miguel's felt: their per-width fit on their strain, k_b = 3 k.
        let f = preset("miguel-felt").unwrap();
        assert_eq!(f.bending_strain, BendingStrain::Curvature);
        assert_eq!(f.bending_models.friction, FrictionModel::Dahl);
        assert!((f.bending - 3.0 * 145.3e-7).abs() < 1e-18, "{}", f.bending);
        assert_eq!((f.bending_channel.dahl.a, f.bending_channel.dahl.tau), (5.12e-4, 29.9));
    }
}
