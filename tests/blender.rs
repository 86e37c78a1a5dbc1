//! Blender itself (the bpy package) on both sides of crease (issue 19):
//! a leg skinned and bent in Blender, exported as USD and as an OBJ
//! sequence, reads as the same deforming body either way; and Blender
//! imports the `cloth.usda` crease writes, with the cloth's vertices where
//! the OBJ frames have them. Without bpy these are skipped with a printed
//! reason, unless CREASE_REQUIRE_BLENDER=1 (as .ci/run sets), where they
//! fail.

mod common;

use common::tools::folder;
use crease::collide::Surface;
use crease::collide::sequence::Sequence;
use std::path::Path;
use std::process::Command;
use std::sync::Arc;

fn have_blender() -> bool {
    common::tools::have_python("bpy", "bpy", "CREASE_REQUIRE_BLENDER")
}

/// Runs a script of tests/python with Blender; its stdout.
fn blender(script: &str, args: &[&str]) -> String {
    let o = Command::new("python3")
        .arg(Path::new("tests/python").join(script))
        .args(args)
        .output()
        .unwrap();
    let out = String::from_utf8_lossy(&o.stdout).into_owned();
    assert!(
        o.status.success(),
        "{script}: {}\n{out}",
        String::from_utf8_lossy(&o.stderr)
    );
    out
}

fn body(dir: &Path, shape: serde_json::Value) -> Arc<Sequence> {
    let json = serde_json::json!({
        "dt": 0.001,
        "cloth": { "mesh": { "grid": { "size": [0.1, 0.1], "resolution": [2, 2], "origin": [1, 1, 1] } },
                   "material": "cotton" },
        "obstacles": { "leg": { "shape": shape } },
        "timeline": [ { "name": "run", "duration": 0.01 } ]
    });
    let scene = crease::scene::parse("leg.json", "leg", &json.to_string(), dir, &[]).unwrap_or_else(|e| panic!("{e}"));
    match &scene.obstacles[0].surface {
        Surface::Sequence(s) => Arc::clone(s),
        other => panic!("not a deforming body: {other:?}"),
    }
}

#[test]
fn a_leg_skinned_in_blender_reads_the_same_from_its_usd_and_its_obj_frames() {
    if !have_blender() {
        return;
    }
    let dir = folder("blender-leg");
    blender("blender_leg.py", &[dir.to_str().unwrap()]);
    let usd = body(&dir, serde_json::json!({ "usd": { "path": "leg.usdc" } }));
    let obj = body(
        &dir,
        serde_json::json!({ "sequence": { "path": "leg####.obj", "fps": 24 } }),
    );
    assert_eq!((usd.frames.len(), usd.fps), (13, 24.0));
    assert_eq!(obj.frames.len(), 13);
    // The same triangles (Blender fans its quads as crease does), and the
    // same points at every frame to the OBJ's 6 decimals.
    assert_eq!(usd.faces, obj.faces);
    let mut worst = 0.0f64;
    for (a, b) in usd.frames.iter().zip(&obj.frames) {
        for (p, q) in a.iter().zip(b) {
            worst = worst.max((*p - *q).length());
        }
    }
    // The knee bent: the foot end of the tube swung far from where it was.
    let foot = |x: &[glam::DVec3]| x[..16].iter().sum::<glam::DVec3>() / 16.0;
    let swing = (foot(&usd.frames[12]) - foot(&usd.frames[0])).length();
    println!("Blender leg: USD against OBJ frames {worst:.2e} m; the foot end moved {swing:.3} m");
    assert!(worst < 2e-6, "USD and OBJ frames differ by {worst} m");
    assert!(swing > 0.3, "the knee did not bend: the foot end moved {swing} m");
    // Y up, as the cloth expects: the leg stands along +y.
    let (lo, hi) = crease::mesh::bounds(&usd.frames[0]);
    assert!(hi.y - lo.y > 0.8 && (hi.z - lo.z) < 0.2, "{lo} {hi}");
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn blender_imports_the_usd_crease_writes() {
    if !have_blender() {
        return;
    }
    let dir = folder("blender-import");
    let out = dir.join("run");
    let o = Command::new(env!("CARGO_BIN_EXE_crease"))
        .args([
            "run",
            "scenes/knee.json",
            "--backend",
            "cpu",
            "--quiet",
            "--until",
            "0.1",
            "--out",
        ])
        .arg(&out)
        .args(["--set", r#"output.formats=["obj", "usd"]"#])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let text = blender("blender_import.py", &[out.join("cloth.usda").to_str().unwrap(), "3"]);
    let line = text.lines().find_map(|l| l.strip_prefix("JSON")).expect("no JSON line");
    let r: serde_json::Value = serde_json::from_str(line).unwrap();
    println!("Blender read: {r}");
    assert_eq!((r["frame_start"].as_i64(), r["frame_end"].as_i64()), (Some(0), Some(4)));
    let cloth = &r["objects"]["cloth"];
    assert_eq!((cloth["vertices"].as_u64(), cloth["uv"].as_u64()), (Some(816), Some(1)));
    assert_eq!(r["objects"]["leg"]["vertices"], 560);
    // Frame 3's first and last vertices where the OBJ frame has them,
    // turned to Blender's Z up: (x, y, z) -> (x, -z, y).
    let frame = std::fs::read_to_string(out.join("frames/00003.obj")).unwrap();
    let v: Vec<[f64; 3]> = frame
        .lines()
        .filter_map(|l| l.strip_prefix("v "))
        .map(|l| {
            let c: Vec<f64> = l.split_whitespace().map(|w| w.parse().unwrap()).collect();
            [c[0], -c[2], c[1]]
        })
        .collect();
    for (key, want) in [("first", v[0]), ("last", v[v.len() - 1])] {
        let got: Vec<f64> = cloth[key]
            .as_array()
            .unwrap()
            .iter()
            .map(|x| x.as_f64().unwrap())
            .collect();
        let d = (0..3).map(|k| (got[k] - want[k]).abs()).fold(0.0, f64::max);
        assert!(d < 1e-6, "{key} vertex: Blender {got:?}, OBJ {want:?}");
    }
    std::fs::remove_dir_all(&dir).ok();
}
