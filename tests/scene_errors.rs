//! Bad scenes fail with messages that name the problem (those of
//! obstacles, self-collision and the constraints: tests/contact_errors.rs).

mod common;

use common::scenes::{base, error_of, error_with_file, parse_with_file};
use crease::scene;
use std::path::Path;

#[test]
fn the_base_scene_is_valid() {
    let s = scene::parse("test.json", "test", &base().to_string(), Path::new("."), &[]).unwrap();
    assert_eq!(s.cloth.vertex_count(), 9);
    assert_eq!(s.handles[0].vertices.len(), 3);
}

#[test]
fn unknown_field_is_named_with_its_path() {
    let mut v = base();
    v["cloth"]["colour"] = "red".into();
    let e = error_of(&v, &[]);
    assert!(
        e.contains("test.json") && e.contains("cloth") && e.contains("unknown field `colour`"),
        "{e}"
    );
    let e = error_of(&base(), &["timeline.settle.handles.top=spin"]);
    assert!(
        e.contains("timeline[0].handles.top") && e.contains("unknown handle action"),
        "{e}"
    );
}

#[test]
fn missing_mesh_file() {
    let mut v = base();
    v["cloth"]["mesh"] = serde_json::json!({ "obj": { "path": "no/such/shirt.obj" } });
    let e = error_of(&v, &[]);
    assert!(
        e.contains("cloth.mesh.obj.path") && e.contains("shirt.obj") && e.contains("does not exist"),
        "{e}"
    );
}

#[test]
fn unknown_preset() {
    let e = error_of(&base(), &["cloth.material=silk"]);
    assert!(
        e.contains("unknown material preset `silk`") && e.contains("cotton"),
        "{e}"
    );
    let e = error_of(&base(), &["cloth.material={\"preset\": \"wool\"}"]);
    assert!(e.contains("cloth.material.preset") && e.contains("`wool`"), "{e}");
}

#[test]
fn zero_and_negative_time_step() {
    for dt in ["0", "-0.001"] {
        let e = error_of(&base(), &[&format!("dt={dt}")]);
        assert!(e.contains("test.json: dt:") && e.contains("positive"), "{e}");
    }
}

/// A phase of more steps than any run can take (a vanishing dt or an
/// astronomical duration) is refused by name, not run until the step
/// counter saturates.
#[test]
fn a_phase_of_too_many_steps() {
    for set in ["dt=1e-300", "timeline.settle.duration=1e300"] {
        let e = error_of(&base(), &[set]);
        assert!(
            e.contains("timeline[0] (settle).duration") && e.contains("more than 1e9"),
            "{set}: {e}"
        );
    }
}

/// Sizes are checked before anything is allocated: a grid or cylinder
/// past 2^24 vertices (or whose count overflows) is refused by field, where
/// it aborted allocating 240 GB.
#[test]
fn a_mesh_too_large_to_allocate_is_refused() {
    for set in [
        "cloth.mesh.grid.resolution=[100000, 100000]",
        "cloth.mesh.grid.resolution=[18446744073709551615, 2]",
    ] {
        let e = error_of(&base(), &[set]);
        assert!(
            e.contains("cloth.mesh.grid.resolution") && e.contains("more than the 16777216"),
            "{e}"
        );
    }
    let mut v = base();
    v["cloth"]["mesh"] =
        serde_json::json!({ "cylinder": { "radius": 0.1, "height": 0.1, "rings": 100000, "segments": 100000 } });
    v["handles"] = serde_json::json!({ "top": { "select": { "ring": "top" } } });
    let e = error_of(&v, &[]);
    assert!(
        e.contains("cloth.mesh.cylinder") && e.contains("10000000000 vertices"),
        "{e}"
    );
}

/// Phase and handle names go into metrics.csv: a comma, quote or newline
/// in one is refused by name, not written as rows of the wrong width.
#[test]
fn names_that_metrics_csv_cannot_carry() {
    let mut v = base();
    v["timeline"][0]["name"] = "set\ntle".into();
    let e = error_of(&v, &[]);
    assert!(e.contains("timeline[0].name") && e.contains("'\\n'"), "{e}");
    let mut v = base();
    v["handles"] = serde_json::json!({ "top,left": { "select": { "side": "top" } } });
    let e = error_of(&v, &[]);
    assert!(e.contains("handles.top,left") && e.contains("','"), "{e}");
}

#[test]
fn bad_solver_settings() {
    let e = error_of(&base(), &["solver.tolerance=2"]);
    assert!(e.contains("solver.tolerance") && e.contains("(0, 1)"), "{e}");
    let e = error_of(&base(), &["solver.contact_solves=1"]);
    assert!(
        e.contains("solver.contact_solves") && e.contains("0 (no resting contacts) or at least 2"),
        "{e}"
    );
    for ok in ["0", "2"] {
        let sets = [format!("solver.contact_solves={ok}")];
        scene::parse("test.json", "test", &base().to_string(), Path::new("."), &sets).unwrap();
    }
}

#[test]
fn nan_parameter() {
    // JSON has no NaN: from the command line it arrives as a string (a
    // numeric NaN, which only code can build, is refused field by field in
    // src/scene/material.rs's unit test).
    let e = error_of(&base(), &["cloth.material={\"preset\": \"cotton\", \"bending\": NaN}"]);
    assert!(e.contains("cloth.material"), "{e}");
    let e = error_of(&base(), &["cloth.damping=NaN"]);
    assert!(e.contains("cloth.damping") && e.contains("expected f64"), "{e}");
    let e = error_of(&base(), &["cloth.material.stretching=[1, 5, 1, 1]"]);
    assert!(e.contains("cloth.material.stretching"), "{e}");
}

/// A 2 m square whose UV map is packed into 0..1, as Blender writes it:
/// taken as metres it would start the cloth at twice its rest lengths, so
/// it is refused, naming the uv_scale that fits (2); with that it loads.
/// Slightly off (more than 10% in area, less than 25% in length), it loads
/// with a warning.
#[test]
fn a_uv_map_not_in_metres_is_refused_with_the_scale_that_fits() {
    let mut v = base();
    v["cloth"]["mesh"] = serde_json::json!({ "obj": { "path": "square.obj" } });
    v["handles"] = serde_json::json!({ "pin": { "select": { "indices": [0] } } });
    let square = "v 0 0 0\nv 2 0 0\nv 2 2 0\nv 0 2 0\nvt 0 0\nvt 1 0\nvt 1 1\nvt 0 1\nf 1/1 2/2 3/3 4/4\n";
    let e = error_with_file(&v, "square.obj", square);
    assert!(
        e.contains("cloth.mesh.obj.uv_scale")
            && e.contains("stretched to 2.00")
            && e.contains("set uv_scale to 2.0000"),
        "{e}"
    );
    let loaded = parse_with_file(&v, "square.obj", square, &["cloth.mesh.obj.uv_scale=2"]);
    assert!(loaded.is_ok_and(|s| s.warnings.is_empty()));
    // At 1.8 the pattern is 19% smaller in area: it loads, with a warning
    // naming the scale that fits.
    let loaded = parse_with_file(&v, "square.obj", square, &["cloth.mesh.obj.uv_scale=1.8"]).unwrap();
    let w = loaded.warnings.join("\n");
    assert!(
        loaded.warnings.len() == 1
            && w.contains("cloth.mesh.obj.uv_scale")
            && w.contains("starts 23% stretched in area")
            && w.contains("uv_scale 2.0000 would fit"),
        "{w}"
    );
}

#[test]
fn non_manifold_obj() {
    let mut v = base();
    v["cloth"]["mesh"] = serde_json::json!({ "obj": { "path": "fin.obj" } });
    v["handles"] = serde_json::json!({ "pin": { "select": { "indices": [0] } } });
    // Three triangles on the edge (1, 2).
    let fin = "v 0 0 0\nv 1 0 0\nv 0 1 0\nv 1 1 0\nv 1 1 1\nf 1 2 3\nf 2 4 3\nf 3 2 5\n";
    let e = error_with_file(&v, "fin.obj", fin);
    assert!(
        e.contains("fin.obj") && e.contains("non-manifold") && e.contains("edge"),
        "{e}"
    );
}

#[test]
fn selectors_that_do_not_fit_the_mesh() {
    let e = error_of(&base(), &["handles.top.select={\"ring\": \"top\"}"]);
    assert!(e.contains("handles.top.select") && e.contains("cylinder"), "{e}");
    let e = error_of(&base(), &["handles.top.select={\"indices\": [0, 99]}"]);
    assert!(e.contains("index 99 is out of range"), "{e}");
    let e = error_of(&base(), &["timeline.settle.handles.left=hold"]);
    assert!(e.contains("no handle named `left`"), "{e}");
}

#[test]
fn invalid_json_names_the_line() {
    let e = scene::parse("broken.json", "b", "{\n \"dt\": 0.001,\n}", Path::new("."), &[])
        .unwrap_err()
        .to_string();
    assert!(e.contains("broken.json") && e.contains("line 3"), "{e}");
}

/// serde_json keeps the last of a repeated key: a scene that says `dt`
/// twice, or names two handles alike, is refused at the second.
#[test]
fn a_repeated_key_is_refused() {
    let text = "{\n \"dt\": 0.001,\n \"dt\": 0.002\n}";
    let e = scene::parse("twice.json", "t", text, Path::new("."), &[])
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("twice.json: line 3") && e.contains("`dt` appears twice"),
        "{e}"
    );
}

#[test]
fn bad_bending_model_and_damping() {
    for (set, field) in [
        (
            "cloth.material={\"preset\": \"cotton\", \"bending_damping\": -1}",
            "cloth.material.bending_damping",
        ),
        (
            "cloth.material={\"preset\": \"cotton\", \"bending_model\": \"sine\"}",
            "`bending_model`: unknown variant `sine`, expected one of `discrete-shell`, `bridson`, `shape-operator`",
        ),
    ] {
        let e = error_of(&base(), &[set]);
        assert!(e.contains("test.json") && e.contains(field), "{set}: {e}");
    }
}

/// A spread of dwell or hardening times, or a scatter of dwell times,
/// outside 0-6 decades, or a scatter's skew past 2 either way, is an error
/// naming the field and its range (in-plane: whichever channel's value is
/// out).
#[test]
fn a_spread_scatter_or_skew_outside_its_range_names_the_field() {
    let decades = "decades";
    let skew = "from -2 to 2";
    for (set, field, range) in [
        (
            r#"cloth.material={"preset": "cotton", "bending_friction": {"spread": 7}}"#,
            "cloth.material.bending_friction.spread",
            decades,
        ),
        (
            r#"cloth.material={"preset": "cotton", "in_plane_plasticity": {"spread": [1, 2, -1]}}"#,
            "cloth.material.in_plane_plasticity.spread",
            decades,
        ),
        (
            r#"cloth.material={"preset": "cotton", "bending_friction": {"scatter": 6.5}}"#,
            "cloth.material.bending_friction.scatter",
            decades,
        ),
        (
            r#"cloth.material={"preset": "cotton", "bending_friction": {"scatter": 3, "scatter_skew": 2.5}}"#,
            "cloth.material.bending_friction.scatter_skew",
            skew,
        ),
        (
            r#"cloth.material={"preset": "cotton", "in_plane_friction": {"scatter_skew": [0, -3, 0]}}"#,
            "cloth.material.in_plane_friction.scatter_skew",
            skew,
        ),
    ] {
        let e = error_of(&base(), &[set]);
        assert!(
            e.contains("test.json") && e.contains(field) && e.contains(range),
            "{set}: {e}"
        );
    }
}

#[test]
fn unknown_integrator() {
    let e = error_of(&base(), &["integrator=\"verlet\""]);
    assert!(
        e.contains("test.json") && e.contains("verlet") && e.contains("bridson-mixed"),
        "{e}"
    );
}

#[test]
fn a_bad_roll_is_named() {
    let e = error_of(&base(), &["cloth.roll={\"radius\": -0.004}"]);
    assert!(e.contains("cloth.roll.radius") && e.contains("positive radius"), "{e}");
    // The base grid's 5 cm quads cannot follow a 4 mm roll.
    let e = error_of(&base(), &["cloth.roll={\"radius\": 0.004}"]);
    assert!(e.contains("cloth.roll.radius") && e.contains("too coarse"), "{e}");
    let e = error_of(&base(), &["cloth.roll={\"radius\": 0.004, \"flat\": 0.2}"]);
    assert!(e.contains("cloth.roll.flat") && e.contains("[0, 0.1)"), "{e}");
    let mut v = base();
    v["cloth"]["mesh"] =
        serde_json::json!({ "cylinder": { "radius": 0.04, "height": 0.1, "rings": 3, "segments": 8 } });
    v["cloth"]["roll"] = serde_json::json!({ "radius": 0.004 });
    v["handles"] = serde_json::json!({});
    let e = error_of(&v, &[]);
    assert!(e.contains("cloth.roll") && e.contains("needs a `grid` mesh"), "{e}");
    let e = error_of(
        &base(),
        &["cloth.material={\"preset\": \"miguel-felt\", \"bending_strain\": \"radius\"}"],
    );
    assert!(
        e.contains("`bending_strain`") && e.contains("radius") && e.contains("curvature"),
        "{e}"
    );
}

/// Finite extremes that used to pass and fail at step 1 with "reduce dt":
/// refused at load, naming the field, the bound and the value (written as
/// 1e300, not 301 digits).
#[test]
fn finite_extremes_are_refused_naming_the_field() {
    let mut moving = base();
    moving["timeline"][0]["handles"] = serde_json::json!({ "top": { "translate": [1e300, 0, 0] } });
    for (v, set, field) in [
        (
            base(),
            "cloth.material={\"preset\": \"cotton\", \"density\": 1e308}",
            "cloth.material.density: must be a positive areal density of at most 1000 kg/m^2",
        ),
        (
            base(),
            "cloth.material={\"preset\": \"cotton\", \"bending\": 1e300}",
            "cloth.material.bending: must be a non-negative stiffness of at most 1000 N m",
        ),
        (
            base(),
            "cloth.material={\"preset\": \"cotton\", \"stretching\": [1e300, 0, 50, 30]}",
            "cloth.material.stretching: [k11, k12, k22, k33] must be at most 1e10 N/m",
        ),
        (
            base(),
            "cloth.material={\"preset\": \"cotton\", \"in_plane_friction\": {\"stiffness\": 1e300}}",
            "cloth.material.in_plane_friction.stiffness: must be non-negative, at most 1e10 N/m",
        ),
        (
            base(),
            "cloth.material={\"preset\": \"cotton\", \"bending_plasticity\": {\"k_h0\": 1e300}}",
            "cloth.material.bending_plasticity.k_h0: must be non-negative, at most 1e3 N m",
        ),
        (
            base(),
            "gravity=[0, -1e300, 0]",
            "gravity: must be at most 1000 m/s^2 long",
        ),
        (
            base(),
            "cloth.damping=1e300",
            "cloth.damping: must be a non-negative number of seconds, at most 1000",
        ),
        (
            moving,
            "dt=0.001",
            "timeline[0] (settle).handles.top.translate: must be at most 1e6 m long",
        ),
    ] {
        let e = error_of(&v, &[set]);
        assert!(
            e.contains("test.json") && e.contains(field) && e.contains("e30"),
            "{set}: {e}"
        );
    }
}

/// A mesh under the vertex cap but past this machine's memory is refused
/// before any of it is allocated (it took 136 s and 19.7 GB of 24 to be
/// checked, and a run aborted), naming the field and both sizes, at the
/// preconditioner's own cost a vertex.
#[test]
fn a_mesh_larger_than_free_memory_is_refused_at_once() {
    let (rings, segments) = (4000u64, 4000u64);
    for (preconditioner, per_vertex, need) in [
        ("jacobi", crease::mesh::BYTES_PER_VERTEX, "98.3 GB"),
        ("multilevel", crease::mesh::BYTES_PER_VERTEX_MULTILEVEL, "262.1 GB"),
    ] {
        let bytes = rings * segments * per_vertex;
        match crease::util::memory::available() {
            Some(free) if free < bytes => {}
            other => {
                println!("skipped: {other:?} bytes free, a {bytes}-byte cloth would fit");
                continue;
            }
        }
        let sets = [
            format!("cloth.mesh.cylinder.rings={rings}"),
            format!("cloth.mesh.cylinder.segments={segments}"),
            format!("solver.preconditioner={preconditioner}"),
        ];
        let e = scene::load("twist", &sets).unwrap_err().to_string();
        assert!(
            e.contains(&format!("cloth.mesh.cylinder: 16000000 vertices need about {need}"))
                && e.contains("this machine has free: use a coarser mesh"),
            "{e}"
        );
    }
}

/// A load's bad force, empty selection, or a phase naming no load is an
/// error that names the field and what there is.
#[test]
fn bad_loads_name_the_field() {
    let load = |force: &str, select: &str| format!(r#"loads={{"press": {{"select": {select}, "force": {force}}}}}"#);
    let side = r#"{"side": "bottom"}"#;
    for (sets, field, what) in [
        (vec![load("[0, -1e9, 0]", side)], "loads.press.force", "at most"),
        (vec![load("[0, -1]", side)], "loads", "3"),
        (
            vec![load("[0, -1, 0]", r#"{"box": {"min": [5, 5, 5], "max": [6, 6, 6]}}"#)],
            "loads.press.select",
            "selects no vertex",
        ),
        (
            vec![
                load("[0, -1, 0]", side),
                r#"timeline.settle.loads={"weight": "add"}"#.to_string(),
            ],
            "loads.weight",
            "(loads: press)",
        ),
        (
            vec![
                load("[0, -1, 0]", side),
                r#"timeline.settle.loads={"press": "on"}"#.to_string(),
            ],
            "timeline",
            "unknown load action",
        ),
        (
            vec![
                load("[0, -1, 0]", side),
                r#"timeline.settle.loads={"press": -0.5}"#.to_string(),
            ],
            "loads.press",
            "got -0.5",
        ),
    ] {
        let sets: Vec<&str> = sets.iter().map(|s| s.as_str()).collect();
        let e = error_of(&base(), &sets);
        assert!(
            e.contains("test.json") && e.contains(field) && e.contains(what),
            "{sets:?}: {e}"
        );
    }
    let e = error_of(&base(), &[r#"timeline.settle.loads={"press": "add"}"#]);
    assert!(e.contains("no load named `press`") && e.contains("no `loads`"), "{e}");
}
