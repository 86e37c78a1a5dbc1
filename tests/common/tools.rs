//! What the tests that run programs share: the `crease` binary, fresh
//! temporary folders, the CPU reference on a scene, Python modules that
//! may be missing (Pixar's USD, Blender), and the pixels of a PNG.

use crease::scene::Scene;
use crease::sim::Simulation;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::Arc;

/// Runs the `crease` binary with `args`.
pub fn crease(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_crease"))
        .args(args)
        .output()
        .expect("run crease")
}

/// Runs the `crease` binary with `args`, which must fail; returns what it
/// printed on stderr.
pub fn crease_error(args: &[&str]) -> String {
    let o = crease(args);
    assert!(!o.status.success(), "crease {args:?} succeeded");
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// A temporary path for a test (`tag` names it), cleared of what an
/// earlier run left there: a folder a command is to create.
pub fn temp(tag: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("crease-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

/// A fresh, empty temporary folder for a test (`tag` names it).
pub fn folder(tag: &str) -> PathBuf {
    let dir = temp(tag);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// `scene` on the CPU reference.
pub fn cpu(scene: Scene) -> Simulation {
    let cloth = Arc::clone(&scene.cloth);
    Simulation::new(scene, Box::new(crease::cpu::CpuBackend::new(cloth)))
}

/// Whether Python can import `module` (from the package `package`);
/// without it, a printed reason, or a failure when the variable `require`
/// is 1 (as .ci/run sets it).
pub fn have_python(module: &str, package: &str, require: &str) -> bool {
    let ok = Command::new("python3")
        .args(["-c", &format!("import {module}")])
        .output()
        .is_ok_and(|o| o.status.success());
    if !ok {
        let reason = format!("python3 cannot import {module} (python3 -m pip install {package})");
        assert!(
            std::env::var(require).as_deref() != Ok("1"),
            "{require}=1, but {reason}"
        );
        println!("skipped: {reason}");
    }
    ok
}

/// A PNG's width, height and pixels (each its samples: RGB or RGBA).
pub fn png_pixels(path: &Path) -> (u32, u32, Vec<Vec<u8>>) {
    let decoder = png::Decoder::new(std::io::BufReader::new(std::fs::File::open(path).unwrap()));
    let mut reader = decoder.read_info().unwrap();
    let mut buf = vec![0; reader.output_buffer_size().unwrap()];
    let info = reader.next_frame(&mut buf).unwrap();
    let px = info.color_type.samples();
    let pixels = buf[..info.buffer_size()].chunks_exact(px).map(<[u8]>::to_vec).collect();
    (info.width, info.height, pixels)
}

/// Width, height and number of distinct colours of a PNG file.
pub fn png_summary(path: &Path) -> (u32, u32, usize) {
    let (width, height, mut colours) = png_pixels(path);
    colours.sort_unstable();
    colours.dedup();
    (width, height, colours.len())
}
