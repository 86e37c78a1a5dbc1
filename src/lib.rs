//! crease: a cloth simulator whose wrinkles remember.
//!
//! The library parses scenes ([`scene`]), builds meshes ([`mesh`]) and the
//! cloth's rest data ([`cloth`]), evaluates the constitutive model
//! ([`model`]) on a backend ([`backend`], [`cpu`]), drives the timeline
//! ([`sim`]) and writes results ([`output`]). It never prints; the `crease`
//! binary does.

pub mod bench;
pub mod cloth;
pub mod collide;
pub mod cpu;
pub mod error;
pub mod experiment;
pub mod figure;
pub mod fit;
pub mod gpu;
pub mod measure;
pub mod mesh;
pub mod model;
pub mod multigrid;
pub mod output;
pub mod plot;
#[cfg(feature = "preview")]
pub mod preview;
pub mod render;
pub mod scene;
pub mod sim;
pub mod step;
pub mod util;
pub mod validate;

pub use error::{Error, Result};
