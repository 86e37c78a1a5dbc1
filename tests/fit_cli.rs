//! `crease fit` through the binary, as a user runs it on the files they
//! wrote: the parameters and plot it writes, and its errors (the fits
//! themselves are tests/fit.rs).

mod common;

use common::tools::{crease, crease_error, png_summary, temp};
use crease::fit::{bending, stretch};

#[test]
fn fit_stretch_bending_and_recovery_write_parameters_and_a_plot() {
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
