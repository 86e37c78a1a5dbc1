//! Constitutive math on small fixed arrays, shared by both backends' tests:
//! one element at a time, no mesh loops.

pub mod air;
pub mod bending;
pub mod channel;
pub mod contact;
pub mod cosserat;
pub mod dahl;
pub mod decay;
pub mod friction;
pub mod material;
pub mod membrane;
pub mod plastic;
pub mod repulsion;
pub mod strain_limit;

#[cfg(test)]
pub(crate) mod testing;
