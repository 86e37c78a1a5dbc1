//! The bottom layer: atomic file writes, reading back the CSV files crease
//! writes, a stable hash, and RGB images with the font the plots and labels
//! are drawn with. Depends on nothing else of crease but `error`.

mod atomic;
mod csv;
mod hash;
mod image;

pub use atomic::{write_atomic, write_atomic_with};
pub use csv::Table;
pub use hash::Fnv;
pub use image::{Image, register_font};
