//! CPU twin of `shaders/render.wgsl`: a z-buffered triangle rasterizer
//! with the GPU's conventions (pixel centres at +0.5, depth z/w in [0, 1]
//! kept when less, attributes interpolated perspective-correctly, front
//! faces counter-clockwise in normalized device coordinates), shading each
//! pixel with `super::shade`.

use super::{BACKGROUND, Frame, Picture, SUPERSAMPLE, downsample, shade};
use crate::util::Image;
use glam::{Mat4, Vec3, Vec4};

/// Draws `picture` at `width x height` (after the supersampling).
pub fn draw(picture: &Picture, frame: &Frame, width: u32, height: u32) -> Image {
    let (w, h) = (width * SUPERSAMPLE, height * SUPERSAMPLE);
    let mut rgba = vec![255u8; w as usize * h as usize * 4];
    for px in rgba.chunks_exact_mut(4) {
        px[..3].copy_from_slice(&BACKGROUND);
    }
    let mut depth = vec![1.0f32; w as usize * h as usize];
    let view_proj = Mat4::from_cols_array_2d(&frame.view_proj);
    let clip: Vec<Vec4> = picture.positions.iter().map(|p| view_proj * p.extend(1.0)).collect();
    for face in &picture.faces {
        let c = face.map(|v| clip[v as usize]);
        // The framing keeps the cloth in front of the near plane; a
        // triangle that is not is left out rather than clipped.
        if c.iter().any(|v| v.w <= 0.0) {
            continue;
        }
        let ndc = c.map(|v| v.truncate() / v.w);
        let screen = ndc.map(|n| glam::Vec2::new((n.x + 1.0) * 0.5 * w as f32, (1.0 - n.y) * 0.5 * h as f32));
        // Twice the signed area in NDC (y up): positive is counter-clockwise.
        let area = (ndc[1].x - ndc[0].x) * (ndc[2].y - ndc[0].y) - (ndc[2].x - ndc[0].x) * (ndc[1].y - ndc[0].y);
        if area == 0.0 {
            continue;
        }
        let front = area > 0.0;
        let lo = screen.iter().fold(glam::Vec2::splat(f32::MAX), |m, p| m.min(*p));
        let hi = screen.iter().fold(glam::Vec2::splat(f32::MIN), |m, p| m.max(*p));
        let (x0, x1) = (
            (lo.x - 0.5).ceil().max(0.0) as u32,
            ((hi.x - 0.5).floor() as i64).min(w as i64 - 1),
        );
        let (y0, y1) = (
            (lo.y - 0.5).ceil().max(0.0) as u32,
            ((hi.y - 0.5).floor() as i64).min(h as i64 - 1),
        );
        let edge = |a: glam::Vec2, b: glam::Vec2, p: glam::Vec2| (b.x - a.x) * (p.y - a.y) - (b.y - a.y) * (p.x - a.x);
        let total = edge(screen[0], screen[1], screen[2]);
        for y in y0 as i64..=y1 {
            for x in x0 as i64..=x1 {
                let p = glam::Vec2::new(x as f32 + 0.5, y as f32 + 0.5);
                let b = [
                    edge(screen[1], screen[2], p) / total,
                    edge(screen[2], screen[0], p) / total,
                    edge(screen[0], screen[1], p) / total,
                ];
                if b.iter().any(|v| *v < 0.0) {
                    continue;
                }
                let z = b[0] * ndc[0].z + b[1] * ndc[1].z + b[2] * ndc[2].z;
                let k = y as usize * w as usize + x as usize;
                // Kept when nearer (NaN never is), as the GPU's Less test.
                if z.partial_cmp(&depth[k]) != Some(std::cmp::Ordering::Less) || z < 0.0 {
                    continue;
                }
                depth[k] = z;
                // Perspective-correct weights.
                let pw = [b[0] / c[0].w, b[1] / c[1].w, b[2] / c[2].w];
                let sum = pw[0] + pw[1] + pw[2];
                let normal: Vec3 = (0..3).map(|i| picture.normals[face[i] as usize] * (pw[i] / sum)).sum();
                let value: f32 = (0..3).map(|i| picture.values[face[i] as usize] * (pw[i] / sum)).sum();
                rgba[k * 4..k * 4 + 3].copy_from_slice(&shade(frame, normal, front, value));
            }
        }
    }
    downsample(&rgba, width, height)
}
