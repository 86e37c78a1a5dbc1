//! Drag and wind (Melo et al., Eq. 14-16): per unit area of cloth, the
//! ambient fluid exerts `F = -rho_D v + rho_R (n . (u - v)) n`, a drag
//! opposing the velocity `v` and a pressure along the surface normal `n`
//! from the wind `u` relative to the cloth. Lumped on vertices (area `a_i`,
//! the area-weighted normal of the faces around it), the force is
//! `a_i rho_R (n . u) n - D_i v` with the damping block
//! `D_i = a_i (rho_D I + rho_R n n^T)`; the solve takes `D` implicitly
//! (backward Euler), like the cloth's other damping.

use glam::{DMat3, DVec3};

/// The scene's `air`: drag coefficients and wind.
#[derive(Clone, Copy, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Air {
    /// `rho_D`, N s/m^3: drag per unit area and velocity (Eq. 14).
    #[serde(default)]
    pub drag: f64,
    /// `rho_R`, N s/m^3: normal drag against the wind (Eq. 15).
    #[serde(default)]
    pub normal_drag: f64,
    /// The wind's velocity `u`, m/s.
    #[serde(default)]
    pub wind: [f64; 3],
}

impl Air {
    /// Whether the air exerts any force.
    pub fn acts(&self) -> bool {
        self.drag != 0.0 || self.normal_drag != 0.0
    }

    /// The velocity-independent part of the force on a vertex of area `a`
    /// and unit normal `n`: `a rho_R (n . u) n`.
    pub fn wind_force(&self, a: f64, n: DVec3) -> DVec3 {
        n * (a * self.normal_drag * n.dot(DVec3::from_array(self.wind)))
    }

    /// The damping block `D = a (rho_D I + rho_R n n^T)`: the vertex's
    /// force is `wind_force - D v`.
    pub fn damping(&self, a: f64, n: DVec3) -> DMat3 {
        DMat3::from_diagonal(DVec3::splat(a * self.drag))
            + DMat3::from_cols(n * n.x, n * n.y, n * n.z) * (a * self.normal_drag)
    }

    /// The whole force of Eq. 16 on a vertex moving at `v`.
    pub fn force(&self, a: f64, n: DVec3, v: DVec3) -> DVec3 {
        self.wind_force(a, n) - self.damping(a, n) * v
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The lumped force is Eq. 16 term by term, and its damping block is
    /// minus its derivative in v (what the implicit solve uses).
    #[test]
    fn the_force_is_eq_16_and_its_block_its_velocity_derivative() {
        let air = Air {
            drag: 0.2,
            normal_drag: 1.5,
            wind: [3.0, -1.0, 0.5],
        };
        let (a, n) = (0.01, DVec3::new(0.3, 0.9, -0.2).normalize());
        let u = DVec3::from_array(air.wind);
        for v in [DVec3::ZERO, DVec3::new(1.0, 2.0, -0.5), DVec3::new(-4.0, 0.1, 3.0)] {
            let eq16 = (-v * air.drag + n * (air.normal_drag * n.dot(u - v))) * a;
            assert!((air.force(a, n, v) - eq16).length() < 1e-15, "{v}");
            for k in 0..3 {
                let mut dv = DVec3::ZERO;
                dv[k] = 1e-6;
                let fd = (air.force(a, n, v + dv) - air.force(a, n, v - dv)) / 2e-6;
                assert!((fd + air.damping(a, n).col(k)).length() < 1e-9);
            }
        }
        // A sheet moving with the wind along its normal feels no pressure.
        assert!((air.force(a, n, u) + u * (a * air.drag)).length() < 1e-15);
        assert!(!Air::default().acts());
    }
}
