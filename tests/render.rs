//! `crease render` draws a run's obstacles where they were at the frame's
//! time (issue 19, part 6): the knee example's leg, bent at the last
//! frame, straight at the first, gone where a phase removed it, and not
//! drawn with `--no-obstacles`.

mod common;

use common::tools::{crease, crease_error, png_pixels, temp};
use std::path::Path;

/// The pixels of a PNG drawn in the obstacles' grey (red, green and blue
/// within a few levels of each other, and not the background), and the
/// mean height of those pixels in the picture (0 top, 1 bottom).
fn grey(path: &Path) -> (usize, f64) {
    let (width, height, pixels) = png_pixels(path);
    let (mut count, mut rows) = (0usize, 0.0f64);
    for (i, c) in pixels.iter().enumerate() {
        let (r, g, b) = (c[0] as i32, c[1] as i32, c[2] as i32);
        let background = [r, g, b] == [244, 244, 242];
        if !background && (r - g).abs() <= 3 && (b - g) >= 0 && (b - g) <= 6 {
            count += 1;
            rows += (i / width as usize) as f64 / height as f64;
        }
    }
    (count, rows / count.max(1) as f64)
}

fn render(dir: &str, extra: &[&str]) -> (usize, f64) {
    let out = Path::new(dir).join(format!("picture{}.png", extra.join("").replace(['-', ','], "")));
    let mut args = vec![
        "render",
        dir,
        "--backend",
        "cpu",
        "--size",
        "240x240",
        "--view",
        "1,0.2,0.2",
    ];
    args.extend_from_slice(extra);
    args.extend_from_slice(&["--out", out.to_str().unwrap()]);
    let o = crease(&args);
    assert!(o.status.success(), "{args:?}: {}", String::from_utf8_lossy(&o.stderr));
    grey(&out)
}

#[test]
fn render_draws_the_body_where_it_was_at_the_frame() {
    let out = temp("render-knee");
    let dir = out.to_str().unwrap();
    let o = crease(&[
        "run",
        "scenes/knee.json",
        "--until",
        "0.5",
        "--quiet",
        "--backend",
        "cpu",
        "--out",
        dir,
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let (first, last) = (render(dir, &["--frame", "0"]), render(dir, &[]));
    let (bare, _) = render(dir, &["--no-obstacles"]);
    println!("grey pixels: frame 0 {first:?}, last {last:?}, without obstacles {bare}");
    // The leg shows above the trouser leg, and bent, below it too.
    assert!(first.0 > 500 && last.0 > 1500, "{first:?} {last:?}");
    assert!(bare < 50, "{bare} grey pixels with --no-obstacles");
    // Straight, the leg shows at the top and the bottom of the trouser leg
    // (mean height 0.49); bent 80 degrees, the shin points sideways out of
    // the hem, and the grey sits higher in the reframed picture.
    assert!(
        first.1 - last.1 > 0.05,
        "the leg was drawn where it started: {first:?} {last:?}"
    );
    std::fs::remove_dir_all(&out).ok();
}

#[test]
fn a_removed_body_is_not_drawn_and_a_changed_scene_is_an_error() {
    let out = temp("render-removed");
    let dir = out.to_str().unwrap();
    let remove = r#"timeline.bend.obstacles={"leg": "remove"}"#;
    let o = crease(&[
        "run",
        "scenes/knee.json",
        "--until",
        "0.05",
        "--quiet",
        "--backend",
        "cpu",
        "--out",
        dir,
        "--set",
        remove,
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let (count, _) = render(dir, &[]);
    assert!(count < 50, "{count} grey pixels for a removed body");
    // The scene the run came from changed since: the obstacles cannot be
    // placed, and the message says how to draw the cloth alone.
    let run = out.join("run.json");
    let text = std::fs::read_to_string(&run).unwrap().replace("remove", "add");
    std::fs::write(&run, text).unwrap();
    let e = crease_error(&["render", dir, "--backend", "cpu"]);
    assert!(e.contains("--no-obstacles"), "{e}");
    std::fs::remove_dir_all(&out).ok();
}
