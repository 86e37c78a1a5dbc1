//! The library's modules form layers, and a module may use only modules of
//! lower layers (docs/architecture.md). This reads every `crate::` path in
//! `src/` (tests included: a test that reaches up is an upward edge too) and
//! fails on any that points sideways or up.

use std::collections::BTreeSet;
use std::path::Path;

/// Bottom to top. Modules of one layer do not use each other.
const LAYERS: &[&[&str]] = &[
    &["error"],
    &["util"],
    &["model", "mesh"],
    &["collide", "cloth"],
    &["measure", "figure", "multigrid"],
    &["step"],
    &["cpu", "gpu"],
    &["scene"],
    &["sim"],
    &["output", "render", "plot"],
    &["fit", "validate", "bench", "experiment", "preview"],
];

/// The crate root's re-exports, with the layer of what they name.
const ROOT_ITEMS: &[(&str, &str)] = &[("Error", "error"), ("Result", "error")];

fn layer(module: &str) -> Option<usize> {
    let module = ROOT_ITEMS
        .iter()
        .find(|(item, _)| *item == module)
        .map_or(module, |(_, m)| m);
    LAYERS.iter().position(|l| l.contains(&module))
}

/// The top-level modules a file's text names through `crate::`, including
/// those inside `use crate::{a::b, c}` groups.
fn used_modules(text: &str) -> BTreeSet<String> {
    let code: String = text
        .lines()
        .map(|l| match l.find("//") {
            Some(i) => &l[..i],
            None => l,
        })
        .collect::<Vec<_>>()
        .join("\n");
    let mut out = BTreeSet::new();
    let mut rest = code.as_str();
    while let Some(i) = rest.find("crate::") {
        // `crate::` preceded by an identifier character is another path
        // (`my_crate::`), not this crate.
        let before = rest[..i].chars().last();
        rest = &rest[i + "crate::".len()..];
        if before.is_some_and(|c| c.is_alphanumeric() || c == '_') {
            continue;
        }
        if let Some(group) = rest.strip_prefix('{') {
            let end = group.find('}').unwrap_or(group.len());
            for item in group[..end].split(',') {
                let name: String = item
                    .trim()
                    .chars()
                    .take_while(|c| c.is_alphanumeric() || *c == '_')
                    .collect();
                if !name.is_empty() {
                    out.insert(name);
                }
            }
        } else {
            let name: String = rest.chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect();
            out.insert(name);
        }
    }
    out
}

/// Every upward or sideways edge in the library's sources, as
/// `file: module -> used`, and every module missing from `LAYERS`.
fn violations(src: &Path) -> Vec<String> {
    let mut files = Vec::new();
    let mut stack = vec![src.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|e| e == "rs") {
                files.push(path);
            }
        }
    }
    files.sort();
    let mut found = Vec::new();
    for path in files {
        let rel = path.strip_prefix(src).unwrap();
        let first = rel
            .components()
            .next()
            .unwrap()
            .as_os_str()
            .to_string_lossy()
            .into_owned();
        let module = first.trim_end_matches(".rs").to_string();
        // The crate roots and the binary's own modules sit above every layer.
        if ["lib", "main", "cli"].contains(&module.as_str()) {
            continue;
        }
        let Some(own) = layer(&module) else {
            found.push(format!(
                "{}: module `{module}` is in no layer of tests/layers.rs",
                rel.display()
            ));
            continue;
        };
        for used in used_modules(&std::fs::read_to_string(&path).unwrap()) {
            if used == module {
                continue;
            }
            match layer(&used) {
                Some(l) if l < own => {}
                Some(_) => found.push(format!("{}: {module} -> {used}", rel.display())),
                None => found.push(format!("{}: uses `crate::{used}`, which is in no layer", rel.display())),
            }
        }
    }
    found
}

#[test]
fn dependencies_point_down_only() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let found = violations(&src);
    assert!(found.is_empty(), "upward or sideways edges:\n{}", found.join("\n"));
}

#[test]
fn the_check_catches_an_upward_edge() {
    let dir = std::env::temp_dir().join(format!("crease-layers-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("model")).unwrap();
    std::fs::write(
        dir.join("model/material.rs"),
        "use crate::error::Result;\n// crate::sim in a comment is no edge\nuse crate::{mesh::TriMesh, fit::DahlParams};\n",
    )
    .unwrap();
    std::fs::write(
        dir.join("cpu.rs"),
        "fn f() { crate::gpu::run(); my_crate::sim::x(); }\n",
    )
    .unwrap();
    std::fs::write(dir.join("mystery.rs"), "\n").unwrap();
    let found = violations(&dir);
    std::fs::remove_dir_all(&dir).unwrap();
    assert_eq!(
        found,
        [
            "cpu.rs: cpu -> gpu",
            "model/material.rs: model -> fit",
            "model/material.rs: model -> mesh",
            "mystery.rs: module `mystery` is in no layer of tests/layers.rs",
        ]
    );
}
