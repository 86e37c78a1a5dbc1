//! The mannequin's skeleton: seventeen bones with their joints in the rest
//! pose (a T pose, standing on y = 0, facing +z, its left side towards +x;
//! metres), and poses as rotations about the joints plus a move of the
//! whole body, turned into each bone's rigid transform by forward
//! kinematics.

use glam::{DQuat, DVec3};

/// The bones, parents before children.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Bone {
    Pelvis,
    Spine,
    Chest,
    Neck,
    Head,
    ThighL,
    ShinL,
    FootL,
    ThighR,
    ShinR,
    FootR,
    UpperArmL,
    ForearmL,
    HandL,
    UpperArmR,
    ForearmR,
    HandR,
}

pub const BONE_COUNT: usize = 17;

pub const BONES: [Bone; BONE_COUNT] = [
    Bone::Pelvis,
    Bone::Spine,
    Bone::Chest,
    Bone::Neck,
    Bone::Head,
    Bone::ThighL,
    Bone::ShinL,
    Bone::FootL,
    Bone::ThighR,
    Bone::ShinR,
    Bone::FootR,
    Bone::UpperArmL,
    Bone::ForearmL,
    Bone::HandL,
    Bone::UpperArmR,
    Bone::ForearmR,
    Bone::HandR,
];

/// A side's joints: x is mirrored for the right.
pub const HIP: DVec3 = DVec3::new(0.1, 0.91, 0.0);
pub const KNEE: DVec3 = DVec3::new(0.1, 0.5, 0.0);
pub const ANKLE: DVec3 = DVec3::new(0.1, 0.08, 0.0);
pub const SHOULDER: DVec3 = DVec3::new(0.19, 1.43, 0.0);
pub const ELBOW: DVec3 = DVec3::new(0.48, 1.43, 0.0);
pub const WRIST: DVec3 = DVec3::new(0.74, 1.43, 0.0);

/// Lengths of the thigh (hip to knee) and the shin (knee to ankle).
pub const THIGH: f64 = HIP.y - KNEE.y;
pub const SHIN: f64 = KNEE.y - ANKLE.y;

/// The point mirrored to the body's other side.
pub fn mirror(p: DVec3) -> DVec3 {
    DVec3::new(-p.x, p.y, p.z)
}

impl Bone {
    pub fn index(self) -> usize {
        self as usize
    }

    pub fn parent(self) -> Option<Bone> {
        use Bone::*;
        Some(match self {
            Pelvis => return None,
            Spine | ThighL | ThighR => Pelvis,
            Chest => Spine,
            Neck | UpperArmL | UpperArmR => Chest,
            Head => Neck,
            ShinL => ThighL,
            FootL => ShinL,
            ShinR => ThighR,
            FootR => ShinR,
            ForearmL => UpperArmL,
            HandL => ForearmL,
            ForearmR => UpperArmR,
            HandR => ForearmR,
        })
    }

    /// The joint the bone turns about, in the rest pose.
    pub fn joint(self) -> DVec3 {
        use Bone::*;
        match self {
            Pelvis => DVec3::new(0.0, 0.95, 0.0),
            Spine => DVec3::new(0.0, 1.05, 0.0),
            Chest => DVec3::new(0.0, 1.22, 0.0),
            Neck => DVec3::new(0.0, 1.47, 0.0),
            Head => DVec3::new(0.0, 1.55, 0.0),
            ThighL => HIP,
            ShinL => KNEE,
            FootL => ANKLE,
            ThighR => mirror(HIP),
            ShinR => mirror(KNEE),
            FootR => mirror(ANKLE),
            UpperArmL => SHOULDER,
            ForearmL => ELBOW,
            HandL => WRIST,
            UpperArmR => mirror(SHOULDER),
            ForearmR => mirror(ELBOW),
            HandR => mirror(WRIST),
        }
    }
}

/// A rigid transform, `p -> rot p + trans`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Rigid {
    pub rot: DQuat,
    pub trans: DVec3,
}

impl Rigid {
    pub const IDENTITY: Rigid = Rigid {
        rot: DQuat::IDENTITY,
        trans: DVec3::ZERO,
    };

    pub fn apply(&self, p: DVec3) -> DVec3 {
        self.rot * p + self.trans
    }

    pub fn inverse(&self) -> Rigid {
        let rot = self.rot.inverse();
        Rigid {
            rot,
            trans: -(rot * self.trans),
        }
    }

    /// `self` after `other`.
    pub fn then(&self, other: &Rigid) -> Rigid {
        Rigid {
            rot: self.rot * other.rot,
            trans: self.rot * other.trans + self.trans,
        }
    }

    /// A turn by `rot` about the point `at`.
    pub fn about(at: DVec3, rot: DQuat) -> Rigid {
        Rigid {
            rot,
            trans: at - rot * at,
        }
    }
}

/// A pose: each bone's rotation about its joint, in its parent's posed
/// frame (axes as in the rest pose), and a move of the whole body.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Pose {
    pub rotations: [DQuat; BONE_COUNT],
    pub shift: DVec3,
}

impl Default for Pose {
    fn default() -> Self {
        Pose {
            rotations: [DQuat::IDENTITY; BONE_COUNT],
            shift: DVec3::ZERO,
        }
    }
}

impl Pose {
    /// Each bone's transform from the rest pose to this one (forward
    /// kinematics: a bone turns about its joint, then goes where its
    /// parent takes it).
    pub fn transforms(&self) -> [Rigid; BONE_COUNT] {
        let mut out = [Rigid::IDENTITY; BONE_COUNT];
        for bone in BONES {
            let own = Rigid::about(bone.joint(), self.rotations[bone.index()]);
            out[bone.index()] = match bone.parent() {
                Some(parent) => out[parent.index()].then(&own),
                None => Rigid {
                    rot: DQuat::IDENTITY,
                    trans: self.shift,
                }
                .then(&own),
            };
        }
        out
    }

    /// This pose and `other` mixed, `s` of the way to `other`.
    pub fn lerp(&self, other: &Pose, s: f64) -> Pose {
        let mut rotations = self.rotations;
        for (r, o) in rotations.iter_mut().zip(&other.rotations) {
            *r = r.slerp(*o, s);
        }
        Pose {
            rotations,
            shift: self.shift.lerp(other.shift, s),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_bent_knee_carries_the_ankle_and_a_child_follows_its_parent() {
        let mut pose = Pose::default();
        // Knee flexed 90 degrees: the shin swings back, to -z.
        pose.rotations[Bone::ShinL.index()] = DQuat::from_rotation_x(std::f64::consts::FRAC_PI_2);
        let t = pose.transforms();
        let ankle = t[Bone::ShinL.index()].apply(ANKLE);
        assert!((ankle - DVec3::new(0.1, KNEE.y, -SHIN)).length() < 1e-12, "{ankle}");
        // The foot goes with the shin; the thigh and the other leg stay.
        assert_eq!(t[Bone::FootL.index()], t[Bone::ShinL.index()]);
        assert_eq!(t[Bone::ThighL.index()], Rigid::IDENTITY);
        assert_eq!(t[Bone::ShinR.index()], Rigid::IDENTITY);
        // Moved as a whole, every bone moves; inverse undoes.
        pose.shift = DVec3::new(0.0, -0.4, -0.4);
        let t = pose.transforms();
        let hand = t[Bone::HandR.index()];
        assert!((hand.apply(mirror(WRIST)) - (mirror(WRIST) + pose.shift)).length() < 1e-12);
        let back = t[Bone::ShinL.index()]
            .inverse()
            .apply(t[Bone::ShinL.index()].apply(KNEE));
        assert!((back - KNEE).length() < 1e-12);
    }
}
