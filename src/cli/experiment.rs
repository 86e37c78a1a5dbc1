//! `crease experiment`: every variant of one of the papers' experiments, and its table.

use super::{BackendChoice, make_backend_on, make_renderer, on_gpu, resolve};
use anyhow::Result;
use crease::experiment::WORST;
use crease::output;
use crease::scene::Scene;
use std::path::PathBuf;

#[derive(clap::Args)]
pub struct ExperimentArgs {
    pub name: String,
    /// Output folder (default: out/<experiment>); each variant's run
    /// goes to DIR/<variant>/.
    #[arg(long)]
    pub out: Option<PathBuf>,
    #[arg(long, value_enum, default_value = "auto")]
    pub backend: BackendChoice,
    /// Override a field of every variant's scene: PATH=VALUE (repeatable).
    #[arg(long = "set", value_name = "PATH=VALUE")]
    pub set: Vec<String>,
    /// No per-variant progress lines.
    #[arg(long)]
    pub quiet: bool,
    /// Variants run at once on the CPU backend, sharing the cores (default:
    /// one per core, or per variant where there are fewer); the GPU
    /// backend runs one at a time. The results are the same bytes whatever
    /// the number.
    #[arg(long)]
    pub jobs: Option<usize>,
    /// Run only these variants (comma-separated, e.g.
    /// cotton-sit-long,cotton-sit-short); the tables and pictures then
    /// show only them.
    #[arg(long, value_delimiter = ',', value_name = "NAME,...")]
    pub variants: Vec<String>,
}

pub fn experiment(args: ExperimentArgs) -> Result<()> {
    let ExperimentArgs {
        name,
        out,
        backend,
        set,
        quiet,
        jobs,
        variants,
    } = args;
    super::check_jobs(jobs, "variants run")?;
    let mut exp = crease::experiment::find(&name)?;
    if !variants.is_empty() {
        exp.keep(&variants)?;
    }
    let out_dir = out.unwrap_or_else(|| PathBuf::from("out").join(&name));
    super::check_output("--out", &out_dir, true)?;
    let count = exp.variants.len();
    // Resolved once, not per variant (each would probe the GPU).
    let backend = resolve(backend);
    let renderer = make_renderer(backend)?;
    // rayon's global pool's size: RAYON_NUM_THREADS or the cores.
    let cores = rayon::current_num_threads();
    let jobs = match (on_gpu(backend)?, jobs) {
        (true, Some(n)) if n > 1 => {
            eprintln!(
                "--jobs {n}: the GPU backend runs the variants one at a time (--backend cpu runs them side by side)"
            );
            1
        }
        (true, _) => 1,
        // No more at once than there are variants, so that one variant
        // (`--variants`) gets every core.
        (false, n) => n.unwrap_or(cores).min(count.max(1)),
    };
    // The cores shared among the variants running at once.
    let threads = (cores / jobs).max(1);
    let result = crease::experiment::run(
        &exp,
        &set,
        &out_dir,
        &|scene: &Scene| make_backend_on(backend, scene, threads),
        &renderer,
        &|k, variant| {
            if !quiet {
                eprintln!("[{}/{count}] {name}: {variant}", k + 1);
            }
        },
        jobs,
    )?;
    print!("{:<24}", "variant");
    for c in exp.columns {
        print!(" {c:>26}");
    }
    println!(" {:>9}", "wall_s");
    for v in result["variants"].as_array().into_iter().flatten() {
        print!("{:<24}", v["name"].as_str().unwrap_or(""));
        for c in exp.columns {
            let value = match c.strip_prefix(WORST) {
                Some(name) => v["summary"]["worst"][name].as_f64(),
                None => v["derived"][*c].as_f64().or(v["summary"]["final"][*c].as_f64()),
            };
            print!(" {:>26.6}", value.unwrap_or(f64::NAN));
        }
        println!(" {:>9.1}", v["summary"]["wall_seconds"].as_f64().unwrap_or(0.0));
    }
    for v in result["variants"].as_array().into_iter().flatten() {
        if let Some(w) = output::unconverged_warning(v["name"].as_str().unwrap_or(""), &v["summary"]) {
            eprintln!("{w}");
        }
    }
    // A garment's groups (knees, seat...), each variant's in turn: on the
    // body, and after it is taken away where it is.
    print_groups(&result, "groups", "");
    print_groups(&result, "bare_groups", "\nWith the body taken away (Gong Fig. 6 e-h):");
    let pictures = result["pictures"].as_array().into_iter().flatten();
    let written: Vec<String> = std::iter::once("experiment.json")
        .chain(pictures.filter_map(|p| p.as_str()))
        .map(|name| out_dir.join(name).display().to_string())
        .collect();
    println!("-> {}", written.join(", "));
    Ok(())
}

/// The table of every variant's `key` groups (`groups`, `bare_groups`),
/// under `title`; nothing where no variant has them.
fn print_groups(result: &serde_json::Value, key: &str, title: &str) {
    let grouped = result["variants"].as_array().into_iter().flatten().filter_map(|v| {
        let groups = v[key].as_object().filter(|g| !g.is_empty())?;
        Some((v["name"].as_str().unwrap_or(""), groups))
    });
    for (k, (variant, groups)) in grouped.enumerate() {
        if k == 0 {
            println!(
                "{title}\n{:<24} {:<12} {:>8} {:>14} {:>14} {:>22} {:>9}",
                "variant", "group", "hinges", "mean_abs_bend", "max_abs_bend", "mean_abs_plastic_bend", "wrinkles"
            );
        }
        for (group, g) in groups {
            let f = |key: &str| g[key].as_f64().unwrap_or(f64::NAN);
            println!(
                "{variant:<24} {group:<12} {:>8} {:>14.5} {:>14.5} {:>22.5} {:>9}",
                g["hinges"],
                f("mean_abs_bend"),
                f("max_abs_bend"),
                f("mean_abs_plastic_bend"),
                g["wrinkles"]
            );
        }
    }
}
