//! Property tests over the readers of user input: the scene parser, the
//! `--set` path, the OBJ reader and the CSV readers (`crease fit`, `crease
//! plot`). Whatever the input, each returns a value or an error; none may
//! panic (a panic fails the test), abort or hang. Inputs are mutations of
//! real files and small random files, a thousand cases per property,
//! seconds in all.

use crease::scene;
use proptest::prelude::*;
use proptest::test_runner::{Config, FileFailurePersistence};
use std::path::{Path, PathBuf};

fn config() -> Config {
    Config {
        cases: 1000,
        failure_persistence: Some(Box::new(FileFailurePersistence::Off)),
        ..Config::default()
    }
}

/// Broken syntax a hostile edit of the text puts in, besides `VALUES`.
const SYNTAX: [&str; 8] = ["[", "]", "{", "}", ",", ":", "\"\"", "NaN"];

/// Tokens a hostile edit of the text puts in: extremes, wrong types
/// (`VALUES`) and broken syntax.
fn tokens() -> Vec<&'static str> {
    VALUES.iter().chain(&SYNTAX).copied().collect()
}

/// A file to read, named for this process and `name` (each property its
/// own; removed after the case).
fn file(name: &str, text: &str) -> PathBuf {
    let path = std::env::temp_dir().join(format!("crease-properties-{}-{name}", std::process::id()));
    std::fs::write(&path, text).unwrap();
    path
}

/// `text` with `edits` applied: each cuts a span at a relative position or
/// puts a token there.
fn mutate(text: &str, edits: &[(f64, usize, usize)]) -> String {
    let mut s: Vec<char> = text.chars().collect();
    for &(at, len, token) in edits {
        let i = ((at * s.len() as f64) as usize).min(s.len());
        match token % 2 {
            0 => {
                let end = (i + len % 8).min(s.len());
                s.drain(i..end);
            }
            _ => {
                let tokens = tokens();
                let t: Vec<char> = tokens[token / 2 % tokens.len()].chars().collect();
                s.splice(i..i, t);
            }
        }
    }
    s.into_iter().collect()
}

/// JSON values a hostile edit puts in place of one of a scene's.
const VALUES: [&str; 16] = [
    "1e308",
    "-1e308",
    "1e-300",
    "-1",
    "0",
    "3",
    "0.5",
    "1e9",
    "\"x\"",
    "null",
    "true",
    "[0, 0]",
    "[1e308, 0, 0]",
    "{\"grid\": {}}",
    "{}",
    "[]",
];

/// How many values `v` holds, itself included.
fn count(v: &serde_json::Value) -> usize {
    1 + match v {
        serde_json::Value::Object(m) => m.values().map(count).sum(),
        serde_json::Value::Array(a) => a.iter().map(count).sum(),
        _ => 0,
    }
}

/// Replaces the `k`-th value of `v` (depth first, `v` itself first) by
/// `new`; true once done.
fn replace(v: &mut serde_json::Value, k: &mut usize, new: &serde_json::Value) -> bool {
    if *k == 0 {
        *v = new.clone();
        return true;
    }
    *k -= 1;
    match v {
        serde_json::Value::Object(m) => m.values_mut().any(|c| replace(c, k, new)),
        serde_json::Value::Array(a) => a.iter_mut().any(|c| replace(c, k, new)),
        _ => false,
    }
}

/// Scenes that load in milliseconds (no body meshes, no mannequin).
const SCENES: [&str; 6] = ["drape", "hang", "sphere-drop", "container", "recovery", "sticky-hand"];

fn edits() -> impl Strategy<Value = Vec<(f64, usize, usize)>> {
    prop::collection::vec((0.0..1.0f64, 0usize..8, 0usize..(2 * tokens().len())), 1..6)
}

proptest! {
    #![proptest_config(config())]

    /// Edits of the text (broken syntax), or of its values (valid JSON
    /// with wrong types and extremes, which reach the validation).
    #[test]
    fn a_mutated_scene_parses_or_is_refused(which in 0..SCENES.len(), of_values: bool, edits in edits()) {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("scenes");
        let text = std::fs::read_to_string(dir.join(format!("{}.json", SCENES[which]))).unwrap();
        let text = match of_values {
            false => mutate(&text, &edits),
            true => {
                let mut v: serde_json::Value = serde_json::from_str(&text).unwrap();
                for &(at, _, token) in &edits {
                    let mut k = (at * count(&v) as f64) as usize;
                    replace(&mut v, &mut k, &serde_json::from_str(VALUES[token % VALUES.len()]).unwrap());
                }
                v.to_string()
            }
        };
        let _ = scene::parse("mutated.json", SCENES[which], &text, &dir, &[]);
    }

    #[test]
    fn any_set_loads_or_is_refused(
        path in prop::sample::select(vec![
            "dt", "gravity", "solver.tolerance", "solver.max_iterations", "solver.preconditioner",
            "cloth.damping", "cloth.material", "cloth.mesh.cylinder.rings", "cloth.mesh.cylinder.segments",
            "cloth.mesh.cylinder.radius", "self_collision.thickness", "strain_limit", "timeline", "output.every",
            "handles.top.select", "obstacles", "cloth", "x.y.z", "", "timeline.twist.duration",
        ]),
        value in prop::sample::select(tokens()),
    ) {
        let _ = scene::load("twist", &[format!("{path}={value}")]);
    }

    #[test]
    fn any_obj_reads_or_is_refused(
        lines in prop::collection::vec(
            (0usize..8, prop::collection::vec(prop::sample::select(vec![
                "0", "1", "2", "3", "-1", "4/1", "1//2", "1e308", "nan", "0.5", "x", "", "99999999999",
            ]), 0..5)),
            0..24,
        ),
        uv_scale in prop::sample::select(vec![1.0, 1e-300, 1e300]),
    ) {
        let keys = ["v", "vt", "vn", "f", "g", "o", "#", "usemtl"];
        let text: String = lines.iter().map(|(k, words)| format!("{} {}\n", keys[*k], words.join(" "))).collect();
        let path = file("mesh.obj", &text);
        let _ = crease::mesh::read_obj(&path, uv_scale);
        std::fs::remove_file(path).unwrap();
    }

    #[test]
    fn any_csv_reads_or_is_refused(
        header in prop::sample::select(vec![
            "step,force_newton,length_m",
            "radius_m,curvature_per_m,hanging_length_m,lever_m",
            "time,phase,kinetic_energy,mean_abs_bend",
            "a,a", "", "\"x,y\",z",
        ]),
        rows in prop::collection::vec(prop::collection::vec(prop::sample::select(vec![
            "0", "1", "-1", "0.1", "1e400", "1e308", "-1e308", "nan", "inf", "", "\"", "\"a,b\"", "x", "1e-320",
        ]), 0..6), 0..16),
    ) {
        let text = std::iter::once(header.to_string())
            .chain(rows.iter().map(|r| r.join(",")))
            .collect::<Vec<_>>()
            .join("\n");
        let path = file("data.csv", &text);
        let _ = crease::fit::stretch::read(&path, 0.1);
        let _ = crease::fit::bending::read(&path);
        // What reads is drawn too (a column spanning +-1e308 once looped).
        if let Ok(m) = crease::plot::Metrics::read(&path) {
            let _ = crease::plot::draw_metrics(&m, &crease::plot::standard_panels(&m));
        }
        std::fs::remove_file(path).unwrap();
    }
}
