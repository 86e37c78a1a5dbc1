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

/// Height of a colour bar strip, pixels.
const BAR_STRIP: u32 = 64;

/// A strip `width` wide with the bend colouring's scale from `lo` (blue)
/// through 0 (grey) to `hi` (red), its ends and middle labelled and
/// `title` over it.
pub fn colour_bar(width: u32, lo: f64, hi: f64, title: &str) -> Result<Image> {
    let mut strip = Image::new(width, BAR_STRIP);
    let (x0, x1, y0, y1) = (40u32, width.saturating_sub(40).max(41), 28u32, 42u32);
    for x in x0..x1 {
        let s = (x - x0) as f32 / (x1 - 1 - x0).max(1) as f32;
        let c = super::colour_map(s).powf(1.0 / 2.2);
        for y in y0..y1 {
            let o = ((y * width + x) * 3) as usize;
            strip.rgb[o..o + 3].copy_from_slice(&[c.x, c.y, c.z].map(|v| (v * 255.0).round() as u8));
        }
    }
    register_font();
    let failed = |e: String| Error::File {
        path: "(colour bar)".into(),
        message: format!("drawing the labels: {e}"),
    };
    {
        let root = BitMapBackend::with_buffer(&mut strip.rgb, (width, BAR_STRIP)).into_drawing_area();
        // Smaller lettering on a narrow strip, so that the title fits.
        let size = if width < 500 { 12 } else { 16 };
        let style = ("sans-serif", size).into_font().color(&BLACK);
        let mid = ((x0 + x1) / 2) as i32;
        let labels = [
            (title.to_string(), x0 as i32, 6),
            (format!("{lo:+.3}"), x0 as i32, y1 as i32 + 2),
            ("0".to_string(), mid - 4, y1 as i32 + 2),
            (format!("{hi:+.3}"), x1 as i32 - 44, y1 as i32 + 2),
        ];
        for (text, x, y) in labels {
            root.draw(&Text::new(text, (x, y), style.clone()))
                .map_err(|e| failed(e.to_string()))?;
        }
        root.present().map_err(|e| failed(e.to_string()))?;
    }
    Ok(strip)
}

/// `images` (all the same width) one under another.
pub fn stack(images: &[Image]) -> Result<Image> {
    let width = images.first().map_or(0, |i| i.width);
    if let Some(k) = images.iter().position(|i| i.width != width) {
        return Err(Error::Argument {
            arg: "picture stack".into(),
            message: format!("picture {k} is {} wide, the first {width}", images[k].width),
        });
    }
    let mut out = Image::new(width, images.iter().map(|i| i.height).sum());
    out.rgb.clear();
    for i in images {
        out.rgb.extend_from_slice(&i.rgb);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The bar runs blue to grey to red under its labels, and stacking
    /// keeps every picture's rows in order.
    #[test]
    fn a_colour_bar_runs_blue_to_red_and_stacks_under_a_picture() {
        let bar = colour_bar(300, -0.5, 0.5, "bend (rad)").unwrap();
        let at = |x: u32| {
            let o = ((35 * bar.width + x) * 3) as usize;
            [bar.rgb[o], bar.rgb[o + 1], bar.rgb[o + 2]]
        };
        let (cold, mid, hot) = (at(41), at(150), at(258));
        assert!(cold[2] > cold[0] + 40, "{cold:?}");
        assert!(hot[0] > hot[2] + 40, "{hot:?}");
        assert!(mid[0].abs_diff(mid[2]) < 10 && mid[0] > 200, "{mid:?}");
        // The labels draw dark pixels above and below the bar.
        let dark = |rows: std::ops::Range<u32>| {
            rows.flat_map(|y| (0..bar.width).map(move |x| (x, y)))
                .filter(|&(x, y)| bar.rgb[((y * bar.width + x) * 3) as usize] < 100)
                .count()
        };
        assert!(dark(0..24) > 20 && dark(44..BAR_STRIP) > 10);
        let mut top = Image::new(300, 10);
        top.rgb.fill(7);
        let both = stack(&[top.clone(), bar.clone()]).unwrap();
        assert_eq!((both.width, both.height), (300, 10 + BAR_STRIP));
        assert_eq!(both.rgb[..top.rgb.len()], top.rgb[..]);
        assert_eq!(both.rgb[top.rgb.len()..], bar.rgb[..]);
        assert!(stack(&[top, Image::new(200, 5)]).is_err());
    }
}
