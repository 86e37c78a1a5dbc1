//! Analytic obstacle shapes and their signed distances (negative inside).
//! Each is exact outside the solid; unions take the minimum, which is exact
//! outside and has the right sign inside.

use super::mesh_sdf::MeshSdf;
use glam::{DVec2, DVec3};
use std::sync::Arc;

#[derive(Clone, Debug)]
pub enum Shape {
    /// Half-space below the plane through `point` with outward `normal` (unit).
    Plane {
        point: DVec3,
        normal: DVec3,
    },
    Sphere {
        center: DVec3,
        radius: f64,
    },
    /// Axis-aligned box, its edges and corners rounded by `rounding`.
    Box {
        center: DVec3,
        half: DVec3,
        rounding: f64,
    },
    /// Segment `a`-`b` swept by a ball.
    Capsule {
        a: DVec3,
        b: DVec3,
        radius: f64,
    },
    /// Solid capped cylinder about `axis` (unit) through `center`.
    Cylinder {
        center: DVec3,
        axis: DVec3,
        radius: f64,
        height: f64,
    },
    /// An open cup: a floor disk and a wall of thickness `wall`, opening
    /// along `+axis`. `center` is the middle of the floor's top face,
    /// `radius` the inner radius, `height` the wall's height above the floor;
    /// its outer edges (the rim's included) are rounded by `rounding`.
    Container {
        center: DVec3,
        axis: DVec3,
        radius: f64,
        height: f64,
        wall: f64,
        rounding: f64,
    },
    Union(Vec<Shape>),
    /// A closed triangle mesh (exact distance through a BVH).
    Mesh(Arc<MeshSdf>),
}

/// Signed distance to the 2D box `[lo, hi]`.
fn box2(p: DVec2, lo: DVec2, hi: DVec2) -> f64 {
    let c = (lo + hi) * 0.5;
    let d = (p - c).abs() - (hi - lo) * 0.5;
    d.max(DVec2::ZERO).length() + d.x.max(d.y).min(0.0)
}

/// Bounds of a disk of radius `r` normal to `axis` swept from `a` to `b`:
/// along world axis i the disk reaches `r sqrt(1 - axis_i^2)`.
fn disk_sweep(a: DVec3, b: DVec3, axis: DVec3, r: f64) -> (DVec3, DVec3) {
    let reach = (DVec3::ONE - axis * axis).max(DVec3::ZERO).map(f64::sqrt) * r;
    (a.min(b) - reach, a.max(b) + reach)
}

/// (distance from the axis, height along it) of `p`.
fn radial(p: DVec3, center: DVec3, axis: DVec3) -> DVec2 {
    let d = p - center;
    let y = d.dot(axis);
    DVec2::new((d - axis * y).length(), y)
}

impl Shape {
    pub fn distance(&self, p: DVec3) -> f64 {
        match self {
            Shape::Plane { point, normal } => (p - *point).dot(*normal),
            Shape::Sphere { center, radius } => (p - *center).length() - radius,
            Shape::Box { center, half, rounding } => {
                let d = (p - *center).abs() - (*half - *rounding);
                d.max(DVec3::ZERO).length() + d.max_element().min(0.0) - rounding
            }
            Shape::Capsule { a, b, radius } => {
                let ab = *b - *a;
                let t = ((p - *a).dot(ab) / ab.length_squared().max(f64::MIN_POSITIVE)).clamp(0.0, 1.0);
                (p - (*a + ab * t)).length() - radius
            }
            Shape::Cylinder {
                center,
                axis,
                radius,
                height,
            } => {
                let q = radial(p, *center, *axis);
                let h = height * 0.5;
                box2(q, DVec2::new(-radius, -h), DVec2::new(*radius, h))
            }
            Shape::Container {
                center,
                axis,
                radius,
                height,
                wall,
                rounding,
            } => {
                // The cup's cross-section in the (r, y) half-plane: a wall
                // rectangle and a floor rectangle, each shrunk by the
                // rounding and inflated back (rounded corners); revolving
                // keeps distances.
                let q = radial(p, *center, *axis);
                let outer = radius + wall;
                let r = DVec2::splat(*rounding);
                let side = box2(q, DVec2::new(*radius, -wall) + r, DVec2::new(outer, *height) - r) - rounding;
                let floor = box2(q, DVec2::new(-outer, -wall) + r, DVec2::new(outer, 0.0) - r) - rounding;
                side.min(floor)
            }
            Shape::Union(parts) => parts.iter().map(|s| s.distance(p)).fold(f64::INFINITY, f64::min),
            Shape::Mesh(m) => m.distance(p),
        }
    }

    /// Axis-aligned bounds of the solid; infinite for a plane.
    pub fn bounds(&self) -> (DVec3, DVec3) {
        let inf = (DVec3::NEG_INFINITY, DVec3::INFINITY);
        match self {
            Shape::Plane { .. } => inf,
            Shape::Sphere { center, radius } => (*center - *radius, *center + *radius),
            Shape::Box { center, half, .. } => (*center - *half, *center + *half),
            Shape::Capsule { a, b, radius } => (a.min(*b) - *radius, a.max(*b) + *radius),
            Shape::Cylinder {
                center,
                axis,
                radius,
                height,
            } => disk_sweep(
                *center - *axis * (height * 0.5),
                *center + *axis * (height * 0.5),
                *axis,
                *radius,
            ),
            Shape::Container {
                center,
                axis,
                radius,
                height,
                wall,
                ..
            } => disk_sweep(*center - *axis * *wall, *center + *axis * *height, *axis, radius + wall),
            Shape::Union(parts) => parts
                .iter()
                .map(Shape::bounds)
                .fold((DVec3::INFINITY, DVec3::NEG_INFINITY), |(lo, hi), (a, b)| {
                    (lo.min(a), hi.max(b))
                }),
            Shape::Mesh(m) => m.bounds(),
        }
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::collide::SdfGrid;

    /// A deterministic point cloud in the box `[lo, hi]`.
    pub(crate) fn points(lo: DVec3, hi: DVec3, count: usize) -> Vec<DVec3> {
        let mut seed = 0x9e3779b97f4a7c15u64;
        let mut next = || {
            seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            (seed >> 11) as f64 / (1u64 << 53) as f64
        };
        (0..count)
            .map(|_| lo + (hi - lo) * DVec3::new(next(), next(), next()))
            .collect()
    }

    /// Central-difference gradient of the analytic distance.
    fn gradient(s: &Shape, p: DVec3, e: f64) -> DVec3 {
        let d = |v: DVec3| (s.distance(p + v * e) - s.distance(p - v * e)) / (2.0 * e);
        DVec3::new(d(DVec3::X), d(DVec3::Y), d(DVec3::Z))
    }

    #[test]
    fn baked_grids_match_every_primitive_within_half_a_cell() {
        let c = DVec3::new(0.01, -0.02, 0.03);
        let shapes = [
            (
                "plane",
                Shape::Plane {
                    point: c,
                    normal: DVec3::new(0.2, 1.0, -0.1).normalize(),
                },
            ),
            ("sphere", Shape::Sphere { center: c, radius: 0.1 }),
            (
                "box",
                Shape::Box {
                    center: c,
                    half: DVec3::new(0.1, 0.05, 0.08),
                    rounding: 0.01,
                },
            ),
            (
                "capsule",
                Shape::Capsule {
                    a: c - 0.05,
                    b: c + DVec3::new(0.08, 0.02, 0.0),
                    radius: 0.04,
                },
            ),
            (
                "cylinder",
                Shape::Cylinder {
                    center: c,
                    axis: DVec3::new(0.0, 1.0, 0.3).normalize(),
                    radius: 0.07,
                    height: 0.12,
                },
            ),
            (
                "container",
                Shape::Container {
                    center: c,
                    axis: DVec3::Y,
                    radius: 0.08,
                    height: 0.06,
                    wall: 0.01,
                    rounding: 0.003,
                },
            ),
            (
                "union",
                Shape::Union(vec![
                    Shape::Sphere {
                        center: c + 0.05,
                        radius: 0.05,
                    },
                    Shape::Box {
                        center: c - 0.05,
                        half: DVec3::splat(0.04),
                        rounding: 0.0,
                    },
                ]),
            ),
        ];
        let (lo, hi) = (DVec3::splat(-0.2), DVec3::splat(0.2));
        let cell = 0.01;
        for (name, shape) in &shapes {
            let grid = SdfGrid::bake(lo, hi, cell, |p| shape.distance(p)).unwrap();
            let mut smooth = 0;
            for p in points(lo * 0.95, hi * 0.95, 4000) {
                let (d, g) = grid.sample(p);
                let exact = shape.distance(p);
                assert!(
                    (d - exact).abs() <= 0.5 * cell,
                    "{name} at {p}: grid {d}, exact {exact}"
                );
                // Where the exact gradient is steady over the grid cell holding p
                // (off the medial axes), the grid's gradient follows it to
                // within its variation over the cell's corners.
                let ge = gradient(shape, p, 1e-6);
                let base = lo + ((p - lo) / cell).floor() * cell;
                let variation = (0..8)
                    .map(|k| {
                        let corner = base + DVec3::new((k & 1) as f64, (k >> 1 & 1) as f64, (k >> 2) as f64) * cell;
                        (gradient(shape, corner, 1e-6) - ge).length()
                    })
                    .fold(0.0, f64::max);
                if variation < 0.2 {
                    smooth += 1;
                    assert!(
                        (g - ge).length() < variation + 0.05,
                        "{name} at {p}: grid gradient {g}, exact {ge}"
                    );
                }
            }
            assert!(smooth > 1000, "{name}: only {smooth} points had a steady gradient");
        }
    }

    #[test]
    fn container_distances_at_known_points() {
        let cup = Shape::Container {
            center: DVec3::ZERO,
            axis: DVec3::Y,
            radius: 0.1,
            height: 0.08,
            wall: 0.01,
            rounding: 0.0,
        };
        let cases = [
            (DVec3::new(0.0, 0.03, 0.0), 0.03),            // above the floor, inside the cup
            (DVec3::new(0.07, 0.04, 0.0), 0.03),           // nearer the wall than the floor
            (DVec3::new(0.0, -0.05, 0.0), 0.04),           // under the floor
            (DVec3::new(0.0, 0.0, 0.13), 0.02),            // beside the wall, outside
            (DVec3::new(0.105, 0.04, 0.0), -0.005),        // inside the wall
            (DVec3::new(0.0, 0.2, 0.0), 0.0244f64.sqrt()), // nearest the rim's inner edge (0.1, 0.08)
        ];
        for (p, want) in cases {
            let d = cup.distance(p);
            assert!((d - want).abs() < 1e-12, "{p}: {d} vs {want}");
        }
    }
}
