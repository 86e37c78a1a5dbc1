//! Contact sheets: pictures side by side, each labelled underneath, like
//! the paper's figures of variants (short vs long hold, ours vs baseline).

use crate::error::{Error, Result};
use crate::util::{Image, register_font};
use plotters::prelude::*;

/// Height of the label strip under each picture, pixels.
const LABEL: u32 = 28;

/// Tiles `pictures` (all the same size) `across` wide, each with its label.
pub fn contact_sheet(pictures: &[(String, Image)], across: usize) -> Result<Image> {
    let Some((_, first)) = pictures.first() else {
        return Err(Error::Argument {
            arg: "contact sheet".into(),
            message: "no pictures to lay out".into(),
        });
    };
    let (tw, th) = (first.width, first.height);
    let across = across.clamp(1, pictures.len());
    let down = pictures.len().div_ceil(across);
    let mut sheet = Image::new(tw * across as u32, (th + LABEL) * down as u32);
    for (k, (_, picture)) in pictures.iter().enumerate() {
        if (picture.width, picture.height) != (tw, th) {
            return Err(Error::Argument {
                arg: "contact sheet".into(),
                message: format!(
                    "picture {k} is {}x{}, the first {tw}x{th}",
                    picture.width, picture.height
                ),
            });
        }
        let (x0, y0) = ((k % across) as u32 * tw, (k / across) as u32 * (th + LABEL));
        for y in 0..th {
            let src = (y * tw * 3) as usize;
            let dst = (((y0 + y) * sheet.width + x0) * 3) as usize;
            sheet.rgb[dst..dst + (tw * 3) as usize].copy_from_slice(&picture.rgb[src..src + (tw * 3) as usize]);
        }
    }
    register_font();
    let failed = |e: String| Error::File {
        path: "(contact sheet)".into(),
        message: format!("drawing the labels: {e}"),
    };
    {
        let (w, h) = (sheet.width, sheet.height);
        let root = BitMapBackend::with_buffer(&mut sheet.rgb, (w, h)).into_drawing_area();
        let style = ("sans-serif", 20).into_font().color(&BLACK);
        for (k, (label, _)) in pictures.iter().enumerate() {
            let (x0, y0) = ((k % across) as u32 * tw, (k / across) as u32 * (th + LABEL) + th);
            root.draw(&Text::new(label.clone(), (x0 as i32 + 8, y0 as i32 + 4), style.clone()))
                .map_err(|e| failed(e.to_string()))?;
        }
        root.present().map_err(|e| failed(e.to_string()))?;
    }
    Ok(sheet)
}
