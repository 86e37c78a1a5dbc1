//! Scenes for the tests of bad input (tests/scene_errors.rs and
//! tests/contact_errors.rs): a small valid one and the errors of its
//! variants.

use crease::scene::{self, Scene};
use std::path::Path;

/// A small valid scene: a 2 x 2 grid of cotton held at its top side.
pub fn base() -> serde_json::Value {
    serde_json::json!({
        "dt": 0.001,
        "cloth": {
            "mesh": { "grid": { "size": [0.1, 0.1], "resolution": [2, 2] } },
            "material": "cotton"
        },
        "handles": { "top": { "select": { "side": "top" } } },
        "timeline": [ { "name": "settle", "duration": 0.01 } ]
    })
}

/// The error of scene `v` with `overrides`, which must be refused.
pub fn error_of(v: &serde_json::Value, overrides: &[&str]) -> String {
    let sets: Vec<String> = overrides.iter().map(|s| s.to_string()).collect();
    match scene::parse("test.json", "test", &v.to_string(), Path::new("."), &sets) {
        Ok(_) => panic!("scene {v} with {overrides:?} was accepted"),
        Err(e) => e.to_string(),
    }
}

/// Scene `v` with `overrides`, parsed in a fresh folder holding `file` =
/// `text`.
pub fn parse_with_file(v: &serde_json::Value, file: &str, text: &str, overrides: &[&str]) -> crease::Result<Scene> {
    let dir = std::env::temp_dir().join(format!("crease-{file}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join(file), text).unwrap();
    let sets: Vec<String> = overrides.iter().map(|s| s.to_string()).collect();
    let result = scene::parse("test.json", "test", &v.to_string(), &dir, &sets);
    std::fs::remove_dir_all(&dir).ok();
    result
}

/// The error of scene `v` parsed in a fresh folder holding `file` = `text`.
pub fn error_with_file(v: &serde_json::Value, file: &str, text: &str) -> String {
    match parse_with_file(v, file, text, &[]) {
        Ok(_) => panic!("scene {v} with {file} was accepted"),
        Err(e) => e.to_string(),
    }
}
