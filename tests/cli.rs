//! The `crease` binary as a user runs it.

mod common;

use common::tools::{crease, crease_error, png_pixels, temp};
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

/// Width, height and number of distinct colours of a PNG file.
fn png_summary(path: &std::path::Path) -> (u32, u32, usize) {
    let (width, height, mut colours) = png_pixels(path);
    colours.sort_unstable();
    colours.dedup();
    (width, height, colours.len())
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

#[test]
fn fit_stretch_bending_and_recovery_write_parameters_and_a_plot() {
    use crease::fit::{bending, stretch};
    let out = temp("cli-fit");
    std::fs::create_dir_all(&out).unwrap();
    // Noise-free measurements of Miguel 2013's cotton, as a user would
    // write them.
    let cotton = stretch::COTTON;
    let mut text = stretch::HEADER.join(",") + "\n";
    for r in stretch::synthesize(&cotton, 0.1, &stretch::protocol(4, 2)) {
        text += &format!("{},{},{}\n", r[0], r[1], r[2]);
    }
    let data = out.join("cotton.csv");
    std::fs::write(&data, text).unwrap();
    let json = out.join("cotton.json");
    let o = crease(&[
        "fit",
        "stretch",
        data.to_str().unwrap(),
        "--json",
        json.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let report = String::from_utf8_lossy(&o.stdout);
    assert!(report.contains("tau") && report.contains("residuals: rms"), "{report}");
    let v: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    for (key, want) in [("k", cotton.k), ("a", cotton.a), ("b", cotton.b), ("tau", cotton.tau)] {
        let got = v[key].as_f64().unwrap();
        assert!((got - want).abs() < 1e-3 * want, "{key}: {got} vs {want}");
    }
    assert!(v["rms_residual"].as_f64().unwrap() < 1e-6);
    let (w, h, colours) = png_summary(&out.join("cotton.fit.png"));
    assert_eq!((w, h), (800, 900));
    assert!(colours > 20, "{colours} colours: a blank plot?");

    // Bending: felt spirals, the stiffness given as from a cantilever.
    let (density, felt) = bending::FELT;
    let mut text = bending::HEADER.join(",") + "\n";
    for r in bending::synthesize(
        &felt,
        density,
        &[0.004, 0.0075, 0.023],
        &[(0.8, 0.08), (0.6, 0.06), (0.4, 0.04)],
    ) {
        text += &format!("{},{},{},{}\n", r[0], r[1], r[2], r[3]);
    }
    let data = out.join("felt.csv");
    std::fs::write(&data, text).unwrap();
    let plot = out.join("felt.png");
    let o = crease(&[
        "fit",
        "bending",
        data.to_str().unwrap(),
        "--density",
        "0.208",
        "--stiffness",
        "145.3e-7,0.15e-7",
        "--plot",
        plot.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let report = String::from_utf8_lossy(&o.stdout);
    assert!(report.contains("(given)") && report.contains("dropped"), "{report}");
    assert!(plot.exists());
    // Bad input names what is wrong.
    let err = crease_error(&["fit", "bending", data.to_str().unwrap(), "--density", "-1"]);
    assert!(err.contains("--density"), "{err}");
    let o = crease(&["fit", "stretch", out.join("missing.csv").to_str().unwrap()]);
    assert!(!o.status.success());
    assert!(String::from_utf8_lossy(&o.stderr).contains("missing.csv"));
    // A sample that shortens under load fits a negative stiffness: refused,
    // nothing written, unless --allow-unphysical.
    let mut text = stretch::HEADER.join(",") + "\n";
    let lengths = [
        0.1, 0.099, 0.098, 0.0972, 0.0978, 0.0988, 0.0998, 0.0989, 0.0979, 0.0971, 0.0977, 0.0987, 0.0997,
    ];
    for (step, (load, length)) in [0, 1, 2, 3, 2, 1, 0, 1, 2, 3, 2, 1, 0].iter().zip(lengths).enumerate() {
        text += &format!("{step},{load},{length}\n");
    }
    let data = out.join("shrinks.csv");
    std::fs::write(&data, text).unwrap();
    let json = out.join("shrinks.json");
    let args = [
        "fit",
        "stretch",
        data.to_str().unwrap(),
        "--json",
        json.to_str().unwrap(),
    ];
    let err = crease_error(&args);
    assert!(
        err.contains("shrinks.csv")
            && err.contains("not physical: the stiffness k + k2 eps is -")
            && err.contains("--allow-unphysical"),
        "{err}"
    );
    assert!(!json.exists());
    let o = crease(&[&args[..], &["--allow-unphysical"]].concat());
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(String::from_utf8_lossy(&o.stdout).contains("warning: the parameters are not physical"));
    assert!(json.exists());

    // Crease recovery: the sensitivities pass (`--max-iterations 0`) on a
    // small specimen, through the file a user writes; its JSON names every
    // parameter, the fitted ones with their errors, and every row.
    let data = out.join("recovery.csv");
    std::fs::write(&data, "hold_s,load_n,recovery_deg\n1,10,43\n100,10,39\n1000,10,37\n").unwrap();
    let json = out.join("recovery.json");
    let o = crease(&[
        "fit",
        "recovery",
        data.to_str().unwrap(),
        "--free",
        "yield,tau_p",
        "--set",
        "cloth.mesh.grid.resolution=[10, 4]",
        "--set",
        "timeline.recover.duration=0.25",
        "--max-iterations",
        "0",
        "--json",
        json.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let report = String::from_utf8_lossy(&o.stdout);
    assert!(
        report.contains("(the scene's)") && report.contains("deg per ln"),
        "{report}"
    );
    let v: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    assert_eq!(v["parameters"]["yield"], 1.8, "{v}");
    assert!(v["standard_errors"]["yield"].as_f64().unwrap() > 0.0, "{v}");
    assert!(v["standard_errors"]["eps_0"].is_null(), "not fitted: {v}");
    assert_eq!(v["rows"].as_array().unwrap().len(), 3);
    assert_eq!(
        v["simulations"], 15,
        "5 points (the start, each parameter +-30%) of 3 rows: {v}"
    );
    assert_eq!(v["material"]["bending_plasticity"]["tau"], 30.0, "{v}");
    assert!(out.join("recovery.fit.png").exists());
    std::fs::remove_dir_all(&out).ok();
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
/// summaries' wall seconds) may differ.
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
    for jobs in ["1", "3"] {
        let dir = out.join(jobs);
        let o = crease(&[
            "experiment",
            "twist-flatten",
            "--backend",
            "cpu",
            "--quiet",
            "--jobs",
            jobs,
            "--out",
            dir.to_str().unwrap(),
        ]);
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        let mut found = Vec::new();
        files(&dir, &dir, &mut found);
        runs.push(found);
    }
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
