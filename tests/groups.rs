//! Vertex groups of an OBJ cloth (its `o`/`g` names, and a groups file of
//! 1-based vertex numbers) select handles by name; unknown names and bad
//! groups files are errors that say what there is.

use crease::scene;
use std::path::{Path, PathBuf};

/// A 3 x 2 strip of quads: the left column is `waist`, the right one
/// `hem`, all of it the object `Skirt`.
const STRIP: &str = "o Skirt\n\
    v 0 0 0\nv 0.1 0 0\nv 0.2 0 0\nv 0.3 0 0\n\
    v 0 0.1 0\nv 0.1 0.1 0\nv 0.2 0.1 0\nv 0.3 0.1 0\n\
    g waist\nf 1 2 6 5\ng\nf 2 3 7 6\ng hem\nf 3 4 8 7\n";

/// A fresh folder holding `files`.
fn folder(tag: &str, files: &[(&str, &str)]) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("crease-groups-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    for (name, text) in files {
        std::fs::write(dir.join(name), text).unwrap();
    }
    dir
}

fn scene_json(handle: serde_json::Value, groups: Option<&str>) -> String {
    let mut obj = serde_json::json!({ "path": "strip.obj" });
    if let Some(g) = groups {
        obj["groups"] = g.into();
    }
    serde_json::json!({
        "dt": 0.001,
        "cloth": { "mesh": { "obj": obj }, "material": "cotton" },
        "handles": { "pin": { "select": handle } },
        "timeline": [ { "name": "hang", "duration": 0.002 } ]
    })
    .to_string()
}

fn parse(dir: &Path, json: &str) -> crease::Result<scene::Scene> {
    scene::parse("test.json", "test", json, dir, &[])
}

#[test]
fn obj_groups_select_handles() {
    let dir = folder("select", &[("strip.obj", STRIP)]);
    let pinned = |group: &str| {
        let s = parse(&dir, &scene_json(serde_json::json!({ "group": group }), None)).unwrap();
        s.handles[0].vertices.clone()
    };
    assert_eq!(pinned("waist"), vec![0, 1, 4, 5]);
    assert_eq!(pinned("hem"), vec![2, 3, 6, 7]);
    assert_eq!(pinned("Skirt"), (0..8).collect::<Vec<u32>>());
    // A run steps with the group held.
    let s = parse(&dir, &scene_json(serde_json::json!({ "group": "waist" }), None)).unwrap();
    let cloth = std::sync::Arc::clone(&s.cloth);
    let mut sim = crease::sim::Simulation::new(s, Box::new(crease::cpu::CpuBackend::new(cloth)));
    while !sim.done() {
        sim.step().unwrap();
    }
    let x = sim.backend().positions().unwrap();
    assert_eq!(x[0], glam::DVec3::ZERO, "the waist is held");
    assert!(x[3].y < 0.0, "the hem falls: {}", x[3]);
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn an_unknown_group_names_the_groups_there_are() {
    let dir = folder("unknown", &[("strip.obj", STRIP)]);
    let e = parse(&dir, &scene_json(serde_json::json!({ "group": "knee" }), None))
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("handles.pin") && e.contains("unknown group `knee`") && e.contains("Skirt, hem, waist"),
        "{e}"
    );
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn a_groups_file_adds_groups_by_the_objs_vertex_numbers() {
    let dir = folder(
        "file",
        &[
            ("strip.obj", STRIP),
            ("groups.json", r#"{ "corners": [1, 4, 5, 8], "seam": [2, 6] }"#),
        ],
    );
    let s = parse(
        &dir,
        &scene_json(serde_json::json!({ "group": "corners" }), Some("groups.json")),
    )
    .unwrap();
    assert_eq!(s.handles[0].vertices, vec![0, 3, 4, 7]);
    for (text, wanted) in [
        (r#"{ "seam": [0, 2] }"#, "numbered 1 to 8"),
        (r#"{ "seam": [2, 9] }"#, "names vertex 9"),
        (r#"{ "hem": [1] }"#, "also a group of the OBJ"),
        (r#"[1, 2]"#, "an object of vertex lists"),
    ] {
        std::fs::write(dir.join("groups.json"), text).unwrap();
        let e = parse(
            &dir,
            &scene_json(serde_json::json!({ "group": "seam" }), Some("groups.json")),
        )
        .unwrap_err()
        .to_string();
        assert!(
            e.contains("cloth.mesh.obj.groups") && e.contains("groups.json") && e.contains(wanted),
            "{text}: {e}"
        );
    }
    let e = parse(
        &dir,
        &scene_json(serde_json::json!({ "group": "seam" }), Some("missing.json")),
    )
    .unwrap_err()
    .to_string();
    assert!(e.contains("missing.json") && e.contains("cannot read"), "{e}");
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn check_lists_each_group_with_its_vertex_count() {
    let dir = folder("check", &[("strip.obj", STRIP)]);
    std::fs::write(
        dir.join("scene.json"),
        scene_json(serde_json::json!({ "group": "waist" }), None),
    )
    .unwrap();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_crease"))
        .arg("check")
        .arg(dir.join("scene.json"))
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{text}{}", String::from_utf8_lossy(&out.stderr));
    assert!(
        text.contains("groups: Skirt (8 vertices), hem (4 vertices), waist (4 vertices)"),
        "{text}"
    );
    std::fs::remove_dir_all(&dir).ok();
}
