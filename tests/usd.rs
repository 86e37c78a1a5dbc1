//! USD output (issue 19, part 5): `output.formats` with "usd" writes
//! `cloth.usda`, opened here by Pixar's own USD library (usd-core, through
//! tests/python/usd_check.py): the OBJ's quads and texture coordinates
//! kept, the points of every frame equal to the OBJ frames, the time codes
//! and units, a rigid obstacle's motion and removal, a deforming body's
//! samples. Without usd-core the check is skipped with a printed reason,
//! unless CREASE_REQUIRE_USD=1 (as .ci/run sets), where it fails. A
//! resumed run writes the same bytes as an uninterrupted one.

mod common;

use common::bodies::{finger, obj};
use common::tools::{crease, folder};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;

fn have_usd() -> bool {
    common::tools::have_python("pxr", "usd-core", "CREASE_REQUIRE_USD")
}

/// A 16 cm sheet of 8 x 8 quads with texture coordinates in 0..1 (an
/// artist's OBJ), its faces written as quads.
fn sheet_obj() -> String {
    let n = 8;
    let mut s = String::from("o Sheet\n");
    for j in 0..=n {
        for i in 0..=n {
            let (u, v) = (i as f64 / n as f64, j as f64 / n as f64);
            writeln!(s, "v {} 0.06 {}", -0.08 + 0.16 * u, 0.08 - 0.16 * v).unwrap();
            writeln!(s, "vt {u} {v}").unwrap();
        }
    }
    let at = |i: usize, j: usize| j * (n + 1) + i + 1;
    for j in 0..n {
        for i in 0..n {
            let c = [at(i, j), at(i + 1, j), at(i + 1, j + 1), at(i, j + 1)];
            writeln!(s, "f {0}/{0} {1}/{1} {2}/{2} {3}/{3}", c[0], c[1], c[2], c[3]).unwrap();
        }
    }
    s
}

/// A scene in `dir`: the sheet falls on a ball that moves 2 cm along x,
/// then is removed, beside a rising finger (an OBJ sequence), at 80 output
/// frames per second.
fn write_scene(dir: &Path) -> PathBuf {
    std::fs::write(dir.join("sheet.obj"), sheet_obj()).unwrap();
    for k in 0..9 {
        let (x, faces) = finger(-0.02 + 0.01 * k as f64);
        std::fs::write(dir.join(format!("finger{:04}.obj", k + 1)), obj(&x, &faces)).unwrap();
    }
    let scene = serde_json::json!({
        "dt": 0.00125,
        "cloth": { "mesh": { "obj": { "path": "sheet.obj", "uv_scale": 0.16 } }, "material": "cotton" },
        "obstacles": {
            "ball": { "shape": { "sphere": { "center": [0, 0, 0], "radius": 0.05 } } },
            "finger": { "shape": { "sequence": { "path": "finger####.obj", "fps": 100,
                                                 "translate": [0.12, 0, 0] } } }
        },
        "timeline": [
            { "name": "roll", "duration": 0.05, "obstacles": { "ball": { "translate": [0.02, 0, 0] } } },
            { "name": "gone", "duration": 0.05, "obstacles": { "ball": "remove" } }
        ],
        "output": { "fps": 80, "formats": ["obj", "usd"] }
    });
    let path = dir.join("scene.json");
    std::fs::write(&path, scene.to_string()).unwrap();
    path
}

fn run(scene: &Path, out: &Path, extra: &[&str]) {
    let mut args = vec!["run", scene.to_str().unwrap(), "--backend", "cpu", "--quiet", "--out"];
    args.push(out.to_str().unwrap());
    args.extend_from_slice(extra);
    let o = crease(&args);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
}

#[test]
fn pixar_s_usd_opens_the_cloth_and_its_obstacles_as_the_obj_frames_have_them() {
    if !have_usd() {
        return;
    }
    let dir = folder("usd-open");
    let scene = write_scene(&dir);
    let out = dir.join("out");
    run(&scene, &out, &[]);
    // The timeline ended: the frames file went.
    assert!(out.join("cloth.usda").exists() && !out.join("cloth.usda.frames").exists());
    let o = Command::new("python3")
        .arg("tests/python/usd_check.py")
        .arg(&out)
        .arg(dir.join("sheet.obj"))
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let text = String::from_utf8_lossy(&o.stdout);
    let r: serde_json::Value = serde_json::from_str(&text).unwrap_or_else(|e| panic!("{e}: {text}"));
    println!("usd-core read: {r}");
    assert_eq!((r["start"].as_f64(), r["end"].as_f64()), (Some(0.0), Some(8.0)));
    assert_eq!(r["fps"], 80.0);
    assert_eq!(
        (r["up"].as_str(), r["meters_per_unit"].as_f64()),
        (Some("Y"), Some(1.0))
    );
    let codes: Vec<f64> = (0..9).map(f64::from).collect();
    assert_eq!(r["codes"], serde_json::json!(codes));
    assert_eq!(r["points"], 81);
    assert!(
        r["counts_match"] == true && r["indices_match"] == true,
        "the quads were not kept"
    );
    assert!(r["st_match"] == true && r["st_interpolation"] == "faceVarying");
    let worst = r["worst"].as_f64().unwrap();
    assert!(worst <= 1e-6, "USD points differ from the OBJ frames by {worst}");
    // The ball rolled 2 cm in the first phase (4 frames), then was removed
    // (hidden from frame 5: frame 4 is the end of the phase it was in).
    let ball = &r["obstacles"]["ball"];
    assert_eq!(ball["hidden"], serde_json::json!([5.0, 6.0, 7.0, 8.0]));
    let moved = ball["translation"][4][0].as_f64().unwrap();
    assert!((moved - 0.02).abs() < 1e-12, "{moved}");
    assert_eq!(ball["point_samples"], 0);
    let finger = &r["obstacles"]["finger"];
    assert_eq!(finger["point_samples"], 9);
    assert_eq!(finger["hidden"], serde_json::json!([]));
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn a_resumed_run_writes_the_same_usd_bytes() {
    let dir = folder("usd-resume");
    let scene = write_scene(&dir);
    let (whole, parts) = (dir.join("whole"), dir.join("parts"));
    run(&scene, &whole, &[]);
    run(&scene, &parts, &["--until", "0.05", "--checkpoint-every", "0.025"]);
    // Stopped early with a checkpoint: the frames stay for the resume,
    // beside a layer of the frames so far; without one they go.
    assert!(parts.join("cloth.usda.frames").exists());
    let early = std::fs::read_to_string(parts.join("cloth.usda")).unwrap();
    assert!(early.contains("endTimeCode = 4\n"), "{}", &early[..300]);
    let cut = dir.join("cut");
    run(&scene, &cut, &["--until", "0.05"]);
    assert!(cut.join("cloth.usda").exists() && !cut.join("cloth.usda.frames").exists());
    let o = crease(&["resume", parts.to_str().unwrap(), "--quiet"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let (a, b) = (
        std::fs::read(whole.join("cloth.usda")).unwrap(),
        std::fs::read(parts.join("cloth.usda")).unwrap(),
    );
    assert!(
        a == b,
        "the resumed run's cloth.usda differs from the uninterrupted one's"
    );
    assert!(!parts.join("cloth.usda.frames").exists());
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn an_unwritable_layer_or_an_fps_that_is_no_whole_number_of_steps_is_an_error() {
    let dir = folder("usd-bad");
    let scene = write_scene(&dir);
    let out = dir.join("out");
    std::fs::create_dir_all(out.join("cloth.usda")).unwrap();
    let o = crease(
        &["run", scene.to_str().unwrap(), "--backend", "cpu", "--quiet", "--out"]
            .into_iter()
            .chain([out.to_str().unwrap()])
            .collect::<Vec<_>>(),
    );
    let e = String::from_utf8_lossy(&o.stderr);
    assert!(!o.status.success() && e.contains("cloth.usda"), "{e}");
    assert!(!out.join("frames").exists() || std::fs::read_dir(out.join("frames")).unwrap().count() == 0);
    let o = crease(&["check", scene.to_str().unwrap(), "--set", "output.fps=24"]);
    let e = String::from_utf8_lossy(&o.stderr);
    assert!(
        !o.status.success() && e.contains("output.fps") && e.contains("whole number of steps") && e.contains("dt = "),
        "{e}"
    );
    std::fs::remove_dir_all(&dir).ok();
}

/// A leg as Blender exports it to USD, by hand: Z up, in centimetres, a
/// `Rig` transform that rises over the animation (time codes 1 to 3 at 24
/// per second) over a `Leg` mesh of quads whose points move themselves,
/// and a second, static mesh beside it.
const LEG_USDA: &str = r#"#usda 1.0
(
    endTimeCode = 3
    metersPerUnit = 0.01
    startTimeCode = 1
    timeCodesPerSecond = 24
    upAxis = "Z"
)

def Xform "Rig"
{
    double3 xformOp:translate.timeSamples = {
        1: (0, 0, 0),
        3: (0, 0, 10),
    }
    uniform token[] xformOpOrder = ["xformOp:translate"]

    def Mesh "Leg"
    {
        int[] faceVertexCounts = [4, 4]
        int[] faceVertexIndices = [0, 1, 2, 3, 1, 4, 5, 2]
        point3f[] points.timeSamples = {
            1: [(0, 0, 0), (10, 0, 0), (10, 0, 10), (0, 0, 10), (20, 0, 0), (20, 0, 10)],
            2: [(0, 0, 0), (10, 0, 0), (10, 5, 10), (0, 5, 10), (20, 0, 0), (20, 5, 10)],
            3: [(0, 0, 0), (10, 0, 0), (10, 10, 10), (0, 10, 10), (20, 0, 0), (20, 10, 10)],
        }
    }
}

def Mesh "Floor"
{
    int[] faceVertexCounts = [3]
    int[] faceVertexIndices = [0, 1, 2]
    point3f[] points = [(0, 0, 0), (100, 0, 0), (0, 100, 0)]
}
"#;

/// Where the hand-written leg's point `p` (cm, Z up) is at time code
/// `code`, in metres with Y up.
fn leg_point(p: [f64; 3], code: f64) -> glam::DVec3 {
    let rise = 5.0 * (code - 1.0);
    let (x, y, z) = (p[0], p[1], p[2] + rise);
    glam::DVec3::new(x, z, -y) * 0.01
}

fn usd_scene(dir: &Path, body: serde_json::Value) -> crease::Result<crease::scene::Scene> {
    let json = serde_json::json!({
        "dt": 0.001,
        "cloth": { "mesh": { "grid": { "size": [0.1, 0.1], "resolution": [2, 2], "origin": [0, 1, 0] } },
                   "material": "cotton" },
        "obstacles": { "leg": { "shape": { "usd": body } } },
        "timeline": [ { "name": "run", "duration": 0.01 } ]
    });
    crease::scene::parse("usd.json", "usd", &json.to_string(), dir, &[])
}

fn body_frames(scene: &crease::scene::Scene) -> (Vec<Vec<glam::DVec3>>, Vec<[u32; 3]>, f64) {
    match &scene.obstacles[0].surface {
        crease::collide::Surface::Sequence(s) => (s.frames.clone(), s.faces.clone(), s.fps),
        other => panic!("not a deforming body: {other:?}"),
    }
}

#[test]
fn a_usd_body_is_read_at_every_time_code_in_metres_with_y_up() {
    let dir = folder("usd-body");
    std::fs::write(dir.join("leg.usda"), LEG_USDA).unwrap();
    let scene = usd_scene(&dir, serde_json::json!({ "path": "leg.usda", "prim": "/Rig/Leg" }))
        .unwrap_or_else(|e| panic!("{e}"));
    let (frames, faces, fps) = body_frames(&scene);
    assert_eq!((frames.len(), fps), (3, 24.0));
    // Two quads fanned into four counter-clockwise triangles.
    assert_eq!(faces, vec![[0, 1, 2], [0, 2, 3], [1, 4, 5], [1, 5, 2]]);
    let authored = [
        [
            [0.0, 0.0, 0.0],
            [10.0, 0.0, 0.0],
            [10.0, 0.0, 10.0],
            [0.0, 0.0, 10.0],
            [20.0, 0.0, 0.0],
            [20.0, 0.0, 10.0],
        ],
        [
            [0.0, 0.0, 0.0],
            [10.0, 0.0, 0.0],
            [10.0, 5.0, 10.0],
            [0.0, 5.0, 10.0],
            [20.0, 0.0, 0.0],
            [20.0, 5.0, 10.0],
        ],
        [
            [0.0, 0.0, 0.0],
            [10.0, 0.0, 0.0],
            [10.0, 10.0, 10.0],
            [0.0, 10.0, 10.0],
            [20.0, 0.0, 0.0],
            [20.0, 10.0, 10.0],
        ],
    ];
    for (k, frame) in frames.iter().enumerate() {
        for (p, want) in frame.iter().zip(authored[k]) {
            let want = leg_point(want, 1.0 + k as f64);
            assert!((*p - want).length() < 1e-7, "time code {}: {p} against {want}", k + 1);
        }
    }
    // Without `prim`, two meshes are one too many; a wrong prim lists them.
    let e = usd_scene(&dir, serde_json::json!({ "path": "leg.usda" }))
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("shape.usd.prim") && e.contains("/Rig/Leg") && e.contains("/Floor"),
        "{e}"
    );
    let e = usd_scene(&dir, serde_json::json!({ "path": "leg.usda", "prim": "/Rig/Arm" }))
        .unwrap_err()
        .to_string();
    assert!(e.contains("/Rig/Arm") && e.contains("/Rig/Leg"), "{e}");
    let e = usd_scene(&dir, serde_json::json!({ "path": "nope.usdc" }))
        .unwrap_err()
        .to_string();
    assert!(e.contains("shape.usd.path") && e.contains("nope.usdc"), "{e}");
    // A mesh bound to a UsdSkel skeleton would stand still: an error.
    let skinned = LEG_USDA.replace(
        "def Mesh \"Leg\"",
        "def Mesh \"Leg\" (\n        prepend apiSchemas = [\"SkelBindingAPI\"]\n    )",
    );
    std::fs::write(dir.join("skinned.usda"), skinned).unwrap();
    let e = usd_scene(&dir, serde_json::json!({ "path": "skinned.usda", "prim": "/Rig/Leg" }))
        .unwrap_err()
        .to_string();
    assert!(e.contains("UsdSkel") && e.contains("Armatures off"), "{e}");
    std::fs::write(
        dir.join("bad.usda"),
        "#usda 1.0\ndef Mesh \"M\" {\n  int[] faceVertexCounts = [3\n}\n",
    )
    .unwrap();
    let e = usd_scene(&dir, serde_json::json!({ "path": "bad.usda" }))
        .unwrap_err()
        .to_string();
    assert!(e.contains("bad.usda") && e.contains("USD"), "{e}");
    // The same stage written by Pixar's USD library as binary usdc reads
    // the same.
    if have_usd() {
        let script = "import sys\nfrom pxr import Usd\nUsd.Stage.Open(sys.argv[1]).Export(sys.argv[2])\n";
        let o = Command::new("python3")
            .args(["-c", script])
            .arg(dir.join("leg.usda"))
            .arg(dir.join("leg.usdc"))
            .output()
            .unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        let binary = usd_scene(&dir, serde_json::json!({ "path": "leg.usdc", "prim": "/Rig/Leg" })).unwrap();
        let (again, faces_again, _) = body_frames(&binary);
        assert!(again == frames && faces_again == faces, "usdc differs from usda");
    }
    std::fs::remove_dir_all(&dir).ok();
}
