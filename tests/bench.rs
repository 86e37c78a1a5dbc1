//! `crease bench` as a user runs it: its rows, its JSON, and what it keeps
//! when a size fails.

mod common;

use common::tools::{crease, crease_error, temp};
use std::path::Path;
use std::process::Output;

/// `crease bench twist --backend BACKEND --vertices VERTICES --steps STEPS
/// --json OUT/bench.json`: the command's output and the JSON it wrote
/// (null when it wrote none, so that a caller's check of the status says
/// why).
fn bench_json(out: &Path, backend: &str, vertices: &str, steps: &str) -> (Output, serde_json::Value) {
    std::fs::create_dir_all(out).unwrap();
    let json = out.join("bench.json");
    let o = crease(&[
        "bench",
        "twist",
        "--backend",
        backend,
        "--vertices",
        vertices,
        "--steps",
        steps,
        "--json",
        json.to_str().unwrap(),
    ]);
    let v = std::fs::read_to_string(&json).map_or(serde_json::Value::Null, |text| serde_json::from_str(&text).unwrap());
    (o, v)
}

/// A size the adapter cannot hold stops `crease bench` with its error, and
/// `--json` keeps the rows measured before it, the error beside them
/// (lavapipe binds 128 MiB a buffer, less than the 1M twist's
/// self-collision boxes need). An adapter that holds it gives both rows
/// and no error.
#[test]
fn bench_json_keeps_the_rows_before_a_size_that_fails() {
    if !common::have_gpu() {
        return;
    }
    let out = temp("cli-bench-fails");
    let (o, v) = bench_json(&out, "gpu", "1792,1000000", "1");
    let stderr = String::from_utf8_lossy(&o.stderr);
    let rows = v["rows"]
        .as_array()
        .unwrap_or_else(|| panic!("no rows in --json: {v}; {stderr}"));
    assert_eq!(rows[0]["vertices"], 1792);
    if o.status.success() {
        assert_eq!(rows.len(), 2);
        assert!(v.get("error").is_none(), "{v}");
    } else {
        let error = v["error"].as_str().unwrap();
        println!("the 1M twist on this adapter: {error}");
        assert_eq!(rows.len(), 1);
        assert!(!error.is_empty() && stderr.contains(error), "{error} / {stderr}");
    }
    std::fs::remove_dir_all(&out).ok();
}

#[test]
fn bench_writes_json_rows() {
    let out = temp("cli-bench");
    let (o, v) = bench_json(&out, "cpu", "1000,7000", "2");
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert_eq!(v["backend"], "cpu");
    // A count of 0 is refused before anything runs, not taken as the
    // nearest cylinder (1792 vertices).
    let err = crease_error(&["bench", "twist", "--vertices", "7000,0", "--backend", "cpu"]);
    assert!(err.contains("argument --vertices: 0 is not a vertex count"), "{err}");
    // The default preconditioner, `auto`, is block Jacobi below 5000
    // vertices and the multilevel one from there.
    let big = &v["rows"][1];
    assert_eq!(
        (&big["vertices"], &big["preconditioner"]),
        (&7040.into(), &"multilevel".into())
    );
    let row = &v["rows"][0];
    assert_eq!(row["vertices"], 1792);
    assert_eq!(row["preconditioner"], "jacobi");
    for key in [
        "ms_per_step",
        "forces_ms",
        "solve_ms",
        "self_collision_ms",
        "cg_iterations",
    ] {
        assert!(row[key].as_f64().unwrap() > 0.0, "{key}");
    }
    // The CPU's positions are on the host; the stages add up to the step.
    assert_eq!(row["readback_ms"], 0.0);
    let stages: f64 = [
        "forces_ms",
        "solve_ms",
        "strain_limit_ms",
        "obstacles_ms",
        "self_collision_ms",
        "other_ms",
    ]
    .iter()
    .map(|k| row[k].as_f64().unwrap())
    .sum();
    assert!((stages - row["ms_per_step"].as_f64().unwrap()).abs() < 1e-9);
    std::fs::remove_dir_all(&out).ok();
}
