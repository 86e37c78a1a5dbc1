//! One strain channel's friction and plasticity, as a kernel uses them: the
//! per-step update (at the step's start state, before forces are evaluated)
//! and what it leaves for the force and the implicit system.

use super::friction::{Dahl, Dwell, FrictionState};
use super::plastic::{Hardening, PlasticState, perfect_update};

/// Which friction model a channel family uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Deserialize, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum FrictionModel {
    /// The paper's shifting anchor with dwell.
    Dwell,
    /// Miguel et al. 2013's Dahl model (baseline).
    Dahl,
    None,
}

/// Which plasticity model a channel family uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Deserialize, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum PlasticModel {
    /// The paper's time-dependent hardening.
    Hardening,
    /// The same with g = 0 (baseline).
    TimeIndependent,
    /// Eq. 9 (baseline).
    Perfect,
    None,
}

/// The models of a channel family (bending, or in-plane).
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize)]
pub struct Models {
    pub friction: FrictionModel,
    pub plasticity: PlasticModel,
}

/// Parameters of one channel for every model it may use.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize)]
pub struct Channel {
    pub dwell: Dwell,
    pub dahl: Dahl,
    pub hardening: Hardening,
}

/// State of one channel.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct ChannelState {
    pub friction: FrictionState,
    pub plastic: PlasticState,
}

/// What the update leaves for the element's force and system matrix. With
/// strain gradient `g` and the element's weight `w` (bending: s_e; in-plane:
/// the face area), the channel adds the force
/// `-w (stress + damping * (strain rate)) g` on top of the elastic force on
/// `strain - eps_p`, the stiffness `w stiffness g g^T` and the damping
/// `w damping g g^T`.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct ChannelForce {
    /// Plastic strain: the elastic part acts on `strain - eps_p`.
    pub eps_p: f64,
    /// Friction stress at the step's start.
    pub stress: f64,
    /// Friction stiffness (dwell: the anchor spring, in stick and slip).
    pub stiffness: f64,
    /// Friction damping (Dahl's Eq. 9 coefficient).
    pub damping: f64,
}

impl Channel {
    pub fn initial_state(&self) -> ChannelState {
        ChannelState {
            friction: FrictionState::default(),
            plastic: PlasticState::new(self.hardening.yield_strain),
        }
    }

    /// Updates the channel at the step's start. `strain` and `rate` are the
    /// channel's strain and strain rate, `k` its elastic stiffness, `dt` the
    /// step, `h` the step's material time and `element` the hinge's or
    /// face's index (the dwell's scatter).
    #[allow(clippy::too_many_arguments)]
    pub fn update(
        &self,
        m: &Models,
        s: &mut ChannelState,
        strain: f64,
        rate: f64,
        k: f64,
        dt: f64,
        h: f64,
        element: u32,
    ) -> ChannelForce {
        match m.plasticity {
            PlasticModel::Hardening => self.hardening.update(&mut s.plastic, strain, k, h),
            PlasticModel::TimeIndependent => Hardening {
                g: 0.0,
                ..self.hardening
            }
            .update(&mut s.plastic, strain, k, h),
            PlasticModel::Perfect => perfect_update(&mut s.plastic, strain, self.hardening.yield_strain),
            PlasticModel::None => {}
        }
        let eps_p = s.plastic.eps_p;
        match m.friction {
            FrictionModel::Dwell => {
                let d = self.dwell.update(&mut s.friction, strain, h, element);
                ChannelForce {
                    eps_p,
                    stress: self.dwell.stiffness * d,
                    stiffness: self.dwell.stiffness,
                    damping: 0.0,
                }
            }
            FrictionModel::Dahl => {
                let sigma = self.dahl.advance(&mut s.friction, strain);
                ChannelForce {
                    eps_p,
                    stress: sigma,
                    stiffness: 0.0,
                    damping: self.dahl.rate_coefficient(sigma, strain, rate, dt),
                }
            }
            FrictionModel::None => ChannelForce {
                eps_p,
                ..ChannelForce::default()
            },
        }
    }
}

/// Every channel's state: one per hinge, three per face.
#[derive(Clone, Debug, Default, serde::Serialize, serde::Deserialize)]
pub struct Channels {
    pub hinges: Vec<ChannelState>,
    pub faces: Vec<[ChannelState; 3]>,
    /// Each hinge's strain `theta - theta_rest` at the last force
    /// evaluation, unwrapped past pi (continues the next one's unwrapping).
    pub hinge_strain: Vec<f64>,
}
