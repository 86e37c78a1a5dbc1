//! The built-in mannequin and its clips (issue 20, part 1): the skin never
//! crosses itself at any frame of any clip, the seated body rests above
//! its seat, and `crease body` writes the OBJ sequence a user's animation
//! would be, which a scene reads as a body.

mod common;

use common::tools::{crease, crease_error, folder};
use crease::collide::intersect::intersecting_pairs;
use crease::figure::body::Mannequin;
use crease::figure::clips::{self, CLIPS, Clip, Timing};

#[test]
fn the_skin_crosses_itself_at_no_frame_of_any_clip() {
    let m = Mannequin::new().unwrap();
    let timing = Timing::default();
    for clip in CLIPS {
        let frames = clip.frames(&timing, 24.0).unwrap();
        let worst = (0..frames)
            .map(|k| intersecting_pairs(&m.faces, &m.posed(&clip.pose_at(k as f64 / 24.0, &timing))))
            .max()
            .unwrap();
        println!(
            "{}: {frames} frames, at most {worst} crossing triangle pairs",
            clip.name()
        );
        assert_eq!(worst, 0, "{} crosses itself", clip.name());
    }
}

#[test]
fn the_seated_mannequin_rests_just_above_its_seat() {
    let m = Mannequin::new().unwrap();
    let (lo, hi) = clips::seat(&m);
    let seated = m.posed(&Clip::Sit.pose(1.0));
    let over = |p: &glam::DVec3| p.x.abs() < hi.x && p.z > lo.z && p.z < hi.z;
    let lowest = seated
        .iter()
        .filter(|p| over(p))
        .map(|p| p.y)
        .fold(f64::INFINITY, f64::min);
    println!(
        "seat top {:.4} m, the seated skin's lowest point over it {lowest:.4} m",
        hi.y
    );
    assert!((lowest - hi.y - clips::SEAT_GAP).abs() < 1e-9);
    // Standing, nothing of the body is inside the seat's box.
    let standing = m.posed(&Clip::Sit.pose(0.0));
    let inside = standing.iter().filter(|p| over(p) && p.y < hi.y).count();
    assert_eq!(inside, 0, "{inside} skin vertices inside the seat while standing");
}

#[test]
fn crease_body_writes_a_clip_that_a_scene_reads_as_a_body() {
    let dir = folder("figure-body");
    let out = dir.join("lift");
    let o = crease(&[
        "body",
        "lift-leg",
        "--out",
        out.to_str().unwrap(),
        "--fps",
        "12",
        "--hold",
        "0.25",
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    // 1 + 0.25 + 1 s at 12 fps: frames at 0, 1/12, ..., 27/12 s.
    assert!(out.join("body0028.obj").exists() && !out.join("body0029.obj").exists());
    let scene = serde_json::json!({
        "dt": 0.01,
        "cloth": { "mesh": { "grid": { "size": [0.1, 0.1], "resolution": [2, 2], "origin": [0, 2, 0] } },
                   "material": "cotton" },
        "obstacles": { "body": { "shape": { "sequence": { "path": "lift/body####.obj", "fps": 12 } } } },
        "timeline": [ { "name": "run", "duration": 0.01 } ]
    });
    std::fs::write(dir.join("scene.json"), scene.to_string()).unwrap();
    let o = crease(&["check", dir.join("scene.json").to_str().unwrap()]);
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(o.status.success() && text.contains("28 frames at 12 fps"), "{text}");
    let e = crease_error(&["body", "jump", "--out", out.to_str().unwrap()]);
    assert!(e.contains("`jump`") && e.contains("lift-leg"), "{e}");
    let e = crease_error(&["body", "sit", "--out", out.to_str().unwrap(), "--fps", "0"]);
    assert!(e.contains("--fps"), "{e}");
    // A clip of more frames than four digits number is refused before
    // anything is written (at 1e9 fps it would fill the disk).
    let e = crease_error(&["body", "sit", "--out", out.to_str().unwrap(), "--fps", "1e9"]);
    assert!(e.contains("--fps") && e.contains("9999"), "{e}");
    assert!(out.join("body0028.obj").exists());
    // A shorter clip into the same folder leaves none of the longer one's
    // frames, which a sequence would play after it: 2.25 s at 6 fps.
    let o = crease(&[
        "body",
        "sit",
        "--out",
        out.to_str().unwrap(),
        "--fps",
        "6",
        "--hold",
        "0.25",
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(out.join("body0015.obj").exists() && !out.join("body0016.obj").exists());
    // A frame of the user's own there is neither replaced nor removed.
    let own = "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n";
    std::fs::write(out.join("body0020.obj"), own).unwrap();
    let e = crease_error(&["body", "sit", "--out", out.to_str().unwrap()]);
    assert!(
        e.contains("body0020.obj") && e.contains("not a frame of the mannequin"),
        "{e}"
    );
    assert_eq!(std::fs::read_to_string(out.join("body0020.obj")).unwrap(), own);
    assert!(out.join("body0015.obj").exists() && !out.join("body0016.obj").exists());
    // A scene's mannequin too, before its clip is written into the cache.
    let e = crease_error(&[
        "check",
        "trousers-sit",
        "--set",
        "obstacles.body.shape.mannequin.hold=1e6",
    ]);
    assert!(e.contains("mannequin.fps") && e.contains("9999"), "{e}");
    std::fs::remove_dir_all(&dir).ok();
}
