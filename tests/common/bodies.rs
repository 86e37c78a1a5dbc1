//! Animated bodies written as OBJ sequences, the way a user's tool exports
//! them (an OBJ per frame): a leg bending at the knee (the example scene
//! scenes/knee.json reads the frames `write_leg` writes), an open
//! half-cylinder, a finger pushing up.

use glam::DVec3;
use std::f64::consts::{PI, TAU};
use std::fmt::Write as _;
use std::path::Path;

/// A tube about the y axis from `y0` to `y1`, open at both ends, faces
/// outward: `rings` x `segments` vertices.
pub fn tube(radius: f64, y0: f64, y1: f64, rings: usize, segments: usize) -> (Vec<DVec3>, Vec<[u32; 3]>) {
    let mut x = Vec::new();
    for j in 0..rings {
        let y = y0 + (y1 - y0) * j as f64 / (rings - 1) as f64;
        for i in 0..segments {
            let phi = TAU * i as f64 / segments as f64;
            x.push(DVec3::new(radius * phi.cos(), y, -radius * phi.sin()));
        }
    }
    let at = |i: usize, j: usize| (j * segments + i % segments) as u32;
    let mut faces = Vec::new();
    for j in 0..rings - 1 {
        for i in 0..segments {
            faces.push([at(i, j), at(i + 1, j), at(i + 1, j + 1)]);
            faces.push([at(i, j), at(i + 1, j + 1), at(i, j + 1)]);
        }
    }
    (x, faces)
}

/// The leg: a 6 cm tube from y = -0.05 to 0.8 (open at both ends, as a
/// leg cut from a body is), its knee at y = 0.4.
pub const KNEE: f64 = 0.4;
pub const LEG_RADIUS: f64 = 0.06;

/// The leg (`rings` x `segments` vertices) with its knee bent by `angle`
/// (radians; the shin swings back, to -z), skinned linearly: shin weight 1
/// below the knee, 0 above, blended over 4 cm each side.
pub fn leg(angle: f64, rings: usize, segments: usize) -> (Vec<DVec3>, Vec<[u32; 3]>) {
    let (x, faces) = tube(LEG_RADIUS, -0.05, 0.8, rings, segments);
    let knee = DVec3::new(0.0, KNEE, 0.0);
    let turn = glam::DQuat::from_rotation_x(angle);
    let bent = x
        .iter()
        .map(|p| {
            let s = ((KNEE + 0.04 - p.y) / 0.08).clamp(0.0, 1.0);
            let w = s * s * (3.0 - 2.0 * s);
            p.lerp(turn * (*p - knee) + knee, w)
        })
        .collect();
    (bent, faces)
}

/// An OBJ's text (positions to 5 decimals, 1-based faces).
pub fn obj(x: &[DVec3], faces: &[[u32; 3]]) -> String {
    let mut s = String::new();
    for p in x {
        writeln!(s, "v {:.5} {:.5} {:.5}", p.x, p.y, p.z).unwrap();
    }
    for f in faces {
        writeln!(s, "f {} {} {}", f[0] + 1, f[1] + 1, f[2] + 1).unwrap();
    }
    s
}

/// The knee bending `degrees` over `seconds` (smoothstep in time) at 24
/// fps: frames `leg0001.obj`, ... in `dir` of a leg of `rings` x
/// `segments` vertices (the example's: 35 x 16); returns how many.
pub fn write_leg(dir: &Path, degrees: f64, seconds: f64, rings: usize, segments: usize) -> usize {
    let fps = 24.0;
    let frames = (seconds * fps).round() as usize + 1;
    std::fs::create_dir_all(dir).unwrap();
    for k in 0..frames {
        let s = k as f64 / (frames - 1) as f64;
        let (x, faces) = leg(degrees.to_radians() * s * s * (3.0 - 2.0 * s), rings, segments);
        std::fs::write(dir.join(format!("leg{:04}.obj", k + 1)), obj(&x, &faces)).unwrap();
    }
    frames
}

/// An open half-cylinder of radius `r` lying along x (its curved side up,
/// no caps, no floor), from x = -len/2 to len/2, axis at height 0.
pub fn half_cylinder(r: f64, len: f64) -> (Vec<DVec3>, Vec<[u32; 3]>) {
    let (rings, segments) = (13, 24);
    let mut x = Vec::new();
    for j in 0..rings {
        let px = -len / 2.0 + len * j as f64 / (rings - 1) as f64;
        for i in 0..=segments {
            let phi = PI * i as f64 / segments as f64;
            x.push(DVec3::new(px, r * phi.sin(), r * phi.cos()));
        }
    }
    let row = segments + 1;
    let at = |i: usize, j: usize| (j * row + i) as u32;
    let mut faces = Vec::new();
    for j in 0..rings - 1 {
        for i in 0..segments {
            faces.push([at(i, j), at(i, j + 1), at(i + 1, j + 1)]);
            faces.push([at(i, j), at(i + 1, j + 1), at(i + 1, j)]);
        }
    }
    (x, faces)
}

/// A finger: a 1 cm thick tube (radius 5 mm) along y, open at its base,
/// capped with a hemisphere at its tip `tip` (m above the origin).
pub fn finger(tip: f64) -> (Vec<DVec3>, Vec<[u32; 3]>) {
    let r = 0.005;
    let (segments, rings) = (12, 9);
    let (mut x, mut faces) = tube(r, tip - r - 0.08, tip - r, rings, segments);
    // Hemisphere rings above the tube's top ring, then the pole.
    let top = (rings - 1) * segments;
    for k in 1..4 {
        let a = PI / 2.0 * k as f64 / 4.0;
        for i in 0..segments {
            let phi = TAU * i as f64 / segments as f64;
            let rr = r * a.cos();
            x.push(DVec3::new(rr * phi.cos(), tip - r + r * a.sin(), -rr * phi.sin()));
        }
    }
    let at = |i: usize, ring: usize| (top + ring * segments + i % segments) as u32;
    for ring in 0..3 {
        for i in 0..segments {
            faces.push([at(i, ring), at(i + 1, ring), at(i + 1, ring + 1)]);
            faces.push([at(i, ring), at(i + 1, ring + 1), at(i, ring + 1)]);
        }
    }
    x.push(DVec3::new(0.0, tip, 0.0));
    let pole = x.len() as u32 - 1;
    for i in 0..segments {
        faces.push([at(i, 3), at(i + 1, 3), pole]);
    }
    (x, faces)
}
