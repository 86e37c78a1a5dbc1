//! Pictures of the cloth (`crease render`, experiments' contact sheets): the
//! mesh with smooth normals, lit by a key light that grazes it so that
//! wrinkles show as bands of light and shade, optionally coloured by a
//! per-vertex value. The GPU draws it with `shaders/render.wgsl`
//! (`gpu.rs`); `raster.rs` is its CPU twin, used where no adapter
//! opens and to check the GPU's picture. Both draw `SUPERSAMPLE` times
//! larger and box-filter down, the same way.

pub mod gpu;
pub mod raster;
pub mod sheet;
pub mod source;

use crate::collide::{Pose, Surface, isosurface};
use crate::error::{Error, Result};
use crate::mesh::Topology;
use crate::model::bending::dihedral;
use crate::scene::Scene;
use crate::sim::obstacles_at;
use crate::util::Image;
use glam::{DVec3, Mat4, Vec3, Vec4Swizzles};

/// Drawn pixels per picture pixel, per axis.
pub const SUPERSAMPLE: u32 = 2;

/// Background, 8-bit RGB.
pub const BACKGROUND: [u8; 3] = [244, 244, 242];

/// The value that marks an obstacle's vertices (drawn grey, whatever the
/// colouring); `render.wgsl` tests `value < 0`.
pub const OBSTACLE_VALUE: f32 = -1.0;

/// What to draw (f32, as the GPU takes it).
#[derive(Clone, Debug)]
pub struct Picture {
    pub positions: Vec<Vec3>,
    pub normals: Vec<Vec3>,
    /// Per vertex, in [0, 1] (drawn when the frame colours by value).
    pub values: Vec<f32>,
    pub faces: Vec<[u32; 3]>,
}

impl Picture {
    /// A mesh at positions `x`, coloured by `values` scaled to their
    /// maximum (or plain when `values` is `None`).
    pub fn new(x: &[DVec3], faces: &[[u32; 3]], values: Option<&[f64]>) -> Picture {
        let normals = vertex_normals(x, faces);
        let top = values.map_or(0.0, |v| v.iter().copied().fold(0.0, f64::max));
        Picture {
            positions: x.iter().map(|p| p.as_vec3()).collect(),
            normals: normals.iter().map(|n| n.as_vec3()).collect(),
            values: match values {
                Some(v) if top > 0.0 => v.iter().map(|s| (s / top) as f32).collect(),
                _ => vec![0.0; x.len()],
            },
            faces: faces.to_vec(),
        }
    }

    pub fn bounds(&self) -> (DVec3, DVec3) {
        let x: Vec<DVec3> = self.positions.iter().map(|p| p.as_dvec3()).collect();
        crate::mesh::bounds(&x)
    }

    /// An obstacle's surface (in its own frame), drawn grey.
    pub fn obstacle(x: &[DVec3], faces: &[[u32; 3]]) -> Picture {
        let mut picture = Picture::new(x, faces, None);
        picture.values.fill(OBSTACLE_VALUE);
        picture
    }

    /// Adds `part` moved by the rigid `pose` (its normals turn with it).
    pub fn add_moved(&mut self, part: &Picture, pose: &Pose) {
        let base = self.positions.len() as u32;
        let (rot, trans) = (pose.rot.as_quat(), pose.trans.as_vec3());
        self.positions.extend(part.positions.iter().map(|p| rot * *p + trans));
        self.normals.extend(part.normals.iter().map(|n| rot * *n));
        self.values.extend_from_slice(&part.values);
        self.faces.extend(part.faces.iter().map(|f| f.map(|v| v + base)));
    }
}

/// Area-weighted vertex normals of counter-clockwise triangles.
pub fn vertex_normals(x: &[DVec3], faces: &[[u32; 3]]) -> Vec<DVec3> {
    let mut n = vec![DVec3::ZERO; x.len()];
    for f in faces {
        let [a, b, c] = f.map(|v| x[v as usize]);
        let area = (b - a).cross(c - a);
        for &v in f {
            n[v as usize] += area;
        }
    }
    n.iter().map(|v| v.normalize_or_zero()).collect()
}

/// Each hinge's dihedral angle at positions `x`.
pub fn hinge_angles(topology: &Topology, x: &[DVec3]) -> Vec<f64> {
    topology
        .hinges
        .iter()
        .map(|h| dihedral(h.v.map(|v| x[v as usize])))
        .collect()
}

/// Per vertex, the largest |theta - theta_rest| of its hinges (radians):
/// where the cloth is folded away from its rest shape (`rest`: each hinge's
/// rest angle, as `hinge_angles` of the rest positions or the cloth's
/// `hinge_rest`).
pub fn bend_values(topology: &Topology, x: &[DVec3], rest: &[f64]) -> Vec<f64> {
    let mut out = vec![0.0f64; x.len()];
    for (h, (theta, rest)) in topology.hinges.iter().zip(hinge_angles(topology, x).iter().zip(rest)) {
        let d = (theta - rest).abs();
        for &v in &h.v[..2] {
            out[v as usize] = out[v as usize].max(d);
        }
    }
    out
}

/// Camera and lights in the uniform layout of `shaders/render.wgsl`.
#[repr(C)]
#[derive(Clone, Copy, Debug, bytemuck::Pod, bytemuck::Zeroable)]
pub struct Frame {
    pub view_proj: [[f32; 4]; 4],
    pub key: [f32; 4],
    pub fill: [f32; 4],
    pub flags: [u32; 4],
}

/// A perspective camera looking at the cloth.
#[derive(Clone, Copy, Debug)]
pub struct Camera {
    pub eye: DVec3,
    pub target: DVec3,
    /// Vertical field of view, radians.
    pub fov_y: f64,
    pub near: f64,
    pub far: f64,
}

/// Vertical field of view, radians.
pub const FOV_Y: f64 = 30f64.to_radians();

/// The default direction from the cloth to the camera: above, in front, a
/// little to the right.
pub const VIEW: DVec3 = DVec3::new(0.55, 0.9, 1.0);

impl Camera {
    /// Frames the box `lo..hi` from `direction` (towards the camera) so that
    /// its bounding sphere fills the shorter side of a picture of `aspect`.
    pub fn framing(lo: DVec3, hi: DVec3, direction: DVec3, aspect: f64) -> Result<Camera> {
        // Scaled to its largest component first, so that 1e308,1e308,1e308
        // (whose length overflows) is the diagonal it means.
        let dir = (direction / direction.abs().max_element()).normalize_or_zero();
        if dir == DVec3::ZERO || !dir.is_finite() {
            return Err(Error::Argument {
                arg: "--view".into(),
                message: format!("{direction} is not a direction: give three finite numbers, not all zero"),
            });
        }
        if !(lo.is_finite() && hi.is_finite()) {
            return Err(Error::Step(
                "the mesh has non-finite positions: nothing to frame".into(),
            ));
        }
        let radius = (0.5 * (hi - lo).length()).max(1e-6);
        let half = (0.5 * FOV_Y).tan().min((0.5 * FOV_Y).tan() * aspect).atan();
        let distance = 1.05 * radius / half.sin();
        Ok(Camera::looking_at(0.5 * (lo + hi), dir, distance, 1.5 * radius))
    }

    /// A camera `distance` from `target` along the unit `direction`, its
    /// depth range reaching `reach` either side of the target.
    pub fn looking_at(target: DVec3, direction: DVec3, distance: f64, reach: f64) -> Camera {
        Camera {
            eye: target + direction * distance,
            target,
            fov_y: FOV_Y,
            near: (distance - reach).max(1e-3 * distance),
            far: distance + reach,
        }
    }

    /// The frame for a picture of `aspect`, colouring by value or not. The
    /// key light comes from the camera's right, low over the view direction
    /// and a little from behind the cloth, so it grazes surfaces that face
    /// the camera; the fill comes from the upper left.
    pub fn frame(&self, aspect: f64, coloured: bool) -> Frame {
        // A view straight down or up takes z as its up.
        let forward = (self.target - self.eye).normalize();
        let up_hint = if forward.cross(DVec3::Y).length() < 1e-6 {
            DVec3::Z
        } else {
            DVec3::Y
        };
        let right = forward.cross(up_hint).normalize();
        let up = right.cross(forward);
        let view = Mat4::look_at_rh(self.eye.as_vec3(), self.target.as_vec3(), up.as_vec3());
        let proj = Mat4::perspective_rh(self.fov_y as f32, aspect as f32, self.near as f32, self.far as f32);
        let key = (0.9 * right + 0.3 * up + 0.15 * forward).normalize();
        let fill = (-0.5 * right + 0.8 * up - 0.4 * forward).normalize();
        Frame {
            view_proj: (proj * view).to_cols_array_2d(),
            key: key.as_vec3().extend(0.0).to_array(),
            fill: fill.as_vec3().extend(0.0).to_array(),
            flags: [coloured as u32, 0, 0, 0],
        }
    }
}

/// Blue (0) through grey-white (0.5) to red (1); `colour_map` in
/// render.wgsl.
pub fn colour_map(s: f32) -> Vec3 {
    let t = s.clamp(0.0, 1.0);
    let cold = Vec3::new(0.23, 0.30, 0.75);
    let mid = Vec3::new(0.87, 0.87, 0.87);
    let hot = Vec3::new(0.71, 0.02, 0.15);
    if t < 0.5 {
        cold.lerp(mid, t * 2.0)
    } else {
        mid.lerp(hot, t * 2.0 - 1.0)
    }
}

const AMBIENT: f32 = 0.16;
const KEY: f32 = 0.9;
const FILL: f32 = 0.22;
const CLOTH_FRONT: Vec3 = Vec3::new(0.80, 0.72, 0.62);
const CLOTH_BACK: Vec3 = Vec3::new(0.62, 0.68, 0.78);
const OBSTACLE: Vec3 = Vec3::new(0.55, 0.55, 0.57);

/// `shade` and the output of `fs_main` in render.wgsl: the 8-bit colour of
/// a point with interpolated normal `normal` on side `front`.
pub fn shade(frame: &Frame, normal: Vec3, front: bool, value: f32) -> [u8; 3] {
    let mut n = normal.normalize_or_zero();
    let mut base = CLOTH_FRONT;
    if !front {
        n = -n;
        base = CLOTH_BACK;
    }
    if value < 0.0 {
        base = OBSTACLE;
    } else if frame.flags[0] != 0 {
        base = colour_map(value);
    }
    let key = n.dot(glam::Vec4::from(frame.key).xyz()).max(0.0);
    let fill = n.dot(glam::Vec4::from(frame.fill).xyz()).max(0.0);
    let c = (base * (AMBIENT + KEY * key + FILL * fill)).clamp(Vec3::ZERO, Vec3::ONE);
    let g = c.powf(1.0 / 2.2);
    [g.x, g.y, g.z].map(|v| (v * 255.0).round() as u8)
}

/// Box-filters an RGBA picture drawn `SUPERSAMPLE` times larger down to
/// `width x height` RGB.
pub fn downsample(rgba: &[u8], width: u32, height: u32) -> Image {
    let s = SUPERSAMPLE;
    let big_width = width * s;
    let mut image = Image::new(width, height);
    for y in 0..height {
        for x in 0..width {
            let mut sum = [0u32; 3];
            for dy in 0..s {
                for dx in 0..s {
                    let i = (((y * s + dy) * big_width + x * s + dx) * 4) as usize;
                    for (c, total) in sum.iter_mut().enumerate() {
                        *total += rgba[i + c] as u32;
                    }
                }
            }
            let o = ((y * width + x) * 3) as usize;
            for (c, total) in sum.iter().enumerate() {
                image.rgb[o + c] = ((total + s * s / 2) / (s * s)) as u8;
            }
        }
    }
    image
}

/// How the cloth is coloured.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Colour {
    /// Cloth-coloured front, blue-grey back: the wrinkles in light and shade.
    Plain,
    /// |theta - theta_rest| per vertex, blue (none) to red (the largest).
    Bend,
}

/// Where pictures are drawn: the GPU (`render/gpu.rs`) or its CPU twin.
pub enum Renderer {
    Gpu(Box<crate::gpu::GpuContext>),
    Cpu,
}

impl Renderer {
    pub fn name(&self) -> &'static str {
        match self {
            Renderer::Gpu(_) => "gpu",
            Renderer::Cpu => "cpu",
        }
    }

    pub fn draw(&self, picture: &Picture, frame: &Frame, width: u32, height: u32) -> Result<Image> {
        if width == 0 || height == 0 {
            return Err(Error::Argument {
                arg: "--size".into(),
                message: format!("{width}x{height} has no pixels"),
            });
        }
        match self {
            Renderer::Gpu(ctx) => gpu::draw(ctx, picture, frame, width, height),
            Renderer::Cpu => Ok(raster::draw(picture, frame, width, height)),
        }
    }
}

/// Each obstacle's surface in its own frame (a deforming body's: its
/// first frame), drawn grey.
pub fn obstacle_surfaces(scene: &Scene) -> Vec<Picture> {
    scene
        .obstacles
        .iter()
        .map(|o| match &o.surface {
            Surface::Grid(g) => {
                let (x, faces) = isosurface::surface(g);
                Picture::obstacle(&x, &faces)
            }
            Surface::Sequence(seq) => Picture::obstacle(&seq.frames[0], &seq.faces),
        })
        .collect()
}

/// Adds `scene`'s obstacles as they are after `steps` steps of its timeline
/// (removed ones are not drawn); `surfaces` are `obstacle_surfaces(scene)`.
pub fn add_obstacles(picture: &mut Picture, scene: &Scene, surfaces: &[Picture], steps: u64) {
    let t = steps as f64 * scene.dt;
    for ((at, o), surface) in obstacles_at(scene, steps).iter().zip(&scene.obstacles).zip(surfaces) {
        if !at.enabled {
            continue;
        }
        match &o.surface {
            Surface::Grid(_) => picture.add_moved(surface, &at.pose),
            Surface::Sequence(seq) => {
                picture.add_moved(&Picture::obstacle(&seq.at(t, &at.pose), &seq.faces), &Pose::default())
            }
        }
    }
}

/// A picture of `source` at `width x height`, seen from `view`, with
/// `scene`'s obstacles where they were at its frame's time if given. The
/// camera frames the cloth.
pub fn render(
    renderer: &Renderer,
    source: &source::Source,
    scene: Option<&Scene>,
    colour: Colour,
    view: DVec3,
    width: u32,
    height: u32,
) -> Result<Image> {
    let values = match colour {
        Colour::Plain => None,
        Colour::Bend => Some(source.bend()?),
    };
    let mut picture = Picture::new(&source.mesh.positions, &source.mesh.faces, values.as_deref());
    let (lo, hi) = picture.bounds();
    if let (Some(scene), Some((_, t))) = (scene, source.frame) {
        let steps = (t / scene.dt).round() as u64;
        add_obstacles(&mut picture, scene, &obstacle_surfaces(scene), steps);
    }
    let aspect = width as f64 / height.max(1) as f64;
    let camera = Camera::framing(lo, hi, view, aspect)?;
    renderer.draw(&picture, &camera.frame(aspect, colour == Colour::Bend), width, height)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A sheet folded along a line: the fold's vertices carry the bend,
    /// the flat parts none; the picture shows both sides of the cloth and
    /// the background, and its colours are the shading's.
    #[test]
    fn a_folded_sheet_is_drawn_with_both_sides_and_its_bend() {
        let (sheet, folded) = crate::mesh::testing::folded_sheet();
        let topology = Topology::build(&sheet).unwrap();
        let bend = bend_values(&topology, &folded, &hinge_angles(&topology, &sheet.positions));
        for (p, b) in sheet.positions.iter().zip(&bend) {
            let on_fold = (p.x - 0.05).abs() < 1e-9;
            assert!(if on_fold { (b - 0.5).abs() < 1e-9 } else { *b < 1e-9 }, "{p}: {b}");
        }
        let picture = Picture::new(&folded, &sheet.faces, Some(&bend));
        let (lo, hi) = picture.bounds();
        let camera = Camera::framing(lo, hi, VIEW, 4.0 / 3.0).unwrap();
        let image = raster::draw(&picture, &camera.frame(4.0 / 3.0, false), 160, 120);
        assert_eq!(image.rgb[..3], BACKGROUND, "the corner is background");
        assert!(image.colours() > 20, "{} colours", image.colours());
        // Seen from above, the cloth covers a good part of the frame.
        let cloth = image.rgb.chunks_exact(3).filter(|c| **c != BACKGROUND).count();
        assert!(cloth > 160 * 120 / 8, "{cloth} cloth pixels");
        // Seen from the other side, the other side's colour shows: the
        // balance of blue over red changes sign.
        let balance = |view: DVec3| {
            let camera = Camera::framing(lo, hi, view, 4.0 / 3.0).unwrap();
            let image = raster::draw(&picture, &camera.frame(4.0 / 3.0, false), 160, 120);
            image
                .rgb
                .chunks_exact(3)
                .filter(|c| **c != BACKGROUND)
                .map(|c| c[2] as i64 - c[0] as i64)
                .sum::<i64>()
        };
        let (above, below) = (balance(VIEW), balance(-VIEW));
        assert!(above.signum() == -below.signum() && above != 0, "{above} {below}");
        assert!(Camera::framing(lo, hi, DVec3::ZERO, 1.0).is_err());
        assert!(Camera::framing(lo, hi, DVec3::new(f64::NAN, 1.0, 1.0), 1.0).is_err());
        // A direction whose length overflows is still the direction.
        let far = Camera::framing(lo, hi, DVec3::splat(1e308), 1.0).unwrap();
        let near = Camera::framing(lo, hi, DVec3::ONE, 1.0).unwrap();
        assert!(
            (far.eye - near.eye).length() < 1e-12 && far.target == near.target,
            "{}",
            far.eye
        );
    }
}
