//! The bottom layer: atomic file writes, a stable hash, and RGB images with
//! the font the plots and labels are drawn with. Depends on nothing else of
//! crease but `error`.

mod atomic;
mod hash;
mod image;

pub use atomic::{write_atomic, write_atomic_with};
pub use hash::Fnv;
pub use image::{Image, register_font};
