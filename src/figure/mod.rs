//! The built-in mannequin: an adult of 1.75 m generated in code (a
//! skeleton, an implicit shape of blended parts, and the skin meshed from
//! it), posed by the clips the paper's garment experiments play.

pub mod body;
pub mod clips;
pub mod shape;
pub mod skeleton;
