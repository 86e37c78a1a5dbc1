//! The `crease` binary as a user runs it.

mod common;

use common::tools::{crease, crease_error, png_summary, temp};
use std::path::Path;
use std::process::{Command, Output};

/// `crease run hang` for 0.04 s on the CPU into `out`, with `extra`
/// arguments.
fn run_hang(out: &Path, extra: &[&str]) -> Output {
    let mut args = vec!["run", "hang", "--until", "0.04", "--quiet", "--backend", "cpu"];
    args.extend_from_slice(extra);
    args.extend(["--out", out.to_str().unwrap()]);
    crease(&args)
}

/// The `summary.json` a run wrote into `out`.
fn summary(out: &Path) -> serde_json::Value {
    serde_json::from_str(&std::fs::read_to_string(out.join("summary.json")).unwrap()).unwrap()
}

#[test]
fn run_writes_frames_metrics_and_summary() {
    let out = temp("cli-run");
    let o = run_hang(&out, &["--dump-state"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    // 20 steps at 2 ms, a frame every 10 steps: frames 0, 1, 2.
    for k in 0..3 {
        assert!(out.join(format!("frames/{k:05}.obj")).exists(), "frame {k}");
    }
    assert!(!out.join("frames/00003.obj").exists());
    let csv = std::fs::read_to_string(out.join("metrics.csv")).unwrap();
    let lines: Vec<&str> = csv.lines().collect();
    assert_eq!(lines.len(), 4);
    assert_eq!(
        lines[0],
        "time,phase,kinetic_energy,membrane_energy,bending_energy,mean_abs_bend,max_abs_bend,cg_iterations,\
         cg_residual,ms_per_step,material_time,region_mean_abs_bend,region_max_abs_bend,slip_fraction,\
         yield_fraction,mean_abs_plastic_bend,max_abs_plastic_bend,mean_abs_plastic_in_plane,max_displacement,\
         max_edge_strain,min_edge_strain,max_stretch,contacts,\
         penetration,unlifted_penetration,edge_penetration,resting,proximity_pairs,stuck,force_top,torque_top"
    );
    let summary = summary(&out);
    assert_eq!(summary["steps"], 20);
    assert_eq!(summary["backend"], "cpu");
    assert_eq!(summary["vertices"], 289);
    for key in [
        "scene",
        "faces",
        "sim_time",
        "material_time",
        "wall_seconds",
        "ms_per_step",
        "cg_iterations_mean",
    ] {
        assert!(summary.get(key).is_some(), "summary lacks {key}");
    }
    assert!(summary["final"]["kinetic_energy"].as_f64().unwrap() > 0.0);
    assert!(summary["final"]["force_top"].as_f64().unwrap() > 0.0);
    // Every solve met the tolerance: none counted, no warning.
    assert_eq!(summary["unconverged"]["steps"], 0);
    assert!(!String::from_utf8_lossy(&o.stderr).contains("warning"));
    for key in [
        "slip_fraction",
        "yield_fraction",
        "mean_abs_plastic_bend",
        "max_abs_plastic_bend",
        "mean_abs_plastic_in_plane",
    ] {
        assert!(summary["final"].get(key).is_some(), "final lacks {key}");
    }
    // --dump-state: one row per hinge, three per face.
    let hinges = std::fs::read_to_string(out.join("state_hinges.csv")).unwrap();
    let faces = std::fs::read_to_string(out.join("state_faces.csv")).unwrap();
    assert!(hinges.starts_with("hinge,v0,v1,theta,theta_rest,strain,anchor,t_stick,sigma,slip,eps_p"));
    assert_eq!(
        faces.lines().count(),
        1 + 3 * summary["faces"].as_u64().unwrap() as usize
    );
    assert_eq!(hinges.lines().count(), 1 + summary["hinges"].as_u64().unwrap() as usize);
    std::fs::remove_dir_all(&out).ok();
}

/// Solves cut short by `solver.max_iterations` (but not diverging) let
/// the run finish, and it says so: in `summary.json` and in one warning.
#[test]
fn a_run_whose_solves_end_above_the_tolerance_says_so() {
    let out = temp("cli-unconverged");
    let o = run_hang(&out, &["--set", "solver.max_iterations=10"]);
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{stderr}");
    let summary = summary(&out);
    let u = &summary["unconverged"];
    assert_eq!(
        (u["steps"].as_u64(), u["first_step"].as_u64()),
        (Some(20), Some(1)),
        "{u}"
    );
    let worst = u["worst_residual"].as_f64().unwrap();
    assert!(worst > 1e-5 && worst <= 1.0, "{worst}");
    assert!(
        stderr.contains("warning: hang: the solve ended above solver.tolerance at 20 of 20 steps (the first at step 1")
            && stderr.contains("raise solver.max_iterations"),
        "{stderr}"
    );
    std::fs::remove_dir_all(&out).ok();
}

#[test]
fn plot_and_render_draw_a_run_and_name_bad_input() {
    let out = temp("cli-plot");
    let dir = out.to_str().unwrap();
    let o = crease(&[
        "run",
        "hang",
        "--until",
        "0.06",
        "--quiet",
        "--backend",
        "cpu",
        "--out",
        dir,
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let o = crease(&["plot", dir]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    // Four panels (energies, bending, the handle's torque, fractions), two
    // across, with lines, text and a legend in many colours.
    let (w, h, colours) = png_summary(&out.join("metrics.png"));
    assert_eq!((w, h), (1600, 900));
    assert!(colours > 50, "{colours} colours: a blank plot?");
    let one = out.join("one.png");
    let o = crease(&[
        "plot",
        dir,
        "--column",
        "kinetic_energy",
        "--out",
        one.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert_eq!(png_summary(&one).0, 800);
    // An unknown column lists the ones there are; a folder without a run
    // names the file it looked for.
    let o = crease(&["plot", dir, "--column", "nope"]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        !o.status.success() && err.contains("`nope`") && err.contains("kinetic_energy"),
        "{err}"
    );
    let empty = out.join("empty");
    std::fs::create_dir_all(&empty).unwrap();
    let o = crease(&["plot", empty.to_str().unwrap()]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        !o.status.success() && err.contains("metrics.csv") && err.contains("not found"),
        "{err}"
    );
    // The run's last frame as a picture, on the CPU rasterizer; a bad size,
    // a missing frame and a lone OBJ's bend are errors that say so.
    let picture = out.join("cloth.png");
    let o = crease(&[
        "render",
        dir,
        "--backend",
        "cpu",
        "--size",
        "320x240",
        "--out",
        picture.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    // The hanging sheet is still nearly flat, so evenly lit: a few colours
    // (cloth, background, antialiased edges), not one.
    let (w, h, colours) = png_summary(&picture);
    assert_eq!((w, h), (320, 240));
    assert!(colours >= 3, "{colours} colours: a blank picture?");
    for (args, expect) in [
        (vec!["--size", "320by240"], "WIDTHxHEIGHT"),
        (vec!["--size", "16384x16384"], "at most 8192 a side"),
        (vec!["--frame", "99"], "not 99"),
        (vec!["--view", "0,0,0"], "not a direction"),
    ] {
        let mut all = vec!["render", dir, "--backend", "cpu"];
        all.extend(args);
        let err = crease_error(&all);
        assert!(err.contains(expect), "{all:?}: {err}");
    }
    let frame = out.join("frames/00000.obj");
    let err = crease_error(&[
        "render",
        frame.to_str().unwrap(),
        "--colour",
        "bend",
        "--backend",
        "cpu",
    ]);
    assert!(err.contains("no rest shape"), "{err}");
    std::fs::write(out.join("metrics.csv"), "time,phase,x\n0,a,1\n0.1,a\n").unwrap();
    let err = crease_error(&["plot", dir]);
    assert!(err.contains("line 3"), "{err}");
    std::fs::remove_dir_all(&out).ok();
}

#[test]
fn check_and_scenes_describe_without_running() {
    let o = crease(&["check", "twist", "--set", "timeline.hold.material_time=500"]);
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(o.status.success());
    assert!(
        text.contains("1792 vertices") && text.contains("handle top: 64 vertices"),
        "{text}"
    );
    assert!(
        text.contains("phase hold: 250 steps") && text.contains("material time 500 s"),
        "{text}"
    );
    assert!(text.contains("top turns 1.571 rad about [0, 1, 0]"), "{text}");
    assert!(
        text.contains("bending: discrete-shell model on the angle strain, friction dwell (stiffness 1e-5"),
        "{text}"
    );
    let o = crease(&["check", "miguel-unroll"]);
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(
        text.contains("on the curvature strain, friction dahl (a 0.000512, b 1.5e-5, tau 29.9)")
            && text.contains("starts deformed"),
        "{text}"
    );
    let o = crease(&["scenes"]);
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(
        text.contains("twist") && text.contains("hang") && text.contains("drape"),
        "{text}"
    );
    // `experiment --help` names every experiment there is.
    let o = crease(&["experiment", "--help"]);
    let text = String::from_utf8_lossy(&o.stdout).replace(['\n', ' '], "");
    for e in crease::experiment::all() {
        assert!(text.contains(e.name), "{} is not in the help: {text}", e.name);
    }
}

#[test]
fn errors_exit_non_zero_with_one_message() {
    let o = crease(&["run", "no-such-scene.json", "--quiet"]);
    assert!(!o.status.success());
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.starts_with("error: scene no-such-scene.json") && err.contains("built-in: twist"),
        "{err}"
    );
    assert!(!err.contains("panicked") && !err.contains("backtrace"), "{err}");
    let o = crease(&["check", "twist", "--set", "dt=-1"]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        !o.status.success() && err.contains("dt: must be a positive number"),
        "{err}"
    );
    // Past the scene's end, before any device is opened.
    let o = crease(&["validate", "twist", "--from", "750"]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        !o.status.success() && err.contains("--from") && err.contains("750 steps"),
        "{err}"
    );
}

#[test]
fn check_intersections_counts_crossings_per_frame() {
    // Without self-collision the sheet's corners fold through themselves
    // under the ball by 0.4 s; with it (the default) nothing crosses.
    let crossings = |sets: &[&str]| -> Vec<usize> {
        let out = temp("cli-intersections");
        let mut args = vec![
            "run",
            "sphere-drop",
            "--backend",
            "cpu",
            "--quiet",
            "--check-intersections",
            "--until",
            "0.45",
            "--out",
            out.to_str().unwrap(),
        ];
        args.extend_from_slice(sets);
        let o = crease(&args);
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        let csv = std::fs::read_to_string(out.join("metrics.csv")).unwrap();
        std::fs::remove_dir_all(&out).ok();
        let mut lines = csv.lines();
        let header: Vec<&str> = lines.next().unwrap().split(',').collect();
        let col = header
            .iter()
            .position(|h| *h == "intersections")
            .expect("an intersections column");
        lines.map(|l| l.split(',').nth(col).unwrap().parse().unwrap()).collect()
    };
    let without = crossings(&["--set", "self_collision.enabled=false"]);
    let with = crossings(&[]);
    println!("crossing pairs per frame: without self-collision {without:?}, with {with:?}");
    assert_eq!(without[0], 0, "the flat sheet crosses nothing");
    assert!(without.iter().any(|&c| c > 0), "the folded corners cross: {without:?}");
    assert!(with.iter().all(|&c| c == 0), "self-collision lets it cross: {with:?}");
}

/// `--backend auto` (the default) takes a hardware GPU when wgpu sees one
/// and passes over a software adapter (Mesa's llvmpipe on this project's
/// machines) for the CPU backend, saying so in one line; and on a machine
/// with no desktop (`XDG_RUNTIME_DIR` unset) Mesa prints nothing.
#[test]
fn auto_passes_over_a_software_gpu_quietly() {
    let out = temp("cli-auto");
    let o = Command::new(env!("CARGO_BIN_EXE_crease"))
        .args([
            "run",
            "hang",
            "--until",
            "0.004",
            "--quiet",
            "--out",
            out.to_str().unwrap(),
        ])
        .env_remove("XDG_RUNTIME_DIR")
        .env_remove("NODEVICE_SELECT")
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{err}");
    let summary = summary(&out);
    let adapters = crease::gpu::adapters();
    let hardware = adapters.iter().any(|(a, _)| a.device_type != wgpu::DeviceType::Cpu);
    println!(
        "adapters {:?}; stderr: {err}",
        adapters.iter().map(|(a, _)| &a.name).collect::<Vec<_>>()
    );
    if hardware {
        assert_eq!(summary["backend"], "gpu");
    } else {
        assert_eq!(summary["backend"], "cpu");
        assert_eq!(err.lines().count(), 1, "{err}");
        assert!(err.starts_with("notice: running on the CPU backend"), "{err}");
        if !adapters.is_empty() {
            assert!(
                err.contains("renders in software") && err.contains("--backend gpu"),
                "{err}"
            );
        }
    }
    assert!(!err.contains("XDG_RUNTIME_DIR"), "{err}");
    std::fs::remove_dir_all(&out).ok();
}

/// `RUST_LOG` reaches wgpu's own diagnostics (env_logger); without it
/// nothing of them is printed.
#[test]
fn rust_log_shows_wgpus_diagnostics() {
    let info = |log: Option<&str>| {
        let mut c = Command::new(env!("CARGO_BIN_EXE_crease"));
        c.arg("info").env_remove("RUST_LOG");
        if let Some(l) = log {
            c.env("RUST_LOG", l);
        }
        String::from_utf8_lossy(&c.output().unwrap().stderr).into_owned()
    };
    let (quiet, logged) = (info(None), info(Some("wgpu_core=debug")));
    assert!(logged.contains("wgpu_core"), "{logged}");
    assert!(!quiet.contains("wgpu_core"), "{quiet}");
}

/// An output of the wrong kind is refused before any work, naming the
/// option; an OS error is said once, with the path.
#[test]
fn outputs_of_the_wrong_kind_name_their_option() {
    let out = temp("cli-outputs");
    std::fs::create_dir_all(&out).unwrap();
    let file = out.join("a-file");
    std::fs::write(&file, "").unwrap();
    let (f, d) = (file.to_str().unwrap(), out.to_str().unwrap());
    for (args, expect) in [
        (vec!["run", "hang", "--backend", "cpu", "--out", f], "argument --out: "),
        (
            vec!["experiment", "twist-flatten", "--backend", "cpu", "--out", f],
            "argument --out: ",
        ),
        (vec!["render", d, "--backend", "cpu", "--out", d], "argument --out: "),
        (vec!["plot", d, "--out", d], "argument --out: "),
        (
            vec![
                "bench",
                "twist",
                "--vertices",
                "1000",
                "--steps",
                "1",
                "--backend",
                "cpu",
                "--json",
                d,
            ],
            "argument --json: ",
        ),
    ] {
        let err = crease_error(&args);
        assert!(err.contains(expect), "{args:?}: {err}");
    }
    let inside = file.join("run");
    let err = crease_error(&[
        "run",
        "hang",
        "--backend",
        "cpu",
        "--quiet",
        "--out",
        inside.to_str().unwrap(),
    ]);
    assert!(err.matches("os error").count() == 1, "{err}");
    std::fs::remove_dir_all(&out).ok();
}

/// `crease experiment --jobs` runs variants side by side and changes no
/// byte of what they leave: every variant's frames and run record, and the
/// contact sheet, are the same with one job and with three (more than this
/// machine's cores). Only the timings (metrics.csv's ms_per_step, the
/// summaries' wall seconds) may differ. `--variants` runs only those
/// named, to the same bytes as in the whole experiment's run.
#[test]
fn experiment_variants_run_side_by_side_to_the_same_bytes() {
    fn files(dir: &std::path::Path, under: &std::path::Path, out: &mut Vec<(String, Vec<u8>)>) {
        let mut entries: Vec<_> = std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().path()).collect();
        entries.sort();
        for path in entries {
            let name = path.file_name().unwrap().to_str().unwrap();
            if path.is_dir() {
                files(&path, under, out);
            } else if !["metrics.csv", "summary.json", "experiment.json"].contains(&name) {
                let relative = path.strip_prefix(under).unwrap().display().to_string();
                out.push((relative, std::fs::read(&path).unwrap()));
            }
        }
    }
    let out = temp("cli-jobs");
    let mut runs = Vec::new();
    let chosen = "time-independent-long,short";
    for (jobs, variants) in [("1", None), ("3", None), ("2", Some(chosen))] {
        let dir = out.join(jobs);
        let mut args = vec![
            "experiment",
            "twist-flatten",
            "--backend",
            "cpu",
            "--quiet",
            "--jobs",
            jobs,
        ];
        args.extend(variants.map(|v| ["--variants", v]).into_iter().flatten());
        args.extend(["--out", dir.to_str().unwrap()]);
        let o = crease(&args);
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        let mut found = Vec::new();
        files(&dir, &dir, &mut found);
        runs.push(found);
    }
    // Only the chosen variants ran, each to the bytes of the whole run.
    let some = runs.pop().unwrap();
    let ran = |name: &str| ["short/", "time-independent-long/"].iter().any(|v| name.starts_with(v));
    assert!(some.iter().any(|(name, _)| name.starts_with("short/frames/")));
    for (name, bytes) in &some {
        if name != "sheet.png" {
            assert!(ran(name), "{name} is not of a chosen variant");
            let whole = runs[0].iter().find(|(n, _)| n == name);
            assert!(
                whole.is_some_and(|w| &w.1 == bytes),
                "{name} differs from the whole experiment's"
            );
        }
    }
    let chosen_files = runs[0].iter().filter(|(name, _)| ran(name)).count();
    assert_eq!(some.len(), chosen_files + 1, "the chosen variants' files and the sheet");
    let frames = runs[0].iter().filter(|(name, _)| name.ends_with(".obj")).count();
    assert!(
        frames >= 12 && runs[0].iter().any(|(name, _)| name == "sheet.png"),
        "{frames} frames"
    );
    let names = |run: &[(String, Vec<u8>)]| run.iter().map(|f| f.0.clone()).collect::<Vec<_>>();
    assert_eq!(names(&runs[0]), names(&runs[1]));
    for ((name, one), (_, three)) in runs[0].iter().zip(&runs[1]) {
        assert!(one == three, "{name} differs between --jobs 1 and --jobs 3");
    }
    std::fs::remove_dir_all(&out).ok();
}

/// An experiment run into the folder of an earlier one replaces its
/// record: the pictures the old `experiment.json` named are removed (a run
/// of fewer variants would otherwise leave an older difference picture
/// beside its own), a name that leaves the folder is not followed, and the
/// new record lists only the variants that ran.
#[test]
fn an_experiment_replaces_the_record_of_an_earlier_one() {
    let out = temp("cli-old-record");
    let dir = out.join("exp");
    std::fs::create_dir_all(&dir).unwrap();
    let old = r#"{"experiment": "twist-flatten", "variants": [], "pictures": ["old.png", "../outside.png"]}"#;
    std::fs::write(dir.join("experiment.json"), old).unwrap();
    std::fs::write(dir.join("old.png"), b"old").unwrap();
    std::fs::write(out.join("outside.png"), b"keep").unwrap();
    std::fs::write(dir.join("notes.txt"), b"keep").unwrap();
    let o = crease(&[
        "experiment",
        "twist-flatten",
        "--backend",
        "cpu",
        "--quiet",
        "--variants",
        "short",
        "--out",
        dir.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(!dir.join("old.png").exists(), "the old record's picture is still there");
    assert!(out.join("outside.png").exists() && dir.join("notes.txt").exists());
    let record: serde_json::Value =
        serde_json::from_slice(&std::fs::read(dir.join("experiment.json")).unwrap()).unwrap();
    let names: Vec<&str> = record["variants"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["short"]);
    assert_eq!(record["pictures"], serde_json::json!(["sheet.png"]));
    std::fs::remove_dir_all(&out).ok();
}
