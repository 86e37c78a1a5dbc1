//! The bottom layer: atomic file writes, numbered frame files, independent tasks on a few threads, reading back the CSV files crease
//! writes, a stable hash, sparse rows' assembly, RGB images with the font the plots and labels
//! are drawn with, and the memory the machine has free. Depends on nothing else of crease but `error`.

mod atomic;
mod csv;
mod hash;
mod image;
pub mod jobs;
pub mod memory;
pub mod numbered;
mod rows;

pub use atomic::{Appended, remove_files, remove_leftovers, write_atomic, write_atomic_with};
pub use csv::Table;
pub use hash::Fnv;
pub use image::{Image, register_font};
pub use rows::merge;
