//! The mannequin's shape: rounded cones (limbs, neck) and ellipsoids
//! (torso, buttocks, calves, head, hands), each carried by a bone, joined
//! by a smooth minimum into one implicit surface. Posed, every part moves
//! with its bone and the union is taken again, so the posed surface is the
//! zero set of one function: it cannot cross itself, however far a joint
//! bends (the skin's mesh is projected onto it, `body.rs`).

use super::skeleton::{ANKLE, BONE_COUNT, Bone, ELBOW, HIP, KNEE, Rigid, SHOULDER, WRIST};
use glam::DVec3;

/// The radius over which parts blend into each other, m.
pub const BLEND: f64 = 0.025;

#[derive(Clone, Copy, Debug)]
pub enum Prim {
    /// A cone from `a` (radius `ra`) to `b` (radius `rb`) with spherical
    /// ends: the hull of the two balls.
    Cone { a: DVec3, b: DVec3, ra: f64, rb: f64 },
    /// An axis-aligned ellipsoid about `c` with semi-axes `r`.
    Ellipsoid { c: DVec3, r: DVec3 },
}

#[derive(Clone, Copy, Debug)]
pub struct Part {
    pub bone: Bone,
    pub prim: Prim,
}

/// The sign that is 0 at 0 (as GLSL's `sign`, on which the round cone's
/// distance was written).
fn sign(x: f64) -> f64 {
    if x > 0.0 {
        1.0
    } else if x < 0.0 {
        -1.0
    } else {
        0.0
    }
}

/// Exact distance to a round cone (Quílez, "distance functions").
fn round_cone(p: DVec3, a: DVec3, b: DVec3, r1: f64, r2: f64) -> f64 {
    let ba = b - a;
    let l2 = ba.dot(ba);
    let rr = r1 - r2;
    let a2 = l2 - rr * rr;
    let il2 = 1.0 / l2;
    let pa = p - a;
    let y = pa.dot(ba);
    let z = y - l2;
    let x2 = (pa * l2 - ba * y).length_squared();
    let y2 = y * y * l2;
    let z2 = z * z * l2;
    let k = sign(rr) * rr * rr * x2;
    if sign(z) * a2 * z2 > k {
        return (x2 + z2).sqrt() * il2 - r2;
    }
    if sign(y) * a2 * y2 < k {
        return (x2 + y2).sqrt() * il2 - r1;
    }
    ((x2 * a2 * il2).sqrt() + y * rr) * il2 - r1
}

/// A close bound of the distance to an ellipsoid (Quílez): exact on the
/// surface and along the axes.
fn ellipsoid(p: DVec3, c: DVec3, r: DVec3) -> f64 {
    let q = p - c;
    let k0 = (q / r).length();
    let k1 = (q / (r * r)).length();
    if k1 == 0.0 {
        return -r.min_element();
    }
    k0 * (k0 - 1.0) / k1
}

/// The polynomial smooth minimum (Quílez): `min(a, b)` where they differ by
/// more than `k`, rounded within it.
pub fn smin(a: f64, b: f64, k: f64) -> f64 {
    let h = (k - (a - b).abs()).max(0.0) / k;
    a.min(b) - h * h * k * 0.25
}

impl Prim {
    pub fn distance(&self, p: DVec3) -> f64 {
        match *self {
            Prim::Cone { a, b, ra, rb } => round_cone(p, a, b, ra, rb),
            Prim::Ellipsoid { c, r } => ellipsoid(p, c, r),
        }
    }

    fn mirrored(&self) -> Prim {
        let m = |p: DVec3| DVec3::new(-p.x, p.y, p.z);
        match *self {
            Prim::Cone { a, b, ra, rb } => Prim::Cone {
                a: m(a),
                b: m(b),
                ra,
                rb,
            },
            Prim::Ellipsoid { c, r } => Prim::Ellipsoid { c: m(c), r },
        }
    }
}

/// The parts of the body in the rest pose: an adult of 1.75 m.
pub fn parts() -> Vec<Part> {
    use Bone::*;
    let cone = |a: DVec3, b: DVec3, ra: f64, rb: f64| Prim::Cone { a, b, ra, rb };
    let ellipsoid = |c: DVec3, r: DVec3| Prim::Ellipsoid { c, r };
    let v = DVec3::new;
    let mut parts = vec![
        Part {
            bone: Pelvis,
            prim: ellipsoid(v(0.0, 0.93, -0.01), v(0.16, 0.12, 0.11)),
        },
        Part {
            bone: Spine,
            prim: ellipsoid(v(0.0, 1.1, 0.0), v(0.135, 0.12, 0.095)),
        },
        Part {
            bone: Chest,
            prim: ellipsoid(v(0.0, 1.3, 0.0), v(0.16, 0.15, 0.105)),
        },
        Part {
            bone: Chest,
            prim: cone(v(-0.17, 1.42, -0.01), v(0.17, 1.42, -0.01), 0.06, 0.06),
        },
        Part {
            bone: Neck,
            prim: cone(v(0.0, 1.44, 0.0), v(0.0, 1.58, 0.0), 0.055, 0.05),
        },
        Part {
            bone: Head,
            prim: ellipsoid(v(0.0, 1.65, 0.01), v(0.08, 0.105, 0.095)),
        },
    ];
    // The left side, then the same mirrored onto the right.
    let left = [
        (Pelvis, ellipsoid(v(0.07, 0.88, -0.045), v(0.085, 0.095, 0.085))),
        (ThighL, cone(HIP - v(0.0, 0.02, 0.0), KNEE, 0.082, 0.056)),
        (ShinL, cone(KNEE, ANKLE + v(0.0, 0.01, 0.0), 0.052, 0.036)),
        (ShinL, ellipsoid(v(0.1, 0.36, -0.018), v(0.048, 0.1, 0.045))),
        (FootL, cone(v(0.1, 0.045, -0.03), v(0.1, 0.03, 0.15), 0.04, 0.028)),
        (UpperArmL, cone(SHOULDER, ELBOW, 0.048, 0.038)),
        (ForearmL, cone(ELBOW, WRIST, 0.037, 0.028)),
        (HandL, ellipsoid(v(0.82, 1.43, 0.0), v(0.085, 0.022, 0.045))),
    ];
    let right = |b: Bone| match b {
        ThighL => ThighR,
        ShinL => ShinR,
        FootL => FootR,
        UpperArmL => UpperArmR,
        ForearmL => ForearmR,
        HandL => HandR,
        other => other,
    };
    for (bone, prim) in left {
        parts.push(Part { bone, prim });
        parts.push(Part {
            bone: right(bone),
            prim: prim.mirrored(),
        });
    }
    parts
}

/// The body's implicit surface.
#[derive(Clone, Debug)]
pub struct Shape {
    pub parts: Vec<Part>,
}

impl Default for Shape {
    fn default() -> Self {
        Shape { parts: parts() }
    }
}

impl Shape {
    /// The signed distance (close to it near the surface) of `p` from the
    /// body posed by `inverse`: each bone's transform from the pose back to
    /// the rest.
    pub fn distance(&self, p: DVec3, inverse: &[Rigid; BONE_COUNT]) -> f64 {
        self.parts.iter().fold(f64::INFINITY, |d, part| {
            let q = inverse[part.bone.index()].apply(p);
            smin(d, part.prim.distance(q), BLEND)
        })
    }

    /// The distance at rest.
    pub fn rest_distance(&self, p: DVec3) -> f64 {
        self.distance(p, &[Rigid::IDENTITY; BONE_COUNT])
    }

    /// The distance's gradient, by central differences.
    pub fn gradient(&self, p: DVec3, inverse: &[Rigid; BONE_COUNT]) -> DVec3 {
        let e = 1e-5;
        let d = |v: DVec3| self.distance(p + v, inverse) - self.distance(p - v, inverse);
        DVec3::new(d(DVec3::X * e), d(DVec3::Y * e), d(DVec3::Z * e)) / (2.0 * e)
    }

    /// Moves `p` onto the posed surface along the distance's gradient
    /// (Newton's method; a few steps from near the surface).
    pub fn project(&self, mut p: DVec3, inverse: &[Rigid; BONE_COUNT]) -> DVec3 {
        for _ in 0..4 {
            let g = self.gradient(p, inverse);
            let g2 = g.length_squared();
            if g2 < 1e-12 {
                break;
            }
            p -= g * (self.distance(p, inverse) / g2);
        }
        p
    }

    /// Per bone, the distance of `p` from that bone's own parts at rest
    /// (infinite for a bone without parts).
    pub fn bone_distances(&self, p: DVec3) -> [f64; BONE_COUNT] {
        let mut out = [f64::INFINITY; BONE_COUNT];
        for part in &self.parts {
            let d = &mut out[part.bone.index()];
            *d = d.min(part.prim.distance(p));
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn primitives_measure_their_distances() {
        let a = DVec3::ZERO;
        let b = DVec3::new(0.0, 1.0, 0.0);
        // Beside the middle of a cone of radii 0.2 and 0.1: 1 - 0.15 nearly
        // (the side leans by a twentieth of a radian).
        let d = round_cone(DVec3::new(1.0, 0.5, 0.0), a, b, 0.2, 0.1);
        assert!((d - (1.0 - 0.15) * (1.0f64 - 0.01).sqrt()).abs() < 1e-3, "{d}");
        // Past the ends: the balls.
        assert!((round_cone(DVec3::new(0.0, -1.0, 0.0), a, b, 0.2, 0.1) - 0.8).abs() < 1e-12);
        assert!((round_cone(DVec3::new(0.0, 3.0, 0.0), a, b, 0.2, 0.1) - 1.9).abs() < 1e-12);
        // An ellipsoid along its axes is exact.
        let r = DVec3::new(0.3, 0.2, 0.1);
        assert!((ellipsoid(DVec3::new(0.5, 0.0, 0.0), DVec3::ZERO, r) - 0.2).abs() < 1e-12);
        assert!((ellipsoid(DVec3::new(0.0, 0.0, -0.3), DVec3::ZERO, r) - 0.2).abs() < 1e-12);
        // The smooth minimum is the minimum away from the blend and below it
        // within.
        assert_eq!(smin(0.0, 1.0, 0.1), 0.0);
        assert!(smin(0.05, 0.05, 0.1) < 0.05 - 0.02);
    }

    #[test]
    fn the_figure_stands_on_the_floor_with_a_gap_between_its_thighs() {
        let shape = Shape::default();
        // Feet on the floor, head at about 1.75 m.
        let down = |x: f64, z: f64, from: f64| {
            let mut y = from;
            while shape.rest_distance(DVec3::new(x, y, z)) > 0.0 && y > -0.5 {
                y -= 0.001;
            }
            y
        };
        let top = down(0.0, 0.0, 2.0);
        assert!((top - 1.755).abs() < 0.01, "top {top}");
        // The left foot's sole, from below.
        let mut sole = -0.1;
        while shape.rest_distance(DVec3::new(0.1, sole, 0.05)) > 0.0 {
            sole += 0.001;
        }
        assert!(sole.abs() < 0.01, "sole {sole}");
        // Below the crotch the thighs stand apart by more than 3 cm.
        assert!(shape.rest_distance(DVec3::new(0.0, 0.75, 0.0)) > 0.015);
    }
}
