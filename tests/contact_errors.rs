//! Bad obstacles, self-collision, sticking, air and strain-limit settings
//! fail with messages that name the field (the rest of a scene's:
//! tests/scene_errors.rs).

mod common;

use common::scenes::{base, error_of, error_with_file};
use crease::scene;
use std::path::Path;

#[test]
fn bad_obstacles_are_named() {
    let with = |obstacle: serde_json::Value| {
        let mut v = base();
        v["obstacles"] = serde_json::json!({ "ball": obstacle });
        v
    };
    let e = error_of(
        &with(serde_json::json!({ "shape": { "sphere": { "center": [0, 0, 0], "radius": -1 } } })),
        &[],
    );
    assert!(
        e.contains("obstacles.ball.shape.sphere.radius") && e.contains("positive"),
        "{e}"
    );
    let e = error_of(&with(serde_json::json!({ "shape": { "cone": {} } })), &[]);
    assert!(
        e.contains("obstacles.ball.shape") && e.contains("unknown variant `cone`"),
        "{e}"
    );
    let e = error_of(
        &with(serde_json::json!({ "shape": { "sphere": { "center": [0, 0, 0], "radius": 1 } }, "friction": f64::NAN })),
        &[],
    );
    assert!(e.contains("obstacles.ball"), "{e}");
    let e = error_of(
        &with(serde_json::json!({ "shape": { "sphere": { "center": [0, 0, 0], "radius": 1 } }, "cell": 1e-5 })),
        &[],
    );
    assert!(e.contains("obstacles.ball.cell") && e.contains("budget"), "{e}");
    let mut v = with(serde_json::json!({ "shape": { "sphere": { "center": [0, 0, 0], "radius": 1 } } }));
    v["timeline"][0]["obstacles"] = serde_json::json!({ "lid": "remove" });
    let e = error_of(&v, &[]);
    assert!(
        e.contains("timeline[0] (settle).obstacles.lid") && e.contains("(obstacles: ball)"),
        "{e}"
    );
    v["timeline"][0]["obstacles"] = serde_json::json!({ "ball": "vanish" });
    let e = error_of(&v, &[]);
    assert!(e.contains("unknown obstacle action"), "{e}");
}

#[test]
fn an_open_obstacle_mesh_is_refused_with_its_edge() {
    let mut v = base();
    v["obstacles"] = serde_json::json!({ "rock": { "shape": { "mesh": { "path": "open.obj" } } } });
    // A tetrahedron missing one face.
    let open = "v 0 0 0\nv 1 0 0\nv 0 1 0\nv 0 0 1\nf 1 3 2\nf 1 2 4\nf 2 3 4\n";
    let e = error_with_file(&v, "open.obj", open);
    assert!(
        e.contains("obstacles.rock.shape.mesh.path") && e.contains("open.obj") && e.contains("closed"),
        "{e}"
    );
}

#[test]
fn bad_self_collision_settings() {
    for (set, field) in [
        ("self_collision.thickness=-0.001", "self_collision.thickness"),
        ("self_collision.stiffness=0", "self_collision.stiffness"),
        ("self_collision.friction=-1", "self_collision.friction"),
    ] {
        let e = error_of(&base(), &[set]);
        assert!(e.contains("test.json") && e.contains(field), "{set}: {e}");
    }
    let e = error_of(&base(), &["self_collision.radius=1"]);
    assert!(e.contains("self_collision") && e.contains("radius"), "{e}");
    // The 10 cm sheet is 0.141 m across: at a thickness of 0.1 m every
    // pair of its points lies within REST_GAP (1.5) thicknesses at rest,
    // so none could pair; with self-collision off the value is not used.
    let e = error_of(&base(), &["self_collision.thickness=0.1"]);
    assert!(
        e.contains("test.json: self_collision.thickness: is 0.1 m") && e.contains("1.414e-1 m across"),
        "{e}"
    );
    let off = ["self_collision.thickness=0.1", "self_collision.enabled=false"];
    let sets: Vec<String> = off.iter().map(|s| s.to_string()).collect();
    assert!(scene::parse("test.json", "test", &base().to_string(), Path::new("."), &sets).is_ok());
    let fine: Vec<String> = vec!["self_collision.thickness=0.09".into()];
    assert!(scene::parse("test.json", "test", &base().to_string(), Path::new("."), &fine).is_ok());
}

#[test]
fn bad_sticking() {
    let mut v = base();
    v["obstacles"] = serde_json::json!({
        "hand": { "shape": { "sphere": { "center": [0, 0, 0], "radius": 0.01 } } }
    });
    let e = error_of(&v, &["sticking={}"]);
    assert!(
        e.contains("test.json") && e.contains("sticking") && e.contains("nothing is sticky"),
        "{e}"
    );
    for (set, field) in [
        ("sticking={\"stiffness\": -1}", "sticking.stiffness"),
        ("sticking={\"release\": 0}", "sticking.release"),
        ("sticking={\"cloth\": {\"side\": \"middle\"}}", "sticking"),
        (
            "obstacles.hand.sticky={\"box\": {\"min\": [0, 0, 0], \"max\": [0, 1, 1]}}",
            "obstacles.hand.sticky.box",
        ),
        ("timeline.settle.sticking=\"yes\"", "sticking"),
        (
            "sticking={\"sticky_cloth\": {\"indices\": [0, 1]}}",
            "sticking.sticky_cloth",
        ),
    ] {
        let e = error_of(&v, &["obstacles.hand.sticky=true", set]);
        assert!(e.contains("test.json") && e.contains(field), "{set}: {e}");
    }
}

#[test]
fn bad_air() {
    for (set, field) in [
        ("air={\"drag\": -1}", "air.drag"),
        ("air={\"normal_drag\": -0.5}", "air.normal_drag"),
        ("air={\"wind\": [0, 1]}", "air"),
        ("air={\"gust\": 1}", "gust"),
    ] {
        let e = error_of(&base(), &[set]);
        assert!(e.contains("test.json") && e.contains(field), "{set}: {e}");
    }
}

#[test]
fn bad_strain_limits() {
    for (set, field) in [
        ("strain_limit={\"extension\": 0}", "strain_limit.extension"),
        ("strain_limit={\"extension\": NaN}", "strain_limit"),
        ("strain_limit={\"compression\": 1}", "strain_limit.compression"),
        ("strain_limit={\"compression\": -0.1}", "strain_limit.compression"),
        ("strain_limit={\"iterations\": 0}", "strain_limit.iterations"),
        ("strain_limit={\"stretch\": 0.1}", "stretch"),
    ] {
        let e = error_of(&base(), &[set]);
        assert!(e.contains("test.json") && e.contains(field), "{set}: {e}");
    }
}
