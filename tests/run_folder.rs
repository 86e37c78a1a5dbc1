//! A run's life through the command line: stopped and resumed (at a
//! checkpoint, or by Ctrl-C) to the same frames, stopped with a reason when
//! its solve cannot finish or its cloth blows up, and its folder replaced
//! whole by a later run, never mixed with it.

mod common;

use common::tools::{crease, crease_error, temp};
use std::path::Path;
use std::process::Command;

/// The columns of metrics.csv that do not measure wall time.
fn metrics_without_timing(dir: &Path) -> Vec<String> {
    let csv = std::fs::read_to_string(dir.join("metrics.csv")).unwrap();
    let header: Vec<&str> = csv.lines().next().unwrap().split(',').collect();
    let keep: Vec<usize> = (0..header.len()).filter(|&i| header[i] != "ms_per_step").collect();
    csv.lines()
        .map(|l| {
            let cells: Vec<&str> = l.split(',').collect();
            keep.iter().map(|&i| cells[i]).collect::<Vec<_>>().join(",")
        })
        .collect()
}

/// `crease run ablation-friction` on the CPU into `out`, with `extra`
/// arguments.
/// `crease run SCENE --backend cpu --quiet --out OUT` with `extra`.
fn run_cpu(scene: &str, out: &Path, extra: &[&str]) -> std::process::Output {
    let head = [
        "run",
        scene,
        "--backend",
        "cpu",
        "--quiet",
        "--out",
        out.to_str().unwrap(),
    ];
    crease(&[&head[..], extra].concat())
}

fn ablation_args<'a>(out: &'a str, extra: &[&'a str]) -> Vec<&'a str> {
    let mut args = vec!["run", "ablation-friction", "--backend", "cpu", "--quiet", "--out", out];
    args.extend_from_slice(extra);
    args
}

/// Runs [`ablation_args`] to the end.
fn run_ablation(out: &Path, extra: &[&str]) {
    let o = crease(&ablation_args(out.to_str().unwrap(), extra));
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
}

/// Two run folders hold as many frames, the same last frame to the byte,
/// and the same metrics (wall time aside).
fn assert_same_ending(a: &Path, b: &Path) {
    let frames = |d: &Path| {
        let mut names: Vec<_> = std::fs::read_dir(d.join("frames"))
            .unwrap()
            .map(|e| e.unwrap().path())
            .collect();
        names.sort();
        names
    };
    let (fa, fb) = (frames(a), frames(b));
    assert_eq!(fa.len(), fb.len(), "frame counts");
    assert!(
        std::fs::read(fa.last().unwrap()).unwrap() == std::fs::read(fb.last().unwrap()).unwrap(),
        "final frames differ"
    );
    assert_eq!(metrics_without_timing(a), metrics_without_timing(b));
}

#[test]
fn a_run_stopped_mid_hold_resumes_to_the_same_frames() {
    let short = ["--set", "timeline.rest.duration=0.3"];
    let whole = temp("run-whole");
    run_ablation(&whole, &short);
    // Stopped at 0.26 s, in the middle of the hold (0.2 - 0.3 s).
    let parts = temp("run-parts");
    let dir = parts.to_str().unwrap();
    run_ablation(
        &parts,
        &[short[0], short[1], "--until", "0.26", "--checkpoint-every", "0.1"],
    );
    assert!(parts.join("checkpoint.json").exists());
    let o = crease(&["resume", dir, "--quiet"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert_same_ending(&whole, &parts);

    // A damaged checkpoint, a checkpoint of another backend, a changed scene.
    let text = std::fs::read_to_string(parts.join("checkpoint.json")).unwrap();
    std::fs::write(parts.join("checkpoint.json"), &text[..text.len() / 2]).unwrap();
    let err = crease_error(&["resume", dir, "--quiet"]);
    assert!(err.contains("checkpoint.json") && err.contains("damaged"), "{err}");
    std::fs::write(parts.join("checkpoint.json"), &text).unwrap();
    let err = crease_error(&["resume", dir, "--quiet", "--backend", "gpu"]);
    assert!(err.contains("--backend cpu"), "{err}");
    let err = crease_error(&["resume", dir, "--quiet", "--until", "0"]);
    assert!(err.contains("positive"), "{err}");
    // An edited number, frame or row count: the checksum catches it.
    let c = crease::output::Checkpoint::read(&parts).unwrap();
    let frame = format!("\"frame\":{}", c.frame);
    let rows = format!("\"metrics_rows\":{}", c.metrics_rows);
    let (fewer_frames, fewer_rows) = (format!("\"frame\":{}", c.frame - 1), "\"metrics_rows\":3".to_string());
    for (from, to) in [(frame, fewer_frames), (rows, fewer_rows)] {
        assert!(text.contains(&from), "{from} not in the checkpoint");
        std::fs::write(parts.join("checkpoint.json"), text.replace(&from, &to)).unwrap();
        let err = crease_error(&["resume", dir, "--quiet"]);
        assert!(
            err.contains("checkpoint.json") && err.contains("checksum does not match"),
            "{err}"
        );
    }
    let number = text.find("\"x\":[[").expect("positions") + 7;
    let mut edited = text.clone();
    edited.replace_range(
        number..number + 1,
        if &text[number..number + 1] == "1" { "2" } else { "1" },
    );
    std::fs::write(parts.join("checkpoint.json"), edited).unwrap();
    assert!(crease_error(&["resume", dir, "--quiet"]).contains("checksum does not match"));
    // The scene changed since the checkpoint (a checkpoint crease wrote,
    // of other settings).
    let mut c = c;
    c.scene.sets = vec!["timeline.rest.duration=0.4".into()];
    c.write(&parts).unwrap();
    let o = crease(&["resume", dir, "--quiet"]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        !o.status.success() && err.contains("has changed since the checkpoint"),
        "{err}"
    );
    std::fs::remove_dir_all(&whole).ok();
    std::fs::remove_dir_all(&parts).ok();
}

/// The multilevel preconditioner keeps its hierarchy from solve to solve
/// and builds it afresh after every output frame, where a resumed run
/// (whose checkpoint holds no hierarchy) starts: both write the same
/// frames.
#[test]
fn a_multilevel_run_resumed_mid_hold_writes_the_same_frames() {
    let sets = [
        "--set",
        "timeline.rest.duration=0.3",
        "--set",
        "solver.preconditioner=multilevel",
    ];
    let whole = temp("run-multilevel-whole");
    run_ablation(&whole, &sets);
    let parts = temp("run-multilevel-parts");
    let mut first = sets.to_vec();
    first.extend(["--until", "0.26", "--checkpoint-every", "1"]);
    run_ablation(&parts, &first);
    let o = crease(&["resume", parts.to_str().unwrap(), "--quiet"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert_same_ending(&whole, &parts);
    std::fs::remove_dir_all(&whole).ok();
    std::fs::remove_dir_all(&parts).ok();
}

#[test]
fn ctrl_c_leaves_a_checkpoint_that_resumes() {
    let out = temp("run-interrupt");
    let dir = out.to_str().unwrap();
    let child = Command::new(env!("CARGO_BIN_EXE_crease"))
        .args(ablation_args(dir, &[]))
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("run crease");
    // Once a few frames are out, interrupt it as a terminal's Ctrl-C does.
    let frames = out.join("frames");
    let started = std::time::Instant::now();
    while std::fs::read_dir(&frames).map(|d| d.count()).unwrap_or(0) < 5 {
        assert!(started.elapsed().as_secs() < 60, "no frames written");
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    let kill = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .expect("kill");
    assert!(kill.success());
    let o = child.wait_with_output().expect("wait");
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        !o.status.success() && err.contains("interrupted") && err.contains("crease resume"),
        "{err}"
    );
    assert!(out.join("checkpoint.json").exists(), "no checkpoint");
    let o = crease(&["resume", dir, "--quiet"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(
        out.join("frames").join("00130.obj").exists(),
        "the resumed run did not reach the end"
    );
    // It ends where a run never interrupted does, to the byte.
    let whole = temp("run-uninterrupted");
    run_ablation(&whole, &[]);
    assert_same_ending(&out, &whole);
    std::fs::remove_dir_all(&out).ok();
    std::fs::remove_dir_all(&whole).ok();
}

/// A stiff system the solve cannot finish within its iteration cap (a
/// 2121-vertex strip of 0.5 mm edges at 10 ms steps, from rest) stops with
/// an error that says so and names `solver.max_iterations`, not "blew up":
/// with the cap raised the same step converges.
#[test]
fn a_solve_that_needs_more_iterations_says_so() {
    let out = temp("run-stiff");
    std::fs::create_dir_all(&out).unwrap();
    let scene = out.join("strip.json");
    let json = serde_json::json!({
        "dt": 0.01,
        "cloth": { "mesh": { "grid": { "size": [0.05, 0.01], "resolution": [100, 20], "plane": "xz" } },
                   "material": "cotton", "damping": 0.01 },
        "handles": { "clamp": { "select": { "side": "left" } } },
        "timeline": [ { "name": "sag", "duration": 0.01 } ]
    });
    std::fs::write(&scene, json.to_string()).unwrap();
    let run = |cap: &str| {
        let set = format!("solver.max_iterations={cap}");
        run_cpu(scene.to_str().unwrap(), &out.join(cap), &["--set", &set])
    };
    let o = run("2000");
    let err = String::from_utf8_lossy(&o.stderr);
    println!("{err}");
    assert!(!o.status.success());
    assert!(
        err.contains("did not converge") && err.contains("raise solver.max_iterations"),
        "{err}"
    );
    assert!(!err.contains("blew up"), "{err}");
    let o = run("20000");
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    std::fs::remove_dir_all(&out).ok();
}

/// A new run into a folder that holds an older one of the same scene
/// replaces it whole: the older run's later frames and its checkpoint go (a
/// render would draw the one, a resume continue the other), and files
/// crease did not write stay, and a killed writer's temporary files go.
/// Another scene's run there needs --force.
#[test]
fn a_run_into_an_old_folder_never_mixes_with_it() {
    let out = temp("run-mix");
    // `scene` on the CPU into the folder, with `extra` options.
    let run = |scene: &str, extra: &[&str]| run_cpu(scene, &out, extra);
    let ok = |o: std::process::Output| assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    ok(run("hang", &["--until", "0.1", "--checkpoint-every", "0.05"]));
    std::fs::write(out.join("notes.txt"), "mine").unwrap();
    // What a killed writer would have left half-written.
    let leftovers = [out.join(".metrics.csv.tmp4242"), out.join("frames/.00007.obj.tmp4242")];
    for path in &leftovers {
        std::fs::write(path, "half").unwrap();
    }
    assert!(out.join("checkpoint.json").exists() && out.join("frames/00005.obj").exists());
    ok(run("hang", &["--until", "0.04"]));
    let frames = std::fs::read_dir(out.join("frames")).unwrap().count();
    assert_eq!(frames, 3, "frames 0, 1, 2 only");
    assert!(leftovers.iter().all(|p| !p.exists()));
    assert!(!out.join("checkpoint.json").exists());
    assert_eq!(std::fs::read_to_string(out.join("notes.txt")).unwrap(), "mine");
    let metrics = std::fs::read_to_string(out.join("metrics.csv")).unwrap();
    assert_eq!(metrics.lines().count(), 4);
    // Another scene's run is refused there, and changes nothing, unless
    // told to replace it.
    let o = run("drape", &["--until", "0.004"]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(!o.status.success() && err.contains("--force"), "{err}");
    assert_eq!(std::fs::read_dir(out.join("frames")).unwrap().count(), 3);
    ok(run("drape", &["--until", "0.004", "--force"]));
    assert!(
        std::fs::read_to_string(out.join("run.json"))
            .unwrap()
            .contains("\"source\": \"drape\"")
    );
    let metrics = std::fs::read_to_string(out.join("metrics.csv")).unwrap();
    let frames = std::fs::read_dir(out.join("frames")).unwrap().count();
    assert!(frames < 3 && metrics.lines().count() == frames + 1, "{frames} frames");
    assert_eq!(std::fs::read_to_string(out.join("notes.txt")).unwrap(), "mine");
    std::fs::remove_dir_all(&out).ok();
}

/// A run that blows up while its numbers stay finite (Bridson's mixed
/// scheme, elastic forces explicit, at 50 ms steps: a 2.4 g sheet reached
/// 5e7 J and edges 240 times their length) stops and says so, its frames
/// up to there kept, where it ran on and exited 0.
#[test]
fn a_run_that_blows_up_stops_and_says_why() {
    let out = temp("run-boom");
    let sets = ["integrator=bridson-mixed", "dt=0.05", "output.frame_interval=0.05"];
    let o = run_cpu(
        "hang",
        &out,
        &sets.iter().flat_map(|s| ["--set", s]).collect::<Vec<_>>(),
    );
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        !o.status.success()
            && err.contains("blew up")
            && err.contains("times its rest length")
            && err.contains("stable on this mesh only below about 8.660e-4 s a step"),
        "{err}"
    );
    let frames = std::fs::read_dir(out.join("frames")).unwrap().count();
    let metrics = std::fs::read_to_string(out.join("metrics.csv")).unwrap();
    assert!(frames > 1 && metrics.lines().count() == frames + 1, "{frames} frames");
    std::fs::remove_dir_all(&out).ok();
}

/// A body whose contact layer is thicker than the trousers' edges (1 m,
/// where the scene keeps 3 mm) throws the cloth off it and blows the run
/// up within 40 steps: the message names that field and its value before
/// the step's advice, which alone would send the user to `dt`. (With block
/// Jacobi, which gets there in 10 s, where the scene's multilevel solve
/// takes 36.)
#[test]
fn a_blow_up_names_an_obstacle_thicker_than_the_cloths_edges() {
    let out = temp("run-thick");
    let sets = [
        "--set",
        "obstacles.body.thickness=1",
        "--set",
        "solver.preconditioner=jacobi",
    ];
    let o = run_cpu("trousers-sit", &out, &sets);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(!o.status.success() && err.contains("blew up"), "{err}");
    assert!(
        err.contains("obstacles.body.thickness is 1 m, longer than the cloth's mean edge"),
        "{err}"
    );
    std::fs::remove_dir_all(&out).ok();
}

/// A frame interval of one step over a hold of a million seconds would
/// write a billion frames: the run is refused before it starts, naming
/// the field, and the previous run's outputs in the folder stay.
#[test]
fn a_run_whose_frames_would_fill_the_disk_is_refused_before_it_starts() {
    let out = temp("run-room");
    let o = run_cpu("twist", &out, &["--until", "0.002"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let metrics = std::fs::read_to_string(out.join("metrics.csv")).unwrap();
    let huge = [
        "--set",
        "timeline.hold.duration=1e6",
        "--set",
        "output.frame_interval=0.001",
    ];
    let o = run_cpu("twist", &out, &huge);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        !o.status.success()
            && err.contains("would write 1000000501 output frames")
            && err.contains("raise output.frame_interval (now 0.001 s, 1 step a frame)")
            && err.contains("--until"),
        "{err}"
    );
    assert_eq!(std::fs::read_to_string(out.join("metrics.csv")).unwrap(), metrics);
    assert!(out.join("frames/00000.obj").is_file());
    // `crease check` says as much before any run.
    let o = crease(&[&["check", "twist"][..], &huge].concat());
    let said = String::from_utf8_lossy(&o.stdout);
    assert!(
        o.status.success() && said.contains(": 1000000501 frames, about "),
        "{said}"
    );
    // An experiment's variants are reckoned together before any starts
    // (each alone may fit where all do not; here none does), and the
    // advice names what an experiment can shorten.
    let lab = temp("run-room-experiment");
    let o = crease(&[
        "experiment",
        "ablation-friction",
        "--backend",
        "cpu",
        "--quiet",
        "--out",
        lab.to_str().unwrap(),
        "--set",
        "timeline.rest.duration=1e6",
        "--set",
        "output.frame_interval=0.002",
    ]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        !o.status.success()
            && err.contains("the 7 runs would write 3500003857 output frames")
            && err.contains("shorten the phases"),
        "{err}"
    );
    assert!(!lab.exists(), "the experiment's folder was made");
    std::fs::remove_dir_all(&out).ok();
}
