//! The mannequin's clips, each "go to the pose, hold it, come back":
//! `a-pose` (standing, arms 45 degrees down: the rest of the others),
//! `lift-leg` (left thigh raised 80 degrees, its shin hanging), `sit`
//! (thighs level and knees flexed 90 degrees, the feet planted, the
//! pelvis lowered onto a seat that is part of the clip) and `bend-arms`
//! (from a T pose, the elbows flexed 120 degrees). Sitting and lifting a
//! leg roll the pelvis back as a person's does, the trunk kept upright. A clip is written as the OBJ sequence a
//! user's own animation would be (`body0001.obj`, ...), so the built-in
//! scenes read their body exactly as a user's.

use super::body::Mannequin;
use super::skeleton::{ANKLE, Bone, HIP, Pose, SHIN, THIGH, mirror};
use crate::error::{Error, Result};
use crate::util::{numbered, write_atomic};
use glam::{DQuat, DVec3};
use std::fmt::Write as _;
use std::path::Path;

#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Clip {
    APose,
    LiftLeg,
    Sit,
    BendArms,
}

/// The gap between the seated body and its seat, m: room for trousers
/// (their contact thickness on both, and a fold).
pub const SEAT_GAP: f64 = 0.015;

/// The seat's footprint, m: x from -0.26 to 0.26 and z from -0.62 to the
/// front face at -0.12, just behind the standing calves. The seated
/// buttocks bear on it from z = -0.33 back.
pub const SEAT_FOOTPRINT: [[f64; 2]; 2] = [[-0.26, -0.62], [0.26, -0.12]];

pub const CLIPS: [Clip; 4] = [Clip::APose, Clip::LiftLeg, Clip::Sit, Clip::BendArms];

/// How long a clip takes to reach its pose, holds it and comes back, s.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Timing {
    pub ramp: f64,
    pub hold: f64,
    pub back: f64,
}

impl Default for Timing {
    fn default() -> Self {
        Timing {
            ramp: 1.0,
            hold: 0.5,
            back: 1.0,
        }
    }
}

/// Degrees to radians.
fn deg(d: f64) -> f64 {
    d.to_radians()
}

/// The backward roll of the pelvis (a posterior tilt, degrees) in the
/// held `sit` and `lift-leg` poses. Sitting upright, a person's pelvis
/// rolls back by 20 to 30 degrees from standing; lifting a knee high
/// rolls it back too, and the clip rolls it as far as sitting: the
/// thigh's angle from the vertical is not all made at the hip joint. A
/// hip joint that made it all would lengthen the skin from the back of
/// the waist to the back of the knee by half again, which no trousers
/// fitted standing can follow: with both tilts at 0, trousers sat down
/// with 2.5 cm edges stretched edges at the front of the knees by 55%,
/// and at 30 degrees by 29% at most.
const SIT_TILT: f64 = 30.0;
const LIFT_TILT: f64 = 30.0;

/// The lifted thigh's angle from the vertical in the held `lift-leg`
/// pose, degrees, its shin hanging (the knee flexed as much): the knee a
/// little under hip height, so that the hip joint flexes 50 degrees.
/// Trousers fitted standing lack the length at the back for more
/// (measured at the scene's pace with 2.5 cm edges, the front of the
/// lifted knee stretched: the thigh level with a 15-degree roll, 40%;
/// level with this roll, 34%; at 80 degrees with the knee flexed 90,
/// 32%; as here, 26.9%; docs/garments.md).
const LIFT_THIGH: f64 = 80.0;

/// The standing hip's extension in the held `lift-leg` pose, degrees: of
/// the pelvis's roll, the standing hip takes this much, and the standing
/// thigh leans forward by the rest (5 degrees), its knee bent (10) so
/// that the foot stays flat where it stood, as a person's does under a
/// lifted knee. The standing hip extended by the whole roll stretched
/// edges on its thigh 38% (with the lifted thigh level); with 15 degrees,
/// the standing knee bent 30 and took as much plastic set as the lifted
/// one, so that lifting a leg left the knees 0.85 of sitting's.
const STANDING_HIP: f64 = 25.0;

/// Rolls the pelvis back by `tilt` (rad) and the chest forward by as
/// much, so that the trunk stays upright. The spine (the lower back, up
/// to the chest's joint 19 cm above the waist) rolls with the pelvis: the
/// waistband, held at the waist, rides on skin that does not stretch, and
/// the trunk straightens above it. With a quarter of the roll undone at
/// the spine's joint, at the waist, the skin under the waistband, where
/// the pelvis's and the spine's parts blend, stretched 26% at the back
/// and 23% at the sides, and the full-resolution trousers' waistband
/// edges, which follow it, 30.5% (2026-12-03; docs/garments.md).
fn tilt_pelvis(p: &mut Pose, tilt: f64) {
    p.rotations[Bone::Pelvis.index()] = DQuat::from_rotation_x(-tilt);
    p.rotations[Bone::Chest.index()] = DQuat::from_rotation_x(tilt);
}

/// Moves the whole body so that the hip joint at `hip` in the rest pose
/// lands at `to`, the pelvis tilted back by `tilt` (rad) about its joint.
fn place_hip(p: &mut Pose, tilt: f64, hip: DVec3, to: DVec3) {
    let j = Bone::Pelvis.joint();
    p.shift = to - j - DQuat::from_rotation_x(-tilt) * (hip - j);
}

/// Rises smoothly from 0 to 1 as `u` goes from 0 to 1.
fn ease(u: f64) -> f64 {
    let u = u.clamp(0.0, 1.0);
    u * u * (3.0 - 2.0 * u)
}

impl Clip {
    pub fn name(self) -> &'static str {
        match self {
            Clip::APose => "a-pose",
            Clip::LiftLeg => "lift-leg",
            Clip::Sit => "sit",
            Clip::BendArms => "bend-arms",
        }
    }

    /// The clip named `name`, or an error listing the clips.
    pub fn named(name: &str) -> std::result::Result<Clip, String> {
        CLIPS.into_iter().find(|c| c.name() == name).ok_or_else(|| {
            let names: Vec<&str> = CLIPS.iter().map(|c| c.name()).collect();
            format!("no clip `{name}` (clips: {})", names.join(", "))
        })
    }

    /// The pose `s` of the way (0 to 1) from the clip's start to its held
    /// pose.
    pub fn pose(self, s: f64) -> Pose {
        let mut p = Pose::default();
        // Arms 45 degrees down, except from the T pose of bend-arms.
        if self != Clip::BendArms {
            p.rotations[Bone::UpperArmL.index()] = DQuat::from_rotation_z(-deg(45.0));
            p.rotations[Bone::UpperArmR.index()] = DQuat::from_rotation_z(deg(45.0));
        }
        match self {
            Clip::APose => {}
            Clip::LiftLeg => {
                // The left thigh raised LIFT_THIGH from the vertical, its
                // shin hanging. The right thigh leans forward by
                // `lean` and its shin back by `back`, so that the right
                // ankle stays over where it stands (the hip lowered onto
                // the bent leg) and the right foot flat.
                let tilt = deg(LIFT_TILT) * s;
                tilt_pelvis(&mut p, tilt);
                p.rotations[Bone::ThighL.index()] = DQuat::from_rotation_x(tilt - deg(LIFT_THIGH) * s);
                p.rotations[Bone::ShinL.index()] = DQuat::from_rotation_x(deg(LIFT_THIGH) * s);
                let lean = tilt - deg(STANDING_HIP) * s;
                let back = (THIGH * lean.sin() / SHIN).asin();
                p.rotations[Bone::ThighR.index()] = DQuat::from_rotation_x(tilt - lean);
                p.rotations[Bone::ShinR.index()] = DQuat::from_rotation_x(lean + back);
                p.rotations[Bone::FootR.index()] = DQuat::from_rotation_x(-back);
                let hip = mirror(ANKLE) + DVec3::Y * (SHIN * back.cos() + THIGH * lean.cos());
                place_hip(&mut p, tilt, mirror(HIP), hip);
            }
            Clip::Sit => {
                // Thighs level and shins upright; the pelvis moves so that
                // the ankles stay where they stand.
                let a = deg(90.0) * s;
                let tilt = deg(SIT_TILT) * s;
                tilt_pelvis(&mut p, tilt);
                for (thigh, shin) in [(Bone::ThighL, Bone::ShinL), (Bone::ThighR, Bone::ShinR)] {
                    p.rotations[thigh.index()] = DQuat::from_rotation_x(tilt - a);
                    p.rotations[shin.index()] = DQuat::from_rotation_x(a);
                }
                let hip = DVec3::new(HIP.x, ANKLE.y + SHIN + THIGH * a.cos(), -THIGH * a.sin());
                place_hip(&mut p, tilt, HIP, hip);
            }
            Clip::BendArms => {
                p.rotations[Bone::ForearmL.index()] = DQuat::from_rotation_y(-deg(120.0) * s);
                p.rotations[Bone::ForearmR.index()] = DQuat::from_rotation_y(deg(120.0) * s);
            }
        }
        p
    }

    /// Seconds from the start to the end of the return (0: a still clip).
    pub fn duration(self, t: &Timing) -> f64 {
        match self {
            Clip::APose => 0.0,
            _ => t.ramp + t.hold + t.back,
        }
    }

    /// The number of frames the clip has at `fps`, its first and last
    /// included; refused (saying why) past [`MAX_FRAMES`], before anything
    /// is written.
    pub fn frames(self, t: &Timing, fps: f64) -> std::result::Result<usize, String> {
        let span = self.duration(t) * fps;
        if !(span.is_finite() && span <= (MAX_FRAMES - 1) as f64) {
            // Huge values as 1e300, not three hundred digits.
            let num = |x: f64| match x < 1e9 {
                true => format!("{x}"),
                false => format!("{x:e}"),
            };
            return Err(format!(
                "the {} clip's {} s at {} fps make {} frames, more than the {MAX_FRAMES} that four-digit \
                 names (body0001.obj ... body9999.obj) allow: lower fps, ramp, hold or back",
                self.name(),
                num(self.duration(t)),
                num(fps),
                num(span.ceil() + 1.0)
            ));
        }
        Ok(span.ceil() as usize + 1)
    }

    /// The pose at time `t` of the clip.
    pub fn pose_at(self, t: f64, timing: &Timing) -> Pose {
        let s = match self {
            Clip::APose => 0.0,
            _ if t < timing.ramp => ease(t / timing.ramp),
            _ if t < timing.ramp + timing.hold => 1.0,
            _ => 1.0 - ease((t - timing.ramp - timing.hold) / timing.back),
        };
        self.pose(s)
    }
}

/// The box (min, max corners) `sit` lowers the pelvis onto: under the
/// seated skin, [`SEAT_GAP`] below its lowest point there, behind the
/// standing legs.
pub fn seat(m: &Mannequin) -> (DVec3, DVec3) {
    let [[x0, z0], [x1, z1]] = SEAT_FOOTPRINT;
    let (lo, hi) = (DVec3::new(x0, 0.0, z0), DVec3::new(x1, 0.0, z1));
    let seated = m.posed(&Clip::Sit.pose(1.0));
    let bottom = seated
        .iter()
        .filter(|p| p.x.abs() < hi.x && p.z > lo.z && p.z < hi.z)
        .map(|p| p.y)
        .fold(f64::INFINITY, f64::min);
    (lo, DVec3::new(hi.x, bottom - SEAT_GAP, hi.z))
}

/// A closed box's corners and outward triangles.
fn box_mesh(lo: DVec3, hi: DVec3) -> (Vec<DVec3>, Vec<[u32; 3]>) {
    let corners = (0..8)
        .map(|k| DVec3::new([lo.x, hi.x][k & 1], [lo.y, hi.y][(k >> 1) & 1], [lo.z, hi.z][k >> 2]))
        .collect();
    let quads = [
        [0, 2, 3, 1], // z = lo
        [4, 5, 7, 6], // z = hi
        [0, 1, 5, 4], // y = lo
        [2, 6, 7, 3], // y = hi
        [0, 4, 6, 2], // x = lo
        [1, 3, 7, 5], // x = hi
    ];
    let faces = quads
        .iter()
        .flat_map(|q| [[q[0], q[1], q[2]], [q[0], q[2], q[3]]])
        .collect();
    (corners, faces)
}

/// Most frames a clip is written as: its frames' names have four digits.
pub const MAX_FRAMES: usize = 9999;

/// The first line of every frame of the mannequin's.
const MARK: &str = "o mannequin\n";

/// Writes `clip` at `fps` into `dir` as `body0001.obj`, `body0002.obj`, ...
/// (positions to the micrometre; with `sit`, the seat as a second object
/// in every frame); returns the number of frames. The frames an earlier
/// clip left in `dir` go first: a sequence read from the folder takes
/// every numbered frame there, and a longer clip's later ones would play
/// after this one's. A `bodyNNNN.obj` there that is not the mannequin's
/// (a user's own export) is refused, and nothing is removed or written.
pub fn write(m: &Mannequin, clip: Clip, timing: &Timing, fps: f64, dir: &Path) -> Result<usize> {
    let frames = clip.frames(timing, fps).map_err(|message| Error::Argument {
        arg: "fps".into(),
        message,
    })?;
    std::fs::create_dir_all(dir).map_err(|e| Error::io(dir, e))?;
    let mut earlier = Vec::new();
    for entry in std::fs::read_dir(dir).map_err(|e| Error::io(dir, e))?.flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        // The files a `body####.obj` sequence reads.
        if numbered::digits(&name, "body", ".obj")
            .and_then(|d| numbered::frame(d, 4))
            .is_some()
        {
            earlier.push(entry.path());
        }
    }
    for path in &earlier {
        let mut head = [0u8; MARK.len()];
        let ours = std::fs::File::open(path).and_then(|mut f| std::io::Read::read_exact(&mut f, &mut head));
        if ours.is_err() || head != *MARK.as_bytes() {
            return Err(Error::File {
                path: path.clone(),
                message: "is not a frame of the mannequin's, and a clip written beside it would play with it: \
                          move it, or choose another folder"
                    .into(),
            });
        }
    }
    for path in &earlier {
        std::fs::remove_file(path).map_err(|e| Error::io(path, e))?;
    }
    let seat = (clip == Clip::Sit).then(|| {
        let (lo, hi) = seat(m);
        box_mesh(lo, hi)
    });
    for k in 0..frames {
        let x = m.posed(&clip.pose_at(k as f64 / fps, timing));
        let mut s = String::with_capacity(64 * x.len());
        s.push_str(MARK);
        for p in &x {
            let _ = writeln!(s, "v {:.6} {:.6} {:.6}", p.x, p.y, p.z);
        }
        for f in &m.faces {
            let _ = writeln!(s, "f {} {} {}", f[0] + 1, f[1] + 1, f[2] + 1);
        }
        if let Some((corners, faces)) = &seat {
            s.push_str("o seat\n");
            for p in corners {
                let _ = writeln!(s, "v {:.6} {:.6} {:.6}", p.x, p.y, p.z);
            }
            let base = x.len() as u32 + 1;
            for f in faces {
                let _ = writeln!(s, "f {} {} {}", f[0] + base, f[1] + base, f[2] + base);
            }
        }
        write_atomic(&dir.join(format!("body{:04}.obj", k + 1)), s.as_bytes())?;
    }
    Ok(frames)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::figure::skeleton::KNEE;

    #[test]
    fn a_clip_has_at_most_as_many_frames_as_four_digits_number() {
        let timing = |hold| Timing {
            ramp: 1.0,
            hold,
            back: 1.0,
        };
        assert_eq!(Clip::Sit.frames(&timing(9996.0), 1.0), Ok(MAX_FRAMES));
        assert_eq!(Clip::Sit.frames(&timing(0.5), 24.0), Ok(61));
        assert_eq!(Clip::APose.frames(&timing(1e300), 1e300), Ok(1));
        for (hold, fps) in [(9996.5, 1.0), (1e300, 24.0), (0.5, f64::INFINITY)] {
            let e = Clip::Sit.frames(&timing(hold), fps).unwrap_err();
            assert!(e.contains("9999") && e.contains("lower fps"), "{e}");
        }
    }

    #[test]
    fn sitting_keeps_the_feet_planted_and_lowers_the_hips_onto_the_seat() {
        for s in [0.0, 0.3, 0.7, 1.0] {
            let t = Clip::Sit.pose(s).transforms();
            let ankle = t[Bone::ShinL.index()].apply(ANKLE);
            let knee = t[Bone::ThighL.index()].apply(KNEE);
            assert!((ankle - ANKLE).length() < 1e-12, "s = {s}: ankle at {ankle}");
            assert!((knee - KNEE).length() < 1e-12, "s = {s}: knee at {knee}");
        }
        let held = Clip::Sit.pose(1.0).transforms();
        let hip = held[Bone::Pelvis.index()].apply(HIP);
        assert!((hip - DVec3::new(HIP.x, KNEE.y, -THIGH)).length() < 1e-12, "{hip}");
        // The pelvis rolled back, the chest upright, the thighs level.
        let tilt = held[Bone::Pelvis.index()].rot.to_axis_angle();
        assert!((tilt.0.x * tilt.1 + SIT_TILT.to_radians()).abs() < 1e-12, "{tilt:?}");
        assert!(held[Bone::Chest.index()].rot.angle_between(DQuat::IDENTITY) < 1e-12);
        let thigh = held[Bone::ThighL.index()].rot * DVec3::NEG_Y;
        assert!((thigh - DVec3::Z).length() < 1e-12, "{thigh}");
        // Timing: up, held, back down.
        let timing = Timing::default();
        assert_eq!(Clip::Sit.pose_at(1.2, &timing), Clip::Sit.pose(1.0));
        assert_eq!(Clip::Sit.pose_at(2.5, &timing), Clip::Sit.pose(0.0));
        assert_eq!(Clip::named("sit"), Ok(Clip::Sit));
        assert!(Clip::named("jump").unwrap_err().contains("lift-leg"));
    }

    #[test]
    fn lifting_a_leg_keeps_the_other_foot_planted_and_flat_and_the_trunk_upright() {
        for s in [0.0, 0.5, 1.0] {
            let t = Clip::LiftLeg.pose(s).transforms();
            let ankle = t[Bone::ShinR.index()].apply(mirror(ANKLE));
            assert!(
                (ankle - mirror(ANKLE)).length() < 1e-12,
                "s = {s}: right ankle at {ankle}"
            );
            assert!(t[Bone::FootR.index()].rot.angle_between(DQuat::IDENTITY) < 1e-12);
            assert!(t[Bone::Chest.index()].rot.angle_between(DQuat::IDENTITY) < 1e-12);
        }
        // Held: the left thigh LIFT_THIGH up and pointing forward, its
        // shin hanging; the right hip extended STANDING_HIP and
        // its thigh leaning forward by the rest of the pelvis's roll.
        let t = Clip::LiftLeg.pose(1.0).transforms();
        let up = |b: Bone| {
            (t[b.index()].rot * DVec3::NEG_Y)
                .angle_between(DVec3::NEG_Y)
                .to_degrees()
        };
        let thigh = t[Bone::ThighL.index()].rot * DVec3::NEG_Y;
        assert!(thigh.z > 0.0 && (up(Bone::ThighL) - LIFT_THIGH).abs() < 1e-9, "{thigh}");
        let shin = t[Bone::ShinL.index()].rot * DVec3::NEG_Y;
        assert!((shin - DVec3::NEG_Y).length() < 1e-12, "{shin}");
        let hip = t[Bone::Pelvis.index()].rot.angle_between(t[Bone::ThighR.index()].rot);
        assert!((hip.to_degrees() - STANDING_HIP).abs() < 1e-9, "{hip}");
        assert!((up(Bone::ThighR) - (LIFT_TILT - STANDING_HIP)).abs() < 1e-9);
    }
}
