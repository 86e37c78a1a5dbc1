//! The preview window as a person uses it: under Xvfb (with lavapipe), open
//! it, let it run, take a screenshot of the screen with xwd, and check the
//! picture shows the cloth. Runs where Xvfb and xwd are installed (`.ci/run`
//! installs them); elsewhere it is skipped with a message, unless
//! `CREASE_REQUIRE_DISPLAY=1`, where it fails.
#![cfg(feature = "preview")]

use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

fn have(tool: &str) -> bool {
    Command::new("sh")
        .args(["-c", &format!("command -v {tool}")])
        .output()
        .is_ok_and(|o| o.status.success())
}

/// Stops a child with SIGTERM when dropped (a failing assertion leaves no
/// process; a server removes its lock and socket).
struct Guard(Child);

impl Drop for Guard {
    fn drop(&mut self) {
        let pid = nix::unistd::Pid::from_raw(self.0.id() as i32);
        let _ = nix::sys::signal::kill(pid, nix::sys::signal::Signal::SIGTERM);
        let _ = self.0.wait();
    }
}

/// Distinct colours and the share of pixels of colour `rgb` in an XWD
/// screenshot (32 bits per pixel, ZPixmap).
fn screenshot(display: &str) -> (usize, f64, usize) {
    let out = Command::new("xwd")
        .args(["-root", "-silent", "-display", display])
        .output()
        .unwrap();
    assert!(out.status.success(), "xwd: {}", String::from_utf8_lossy(&out.stderr));
    let d = out.stdout;
    let field = |k: usize| u32::from_be_bytes(d[4 * k..4 * k + 4].try_into().unwrap()) as usize;
    let (header, width, height, byte_order, bpp, bpl, ncolors) =
        (field(0), field(4), field(5), field(7), field(11), field(12), field(19));
    assert_eq!(bpp, 32, "xwd bits per pixel");
    let pixels = &d[header + 12 * ncolors..];
    let mut colours = Vec::with_capacity(width * height);
    for y in 0..height {
        for x in 0..width {
            let b: [u8; 4] = pixels[y * bpl + 4 * x..y * bpl + 4 * x + 4].try_into().unwrap();
            let v = if byte_order == 0 {
                u32::from_le_bytes(b)
            } else {
                u32::from_be_bytes(b)
            };
            colours.push(v & 0xff_ffff);
        }
    }
    // crease's background, 244 244 242.
    let background = colours.iter().filter(|c| **c == 0xf4f4f2).count() as f64 / colours.len() as f64;
    let cloth = colours.iter().filter(|c| **c != 0xf4f4f2 && **c != 0).count();
    colours.sort_unstable();
    colours.dedup();
    (colours.len(), background, cloth)
}

#[test]
fn the_preview_window_shows_the_running_cloth() {
    if !(have("Xvfb") && have("xwd")) {
        let msg = "Xvfb or xwd missing (apt-get install xvfb x11-apps)";
        if std::env::var("CREASE_REQUIRE_DISPLAY").as_deref() == Ok("1") {
            panic!("CREASE_REQUIRE_DISPLAY=1 but {msg}");
        }
        eprintln!("skipped: {msg}");
        return;
    }
    // Xvfb picks a free display itself and prints its number once it
    // accepts connections (a fixed number could meet a stale lock); it does
    // not reset when the first preview leaves (a reset refuses the next
    // client for a moment: "Failed to open connection to X server").
    let mut xvfb = Command::new("Xvfb")
        .args([
            "-displayfd",
            "1",
            "-screen",
            "0",
            "800x600x24",
            "-nolisten",
            "tcp",
            "-noreset",
        ])
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut number = String::new();
    std::io::BufRead::read_line(&mut std::io::BufReader::new(xvfb.stdout.take().unwrap()), &mut number).unwrap();
    let _xvfb = Guard(xvfb);
    assert!(!number.trim().is_empty(), "Xvfb did not start");
    let display = format!(":{}", number.trim());
    let crease = env!("CARGO_BIN_EXE_crease");
    let mut preview = Guard(
        Command::new(crease)
            .args(["preview", "sphere-drop", "--backend", "cpu"])
            .env("DISPLAY", &display)
            .env_remove("WAYLAND_DISPLAY")
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap(),
    );
    // Wait for the window to show the cloth: the background colour over
    // part of the screen, and shaded cloth pixels in many colours.
    let start = Instant::now();
    let (colours, background, cloth) = loop {
        std::thread::sleep(Duration::from_millis(500));
        if let Some(status) = preview.0.try_wait().unwrap() {
            let mut err = String::new();
            std::io::Read::read_to_string(preview.0.stderr.as_mut().unwrap(), &mut err).unwrap();
            panic!("the preview exited early ({status}): {err}");
        }
        let shot = screenshot(&display);
        if (shot.1 > 0.1 && shot.2 > 2000) || start.elapsed() > Duration::from_secs(90) {
            break shot;
        }
    };
    println!(
        "screenshot: {colours} colours, {:.0}% background, {cloth} cloth pixels",
        background * 100.0
    );
    assert!(
        background > 0.1,
        "the window's background covers {:.1}% of the screen",
        background * 100.0
    );
    assert!(
        cloth > 2000 && colours > 30,
        "{cloth} cloth pixels in {colours} colours: a blank window?"
    );
    drop(preview);
    // --exit-after quits cleanly; without a display the error says so.
    let o = Command::new(crease)
        .args(["preview", "hang", "--backend", "cpu", "--exit-after", "3"])
        .env("DISPLAY", &display)
        .env_remove("WAYLAND_DISPLAY")
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let o = Command::new(crease)
        .args(["preview", "hang", "--backend", "cpu"])
        .env_remove("DISPLAY")
        .env_remove("WAYLAND_DISPLAY")
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(!o.status.success() && err.contains("display"), "{err}");
    // The reason without winit's source path, and not called a GPU error.
    assert!(!err.contains(".cargo") && !err.contains("gpu:"), "{err}");
}
