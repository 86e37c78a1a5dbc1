//! The hostile-input corpus (`tests/hostile/`): bad scenes, OBJs, CSVs,
//! options and damaged run folders, each run through the `crease` binary
//! with the exit code and the message fragments it must give
//! (`tests/hostile/cases.json`). A case fails on a panic, an abort (a
//! signal), a hang (no exit within `LIMIT`), an error where a result was
//! due or a result where an error was, or a message missing a fragment;
//! the tally of each is printed.

mod common;

use common::tools::folder;
use serde_json::Value;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// Longer than any case takes (the slowest, a blown-up run, about a
/// second); a case still running then is a hang.
const LIMIT: Duration = Duration::from_secs(120);

/// What one case did.
#[derive(Debug, PartialEq)]
enum Outcome {
    /// The exit code and every fragment expected.
    Clean,
    Panic,
    /// Killed by a signal (an allocation abort, a stack overflow).
    Abort,
    Hang,
    /// Exit 0 where an error was due.
    Silent,
    /// Another exit code, or a fragment missing.
    Wrong(String),
}

/// Runs `crease args`, killed past `LIMIT`; (exit code or None, stderr and
/// stdout together, whether it hung).
fn run(args: &[String]) -> (Option<i32>, String, bool) {
    let dir = folder("hostile-io");
    let (out, err) = (dir.join("stdout"), dir.join("stderr"));
    let mut child = Command::new(env!("CARGO_BIN_EXE_crease"))
        .args(args)
        .stdout(Stdio::from(std::fs::File::create(&out).unwrap()))
        .stderr(Stdio::from(std::fs::File::create(&err).unwrap()))
        .spawn()
        .expect("start crease");
    let start = Instant::now();
    let (status, hung) = loop {
        if let Some(s) = child.try_wait().unwrap() {
            break (Some(s), false);
        }
        if start.elapsed() > LIMIT {
            child.kill().ok();
            child.wait().ok();
            break (None, true);
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let text = std::fs::read_to_string(&err).unwrap() + &std::fs::read_to_string(&out).unwrap();
    std::fs::remove_dir_all(&dir).ok();
    (status.and_then(|s| s.code()), text, hung)
}

/// `{dir}` (the corpus) and `{out}` (the case's own folder) in `arg`.
fn expand(arg: &Value, corpus: &Path, out: &Path) -> String {
    arg.as_str()
        .unwrap()
        .replace("{dir}", corpus.to_str().unwrap())
        .replace("{out}", out.to_str().unwrap())
}

/// A run folder of `tiny.json` with a checkpoint at its frame 2, then the
/// case's damage to one of its files.
fn start_run(corpus: &Path, out: &Path, edit: Option<&Value>) {
    let scene = corpus.join("tiny.json");
    let args = [
        "run",
        scene.to_str().unwrap(),
        "--backend",
        "cpu",
        "--quiet",
        "--out",
        out.to_str().unwrap(),
        "--until",
        "0.04",
        "--checkpoint-every",
        "0.02",
    ]
    .map(String::from);
    let (code, text, _) = run(&args);
    assert_eq!(code, Some(0), "the run the case starts from: {text}");
    let Some(edit) = edit else { return };
    let path = out.join(edit["file"].as_str().unwrap());
    if edit["remove"].as_bool() == Some(true) {
        std::fs::remove_file(&path).unwrap();
        return;
    }
    let text = std::fs::read_to_string(&path).unwrap();
    let damaged = if let Some([from, to]) = edit["replace"].as_array().map(|a| [&a[0], &a[1]]) {
        let (from, to) = (from.as_str().unwrap(), to.as_str().unwrap());
        assert!(text.contains(from), "{} holds no `{from}`", path.display());
        text.replacen(from, to, 1)
    } else if let Some(n) = edit["keep_bytes"].as_u64() {
        text[..n as usize].to_string()
    } else if let Some(n) = edit["keep_lines"].as_u64() {
        text.lines().take(n as usize).map(|l| format!("{l}\n")).collect()
    } else {
        panic!("unknown edit {edit}");
    };
    std::fs::write(&path, damaged).unwrap();
}

fn outcome(case: &Value, corpus: &Path) -> (Outcome, String) {
    let out = folder("hostile-case");
    if case["start"].as_bool() == Some(true) {
        start_run(corpus, &out, case.get("edit"));
    }
    let args: Vec<String> = case["args"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| expand(a, corpus, &out))
        .collect();
    let want = case["exit"].as_i64().unwrap_or(1) as i32;
    let (code, text, hung) = run(&args);
    std::fs::remove_dir_all(&out).ok();
    let missing: Vec<&str> = case["says"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s.as_str().unwrap())
        .filter(|s| !text.contains(s))
        .collect();
    let got = match code {
        _ if hung => Outcome::Hang,
        _ if text.contains("panicked") => Outcome::Panic,
        None => Outcome::Abort,
        Some(0) if want != 0 => Outcome::Silent,
        Some(c) if c != want => Outcome::Wrong(format!("exit {c}, not {want}")),
        _ if !missing.is_empty() => Outcome::Wrong(format!("no {missing:?}")),
        _ => Outcome::Clean,
    };
    (got, text)
}

#[test]
fn every_hostile_input_gets_its_clear_error() {
    let corpus = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/hostile");
    let cases: Vec<Value> = serde_json::from_str(&std::fs::read_to_string(corpus.join("cases.json")).unwrap()).unwrap();
    let mut failures = Vec::new();
    let mut tally = [0usize; 6];
    for case in &cases {
        let (got, text) = outcome(case, &corpus);
        let k = match got {
            Outcome::Clean => 0,
            Outcome::Panic => 1,
            Outcome::Abort => 2,
            Outcome::Hang => 3,
            Outcome::Silent => 4,
            Outcome::Wrong(_) => 5,
        };
        tally[k] += 1;
        if got != Outcome::Clean {
            failures.push(format!("{}: {got:?}\n{text}", case["case"]));
        }
    }
    let results = cases.iter().filter(|c| c["exit"].as_i64() == Some(0)).count();
    println!(
        "{} cases ({} errors due, {results} results due): {} clean, {} panics, {} aborts, {} hangs, {} silent exits, \
         {} wrong messages",
        cases.len(),
        cases.len() - results,
        tally[0],
        tally[1],
        tally[2],
        tally[3],
        tally[4],
        tally[5]
    );
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}
