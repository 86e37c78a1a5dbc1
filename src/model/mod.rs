//! Constitutive math on small fixed arrays, shared by both backends' tests:
//! one element at a time, no mesh loops.

pub mod bending;
pub mod material;
pub mod membrane;

#[cfg(test)]
pub(crate) mod testing;
