//! RGB images: PNG encoding (written atomically) and the font the plots and
//! labels are drawn with.

use super::write_atomic;
use crate::error::{Error, Result};
use std::path::Path;

/// An 8-bit RGB image, rows top to bottom.
#[derive(Clone, Debug, PartialEq)]
pub struct Image {
    pub width: u32,
    pub height: u32,
    pub rgb: Vec<u8>,
}

impl Image {
    pub fn new(width: u32, height: u32) -> Image {
        Image {
            width,
            height,
            rgb: vec![255; (width * height * 3) as usize],
        }
    }

    /// The PNG file's bytes.
    pub fn png(&self) -> Result<Vec<u8>> {
        let mut bytes = Vec::new();
        let mut encoder = png::Encoder::new(&mut bytes, self.width, self.height);
        encoder.set_color(png::ColorType::Rgb);
        encoder.set_depth(png::BitDepth::Eight);
        let encode = || -> std::result::Result<(), png::EncodingError> {
            let mut writer = encoder.write_header()?;
            writer.write_image_data(&self.rgb)?;
            writer.finish()
        };
        encode().map_err(|e| Error::File {
            path: "(png)".into(),
            message: format!("encoding a {}x{} image: {e}", self.width, self.height),
        })?;
        Ok(bytes)
    }

    pub fn save(&self, path: &Path) -> Result<()> {
        write_atomic(path, &self.png()?)
    }

    /// Distinct colours in the image (a blank one has one).
    pub fn colours(&self) -> usize {
        let mut seen: Vec<[u8; 3]> = self.rgb.chunks_exact(3).map(|c| [c[0], c[1], c[2]]).collect();
        seen.sort_unstable();
        seen.dedup();
        seen.len()
    }
}

/// Registers the font plots and labels use ("sans-serif": Ubuntu Light,
/// shipped as bytes by the `epaint_default_fonts` crate, so that no system
/// font is needed).
pub fn register_font() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        // The bytes are a valid TrueType font; a failure would leave the
        // text undrawn, not the program broken.
        let _ = plotters::style::register_font(
            "sans-serif",
            plotters::style::FontStyle::Normal,
            epaint_default_fonts::UBUNTU_LIGHT,
        );
    });
}
